"""The console summary: what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.reports.aggregate import SummaryBuilder
from assay.reports.console import print_summary
from assay.results import CaseResult, NotScored, OpsMetrics, RunSummary, Score, combine_scores


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


def _summary_with(runner: str, model: str, reason: str, source: str) -> RunSummary:
    builder = SummaryBuilder()
    for run_runner in (runner, "plain-runner"):  # two runners: the breakdown table is printed
        builder.add_result(
            CaseResult(
                "1",
                "r1",
                run_runner,
                model,
                None,
                "{}",
                Score.scored("static_json", 0.5, passed=False, rationale=reason),
                OpsMetrics(),
            )
        )
    builder.add_not_scored(NotScored("unreadable", reason, source=source))
    return builder.finish()


@pytest.mark.parametrize("text", ["[/]", "[bold]x[/bold]", "[link=javascript:x]y[/link]"])
def test_markup_in_data_prints_as_written(capsys: pytest.CaptureFixture[str], text: str) -> None:
    # Regression: a runner named "[/]" crashed the summary with rich's MarkupError (exit 1,
    # the --fail-under code), and "[bold]x[/bold]" printed as "x".
    print_summary(_summary_with(text, text, text, text), Path("reports"), verbose=True)
    out = capsys.readouterr().out
    assert text in out


def test_control_characters_in_data_never_reach_the_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Regression: raw ESC bytes from runner and model names, file names and reasons reached
    # the terminal; a file name that is not UTF-8 (a lone surrogate) could not be printed.
    hostile = "a\x1b[2J\x07b\rc\x9bd\udcff"
    print_summary(
        _summary_with(hostile, hostile, hostile, hostile), Path(f"rep{hostile}"), verbose=True
    )
    out = capsys.readouterr().out
    assert not any(ch in out for ch in "\x1b\x07\r\x9b\udcff")
    assert "a\\x1b[2J\\x07b\\rc\\x9bd\\udcff" in out


def test_the_summary_shows_partially_scored_runs(capsys: pytest.CaptureFixture[str]) -> None:
    builder = SummaryBuilder()
    judge_down = Score.unscored("llm_judge", "judge call failed", {"reason": "http_error"})
    for runner, judge in (("agent-a", Score.scored("llm_judge", 1.0, passed=True)),
                          ("agent-b", judge_down)):  # fmt: skip
        parts = [Score.scored("static_json", 1.0, passed=True), judge]
        builder.add_result(
            CaseResult("1", runner, runner, "m", None, "{}", combine_scores(parts), OpsMetrics(),
                       scores=parts)
        )  # fmt: skip
    print_summary(builder.finish(), Path("reports"))
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split() == ["│", "partially", "scored", "│", "1", "│"] for line in lines)
    rate = next(line for line in lines if "pass rate (of" in line)
    assert "scored + partially scored" in rate and "50.0%" in rate
    header = next(line for line in lines if "runner" in line and "pass rate" in line)
    assert "partially scored" in header
    assert any("no verdict from llm_judge: judge call failed" in line for line in lines)


def test_the_summary_shows_the_repeats_and_caps_the_flaky_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from repeats_reports import results_of

    builder = SummaryBuilder()
    verdicts = {f"flaky-{i:02}": "PFP" for i in range(12)}
    for result in results_of({**verdicts, "steady": "PPP", "broken": "EFF"}):
        builder.add_result(result)
    summary = builder.finish()
    print_summary(summary, Path("reports"))
    out = capsys.readouterr().out
    assert "3 repetitions of 14 cases (42 runs, 1 not scored)" in out
    # pass@1: (12 * 2/3 + 1 + 0) / 14; pass@3: 13/14; pass^3: 1/14.
    assert "pass@1 64.3%  pass@3 92.9%  pass^3 7.1%" in out
    assert "flaky (12): flaky-00, flaky-01" in out
    assert "flaky-09 … and 2 more (-v lists all)" in out
    flaky_line = next(line for line in out.splitlines() if "flaky (" in line)
    assert "flaky-11" not in flaky_line
    print_summary(summary, Path("reports"), verbose=True)
    out = capsys.readouterr().out
    assert "flaky-11" in next(line for line in out.splitlines() if "flaky (" in line)


def test_an_offline_summary_says_nothing_of_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    builder = SummaryBuilder()
    builder.add_result(
        CaseResult("1", "r1", "a", "m", None, "{}", Score.scored("s", 1.0, passed=True),
                   OpsMetrics())
    )  # fmt: skip
    print_summary(builder.finish(), Path("reports"))
    assert "repeat" not in capsys.readouterr().out
