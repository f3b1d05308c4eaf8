"""Criteria of a live evaluation: the criteria that follow from what the cases expect when no
config is given. The criteria themselves (`CriterionConfig`, `EvalConfig`) and the judge model
their factories name are in `assay.schema.evalconfig`.

Example:
    >>> from assay.schema.evalset import EvalCase
    >>> list(inferred_config([EvalCase(eval_id="a", user_query="?",
    ...                                expected_tools=["search"])]).criteria)
    ['tool_match']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.schema.evalconfig import DEFAULT_JUDGE_MODEL, CriterionConfig, EvalConfig, judge_model

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "CriterionConfig",
    "EvalConfig",
    "inferred_config",
    "judge_model",
]

def inferred_config(cases: Iterable[EvalCase]) -> EvalConfig:
    """The criteria that follow from what the cases expect, when no config is given: tool
    match for `expected_tools`, trajectory for `expected_trajectory` (tool steps in order,
    arguments as given, and node steps in order), response match for expected responses. A
    case that does not expect what a criterion checks is not scored on it (`not_applicable`).

    Raises:
        ValueError: the cases expect nothing a criterion can check.
    """
    criteria: dict[str, CriterionConfig] = {}
    cases = list(cases)
    if any(c.expected_tools for c in cases):
        criteria["tool_match"] = CriterionConfig.tool_name_match()
    if any(c.expected_trajectory for c in cases):
        criteria["trajectory"] = CriterionConfig.trajectory()
    if any(any(e is not None for e in c.expected_responses()) for c in cases):
        criteria["response"] = CriterionConfig.response_match()
    if not criteria:
        raise ValueError(
            "the cases expect nothing a criterion can check (no expected_tools, "
            "expected_trajectory or expected_response): give a config with criteria"
        )
    return EvalConfig(criteria=criteria)


