"""`assay rescore`: score again the runs a reports directory holds, into another."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from assay._signals import exit_code_of
from assay._text import path_text
from assay.cli._criteria import (
    add_config_argument,
    add_judge_arguments,
    add_scorer_option_argument,
    add_workers_argument,
    flag_options,
    read_config,
)
from assay.cli._fail_under import add_fail_under, below_fail_under
from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Score again the runs a reports directory holds, and write the reports into another.

A directory `assay run` wrote holds its runs (runs.jsonl) and its cases (evalset.jsonl); one
`assay evaluate` wrote names the runs and scenarios it read. Every reports directory records
what its runs were checked with (_config.json): rescore uses it, so the scores come out the
same (timings aside), or --config FILE to check the runs another way. The verdicts of checks
that drive the agent (simulation, idempotency) cannot be made from a saved run: they are kept.
"""

EPILOG = """examples:
  assay rescore live-reports --reports-dir rescored
  assay rescore reports --reports-dir strict --config strict.json
  assay rescore reports --reports-dir judged --judge-model openai/gpt-4.1-mini

exit codes: 0 ok, 1 pass rate below --fail-under, 2 bad arguments, 3 a directory or config it
cannot use, 4 internal error.
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="score again the runs of a reports directory",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of `rescore` to a parser."""
    parser.add_argument("directory", metavar="DIR", type=Path, help="the reports directory")
    parser.add_argument(
        "--reports-dir",
        required=True,
        type=Path,
        metavar="OUT",
        help="where the new reports are written (not DIR)",
    )
    add_config_argument(parser, "check the runs with these criteria instead of DIR's own")
    add_scorer_option_argument(parser)
    add_judge_arguments(parser)
    add_fail_under(parser)
    add_workers_argument(parser)
    add_verbosity(parser, verbose="list every run not scored")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Re-score the directory described by `args`; returns the exit code."""
    from assay.offline import RescoreError, evaluate, rescore_options
    from assay.reports.console import print_summary
    from assay.scorers.registry import UnknownScorerError

    if args.reports_dir.resolve() == args.directory.resolve():
        error("--reports-dir must not be the directory being re-scored")
        return ExitCode.USAGE_ERROR
    config = None
    if args.config is not None:
        config = read_config(args.config)
        if config is None:
            return ExitCode.INPUT_ERROR
    flags = flag_options(args, parser)
    if flags is None:
        return ExitCode.INPUT_ERROR
    try:
        options = rescore_options(
            args.directory,
            args.reports_dir,
            config,
            settings=flags,
            workers=args.workers,
        )
    except RescoreError as exc:
        error(str(exc))
        return ExitCode.INPUT_ERROR
    try:
        summary = evaluate(options)
    except UnknownScorerError as exc:
        parser.error(str(exc))  # exits with USAGE_ERROR
    except OSError as exc:
        error(f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": "))
        return ExitCode.INPUT_ERROR
    except KeyboardInterrupt as stopped:
        error(f"interrupted; reports of finished runs are in {path_text(args.reports_dir)}")
        return exit_code_of(stopped)  # 130 for Ctrl-C, 143 for SIGTERM
    if not args.quiet and sys.stdout is not None:
        print_summary(summary, Path(path_text(args.reports_dir)), verbose=args.verbose)
    totals = summary.totals
    if totals["runs_read"] == totals["unreadable"]:  # as evaluate: not one run could be read
        error(f"no runs found in what {path_text(args.directory)} names: {options.trajectories}")
        return ExitCode.INPUT_ERROR
    below = below_fail_under(summary, args.fail_under)
    if below is not None:
        error(below)
        return ExitCode.THRESHOLD_NOT_MET
    return ExitCode.OK
