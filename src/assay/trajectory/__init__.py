"""Trajectory checks: which tools a run called, in what order, with which arguments.

Example:
    >>> from assay.trajectory import check_trajectory
    >>> check_trajectory(["lookup_order", "process_refund"],
    ...                  ["lookup_order", "check_refund_policy", "process_refund", "send_email"],
    ...                  mode="subsequence").passed
    True

Runs and expectations recorded turn by turn (ADK invocations, chat turns) are checked turn by
turn with `check_turns` (see `assay.trajectory.turns`).
"""

from assay.trajectory.args import ArgsRule
from assay.trajectory.check import TrajectoryChecker, TrajectoryMatch, check_trajectory
from assay.trajectory.normalize import to_steps
from assay.trajectory.spec import (
    ARGS_MODES,
    MODES,
    ArgsMode,
    MatchType,
    Mode,
    StepType,
    TrajectoryStep,
    match_type_of,
    resolve_mode,
)
from assay.trajectory.turns import TurnsChecker, TurnsMatch, TurnVerdict, check_turns, turns_of

__all__ = [
    "ARGS_MODES",
    "MODES",
    "ArgsMode",
    "ArgsRule",
    "MatchType",
    "Mode",
    "StepType",
    "TrajectoryChecker",
    "TrajectoryMatch",
    "TrajectoryStep",
    "TurnVerdict",
    "TurnsChecker",
    "TurnsMatch",
    "check_trajectory",
    "check_turns",
    "match_type_of",
    "resolve_mode",
    "to_steps",
    "turns_of",
]
