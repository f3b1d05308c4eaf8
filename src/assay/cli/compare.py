"""`assay compare BASE NEW`: two evaluations compared run by run, with paired tests."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

from assay.cli._github import add_github_arguments, github_output
from assay.cli._verbosity import add_verbosity
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Compare two reports directories that `assay evaluate` or `assay run` wrote (BASE, then NEW),
without scoring anything again. Runs are matched by scenario id and run id; when both sides
repeated their runs (`assay run --repeat K`), by scenario id and repeat instead, and each
side's pass@1, pass^n and flaky cases are shown. For each scorer and the combined verdict,
runs are counted as regressed, improved, unchanged, unscored on a side (never a change), or
present on one side only.

A scorer's change is significant when McNemar's exact test on the pass/fail flips gives
p < alpha, or the confidence interval of the mean score change excludes 0 (a sign-flip test
that flips whole scenarios, inverted; all patterns when few, else seeded draws). It regressed
significantly when a significant test points down: more pass->fail than fail->pass flips with
p < alpha, or an interval entirely below 0. Fewer than 6 scenarios can never make the score
test significant at 0.05.

The output leads with what changed under the combined verdict: the pass rates and the runs
that regressed, were fixed or stayed the same, counted whether or not the change is
significant; then the verdict of the tests, then each scorer's figures and the regressed runs.
"""

EPILOG = """examples:
  assay compare reports-main reports-branch
  assay compare base new --markdown comment.md --json compare.json --fail-on-regression
  assay compare base new --html compare.html

exit codes: 0 ok, 1 a scorer regressed significantly (with --fail-on-regression), 2 bad
arguments, 3 a directory that is not a readable reports directory, or an output that cannot be
written
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="compare two reports directories, with paired significance tests",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `compare` to a parser."""
    parser.add_argument("base", type=Path, metavar="BASE", help="the earlier reports directory")
    parser.add_argument("new", type=Path, metavar="NEW", help="the later reports directory")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="also write the comparison as Markdown"
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="also write the comparison as JSON (`assay schema compare`)",
    )
    parser.add_argument(
        "--html",
        type=Path,
        metavar="FILE",
        help="also write the comparison as one self-contained HTML page",
    )
    parser.add_argument(
        "--alpha", type=_alpha, default=0.05, help="significance level (default 0.05)"
    )
    parser.add_argument(
        "--resamples",
        type=_resamples,
        default=10_000,
        metavar="N",
        help="sign patterns drawn for the score test and its interval when there are more "
        "(2**scenarios); fewer are all enumerated (default 10000)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=20240521,
        help="seed of those draws, for a reproducible interval (default 20240521)",
    )
    parser.add_argument(
        "--fail-on-regression",
        action="store_true",
        help="exit with code 1 when a scorer regressed significantly",
    )
    add_verbosity(
        parser,
        verbose="list every changed run (regressed and improved), not only the first "
        f"{_ROWS} regressed of each scorer",
        quiet="print nothing but errors (the files asked for are still written, and the exit "
        "code still says a significant regression with --fail-on-regression)",
    )
    add_github_arguments(parser)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Compare `args.new` with `args.base`; returns the exit code."""
    import orjson

    from assay.cli.messages import error, say
    from assay.reports.compare.console import print_comparison
    from assay.reports.compare.markdown import render_markdown
    from assay.reports.compare.reports import compare_loaded
    from assay.reports.console import shown
    from assay.reports.files import refused_output, write_atomic
    from assay.reports.load import ReportsError, load_reports

    for option, path, what in (
        ("--markdown", args.markdown, "the Markdown comparison"),
        ("--json", args.json, "the JSON comparison"),
        ("--html", args.html, "the HTML comparison"),
    ):
        # Never over a file of either reports directory compared.
        refused = next(
            (
                reason
                for reports_dir in (args.base, args.new)
                if path is not None
                and (reason := refused_output(path, reports_dir, what=what)) is not None
            ),
            None,
        )
        if refused is not None:
            error(f"{option}: {shown(refused)}")
            return ExitCode.INPUT_ERROR
    try:
        before, after = load_reports(args.base), load_reports(args.new)
    except ReportsError as problem:
        error(shown(str(problem)))
        return ExitCode.INPUT_ERROR
    comparison = compare_loaded(
        before, after, alpha=args.alpha, resamples=args.resamples, seed=args.seed
    )
    for warning in [] if args.quiet else comparison["warnings"]:
        say(f"assay: warning: {shown(warning)}")
    outputs = []
    if args.markdown is not None:
        outputs.append((args.markdown, render_markdown(comparison).encode()))
    if args.json is not None:
        outputs.append(
            (args.json, orjson.dumps(comparison, option=orjson.OPT_INDENT_2) + b"\n")
        )
    if args.html is not None:
        from assay.reports.compare.html import render_compare_html

        page = render_compare_html(before, after, comparison=comparison)
        outputs.append((args.html, page.encode()))
    for path, data in outputs:
        try:
            write_atomic(path, data)
        except OSError as exc:
            error(f"cannot write {shown(path)}: {exc.strerror or exc}")
            return ExitCode.INPUT_ERROR
    if not args.quiet:
        print_comparison(comparison, verbose=args.verbose)
    github_output(args, "assay compare", after, comparison)
    if args.fail_on_regression and comparison["verdict"] == "regressed":
        regressed = [
            name
            for name, figures in comparison["scorers"].items()
            if figures["verdict"] in ("regressed", "mixed")
        ]
        error(f"regressed significantly: {shown(', '.join(regressed))}")
        return ExitCode.THRESHOLD_NOT_MET
    return ExitCode.OK


_ROWS = 10
"""`assay.reports.compare.console.ROWS_PER_SCORER`, for the help (which imports no rich)."""


def _alpha(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return value


def _resamples(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"must be between 1 and 1000000, got {text}")
    return value
