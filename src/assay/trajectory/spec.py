"""The vocabulary of trajectory checks: match modes, argument modes, expected steps.

Example:
    >>> from assay.records import ToolCall
    >>> TrajectoryStep.tool(ToolCall("search", {"query": "AI trends"})).name
    'search'
    >>> TrajectoryStep.node("RESEARCH_NODE").type
    <StepType.NODE: 'node'>
    >>> resolve_mode(MatchType.IN_ORDER), resolve_mode("ANY_ORDER"), resolve_mode("strict")
    ('subsequence', 'superset', 'strict')
    >>> match_type_of("in-order"), match_type_of("strict")
    (<MatchType.IN_ORDER: 'IN_ORDER'>, None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, TypeAlias

from assay.records import ToolCall

Mode: TypeAlias = Literal["strict", "unordered", "subsequence", "superset", "subset"]
"""How the expected steps must appear in the actual run."""

ArgsMode: TypeAlias = Literal["exact", "ignore", "subset", "superset"]
"""How a call's arguments must compare with the expected ones."""

ArgsMatcher: TypeAlias = Callable[[Any, Any], bool]
"""A custom argument check, always called as `(actual_args, expected_args)`."""

Override: TypeAlias = ArgsMode | Sequence[str] | ArgsMatcher
"""Per-tool argument rule: a mode, dotted field paths that must be equal, or a callable."""

Overrides: TypeAlias = Mapping[str, Override]

MODES: tuple[Mode, ...] = ("strict", "unordered", "subsequence", "superset", "subset")
ARGS_MODES: tuple[ArgsMode, ...] = ("exact", "ignore", "subset", "superset")


class MatchType(StrEnum):
    """The match types of Google ADK's tool trajectory criterion.

    On flat trajectories each is an alias of a mode. When both the expectation and the run
    are recorded turn by turn, they compare turn by turn as ADK does instead (see
    `assay.trajectory.turns`).
    """

    EXACT = "EXACT"
    """Same steps, same order, same count: `strict`."""

    IN_ORDER = "IN_ORDER"
    """Expected steps in order, other steps allowed between them: `subsequence`."""

    ANY_ORDER = "ANY_ORDER"
    """Every expected step, in any order, extras allowed: `superset`."""


_ALIASES: dict[str, Mode] = {
    "EXACT": "strict",
    "IN_ORDER": "subsequence",
    "ANY_ORDER": "superset",
}


class StepType(StrEnum):
    """What an expected step is."""

    NODE = "node"
    """An agent or graph node was entered."""

    TOOL = "tool"
    """A tool was called."""


@dataclass(frozen=True, slots=True)
class TrajectoryStep:
    """One expected step: a node entered, or a tool called.

    Build them with `TrajectoryStep.node(name)` and `TrajectoryStep.tool(ToolCall(...))`.
    """

    type: StepType
    """Node entry or tool call."""

    name: str
    """The node's or the tool's name."""

    call: ToolCall | None = None
    """For a tool step: the expected call (its arguments are compared as the check says)."""

    @classmethod
    def node(cls, name: str) -> TrajectoryStep:
        """An expected entry into the agent or graph node `name`."""
        return cls(StepType.NODE, name)

    @classmethod
    def tool(cls, call: ToolCall | str) -> TrajectoryStep:
        """An expected tool call (a bare name expects the tool with any arguments)."""
        if isinstance(call, str):
            call = ToolCall(call)
        return cls(StepType.TOOL, call.name, call)


def match_type_of(mode: str | MatchType) -> MatchType | None:
    """The `MatchType` a mode name spells (in ADK's spellings: any case, `-` or a space for
    `_`), or None for an assay mode or an unknown name.

    Example:
        >>> match_type_of("any order"), match_type_of(MatchType.EXACT), match_type_of("subset")
        (<MatchType.ANY_ORDER: 'ANY_ORDER'>, <MatchType.EXACT: 'EXACT'>, None)
    """
    text = str(mode).strip().upper().replace("-", "_").replace(" ", "_")
    return MatchType(text) if text in _ALIASES else None


def resolve_mode(mode: str | MatchType) -> Mode:
    """The canonical mode for a mode name or a `MatchType` alias.

    Raises:
        ValueError: the name is not a mode or an alias.
    """
    text = str(mode)
    if text in MODES:
        return text
    match_type = match_type_of(text)
    alias = _ALIASES[match_type] if match_type is not None else None
    if alias is None:
        known = ", ".join([*MODES, *_ALIASES])
        raise ValueError(f"unknown trajectory mode {text!r}; use one of: {known}")
    return alias
