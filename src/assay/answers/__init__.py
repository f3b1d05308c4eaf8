"""Answer text to structured values: parse, normalise, flatten, align and compare."""

from assay.answers.compare import Comparison, KeyComparison, compare_values, nothing_answered
from assay.answers.normalize import normal_form, similarity
from assay.answers.parse import (
    ParsedAnswer,
    answer_region,
    expectation_for,
    parse_answer,
    parse_gold,
)
from assay.schema.answer_rules import AnswerRules, KeyRule, RulesError, parse_rules

__all__ = [
    "AnswerRules",
    "Comparison",
    "KeyComparison",
    "KeyRule",
    "ParsedAnswer",
    "RulesError",
    "answer_region",
    "compare_values",
    "expectation_for",
    "normal_form",
    "nothing_answered",
    "parse_answer",
    "parse_gold",
    "parse_rules",
    "similarity",
]
