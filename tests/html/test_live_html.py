"""The HTML report of an `assay run`: the live figures (pass rate over every run, overall
score, failures by kind) as cards, in the page's data and in a real browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.evaluation import AgentEvaluator, EvalCase, HTMLReporter
from assay.live.capture import tool
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
    counts = open_report(page_file).page.locator('[data-testid="counts"]').text_content()
    assert "1 agent errors" in (counts or "")
    page_file = tmp_path / "live.html"
    HTMLReporter(page_file).write(
        AgentEvaluator(_agent).evaluate_sync(
            [EvalCase.single_turn(n, n, expected_response="right") for n in ("good", "bad")],
            reports_dir=tmp_path / "two",
        )
    )
    page = open_report(page_file).page
    # The one headline pass rate is the live one (every run counted), what --fail-under checks.
    assert page.locator('[data-testid="pass-rate"]').text_content() == "50.0 %"
    summary = page.locator('[data-testid="summary"]')
    assert summary.locator('[data-card="mean score of every run"] .value').text_content() == (
        "0.500"
    )
    breakdown = summary.locator('[data-card="breakdown: pass rate of the runs scored"] .value')
    assert breakdown.text_content() == "50.0 %"


@tool
def lookup_weather(city: str) -> str:
    """A tool the live agent calls, so that its transcript has a call and a result."""
    return f"rain in {city}"


async def _tool_agent(messages: list[dict[str, Any]]) -> str:
    if messages[-1]["content"] == "crash":
        raise RuntimeError("the weather service is down")
    return "It is " + lookup_weather("Paris")


def test_the_browser_shows_a_live_runs_transcript(tmp_path: Path, open_report: Any) -> None:
    page_file = tmp_path / "live.html"
    cases = [EvalCase.single_turn(n, n, expected_response="sunny") for n in ("weather", "crash")]
    HTMLReporter(page_file).write(
        AgentEvaluator(_tool_agent).evaluate_sync(cases, reports_dir=tmp_path / "out")
    )
    opened = open_report(page_file)
    page = opened.page
    page.locator('[data-testid="search"]').fill("weather")
    page.locator('[data-testid="case-row"]').first.click()
    transcript = page.locator('[data-testid="transcript"]')
    roles = transcript.locator('[data-testid="entry"]').evaluate_all(
        "items => items.map(i => i.dataset.role)")
    assert roles[0] == "user" and "assistant" in roles
    call = transcript.locator('[data-testid="tool-call"]').first
    assert "lookup_weather" in (call.text_content() or "")
    assert "rain in Paris" in (transcript.text_content() or "")
    # The crashed run: its error closes the transcript, marked as one.
    page.locator('[data-testid="search"]').fill("crash")
    page.locator('[data-testid="case-row"]').first.click()
    last = transcript.locator('[data-testid="entry"]').last
    assert last.get_attribute("data-role") == "error"
    assert "the weather service is down" in (last.text_content() or "")
    assert opened.console == []


def test_the_pass_rate_flag_watches_the_headline_pass_rate(live_reports: Path) -> None:
    summary = load_reports(live_reports).summary
    # good passes, bad fails, crash is an agent error: 1 of 3 runs, 1 of 2 scored.
    assert summary.live["pass_rate"] == pytest.approx(1 / 3)
    assert summary.totals["pass_rate"] == pytest.approx(1 / 2)
    assert summary.red_flags["figures"]["scenario_pass_rate"] == pytest.approx(1 / 3)
