"""Per-key comparison rules: defined with the other shapes users write, in
`assay.schema.answer_rules` (readers check them once, when a scenario is read); the names stay
importable from here.

Example:
    >>> parse_rules({"keys": {"rate": {"rel_tol": 0.02}}}).for_path("answer.rate").rel_tol
    0.02
"""

from assay.schema.answer_rules import AnswerRules, KeyRule, ListMode, RulesError, parse_rules

__all__ = ["AnswerRules", "KeyRule", "ListMode", "RulesError", "parse_rules"]
