"""`assay compare BASE NEW` end to end: two evaluations written by `assay evaluate`, compared
by the real command, its console, Markdown and JSON outputs read back."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from _cli import assay, explain
from assay.cli import compare as compare_command
from assay.cli.main import main
from assay.reports.compare.console import ROWS_PER_SCORER, print_comparison
from assay.reports.compare.diff import compare_lines
from assay.schema.compare import Comparison

REPO = Path(__file__).resolve().parents[2]

GOLD = {str(k): str(10 + k) for k in range(1, 9)}
"""Eight scenarios, gold answer `1k`."""


def evaluated(root: Path, answers: dict[str, str], *options: str) -> Path:
    """`assay evaluate` over one run per scenario (scenario -> answer), plus a second run of
    scenario 1 that answers it right; returns the reports directory."""
    runs, scenarios, out = root / "runs", root / "scenarios", root / "out"
    runs.mkdir(parents=True)
    for scenario, gold in GOLD.items():
        (scenarios / f"scenario_{scenario}").mkdir(parents=True, exist_ok=True)
        (scenarios / f"scenario_{scenario}" / "groundtruth.txt").write_text(gold)
    for scenario, answer in answers.items():
        record = {"run_id": f"run-{scenario}", "scenario_id": scenario, "answer": answer}
        (runs / f"{scenario}.json").write_text(json.dumps(record))
    extra = {"run_id": "run-1b", "scenario_id": "1", "answer": GOLD["1"]}
    (runs / "1b.json").write_text(json.dumps(extra))
    code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
                 "--reports-dir", str(out), "--workers", "1", "-q", *options])
    assert code == 0
    return out


@pytest.fixture
def two_evaluations(tmp_path: Path) -> tuple[Path, Path]:
    """BASE answers every scenario right; NEW (a changed agent) gets scenarios 1-6 wrong and
    7-8 right (the second run of scenario 1 is right on both sides)."""
    base = evaluated(tmp_path / "base", dict(GOLD))
    changed = {scenario: ("999" if int(scenario) <= 6 else gold)
               for scenario, gold in GOLD.items()}
    new = evaluated(tmp_path / "new", changed)
    return base, new


def compare(
    capsys: pytest.CaptureFixture[str], *args: str | Path
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["compare", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_changed_agent_that_got_worse_regresses_significantly(
    two_evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_evaluations
    markdown, report = tmp_path / "comment.md", tmp_path / "compare.json"
    code, out, err = compare(
        capsys, base, new, "--markdown", markdown, "--json", report, "--fail-on-regression"
    )
    assert code == 1
    assert "regressed significantly: static_json" in err
    assert out.splitlines()[:2] == [
        "pass rate 100.0% → 33.3% (-66.7 pts): 6 regressions, 0 fixes, 3 unchanged",
        "verdict: REGRESSED significantly: static_json",
    ]
    assert "p=0.031 (6 pass→fail, 0 fail→pass)" in out  # p = 2/64

    data = json.loads(report.read_text())
    Comparison.model_validate(data)
    figures = data["scorers"]["static_json"]
    assert figures["regressed"] == [f"run-{k}" for k in range(1, 7)]
    assert figures["unchanged"] == ["run-1b", "run-7", "run-8"]
    assert figures["improved"] == [] and figures["only_in_base"] == []
    assert figures["p_value"] == pytest.approx(2 / 64)
    assert figures["mean_delta"] == pytest.approx(-6 / 9)
    assert figures["ci"][1] < 0 and figures["significant"]
    assert (figures["n_paired"], figures["n_scenarios"]) == (9, 8)
    assert (data["alpha"], data["resamples"], data["seed"]) == (0.05, 10_000, 20240521)
    assert data["verdict"] == "regressed" and data["warnings"] == []

    text = markdown.read_text()
    assert text.splitlines()[0] == (
        "## assay compare — pass rate 100.0% → 33.3% (-66.7 pts): 6 regressions, 0 fixes, "
        "3 unchanged"
    )
    assert text.splitlines()[2] == "Verdict: **REGRESSED** significantly: static_json."
    assert "### Regressed: static_json (6)" in text
    assert "| run-3 | 3 | pass 1.000 → fail 0.000 |" in text


def test_without_the_flag_a_regression_exits_0_and_the_swap_is_an_improvement(
    two_evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_evaluations
    assert compare(capsys, base, new)[0] == 0
    code, out, _ = compare(capsys, new, base, "--fail-on-regression", "--json",
                           tmp_path / "swapped.json")
    assert code == 0
    assert out.splitlines()[:2] == [
        "pass rate 33.3% → 100.0% (+66.7 pts): 0 regressions, 6 fixes, 3 unchanged",
        "verdict: IMPROVED significantly: static_json",
    ]
    swapped = json.loads((tmp_path / "swapped.json").read_text())["scorers"]["static_json"]
    assert swapped["improved"] == [f"run-{k}" for k in range(1, 7)]


def test_the_same_seed_gives_the_same_json_and_the_options_are_recorded(
    two_evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_evaluations
    outputs = []
    for name, seed in (("a", "3"), ("b", "3"), ("c", "4")):
        path = tmp_path / f"{name}.json"
        compare(capsys, base, new, "--json", path, "--seed", seed, "--resamples", "300",
                "--alpha", "0.1")
        outputs.append(json.loads(path.read_text()))
    assert outputs[0] == outputs[1]
    assert (outputs[0]["seed"], outputs[0]["resamples"], outputs[0]["alpha"]) == (3, 300, 0.1)
    assert outputs[2]["seed"] == 4


def test_different_scorer_options_are_compared_after_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = evaluated(tmp_path / "base", dict(GOLD))
    new = evaluated(tmp_path / "new", dict(GOLD), "-S", "static_json.list_order=position")
    code, out, err = compare(capsys, base, new)
    assert code == 0
    assert "assay: warning: static_json options differ: list_order null -> position" in err
    assert out.splitlines()[:2] == [
        "pass rate 100.0% → 100.0% (+0.0 pts): 0 regressions, 0 fixes, 9 unchanged",
        "verdict: no change in 9 paired runs",
    ]


@pytest.mark.reports_not_validated
def test_a_missing_or_unreadable_directory_exits_3_and_bad_arguments_2(
    two_evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, _ = two_evaluations
    code, _, err = compare(capsys, base, tmp_path / "missing")
    assert code == 3 and "not a directory" in err
    (tmp_path / "empty").mkdir()
    code, _, err = compare(capsys, tmp_path / "empty", base)
    assert code == 3 and "no _aggregate.json" in err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "_aggregate.json").write_text("{")
    code, _, err = compare(capsys, base, broken)
    assert code == 3 and "invalid JSON" in err
    for bad in (["--alpha", "1.5"], ["--alpha", "nan"], ["--resamples", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["compare", str(base), str(base), *bad])
        assert exit_info.value.code == 2
    code, _, err = compare(capsys, base, base, "--json", tmp_path / "no" / "such" / "x.json")
    assert code == 3 and "cannot write" in err
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link.md").symlink_to(tmp_path / "elsewhere.md")
    for option, target in (("--json", "fifo"), ("--markdown", "link.md"), ("--json", ".")):
        code, _, err = compare(capsys, base, base, option, tmp_path / target)
        assert code == 3 and "not a regular file" in err, err
    assert not (tmp_path / "elsewhere.md").exists()
    # Never onto a file of a reports directory compared (it would replace results.jsonl).
    lines = (base / "results.jsonl").read_bytes()
    code, _, err = compare(capsys, base, base, "--json", base / "results.jsonl")
    assert code == 3 and "a report of" in err, err
    assert (base / "results.jsonl").read_bytes() == lines


@pytest.mark.reports_not_validated
def test_lines_that_are_not_results_are_listed_not_fatal(
    two_evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_evaluations
    with (new / "results.jsonl").open("a") as results:
        results.write('[1]\n{"scenario_id": 5}\n')
    code, out, _ = compare(capsys, base, new, "--json", tmp_path / "c.json")
    assert code == 0
    problems = json.loads((tmp_path / "c.json").read_text())["problems"]
    assert [problem["side"] for problem in problems] == ["new", "new"]
    assert "not a JSON object" in problems[0]["reason"]
    assert "no scenario_id" in problems[1]["reason"]
    assert "not compared (2)" in out


def test_hostile_run_ids_are_text_in_every_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "x|`y`<script>[z](javascript:alert(1))\x1b[2J"
    root = tmp_path / "runs"
    for side, answer in (("base", "11"), ("new", "0")):
        (root / side).mkdir(parents=True)
        record = {"run_id": hostile, "scenario_id": "1", "answer": answer}
        (root / side / "r.json").write_text(json.dumps(record))
    (tmp_path / "gt" / "scenario_1").mkdir(parents=True)
    (tmp_path / "gt" / "scenario_1" / "groundtruth.txt").write_text("11")
    for side in ("base", "new"):
        assert main(["evaluate", "--trajectories", str(root / side), "--scenarios",
                     str(tmp_path / "gt"), "--reports-dir", str(tmp_path / side), "-q"]) == 0
    code, out, _ = compare(capsys, tmp_path / "base", tmp_path / "new", "--markdown",
                           tmp_path / "c.md", "--json", tmp_path / "c.json")
    assert code == 0
    assert "\x1b" not in out and "\\x1b[2J" in out
    assert json.loads((tmp_path / "c.json").read_text())["scorers"]["static_json"][
        "regressed"
    ] == [hostile]
    text = (tmp_path / "c.md").read_text()
    row = next(line for line in text.splitlines() if "script" in line)
    assert row.startswith("| x\\|\\`y\\`&lt;script>\\[z\\](javascript:alert(1))\\x1b\\[2J |")
    assert "<script" not in text and "[z](" not in text and "\x1b" not in text


def test_the_shipped_changed_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for name in ("trajectories", "trajectories-v2"):
        out = tmp_path / name
        main(["evaluate", "--trajectories", str(REPO / "examples" / name), "--scenarios",
              str(REPO / "examples" / "scenarios"), "--reports-dir", str(out),
              "--scorer", "static_json", "--scorer", "trajectory", "-q"])
        outs.append(out)
    code, out, _ = compare(capsys, *outs, "--json", tmp_path / "c.json")
    assert code == 0
    data = json.loads((tmp_path / "c.json").read_text())["scorers"]
    assert sorted(data) == ["static_json", "static_json+trajectory", "trajectory"]
    assert data["static_json"]["regressed"] == ["13", "15", "16"]
    assert data["static_json"]["improved"] == ["11"]
    assert data["static_json"]["unscored"] == ["11-retry", "17"]
    assert data["static_json"]["only_in_new"] == ["21"]
    assert data["static_json"]["verdict"] == "no significant change"


HOSTILE_RUN = "evil|`x`<script>alert(1)</script>\n| forged | row |"
LONG_RUN = "run-" + "0123456789abcdef" * 6
"""A run id wider than the console's 80 columns, with nowhere to break it."""


def reports(cwd: Path, name: str, right: set[int]) -> Path:
    """`assay evaluate` of seven runs, one per scenario, right on the scenarios in `right`
    (scenario 2's run has a hostile id, scenario 3's a long one); returns `cwd / name`."""
    runs, scenarios = cwd / f"{name}-runs", cwd / "scenarios"
    runs.mkdir(parents=True)
    ids = {2: HOSTILE_RUN, 3: LONG_RUN}
    for k in range(1, 8):
        (scenarios / f"scenario_{k}").mkdir(parents=True, exist_ok=True)
        (scenarios / f"scenario_{k}" / "groundtruth.txt").write_text(str(10 + k))
        record = {"run_id": ids.get(k, f"run-{k}"), "scenario_id": str(k),
                  "answer": str(10 + k) if k in right else "999"}
        (runs / f"{k}.json").write_text(json.dumps(record))
    code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
                 "--reports-dir", str(cwd / name), "--workers", "1", "-q"])
    assert code == 0
    return cwd / name


@pytest.fixture
def small_drop(tmp_path: Path) -> Path:
    """reports-v1 passes scenarios 1-6 of 7, reports-v2 fails 1-3 and passes 4-7: the pass rate
    drops from 85.7% to 57.1% with three regressions and one fix, too few runs for McNemar's
    test (p = 0.625). Returns the directory holding both."""
    reports(tmp_path, "reports-v1", {1, 2, 3, 4, 5, 6})
    reports(tmp_path, "reports-v2", {4, 5, 6, 7})
    return tmp_path


@pytest.mark.slow  # the console script in a new process, as a terminal runs it
def test_a_drop_too_small_to_be_significant_leads_with_its_regressions_in_80_columns(
    small_drop: Path,
) -> None:
    proc = assay("compare", "reports-v1", "reports-v2", "--markdown", "comment.md",
                 cwd=small_drop, env={"COLUMNS": "80"})
    assert proc.returncode == 0, explain(proc)
    lines = proc.stdout.splitlines()
    # What changed comes first, counted; only then what the test makes of it.
    assert lines[0] == "pass rate 85.7% → 57.1% (-28.6 pts): 3 regressions, 1 fix, 3 unchanged"
    assert "signific" not in lines[0]
    assert lines[1] == (
        "verdict: not significant at this size: p=0.625, 7 paired runs in 7 scenarios"
    )
    assert "no significant change" not in proc.stdout
    too_wide = [line for line in lines if len(line) > 80]
    assert too_wide == [], explain(proc)
    joined = "".join(line.strip() for line in lines)
    assert LONG_RUN in joined  # wrapped, not lost
    assert "\\n| forged | row |" in proc.stdout and "\x1b" not in proc.stdout

    text = (small_drop / "comment.md").read_text()
    assert text.splitlines()[0] == (
        "## assay compare — pass rate 85.7% → 57.1% (-28.6 pts): 3 regressions, 1 fix, "
        "3 unchanged"
    )
    assert "BASE reports-v1 (7 runs) → NEW reports-v2 (7 runs)" in text
    assert "| run-1 | 1 | pass 1.000 → fail 0.000 |" in text
    assert "| static_json | not significant | 7 | 85.7% → 57.1% | 0.857 → 0.571 |" in text
    # The hostile id: one cell of one row, as text, its line break written `\n`.
    row = next(line for line in text.splitlines() if "forged" in line)
    assert row.startswith(
        "| evil\\|\\`x\\`&lt;script>alert(1)&lt;/script>\\n\\| forged \\| row \\| | 2 | "
    ), row
    assert len(re.findall(r"(?<!\\)\|", row)) == 5  # the four cells' own pipes
    assert "<script" not in text and "`x`" not in text
    assert not re.search(r"\\[.\-0-9]", text)  # neither `1\.000` nor `reports\-v1`


@pytest.mark.slow  # the console script in a new process, as a terminal runs it
def test_a_wider_terminal_is_used(small_drop: Path) -> None:
    proc = assay("compare", "reports-v1", "reports-v2", cwd=small_drop, env={"COLUMNS": "120"})
    assert proc.returncode == 0, explain(proc)
    widths = [len(line) for line in proc.stdout.splitlines()]
    assert 80 < max(widths) <= 120


@pytest.mark.slow  # the console script in a new process, as a terminal runs it
def test_quiet_prints_nothing_and_verbose_every_changed_run(
    small_drop: Path, two_evaluations: tuple[Path, Path]
) -> None:
    args = ("compare", "reports-v1", "reports-v2")
    proc = assay(*args, "-q", "--json", "c.json", cwd=small_drop)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", ""), explain(proc)
    assert (small_drop / "c.json").is_file()  # the files asked for are still written
    default = assay(*args, cwd=small_drop, env={"COLUMNS": "80"})
    verbose = assay(*args, "-v", cwd=small_drop, env={"COLUMNS": "80"})
    assert verbose.returncode == 0, explain(verbose)
    assert "improved: static_json (1)" in verbose.stdout
    assert "run-7  scenario 7  fail 0.000 → pass 1.000" in verbose.stdout
    assert "improved: static_json" not in default.stdout
    assert max(len(line) for line in verbose.stdout.splitlines()) <= 80
    assert assay(*args, "-q", "-v", cwd=small_drop).returncode == 2

    # -q still says a significant regression, by its exit code and its one error.
    base, new = two_evaluations
    proc = assay("compare", base, new, "-q", "--fail-on-regression")
    assert proc.returncode == 1 and proc.stdout == "", explain(proc)
    assert proc.stderr == "assay: error: regressed significantly: static_json\n"


def test_without_verbose_ten_regressions_are_listed_per_scorer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert compare_command._ROWS == ROWS_PER_SCORER  # what the help says

    def line(run: int, passed: bool) -> dict[str, Any]:
        verdict = {"scorer": "s", "status": "scored", "passed": passed, "score": float(passed),
                   "rationale": "why " * 40}
        return {"scenario_id": str(run), "run_id": f"run-{run}", "score": verdict}

    comparison = compare_lines([line(k, True) for k in range(12)],
                               [line(k, False) for k in range(12)], resamples=100)
    outputs = []
    for verbose in (False, True):
        out = io.StringIO()
        print_comparison(comparison, file=out, verbose=verbose)
        outputs.append(out.getvalue())
        assert max(len(text) for text in out.getvalue().splitlines()) <= 80
    assert "regressed: s (12)" in outputs[0] and "… and 2 more (-v lists them all)" in outputs[0]
    # Scenarios in order of their ids, as text: 0, 1, 10, 11, 2, ..., 7 first.
    assert "run-7  scenario 7" in outputs[0] and "run-9  scenario 9" not in outputs[0]
    assert "more (-v" not in outputs[1] and "run-9  scenario 9" in outputs[1]
    assert "    why why" in outputs[1]  # a long rationale on its own line, cut


@pytest.mark.slow
def test_help_imports_neither_rich_pydantic_nor_the_comparison() -> None:
    code = (
        "import sys\n"
        "from assay.cli.main import main\n"
        "try:\n"
        "    main(['compare', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'pydantic')\n"
        "             or m.startswith('assay.reports')))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_schema_compare_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "compare"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert "ScorerComparison" in schema["$defs"]
    assert schema["$defs"]["ScorerComparison"]["properties"]["ci"]
