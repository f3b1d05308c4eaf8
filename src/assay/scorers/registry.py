"""The scorer registry: scorers by name, built-in and from the `assay.scorers` entry points.

A scorer is a pure function `(case, trajectory) -> Score`. It is registered as a *factory* that
takes the scorer's options and returns that function, so a report can name the scorer and the
options it ran with.

Example:
    >>> from assay.results import Score
    >>> @register_scorer("always_pass")
    ... def always_pass() -> Scorer:
    ...     def score(case, run):
    ...         return Score.scored("always_pass", 1.0, passed=True)
    ...     return score
    >>> create_scorer("always_pass")(None, None).passed
    True
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from assay.records import Case, Trajectory
    from assay.results import Score

Scorer = Callable[["Case", "Trajectory"], "Score"]
"""A scorer: pure, no I/O, returns a Score for one run against one case."""

ScorerFactory = Callable[..., Scorer]
"""Builds a scorer from keyword options."""

_F = TypeVar("_F", bound=ScorerFactory)

_REGISTRY: dict[str, ScorerFactory] = {}
_BUILTIN_MODULES = {
    "static_json": "assay.scorers.static_json",
    "trajectory": "assay.scorers.trajectory",
    "llm_judge": "assay.scorers.judges",
    "rubric": "assay.scorers.judges",
    "trajectory_judge": "assay.scorers.judges",
    "safety": "assay.scorers.judges",
    "factuality": "assay.scorers.judges",
    "hallucination": "assay.scorers.judges",
    "max_turns": "assay.scorers.checks",
    "token_budget": "assay.scorers.checks",
    "response_contains": "assay.scorers.checks",
    "response_not_contains": "assay.scorers.checks",
    "escalation": "assay.scorers.checks",
    "signal_task_complete": "assay.scorers.checks",
    "tool_name_match": "assay.scorers.checks",
    "error_suggestions": "assay.scorers.checks",
    "confirmation_flow": "assay.scorers.confirmation",
    "interrupt_rejection": "assay.scorers.confirmation",
    "idempotency": "assay.scorers.confirmation",
    "tool_graph": "assay.scorers.multi_agent",
    "routing": "assay.scorers.multi_agent",
    "hierarchical": "assay.scorers.multi_agent",
    "composite": "assay.scorers.compose",
}
"""Built-in scorers by name and the module that registers each; imported on first use, so
that start-up stays fast."""

ENTRY_POINT_GROUP = "assay.scorers"


class UnknownScorerError(LookupError):
    """No scorer of that name is built in or installed."""


def register_scorer(name: str) -> Callable[[_F], _F]:
    """Register a scorer factory under `name` (a decorator)."""

    def decorate(factory: _F) -> _F:
        _REGISTRY[name] = factory
        return factory

    return decorate


def get_scorer_factory(name: str) -> ScorerFactory:
    """The factory registered as `name`, importing built-ins and plugins as needed."""
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        import_module(_BUILTIN_MODULES[name])
    if name not in _REGISTRY:
        _load_entry_point(name)
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(available_scorers())
        raise UnknownScorerError(f"unknown scorer {name!r}; available: {known}") from None


def create_scorer(name: str, **options: Any) -> Scorer:
    """Build the scorer `name` with `options`."""
    return get_scorer_factory(name)(**options)


def available_scorers() -> list[str]:
    """Names of every scorer that can be created."""
    from importlib.metadata import entry_points

    names = set(_REGISTRY) | set(_BUILTIN_MODULES)
    names |= {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(names)


def _load_entry_point(name: str) -> None:
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        factory = ep.load()
        if name not in _REGISTRY:
            _REGISTRY[name] = factory
