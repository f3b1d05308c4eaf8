"""The seed's reporters, each a projection of the same results the reports directory holds.

- `ConsoleReporter().print(report)`: the summary and every run that did not pass, why;
- `JSONReporter(output_path).write(report)`: the figures and every run's verdicts, as JSON;
- `HTMLReporter(output_path).write(report)`: the HTML report of `assay report --html` (from
  the report's reports directory; a report evaluated without one is written to a temporary
  reports directory first, so the page is the same either way).

Example:
    >>> import io
    >>> out = io.StringIO()
    >>> ConsoleReporter(file=out).print(EvalReport([]))
    >>> out.getvalue().splitlines()[0]
    'Evaluated 0 runs: 0 passed (pass rate 0%), overall score n/a'
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

import orjson

from assay._jsonable import dumps_lenient
from assay.live.views import EvalCaseResult, EvalReport, live_figures
from assay.reports.aggregate import ResultFigures, SummaryBuilder
from assay.reports.files import write_atomic, write_temporary
from assay.reports.red_flags import RedFlagThresholds
from assay.reports.store import ReportWriter, render

__all__ = ["ConsoleReporter", "HTMLReporter", "JSONReporter"]


class ConsoleReporter:
    """Prints a report's summary."""

    def __init__(self, file: TextIO | None = None) -> None:
        self.file = file

    def print(self, report: EvalReport) -> None:
        """Print `report.format_summary()`."""
        print(report.format_summary(), file=self.file or sys.stdout)


class JSONReporter:
    """Writes a report as one JSON file: `figures`, `repeats` and one object per run."""

    def __init__(self, output_path: str | Path) -> None:
        self.output_path = Path(output_path)

    def write(self, report: EvalReport) -> None:
        """Write the file (atomically)."""
        data = {
            "total_cases": report.total_cases,
            "passed_cases": report.passed_cases,
            "pass_rate": report.pass_rate,
            "overall_score": report.overall_score,
            "errors": report.errors,
            "interrupted": report.interrupted,
            "figures": report.figures,
            "repeats": report.repeats,
            "cases": [_case(case) for case in report.cases],
        }
        write_atomic(str(self.output_path), dumps_lenient(data, option=orjson.OPT_INDENT_2) + b"\n")


def _case(case: EvalCaseResult) -> dict[str, Any]:
    return {
        "eval_id": case.eval_id,
        "run_id": case.run_id,
        "repeat": case.repeat,
        "passed": case.passed,
        "score": case.score,
        "error": case.error,
        "error_kind": case.error_kind,
        "actual_response": case.actual_response,
        "actual_trajectory": [
            {
                "type": step.type.value,
                "name": step.name,
                **(
                    {"args": step.call.args, "result": step.call.result}
                    if step.call is not None
                    else {}
                ),
            }
            for step in case.actual_trajectory
        ],
        "criteria_results": {
            name: {
                "passed": result.passed,
                "score": result.score,
                "status": result.status,
                "reason": result.reason,
            }
            for name, result in case.criteria_results.items()
        },
    }


class HTMLReporter:
    """Writes the HTML report (one self-contained page) of a report."""

    def __init__(self, output_path: str | Path) -> None:
        self.output_path = Path(output_path)

    def write(self, report: EvalReport) -> None:
        """Write the page.

        Raises:
            OSError: it cannot be written.
        """
        from assay.reports.html import write_html
        from assay.reports.load import load_reports

        if report.reports_dir is not None:
            write_html(load_reports(report.reports_dir), self.output_path)
            return
        with tempfile.TemporaryDirectory(prefix="assay-html-") as folder:
            directory = Path(folder)
            _write_reports(report, directory)
            write_html(load_reports(directory), self.output_path)


def _write_reports(report: EvalReport, directory: Path) -> None:
    """Write the reports directory of a report evaluated without one."""
    builder = SummaryBuilder()
    results = [case.result for case in report.cases if case.result is not None]
    builder.set_scenarios_loaded(len({case.eval_id for case in report.cases}))
    with ReportWriter(directory) as writer:
        for result in results:
            page, line = render(result)
            name = writer.adopt(result.run_id, write_temporary(writer.directory, page), line)
            builder.add_figures(ResultFigures.of(result), name)
        live = live_figures(results, report.weights)
        summary = builder.finish(interrupted=report.interrupted, pass_rate=live["pass_rate"])
        summary.options = {
            "trajectories": "",
            "scenarios": [],
            "reports_dir": str(directory),
            "scorers": list(report.weights),
            "red_flag_thresholds": RedFlagThresholds().to_report(),
        }
        summary.live = live
        summary.live.update(units=len(results), finished=len(results))
        writer.write_summary(summary)
