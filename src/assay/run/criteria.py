"""Criteria of a live evaluation: the judge model in force, and the criteria that follow
from what the cases expect when no config is given. The criteria themselves
(`CriterionConfig`, `EvalConfig`) are file models in `assay.schema.evalconfig`.

Example:
    >>> from assay.schema.evalset import EvalCase
    >>> list(inferred_config([EvalCase(eval_id="a", user_query="?",
    ...                                expected_tools=["search"])]).criteria)
    ['tool_match']
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from assay.schema.evalconfig import JUDGED_SCORERS, CriterionConfig, EvalConfig

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = [
    "DEFAULT_JUDGE_MODEL",
    "JUDGED_SCORERS",
    "CriterionConfig",
    "EvalConfig",
    "inferred_config",
    "judge_model",
]

DEFAULT_JUDGE_MODEL = "openai/gpt-4.1-mini"
"""The model the `llm_judge`, `rubric`, `safety` and `simulation` criteria use when none is
named: the environment variable `ASSAY_JUDGE_MODEL` replaces it, and a criterion's `model=`
replaces both."""


def judge_model() -> str:
    """The judge model in force: `ASSAY_JUDGE_MODEL` when set, else `DEFAULT_JUDGE_MODEL`.

    Example:
        >>> judge_model() == (os.environ.get("ASSAY_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL)
        True
    """
    return os.environ.get("ASSAY_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL


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


