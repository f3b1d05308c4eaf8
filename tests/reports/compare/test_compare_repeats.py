"""`assay compare` on repeated live runs: runs matched by (scenario, repeat) when both sides
repeated them, and each side's pass@1, pass^n and flaky cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.cli.main import main
from assay.reports.compare.diff import BY_REPEAT, BY_RUN_ID, compare_lines, pair_lines
from assay.schema.compare import Comparison
from repeats_reports import repeat_result, results_of, write_reports


def _line(case: str, run: str | None, repeat: int | None, passed: bool) -> dict[str, Any]:
    verdict = {"scorer": "s", "status": "scored", "passed": passed, "score": float(passed),
               "rationale": ""}  # fmt: skip
    return {"scenario_id": case, "run_id": run, "repeat": repeat, "score": verdict}


def test_repeats_are_matched_by_scenario_and_repeat_whatever_the_run_ids() -> None:
    # BASE ran each case once (runs named after the case), NEW three times (case#k).
    base = [_line("a", "a", 1, True), _line("b", "b", 1, True)]
    new = [_line("a", f"a#{k}", k, k != 2) for k in (1, 2, 3)] + [_line("b", "b#1", 1, False)]
    result = compare_lines(base, new)
    assert result["matched_by"] == BY_REPEAT
    figures = result["scorers"]["s"]
    assert figures["n_paired"] == 2
    assert figures["unchanged"] == ["a"]  # a's first repetition: BASE's name for it
    assert figures["regressed"] == ["b"]
    assert figures["only_in_new"] == ["a#2", "a#3"]
    assert figures["changes"][0]["repeat"] == 1
    pairs = pair_lines(base, new)
    assert [(p.scenario_id, p.repeat, p.label, p.base is not None) for p in pairs] == [
        ("a", 1, "a", True), ("a", 2, "a#2", False), ("a", 3, "a#3", False), ("b", 1, "b", True)
    ]  # fmt: skip


def test_a_live_run_pairs_with_the_same_runs_scored_again_offline_by_run_id() -> None:
    live = [_line("a", f"a#{k}", k, True) for k in (1, 2)]
    rescored = [_line("a", f"a#{k}", None, k == 1) for k in (1, 2)]  # no repeat offline
    result = compare_lines(live, rescored)
    assert result["matched_by"] == BY_RUN_ID
    assert result["scorers"]["s"]["n_paired"] == 2
    assert result["scorers"]["s"]["regressed"] == ["a#2"]
    assert result["scorers"]["s"]["changes"][0]["repeat"] == 2  # BASE's repeat, kept


def test_a_repetition_twice_on_one_side_is_a_problem() -> None:
    base = [_line("a", "a#1", 1, True), _line("a", "other", 1, False)]
    result = compare_lines(base, [_line("a", "a#1", 1, True)])
    assert [p["reason"] for p in result["problems"]] == [
        "result 2: repeat 1 of scenario a appears again; the first is compared"
    ]


@pytest.fixture
def two_live_runs(tmp_path: Path) -> tuple[Path, Path]:
    base, new = tmp_path / "base", tmp_path / "new"
    write_reports(base, results_of({"weather": "PFP", "capital": "PPP", "refund": "FFF"}))
    write_reports(new, results_of({"weather": "PPP", "capital": "PFP", "refund": "FPF"}))
    return base, new


def test_assay_compare_shows_each_sides_pass_at_1_and_flaky_cases(
    two_live_runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = two_live_runs
    out_json, out_md = tmp_path / "compare.json", tmp_path / "compare.md"
    code = main(["compare", str(base), str(new), "--json", str(out_json),
                 "--markdown", str(out_md)])  # fmt: skip
    assert code == 0
    comparison = json.loads(out_json.read_text())
    Comparison.model_validate(comparison)
    assert comparison["matched_by"] == BY_REPEAT
    repeats = comparison["repeats"]
    # BASE pass@1 (2/3 + 1 + 0) / 3; NEW (1 + 2/3 + 1/3) / 3.
    assert repeats["base"]["pass_at_1"] == round(5 / 9, 6)
    assert repeats["new"]["pass_at_1"] == round(2 / 3, 6)
    assert (repeats["base"]["flaky"], repeats["new"]["flaky"]) == (1, 2)
    assert repeats["newly_flaky"] == ["capital", "refund"]
    assert repeats["no_longer_flaky"] == ["weather"]
    # Each repetition paired with the same repetition: 9 runs, all paired.
    assert comparison["scorers"]["response_match"]["n_paired"] == 9
    printed = capsys.readouterr().out
    assert "repeats (runs matched by scenario and repeat)" in printed
    assert "pass@1" in printed and "55.6%" in printed and "66.7%" in printed
    assert "newly flaky (2): capital, refund" in printed
    assert "no longer flaky (1): weather" in printed
    markdown = out_md.read_text()
    assert "### Repeats (runs matched by scenario and repeat)" in markdown
    assert "| flaky cases | 1 | 2 |" in markdown
    assert "Newly flaky (2): capital, refund" in markdown


def test_a_side_without_repeats_shows_none(tmp_path: Path) -> None:
    write_reports(tmp_path / "base", [repeat_result("a", None, "P", repeats=1)])
    write_reports(tmp_path / "new", results_of({"a": "PF"}))
    code = main(["compare", str(tmp_path / "base"), str(tmp_path / "new"),
                 "--json", str(tmp_path / "c.json")])  # fmt: skip
    assert code == 0
    comparison = json.loads((tmp_path / "c.json").read_text())
    Comparison.model_validate(comparison)
    assert comparison["matched_by"] == BY_RUN_ID
    assert comparison["repeats"]["base"] is None
    assert comparison["repeats"]["new"]["flaky_cases"] == ["a"]
    assert comparison["repeats"]["newly_flaky"] == []


def test_offline_comparisons_have_no_repeats(tmp_path: Path) -> None:
    for side in ("base", "new"):
        write_reports(tmp_path / side, [repeat_result("a", None, "P", repeats=1)])
    main(["compare", str(tmp_path / "base"), str(tmp_path / "new"),
          "--json", str(tmp_path / "c.json")])  # fmt: skip
    assert "repeats" not in json.loads((tmp_path / "c.json").read_text())
