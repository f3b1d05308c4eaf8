"""The console summary: what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.reports.aggregate import SummaryBuilder
from assay.reports.console import print_summary
from assay.results import CaseResult, NotScored, OpsMetrics, Score


def test_the_summary_shows_failures_and_inputs_not_scored(
    capsys: pytest.CaptureFixture[str],
) -> None:
    builder = SummaryBuilder()
    builder.add_result(
        CaseResult(
            "1",
            "r1",
            "agent",
            "model",
            None,
            "{}",
            Score.scored("static_json", 0.5, passed=False, rationale="1 of 2 gold keys exact"),
            OpsMetrics(),
        )
    )
    builder.add_not_scored(NotScored("unreadable", "invalid JSON", source="x.json"))
    summary = builder.finish()
    print_summary(summary, Path("reports"))
    out = capsys.readouterr().out
    assert "1 of 2 gold keys exact" in out and "x.json: invalid JSON" in out
