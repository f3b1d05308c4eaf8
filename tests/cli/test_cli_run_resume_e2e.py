"""`assay run` killed (kill -9), terminated or interrupted, then the eval set edited (a case
changed, a case removed, ids holding `#`), then `--resume`: the directory agrees with itself
line for line, and with an uninterrupted run of the eval set as it now reads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="POSIX signals")]

AGENT = """
import asyncio

async def agent(messages):
    await asyncio.sleep(0.05)
    text = messages[-1]["content"]
    return "yes" if "yes" in text else "no"
"""


def _case(eval_id: str, asks: str = "yes", expected: str = "yes") -> dict[str, Any]:
    return {"eval_id": eval_id, "user_query": f"say {asks}", "expected_response": expected}


# Ids with `#`: "c#1" and "c#2" are also the run ids of case "c"'s repetitions.
CASES = [_case("a"), _case("b", "no"), _case("c#1"), _case("c", "no"), _case("c#2", "no"),
         *(_case(f"d{i:02d}") for i in range(20))]


def _write(path: Path, cases: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(case) + "\n" for case in cases))


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(project: Path, out: str, *extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "assay", "run", "agent.py:agent", "cases.jsonl",
         "--concurrency", "2", "-q", "--no-progress", "--reports-dir", out, *extra],
        cwd=project, capture_output=True, timeout=120, check=False,
    )


def _verdicts(directory: Path) -> dict[tuple[str, int | None], bool | None]:
    """Each run's verdict, after checking that every file of the directory lists the same
    runs, once each, and that the aggregate counts them."""
    results = _lines(directory / "results.jsonl")
    keys = [(line["scenario_id"], line.get("repeat")) for line in results]
    assert len(keys) == len(set(keys)), keys
    reports = {p.name for p in directory.glob("*.json") if not p.name.startswith("_")}
    assert sorted(line["report_file"] for line in results) == sorted(reports)
    for line in results:
        report = json.loads((directory / line["report_file"]).read_text())
        assert (report["scenario_id"], report.get("repeat")) == (
            line["scenario_id"], line.get("repeat")
        )
        assert report["score"]["passed"] == line["score"]["passed"]
    runs = [(run["scenario_id"], run.get("repeat")) for run in _lines(directory / "runs.jsonl")]
    assert sorted(runs, key=str) == sorted(keys, key=str)
    aggregate = json.loads((directory / "_aggregate.json").read_text())
    assert aggregate["interrupted"] is False
    assert aggregate["totals"]["runs_read"] == aggregate["live"]["runs"] == len(results)
    assert aggregate["live"]["passed"] == sum(line["score"]["passed"] is True for line in results)
    return {key: line["score"]["passed"] for key, line in zip(keys, results, strict=True)}


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_resume_after_a_stop_and_an_edit_agrees_with_an_uninterrupted_run(
    tmp_path: Path, signum: int
) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    _write(tmp_path / "cases.jsonl", CASES)
    command = [sys.executable, "-m", "assay", "run", "agent.py:agent", "cases.jsonl",
               "--concurrency", "2", "-q", "--no-progress", "--reports-dir", "out"]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE)
    results = tmp_path / "out" / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if results.exists() and results.read_bytes().count(b"\n") >= 8:
            break
        time.sleep(0.01)
    process.send_signal(signum)
    process.communicate(timeout=60)
    finished = [line["scenario_id"] for line in _lines(results)]
    assert len(finished) < len(CASES)  # stopped part-way
    # Edit the eval set: the first finished case now expects otherwise, the second is gone.
    edited, removed = finished[0], finished[1]
    cases = [
        _case(c["eval_id"], c["user_query"].split()[-1], "no") if c["eval_id"] == edited else c
        for c in CASES
        if c["eval_id"] != removed
    ]
    _write(tmp_path / "cases.jsonl", cases)

    resumed = _run(tmp_path, "out", "--resume")
    assert resumed.returncode in (0, 1), resumed.stderr
    assert _run(tmp_path, "fresh").returncode in (0, 1)
    verdicts = _verdicts(tmp_path / "out")
    assert verdicts == _verdicts(tmp_path / "fresh")
    assert sorted(case for case, _ in verdicts) == sorted(c["eval_id"] for c in cases)

    # Repeated now: no single run of "c#1" is taken for case "c"'s first repetition.
    assert _run(tmp_path, "out", "--resume", "--repeat", "2").returncode in (0, 1)
    assert _run(tmp_path, "fresh2", "--repeat", "2").returncode in (0, 1)
    assert _verdicts(tmp_path / "out") == _verdicts(tmp_path / "fresh2")
