"""`assay evaluate --config`, the recorded `_config.json` and `assay rescore`, driven as a user
drives them: every reports directory can be scored again into the same verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from _cli import assay, explain

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def verdicts(directory: Path) -> dict[str, Any]:
    """Each run's results.jsonl line, but where it was read from and the report's name."""
    found = {}
    for raw in (directory / "results.jsonl").read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        found[line["run_id"]] = {
            k: v for k, v in line.items() if k not in ("source", "report_file")
        }
    return found


def test_a_live_directory_rescored_gives_its_own_verdicts(tmp_path: Path) -> None:
    live, again = tmp_path / "live", tmp_path / "again"
    ran = assay(
        "run", f"{EXAMPLES}/agents/agent.py:agent", f"{EXAMPLES}/agents/evalset.jsonl",
        "--timeout", "2", "--repeat", "2", "--concurrency", "6", "--reports-dir", str(live),
        cwd=tmp_path,
    )
    assert ran.returncode == 0, explain(ran)  # one case fails, one times out: no --fail-under
    config = json.loads((live / "_config.json").read_text(encoding="utf-8"))
    assert list(config["criteria"]) == ["tool_match", "trajectory", "response"]
    proc = assay("rescore", str(live), "--reports-dir", str(again), cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert verdicts(again) == verdicts(live)
    reasons = {v["score"]["details"].get("reason") for v in verdicts(again).values()}
    assert "timeout" in reasons  # a run that failed stays failed, never scored
    assert (again / "_config.json").read_text() == (live / "_config.json").read_text()


def test_evaluate_records_its_config_and_config_reads_it_back(tmp_path: Path) -> None:
    runs, scenarios = EXAMPLES / "trajectories", EXAMPLES / "scenarios"
    first = tmp_path / "first"
    proc = assay(
        "evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
        "--reports-dir", str(first), "--scorer", "static_json", "--scorer", "trajectory",
        "-S", "trajectory.mode=unordered", cwd=tmp_path,
    )
    assert proc.returncode == 0, explain(proc)
    config = json.loads((first / "_config.json").read_text(encoding="utf-8"))
    assert list(config["criteria"]) == ["static_json", "trajectory"]
    assert config["scorer_options"] == {"trajectory": {"mode": "unordered"}}

    second = tmp_path / "second"
    proc = assay(
        "evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
        "--reports-dir", str(second), "--config", str(first / "_config.json"), cwd=tmp_path,
    )
    assert proc.returncode == 0, explain(proc)
    assert verdicts(second) == verdicts(first)

    third = tmp_path / "third"
    proc = assay("rescore", str(first), "--reports-dir", str(third), cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert verdicts(third) == verdicts(first)


def test_rescore_with_another_config_checks_the_runs_that_way(tmp_path: Path) -> None:
    runs, scenarios = EXAMPLES / "trajectories", EXAMPLES / "scenarios"
    first = tmp_path / "first"
    proc = assay("evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
                  "--reports-dir", str(first), cwd=tmp_path)
    assert proc.returncode in (0, 1), explain(proc)
    assert json.loads((first / "_config.json").read_text()) == {"scorer_default": "static_json"}
    other = tmp_path / "max_turns.json"
    other.write_text(json.dumps(
        {"criteria": {"short": {"scorer_name": "max_turns", "options": {"limit": 1}}}}
    ))
    out = tmp_path / "out"
    proc = assay("rescore", str(first), "--reports-dir", str(out), "--config", str(other),
                 cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert {v["score"]["scorer"] for v in verdicts(out).values()} == {"short"}


def test_configs_and_directories_that_cannot_be_used_are_refused(tmp_path: Path) -> None:
    runs, scenarios = EXAMPLES / "trajectories", EXAMPLES / "scenarios"
    bad = tmp_path / "bad.json"
    bad.write_text('{"criteria": {"x": {"scorer_name": "static_json", "weight": -1}}}')
    base = ("evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
            "--reports-dir", str(tmp_path / "out"))
    proc = assay(*base, "--config", str(bad), cwd=tmp_path)
    assert proc.returncode == 3 and "criteria.x.weight" in proc.stderr, explain(proc)
    proc = assay(*base, "--config", str(bad), "--scorer", "trajectory", cwd=tmp_path)
    assert proc.returncode == 2 and "give one" in proc.stderr, explain(proc)
    proc = assay(*base, "--config", str(tmp_path / "missing.json"), cwd=tmp_path)
    assert proc.returncode == 3, explain(proc)
    fifo = tmp_path / "config.fifo"
    os.mkfifo(fifo)  # read as a config, it would wait for a writer forever
    proc = assay(*base, "--config", str(fifo), cwd=tmp_path, timeout=60)
    assert proc.returncode == 3 and "not a regular file" in proc.stderr, explain(proc)
    real = tmp_path / "real.json"
    real.write_text('{"scorer_default": "static_json"}')
    (tmp_path / "link.json").symlink_to(real)  # a link to a config is followed
    proc = assay(*base, "--config", str(tmp_path / "link.json"), cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    proc = assay("rescore", str(runs), "--reports-dir", str(tmp_path / "r"), cwd=tmp_path)
    assert proc.returncode == 3 and "not a reports directory" in proc.stderr, explain(proc)
    assert not (tmp_path / "r").exists()


@pytest.mark.reports_not_validated  # the directory is a hand-made, partial one
def test_a_directory_whose_runs_cannot_be_read_is_no_runs_found(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / ".assay_reports").write_text("{}")
    (reports / "_config.json").write_text('{"scorer_default": "static_json"}')
    (reports / "_aggregate.json").write_text(
        '{"options": {"trajectories": "/dev/zero", "scenarios": ["/dev/zero"]}}'
    )
    proc = assay("rescore", str(reports), "--reports-dir", str(tmp_path / "out"), cwd=tmp_path,
                 timeout=60)
    assert proc.returncode == 3 and "no runs found" in proc.stderr, explain(proc)
    unreadable = json.loads((tmp_path / "out" / "_aggregate.json").read_text())["not_scored"]
    assert unreadable["unreadable"][0]["reason"] == "cannot read file: not a regular file"
