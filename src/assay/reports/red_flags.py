"""Red flags: evaluation figures that cross the thresholds where an agent needs restructuring.

Each rule compares one figure with a threshold and, when it is crossed, names the red flag and
the refactoring it suggests:

| Red flag             | Figure (key)              | Raised when | Suggested action         |
|----------------------|---------------------------|-------------|--------------------------|
| Tool confusion       | `tool_selection_accuracy` | < 0.80      | simplify tool descr. ... |
| Context overflow     | `context_overflow_rate`   | > 0.05      | split into subagents ... |
| Inconsistent results | `scenario_pass_rate`      | < 0.90      | add deterministic checks |
| (Low pass rate: the same, where no case was run more than once)                          |
| Slow responses       | `avg_latency_s`           | > 60        | optimise tool chains ... |
| High escalation      | `escalation_rate`         | > 0.15      | expand capabilities ...  |

`RULES` holds the actions in full. Rates and accuracies are fractions (0.8, not 80); latency
is in seconds. A figure that was not measured (None, NaN, or missing) is never flagged: it is
listed as not measured, so that a clean report cannot come from figures nobody computed. This
module only computes; it reads no files and knows nothing of how the figures were obtained.

Example:
    >>> flags = red_flags({"tool_selection_accuracy": 0.72, "scenario_pass_rate": 0.95,
    ...                    "avg_latency_s": 12.0, "escalation_rate": 0.05})
    >>> [(flag.red_flag, flag.status) for flag in flags]
    [('Tool confusion', 'raised'), ('Context overflow', 'not_measured')]
    >>> flags[0].value, flags[0].comparison, flags[0].threshold, flags[0].action
    (0.72, '<', 0.8, 'simplify tool descriptions, reduce tool count')
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "AVG_LATENCY_S",
    "CONTEXT_OVERFLOW_RATE",
    "ESCALATION_RATE",
    "SCENARIO_PASS_RATE",
    "TOOL_SELECTION_ACCURACY",
    "RedFlag",
    "RedFlagRule",
    "RedFlagThresholds",
    "red_flags",
]

TOOL_SELECTION_ACCURACY = "tool_selection_accuracy"
CONTEXT_OVERFLOW_RATE = "context_overflow_rate"
SCENARIO_PASS_RATE = "scenario_pass_rate"
AVG_LATENCY_S = "avg_latency_s"
ESCALATION_RATE = "escalation_rate"


@dataclass(frozen=True, slots=True)
class RedFlagRule:
    """One red flag: the figure it watches and when it is raised."""

    metric: str
    """Key of the figure in the mapping given to `red_flags`."""

    red_flag: str
    """Name of the red flag."""

    direction: Literal["below", "above"]
    """Raised when the figure is strictly below or strictly above the threshold."""

    action: str
    """What to do about it."""


RULES: tuple[RedFlagRule, ...] = (
    RedFlagRule(
        TOOL_SELECTION_ACCURACY,
        "Tool confusion",
        "below",
        "simplify tool descriptions, reduce tool count",
    ),
    RedFlagRule(
        CONTEXT_OVERFLOW_RATE,
        "Context overflow",
        "above",
        "split into subagents, reduce tool descriptions",
    ),
    RedFlagRule(
        SCENARIO_PASS_RATE,
        "Inconsistent results",
        "below",
        "add deterministic checks, review prompt",
    ),
    RedFlagRule(AVG_LATENCY_S, "Slow responses", "above", "optimise tool chains, cache results"),
    RedFlagRule(
        ESCALATION_RATE,
        "High escalation",
        "above",
        "expand agent capabilities, adjust thresholds",
    ),
)
"""The rules, in report order."""


@dataclass(frozen=True, slots=True)
class RedFlagThresholds:
    """Where each red flag is raised; None switches a rule off."""

    tool_selection_accuracy: float | None = 0.80
    """Raised below this fraction of correct tool selections."""

    context_overflow_rate: float | None = 0.05
    """Raised above this fraction of runs that overflowed the context."""

    scenario_pass_rate: float | None = 0.90
    """Raised below this fraction of scenarios passed."""

    avg_latency_s: float | None = 60.0
    """Raised above this average run latency, in seconds."""

    escalation_rate: float | None = 0.15
    """Raised above this fraction of runs that escalated to a human."""

    def __post_init__(self) -> None:
        for rule in RULES:
            value = getattr(self, rule.metric)
            if value is not None and (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise ValueError(f"threshold {rule.metric} must be a finite number or None")

    def to_report(self) -> dict[str, float | None]:
        """Each rule's threshold by figure (None: switched off).

        Example:
            >>> RedFlagThresholds(avg_latency_s=None).to_report()["avg_latency_s"] is None
            True
        """
        return {rule.metric: getattr(self, rule.metric) for rule in RULES}


@dataclass(frozen=True, slots=True)
class RedFlag:
    """A raised red flag, or a rule whose figure was not measured."""

    metric: str
    """The figure's key."""

    red_flag: str
    """Name of the red flag."""

    value: float | None
    """The figure; None when it was not measured."""

    threshold: float
    """The threshold it was held against."""

    comparison: Literal["<", ">"]
    """`<` when a figure below the threshold raises the flag, `>` when one above does."""

    action: str
    """The suggested action."""

    status: Literal["raised", "not_measured"]
    """`raised`, or `not_measured` (never raised: there is no figure)."""

    @property
    def raised(self) -> bool:
        """True when the figure crossed the threshold."""
        return self.status == "raised"

    def describe(self) -> str:
        """One line for a console report."""
        if not self.raised:
            return f"{self.red_flag}: {self.metric} not measured"
        return (
            f"{self.red_flag}: {self.metric} {self.value:g} {self.comparison} "
            f"{self.threshold:g}; {self.action}"
        )

    def to_report(self) -> dict[str, Any]:
        """The flag as a JSON-ready dict."""
        return {
            "metric": self.metric,
            "red_flag": self.red_flag,
            "value": self.value,
            "threshold": self.threshold,
            "comparison": self.comparison,
            "action": self.action,
            "status": self.status,
        }


LOW_PASS_RATE = RedFlagRule(
    SCENARIO_PASS_RATE,
    "Low pass rate",
    "below",
    "review the failed runs, add deterministic checks",
)
"""The pass-rate rule where no case was run more than once: a low pass rate then says the
agent fails, not that its results vary (which only repetitions can show)."""


def red_flags(
    figures: Mapping[str, float | None],
    thresholds: RedFlagThresholds | None = None,
    *,
    repeated: bool = True,
) -> list[RedFlag]:
    """The red flags `figures` raise, and the rules whose figure was not measured.

    Args:
        figures: Figures by key (see the module table); keys no rule watches are ignored.
            None, NaN, a missing key or a value that is not a number means "not measured".
        thresholds: Where each flag is raised (default: the table's thresholds). A rule whose
            threshold is None is skipped entirely.
        repeated: Whether some case was run more than once; when none was, the pass-rate
            flag is "Low pass rate" (`LOW_PASS_RATE`), not "Inconsistent results".

    Example:
        >>> [f.red_flag for f in red_flags({"scenario_pass_rate": 0.5}, repeated=False)
        ...  if f.raised]
        ['Low pass rate']

    Returns:
        One `RedFlag` per raised flag and per unmeasured figure, in the table's order; figures
        within their thresholds are not listed.
    """
    limits = thresholds if thresholds is not None else RedFlagThresholds()
    flags: list[RedFlag] = []
    for rule in RULES:
        if rule.metric == SCENARIO_PASS_RATE and not repeated:
            rule = LOW_PASS_RATE
        threshold = getattr(limits, rule.metric)
        if threshold is None:
            continue
        comparison: Literal["<", ">"] = "<" if rule.direction == "below" else ">"
        value = _measured(figures.get(rule.metric))
        if value is None:
            status: Literal["raised", "not_measured"] | None = "not_measured"
        elif value < threshold if rule.direction == "below" else value > threshold:
            status = "raised"
        else:
            status = None
        if status is not None:
            flags.append(
                RedFlag(
                    rule.metric,
                    rule.red_flag,
                    value,
                    float(threshold),
                    comparison,
                    rule.action,
                    status,
                )
            )
    return flags


def _measured(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)
