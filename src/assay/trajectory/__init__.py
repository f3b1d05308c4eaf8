"""Trajectory checks: which tools a run called, in what order, with which arguments.

Example:
    >>> from assay.trajectory import check_trajectory
    >>> check_trajectory(["lookup_order", "process_refund"],
    ...                  ["lookup_order", "check_refund_policy", "process_refund", "send_email"],
    ...                  mode="subsequence").passed
    True
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
    resolve_mode,
)

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
    "check_trajectory",
    "resolve_mode",
    "to_steps",
]
