"""`--fail-under`, as `evaluate` and `report` share it: the option and its check.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_fail_under(parser)
    >>> parser.parse_args(["--fail-under", "0.8"]).fail_under
    0.8
"""

from __future__ import annotations

import argparse
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.results import RunSummary


def add_fail_under(parser: argparse.ArgumentParser) -> None:
    """Add `--fail-under RATE` to `parser`."""
    parser.add_argument(
        "--fail-under",
        type=_rate,
        metavar="RATE",
        help="exit with code 1 when the pass rate is below RATE (0..1); a partially scored run "
        "(a scorer gave no verdict while others did) counts as not passed",
    )


def below_fail_under(summary: RunSummary, fail_under: float | None) -> str | None:
    """What to say when the pass rate of `summary` is below `fail_under` (None: it is not,
    or no threshold was set). No pass rate at all (nothing scored) is below any threshold."""
    if fail_under is None:
        return None
    rate = summary.pass_rate
    if rate is not None and rate >= fail_under:
        return None
    shown = "n/a" if rate is None else f"{rate:.3f}"
    partial = summary.totals.get("partially_scored", 0)
    note = f" ({partial} partially scored, counted as not passed)" if partial else ""
    return f"pass rate {shown} is below --fail-under {fail_under}{note}"


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def fail_under_exit(summary: RunSummary, fail_under: float | None) -> int:
    """`THRESHOLD_NOT_MET` (said) when the pass rate is below `fail_under`, else `OK`."""
    from assay.cli.messages import error
    from assay.exit_codes import ExitCode

    below = below_fail_under(summary, fail_under)
    if below is None:
        return ExitCode.OK
    error(below)
    return ExitCode.THRESHOLD_NOT_MET

