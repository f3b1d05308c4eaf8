"""The HTML report of an `assay run`: the live figures (pass rate over every run, overall
score, failures by kind) as cards, in the page's data and in a real browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.evaluation import AgentEvaluator, EvalCase, HTMLReporter
from assay.reports.html._page_data import page_data
from assay.reports.load import load_reports


async def _agent(messages: list[dict[str, Any]]) -> str:
    text = messages[-1]["content"]
    if text == "crash":
        raise RuntimeError("down")
    return "right" if text == "good" else "wrong"


@pytest.fixture
def live_reports(tmp_path: Path) -> Path:
    cases = [EvalCase.single_turn(name, name, expected_response="right")
             for name in ("good", "bad", "crash")]
    AgentEvaluator(_agent).evaluate_sync(cases, reports_dir=tmp_path / "out")
    return tmp_path / "out"


def test_the_page_data_holds_the_live_figures(live_reports: Path, tmp_path: Path) -> None:
    live = page_data(load_reports(live_reports))["summary"]["live"]
    assert live["pass_rate"] == pytest.approx(1 / 3)
    assert live["overall_score"] == pytest.approx(0.5)
    assert live["errors"]["agent_error"] == 1 and live["errors"]["timeout"] == 0


def test_the_browser_shows_the_live_cards(live_reports: Path, tmp_path: Path,
                                          open_report: Any) -> None:
    page_file = tmp_path / "report.html"
    report = AgentEvaluator(_agent).evaluate_sync(
        [EvalCase.single_turn("crash", "crash", expected_response="right")]
    )
    HTMLReporter(page_file).write(report)  # a report evaluated without a reports directory
    summary = open_report(page_file).page.locator('[data-testid="summary"]')
    assert summary.locator('[data-card="agent errors"] .value').text_content() == "1"
    page_file = tmp_path / "live.html"
    HTMLReporter(page_file).write(
        AgentEvaluator(_agent).evaluate_sync(
            [EvalCase.single_turn(n, n, expected_response="right") for n in ("good", "bad")],
            reports_dir=tmp_path / "two",
        )
    )
    summary = open_report(page_file).page.locator('[data-testid="summary"]')
    assert summary.locator('[data-card="pass rate (all runs)"] .value').text_content() == "50.0 %"
    assert summary.locator('[data-card="overall score"] .value').text_content() == "0.500"
