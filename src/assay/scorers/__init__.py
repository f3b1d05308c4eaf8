"""Scorers: pure functions from (case, trajectory) to Score, found by name in one registry."""

from assay.scorers.registry import (
    Scorer,
    ScorerFactory,
    UnknownScorerError,
    available_scorers,
    create_scorer,
    get_scorer_factory,
    register_scorer,
)

__all__ = [
    "Scorer",
    "ScorerFactory",
    "UnknownScorerError",
    "available_scorers",
    "create_scorer",
    "get_scorer_factory",
    "register_scorer",
]
