"""The files written once the reports are in place (`--junit FILE`, `--html FILE`), as
`evaluate`, `run`, `report` and `rescore` share them: the check of their targets before
anything runs, and the writing of the JUnit XML (imported by the commands when they run, not
at start-up).

Example:
    >>> refused_outputs(Path("reports"), junit=Path("/dev/null"))
    '--junit: cannot write JUnit XML to /dev/null: it is a character device, not a regular file'
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay._text import path_text
from assay.cli.messages import error, say
from assay.exit_codes import ExitCode

if TYPE_CHECKING:
    from assay.reports.load import LoadedReports


def refused_outputs(
    reports_dir: Path, *, junit: Path | None = None, html: Path | None = None
) -> str | None:
    """Why one of the files written once the reports are in place (`--junit`, `--html`)
    cannot be written, as it is printed (the first such file), or None. Checked before the
    evaluation starts, so that a bad path costs nothing: a live run may take hours.

    Example:
        >>> refused_outputs(Path("reports"), html=Path("reports/results.jsonl"))[:48]
        '--html: cannot write the HTML report to reports/'
    """
    from assay.reports.console import shown
    from assay.reports.files import refused_output

    outputs = (("--junit", junit, "JUnit XML"), ("--html", html, "the HTML report"))
    for flag, target, what in outputs:
        if target is not None and (refused := refused_output(target, reports_dir, what=what)):
            return f"{flag}: {shown(refused)}"
    return None


def write_junit_file(reports: Path | LoadedReports, target: Path | None) -> ExitCode | None:
    """Write `reports` (a reports directory, or one already loaded) as JUnit XML to `target`
    (when given); return the exit code when that fails, else None."""
    if target is None:
        return None
    from assay.reports.console import shown
    from assay.reports.junit import write_junit
    from assay.reports.load import ReportsError

    try:
        written = write_junit(reports, target)
    except ReportsError as problem:
        error(f"JUnit XML not written: {shown(problem)}")
        return ExitCode.INPUT_ERROR
    except OSError as problem:
        # A refused target says so in full; an error of the system names only its cause.
        cause = problem.strerror
        error(shown(f"cannot write {path_text(target)}: {cause}" if cause else problem))
        return ExitCode.INPUT_ERROR
    if written.problems:
        say(
            f"assay: warning: {shown(target)} lists {len(written.problems)} problem(s) of the "
            f"reports directory as errors (first: {shown(written.problems[0])})"
        )
    return None
