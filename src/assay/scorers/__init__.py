"""Scorers: pure functions from (case, trajectory) to Score, found by name in one registry.

A scorer's options are its factory's keyword parameters; `scorer_info` reads them (types and
defaults), and `scorer_spec` records what a scorer built with given options runs with.
"""

from assay.scorers.registry import (
    AsyncScorer,
    Scorer,
    ScorerFactory,
    UnknownScorerError,
    all_scorers,
    available_scorers,
    builtin_scorers,
    create_scorer,
    get_scorer_factory,
    is_async_scorer,
    register_scorer,
    scorer_info,
    scorer_spec,
)

__all__ = [
    "AsyncScorer",
    "Scorer",
    "ScorerFactory",
    "UnknownScorerError",
    "all_scorers",
    "available_scorers",
    "builtin_scorers",
    "create_scorer",
    "get_scorer_factory",
    "is_async_scorer",
    "register_scorer",
    "scorer_info",
    "scorer_spec",
]
