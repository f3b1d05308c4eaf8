"""The comparison page's data and `assay compare --html` end to end (no browser: see
`test_compare_browser.py` for the page in Chromium)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from compare_fixture import XSS_ID, XSS_NEW_ID, evaluate_both

from assay.cli.main import main
from assay.reports.compare.diff import CHANGE_KINDS
from assay.reports.compare.html import PageLimits, compare_page_data
from assay.reports.compare.reports import compare_loaded
from assay.reports.load import load_reports


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return evaluate_both(tmp_path_factory.mktemp("compare"))


def test_each_scorer_s_rows_per_kind_are_the_comparison_s_lists(
    evaluations: tuple[Path, Path],
) -> None:
    before, after = (load_reports(path) for path in evaluations)
    comparison = compare_loaded(before, after)
    data = compare_page_data(before, after)
    assert data["verdict"] == comparison["verdict"]
    assert [scorer["name"] for scorer in data["scorers"]] == list(comparison["scorers"])
    assert data["combined"] == "static_json+trajectory"
    for name, figures in comparison["scorers"].items():
        for kind in CHANGE_KINDS:
            ids = [run["i"] for run in data["runs"] if run["k"].get(name) == kind]
            assert ids == figures[kind], (name, kind)
        shown = next(scorer for scorer in data["scorers"] if scorer["name"] == name)
        assert shown["counts"] == {kind: len(figures[kind]) for kind in CHANGE_KINDS}
    kinds = {run["i"]: run["k"]["static_json"] for run in data["runs"]}
    assert kinds["13"] == "regressed" and kinds["11"] == "improved"
    assert kinds["21"] == "only_in_new" and kinds[XSS_NEW_ID] == "only_in_new"
    assert kinds[XSS_ID] == "regressed"


def test_both_sides_come_from_the_run_reports(evaluations: tuple[Path, Path]) -> None:
    before, after = (load_reports(path) for path in evaluations)
    data = compare_page_data(before, after, limits=PageLimits(rationale=10))
    run = next(run for run in data["runs"] if run["i"] == XSS_ID)
    assert run["b"]["a"].startswith("javascript:") and run["n"]["a"].startswith("<img")
    status, passed, score, rationale = run["n"]["v"]["static_json"]
    assert (status, passed, score) == ("scored", False, 0.0)
    assert rationale == "0 of 1 gol… (cut, 22 chars)"
    assert "x" not in run["b"] and "x" not in run["n"]


@pytest.mark.reports_not_validated
def test_a_missing_run_report_is_noted_and_the_line_shown(tmp_path: Path) -> None:
    base, new = evaluate_both(tmp_path)
    line = json.loads((new / "results.jsonl").read_text().splitlines()[0])
    (new / line["report_file"]).unlink()
    data = compare_page_data(load_reports(base), load_reports(new))
    run = next(run for run in data["runs"] if run["n"] and "x" in run["n"])
    assert run["i"] == line["run_id"]
    assert run["n"]["x"] == "its report could not be read; shown from results.jsonl"
    assert run["n"]["v"]["static_json+trajectory"][0] == line["score"]["status"]


def test_compare_html_writes_one_safe_page(
    evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = evaluations
    page_file = tmp_path / "compare.html"
    assert main(["compare", str(base), str(new), "--html", str(page_file)]) == 0
    page = page_file.read_text()
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    assert "window.__xss" in page  # the probes are there, as escaped JSON only
    assert "<script>window" not in page and "<img" not in page
    assert page.count("<script") == 2 and "http://" not in page.replace(
        "http://www.w3.org/2000/svg", ""
    )
    assert not list(tmp_path.glob(".assay-*"))


def test_html_targets_are_refused_as_the_other_outputs(
    evaluations: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, new = evaluations
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "link.html").symlink_to(tmp_path / "elsewhere.html")
    for target in ("fifo", "link.html", "."):
        capsys.readouterr()
        assert main(["compare", str(base), str(new), "--html", str(tmp_path / target)]) == 3
        err = capsys.readouterr().err
        assert "--html: cannot write the HTML comparison" in err and "not a regular file" in err
    assert not (tmp_path / "elsewhere.html").exists()
    code = main(["compare", str(base), str(new), "--html", str(tmp_path / "no" / "x.html")])
    assert code == 3 and "no such directory" in capsys.readouterr().err


def test_settings_that_differ_are_warnings_on_the_page(tmp_path: Path) -> None:
    base, _ = evaluate_both(tmp_path)
    other = tmp_path / "static-only"
    code = main(["evaluate", "--trajectories", str(tmp_path / "runs-new"), "--scenarios",
                 str(Path(__file__).resolve().parents[2] / "examples" / "scenarios"),
                 "--scorer", "static_json", "--reports-dir", str(other), "--workers", "1",
                 "-q"])  # fmt: skip
    assert code == 0
    data = compare_page_data(load_reports(base), load_reports(other))
    assert data["warnings"] == ["scorer trajectory only in BASE"]
    counts = {scorer["name"]: scorer["counts"] for scorer in data["scorers"]}
    assert counts["trajectory"]["only_in_base"] == 10
    assert data["combined"] == "static_json+trajectory"
