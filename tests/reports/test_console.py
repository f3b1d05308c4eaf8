"""The console summary: what it prints, and that getting ready to print prints nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.reports.aggregate import SummaryBuilder
from assay.reports.console import preload, print_summary
from assay.results import CaseResult, NotScored, OpsMetrics, Score


def test_preload_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    preload()
    assert capsys.readouterr() == ("", "")


def test_the_summary_after_preload_is_the_summary_without_it(
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
    cold = capsys.readouterr().out
    preload()
    print_summary(summary, Path("reports"))
    assert capsys.readouterr().out == cold
    assert "1 of 2 gold keys exact" in cold and "x.json: invalid JSON" in cold
