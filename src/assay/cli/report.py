"""`assay report DIR`: show an evaluation that is already written, without scoring anything."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from assay.cli._fail_under import add_fail_under, below_fail_under
from assay.cli._github import add_github_arguments, github_output
from assay.cli._verbosity import add_verbosity
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Print the summary of a reports directory that `assay evaluate` wrote, as the evaluation
printed it: nothing is read again or re-scored.
"""

EPILOG = """examples:
  assay report reports
  assay report reports -v
  assay report reports --junit results.xml
  assay report reports --html report.html

exit codes: 0 ok, 1 pass rate below --fail-under, 2 bad arguments, 3 not a readable reports
directory, or the --junit or --html file cannot be written
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="show the summary of an existing reports directory",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `report` to a parser."""
    parser.add_argument("reports_dir", type=Path, metavar="DIR", help="a reports directory")
    add_fail_under(parser)
    parser.add_argument(
        "--junit",
        type=Path,
        metavar="FILE",
        help="also write the results as JUnit XML to FILE, for CI (a test case per run)",
    )
    add_verbosity(
        parser,
        verbose="list every input that was not scored",
        quiet="print nothing but errors (the exit code still says whether --fail-under held)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write the report as one self-contained HTML page",
    )
    add_github_arguments(parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the summary of `args.reports_dir`; returns the exit code."""
    from assay.cli._junit import refused_outputs, write_junit_file
    from assay.cli.messages import error, say
    from assay.reports.console import print_summary, shown
    from assay.reports.load import ReportsError, load_reports

    if (refused := refused_outputs(args.reports_dir, junit=args.junit, html=args.html)) is not None:
        error(refused)
        return ExitCode.INPUT_ERROR
    try:
        loaded = load_reports(args.reports_dir)
    except ReportsError as problem:
        error(shown(str(problem)))
        return ExitCode.INPUT_ERROR
    if not args.quiet:
        print_summary(loaded.summary, loaded.directory, verbose=args.verbose)
    github_output(args, "assay report", loaded)
    if args.html is not None and not write_html_report(loaded, args.html):
        return ExitCode.INPUT_ERROR
    if loaded.problems and not args.quiet:
        say(
            f"assay: warning: {len(loaded.problems)} line(s) of results.jsonl are not results "
            f"(first: line {loaded.problems[0].line}: {shown(loaded.problems[0].reason)})"
        )
    if (junit_failed := write_junit_file(loaded, args.junit)) is not None:
        return junit_failed
    below = below_fail_under(loaded.summary, args.fail_under)
    if below is not None:
        error(below)
        return ExitCode.THRESHOLD_NOT_MET
    return ExitCode.OK


def write_html_report(loaded: Any, path: Path) -> bool:
    """Write the HTML report of `loaded` (a `LoadedReports`) to `path`; False, with the
    reason printed, when it cannot be written."""
    from assay.cli.messages import error
    from assay.reports.console import shown
    from assay.reports.files import clashes_with_reports
    from assay.reports.html import write_html

    if clashes_with_reports(path, loaded.directory):
        error(f"--html {shown(path)}: a report of {shown(loaded.directory)} has that name")
        return False
    try:
        write_html(loaded, path)
    except OSError as problem:
        error(f"--html {shown(path)}: cannot write: {shown(problem.strerror or problem)}")
        return False
    return True


def html_after_evaluate(reports_dir: Path, path: Path) -> bool:
    """Write the HTML report of the reports directory an evaluation just wrote, read back
    through `load_reports` as `assay report` reads it; False, with the reason printed, when
    it cannot be read or written."""
    from assay.cli.messages import error
    from assay.reports.console import shown
    from assay.reports.files import clashes_with_reports
    from assay.reports.load import ReportsError, load_reports

    if clashes_with_reports(path, reports_dir):
        error(f"--html {shown(path)}: a report of {shown(reports_dir)} has that name")
        return False
    try:
        loaded = load_reports(reports_dir)
    except ReportsError as problem:
        error(f"--html: {shown(str(problem))}")
        return False
    return write_html_report(loaded, path)


def write_outputs(reports_dir: Path, *, junit: Path | None, html: Path | None) -> int | None:
    """Write `--junit` and `--html` of a reports directory an evaluation (`evaluate`, `run`,
    `bench`) just wrote; the exit code when one cannot be written (said), else None."""
    from assay.cli._junit import write_junit_file

    if (failed := write_junit_file(reports_dir, junit)) is not None:
        return failed
    if html is not None and not html_after_evaluate(reports_dir, html):
        return ExitCode.INPUT_ERROR
    return None

