"""The vocabulary of trajectory checks: match modes, argument modes, expected steps.

Example:
    >>> from assay.records import MatchType, StepType, ToolCall, TrajectoryStep
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
from typing import Any, Literal, TypeAlias

from assay._suggest import did_you_mean
from assay.records import MatchType, StepType, TrajectoryStep

__all__ = [
    "ARGS_MODES",
    "MODES",
    "ArgsMatcher",
    "ArgsMode",
    "MatchType",
    "Mode",
    "Override",
    "Overrides",
    "StepType",
    "TrajectoryStep",
    "match_type_of",
    "resolve_mode",
]
"""`MatchType`, `StepType` and `TrajectoryStep` are defined with the records (a case's
expected steps are written with them) and are this module's vocabulary too."""

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


_ALIASES: dict[str, Mode] = {
    "EXACT": "strict",
    "IN_ORDER": "subsequence",
    "ANY_ORDER": "superset",
}


def match_type_of(mode: str | MatchType) -> MatchType | None:
    """The `MatchType` a mode name spells (in ADK's spellings, read by `MatchType.parse`),
    or None for an assay mode or an unknown name.

    Example:
        >>> match_type_of("any order"), match_type_of(MatchType.EXACT), match_type_of("subset")
        (<MatchType.ANY_ORDER: 'ANY_ORDER'>, <MatchType.EXACT: 'EXACT'>, None)
    """
    try:
        return MatchType.parse(mode)
    except ValueError:
        return None


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
        known = [*MODES, *_ALIASES]
        hint = did_you_mean(text, known) or f"; use one of: {', '.join(known)}"
        raise ValueError(f"unknown trajectory mode {text!r}{hint}")
    return alias
