"""Reports directories of repeated live runs, for the tests: `CaseResult`s with `repeat` set,
written by the real writer (`ReportWriter`, `render`, `SummaryBuilder`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assay.reports.aggregate import SummaryBuilder
from assay.reports.files import write_temporary
from assay.reports.store import ReportWriter, render
from assay.results import CaseResult, OpsMetrics, RunSummary, Score


def repeat_result(
    case: str, repeat: int | None, verdict: str, value: float | None = None, *, repeats: int = 3
) -> CaseResult:
    """One run of `case`: verdict P (passed), F (failed), E (agent error: not scored) or
    U (unscored). Its id is `case` when `repeats` is 1, else `case#repeat`, as live runs are
    named; `repeat` None makes it an offline run."""
    if verdict == "P":
        score = Score.scored("response_match", 1.0 if value is None else value, passed=True)
    elif verdict == "F":
        score = Score.scored("response_match", 0.0 if value is None else value, passed=False)
    elif verdict == "E":
        score = Score.error("response_match", "agent raised", {"reason": "agent_error"})
    else:
        score = Score.unscored("response_match", "judge down", {"reason": "http_error"})
    run_id = case if repeats == 1 or repeat is None else f"{case}#{repeat}"
    return CaseResult(
        case, run_id, "live", "agent", f"question of {case}", f"answer {repeat}", score,
        OpsMetrics(turn_count=1, duration_ms=10.0), source="evalset.jsonl", repeat=repeat,
    )  # fmt: skip


def results_of(verdicts: dict[str, str]) -> list[CaseResult]:
    """Each case's repetitions from a string of verdicts, one letter per repetition."""
    return [
        repeat_result(case, k, verdict, repeats=len(letters))
        for case, letters in verdicts.items()
        for k, verdict in enumerate(letters, start=1)
    ]


def write_reports(directory: Path, results: Iterable[CaseResult]) -> RunSummary:
    """Write the reports of `results` into `directory`, as an evaluation does."""
    builder = SummaryBuilder()
    with ReportWriter(directory) as writer:
        for result in results:
            report, line = render(result)
            temporary = write_temporary(writer.directory, report)
            result.report_file = writer.adopt(result.run_id, temporary, line)
            builder.add_result(result)
        summary = builder.finish()
        summary.options = {
            "trajectories": "evalset.jsonl",
            "scenarios": [],
            "reports_dir": str(directory),
            "scorer_default": "response_match",
            "scorers": ["response_match"],
            "workers": 1,
            "red_flag_thresholds": {},
        }
        summary.scorers = [{"name": "response_match", "options": {"mode": "contains"}}]
        writer.write_summary(summary)
    return summary
