"""`static_json`: deterministic scoring of structured answers against ground truth.

The gold answer and the model's answer are parsed (`assay.answers.parse`), compared key by key
with lists aligned by content (`assay.answers.compare`), and scored: `passed` is a strict exact
match of every flattened key, `score` is the F1 of exact keys. `details` holds every metric by
name and `details["details"]` the per-key records.

A multi-turn scenario (`Case.turns`) is scored on the run's final answer against the last
turn's expected answer, which is the case's. `details["turns"]` then lists every turn: the
last with the final answer's verdict; each earlier one scored against the run's answer to it
when the run records one per turn (its conversation has exactly one user message per turn; the
answer to a turn is the last assistant text before the next user message), else marked as not
scored. Earlier turns never change the score: they are details for a reader of the report.

Example:
    >>> from assay.records import Case, CaseTurn, Trajectory
    >>> scorer = static_json()
    >>> case = Case(id="11", expected_answer="{'energy': 14, 'material': 48}")
    >>> score = scorer(case, Trajectory(answer='{"energy":14,"material":27}'))
    >>> score.passed, score.value, score.details["partial_similarity_score"]
    (False, 0.5, 0.5)
"""

from __future__ import annotations

from typing import Any, Literal

from assay.answers.compare import compare_values
from assay.answers.parse import expectation_for, parse_answer, parse_gold
from assay.limits import ALIGNMENT_BUDGET
from assay.records import Case, CaseTurn, Trajectory
from assay.results import Score
from assay.schema.answer_rules import AnswerRules
from assay.scorers._runs import turn_answers
from assay.scorers.registry import Scorer, register_scorer

NAME = "static_json"

ANSWER_OVER_LIMIT = "answer_over_limit"
"""`details["reason"]` of a run whose answer broke a limit of the parser (length, depth):
unscored, since assay not reading an answer says nothing of the agent."""


@register_scorer(NAME, group="answers")
def static_json(
    *,
    list_order: Literal["content", "position"] | None = None,
    case_insensitive_keys: bool | None = None,
    alignment_budget: int = ALIGNMENT_BUDGET,
) -> Scorer:
    """Compares the final answer to the expected answer as JSON/Python values, key by key.

    Args:
        list_order: `content` (default) pairs list items by content; `position` by index. A
            scenario's rules may set their own default and per-key rules.
        case_insensitive_keys: Compare dict keys ignoring case (default: as written).
        alignment_budget: Work units (about one comparison of two values each) that aligning
            one answer's lists optimally may spend, nested lists included; past it, lists are
            paired greedily and `details.notes` says where it ran out.
    """
    if (
        isinstance(alignment_budget, bool)
        or not isinstance(alignment_budget, int)
        or alignment_budget < 0
    ):
        raise ValueError(f"alignment_budget must be a whole number >= 0, got {alignment_budget!r}")

    def score(case: Case, run: Trajectory) -> Score:
        return score_static_json(
            case,
            run,
            list_order=list_order,
            case_insensitive_keys=case_insensitive_keys,
            alignment_budget=alignment_budget,
        )

    return score


_DEFAULT_RULES = AnswerRules()


def score_static_json(
    case: Case,
    run: Trajectory,
    *,
    list_order: Literal["content", "position"] | None = None,
    case_insensitive_keys: bool | None = None,
    alignment_budget: int = ALIGNMENT_BUDGET,
) -> Score:
    """Score one run against one case (the body of the `static_json` scorer)."""
    if not isinstance(run.answer, str):
        return Score.no_answer(NAME, run.answer)
    if case.expected_answer is None:
        if case.characteristic_form:
            return Score.unscored(
                NAME,
                "scenario has only a characteristic_form; static_json needs an expected answer "
                "(score it with a judge)",
                {"reason": "no_expected_answer"},
            )
        return Score.error(
            NAME, "scenario has no expected answer", {"reason": "no_expected_answer"}
        )
    rules_error = case.answer_rules_problem
    if rules_error:
        return Score.error(NAME, f"invalid answer rules: {rules_error}", {"reason": "bad_rules"})
    rules = case.answer_rules or _DEFAULT_RULES

    gold = parse_gold(case.expected_answer)
    if gold.rejected:
        return Score.error(
            NAME, f"ground truth could not be parsed: {gold.error}", {"reason": "bad_ground_truth"}
        )
    model = parse_answer(run.answer, expect=expectation_for(gold.value))
    parse_info: dict[str, Any] = {"gold": gold.method, "model": model.method}
    if model.error:
        parse_info["model_error"] = model.error
    if model.rejected:
        # The answer broke one of assay's own limits (length, depth): assay could not read it,
        # which is no verdict on the agent, so it is not scored as a failure.
        return Score.unscored(
            NAME,
            f"answer not read: {model.error}",
            {"reason": ANSWER_OVER_LIMIT, "parse": parse_info},
        )
    comparison = compare_values(
        gold.value,
        model.value,
        rules,
        list_order=list_order,
        case_insensitive_keys=case_insensitive_keys,
        alignment_budget=alignment_budget,
    )
    metrics = comparison.metrics()
    passed = metrics["strict_exact_match_accuracy"] == 1.0
    details: dict[str, Any] = dict(metrics)
    details["details"] = [record.to_report() for record in comparison.records]
    details["parse"] = parse_info
    if comparison.notes:
        details["notes"] = comparison.notes
    if case.turns:
        details["turns"] = _turn_details(
            case,
            case.turns,
            run,
            passed,
            metrics["f1"],
            list_order,
            case_insensitive_keys,
            alignment_budget,
        )
    return Score.scored(
        NAME,
        metrics["f1"],
        passed=passed,
        rationale=_rationale(metrics, model.error),
        details=details,
    )


def _turn_details(
    case: Case,
    turns: list[CaseTurn],
    run: Trajectory,
    passed: bool,
    value: float,
    list_order: Literal["content", "position"] | None,
    case_insensitive_keys: bool | None,
    alignment_budget: int,
) -> list[dict[str, Any]]:
    """One record per turn of a multi-turn case (see the module notes)."""
    answers, why_not = turn_answers(run, len(turns))
    records: list[dict[str, Any]] = []
    for number, turn in enumerate(turns, start=1):
        record: dict[str, Any] = {
            "turn": number,
            "question": turn.question,
            "expected_answer": turn.expected_answer,
        }
        if number == len(turns):
            record.update(answer=run.answer, passed=passed, score=value, note="final answer")
        elif answers is None:
            record.update(answer=None, passed=None, score=None, note=f"not scored: {why_not}")
        else:
            answer = answers[number - 1]
            turn_case = Case(
                id=case.id,
                expected_answer=turn.expected_answer,
                characteristic_form=turn.characteristic_form,
            )
            verdict = score_static_json(
                turn_case,
                Trajectory(answer=answer),
                list_order=list_order,
                case_insensitive_keys=case_insensitive_keys,
                alignment_budget=alignment_budget,
            )
            record.update(
                answer=answer, passed=verdict.passed, score=verdict.value, note=verdict.rationale
            )
        records.append(record)
    return records


def _rationale(metrics: dict[str, Any], parse_error: str | None) -> str:
    exact, gold = metrics["exact_value_matches"], metrics["total_gold_keys"]
    if metrics["strict_exact_match_accuracy"] == 1.0:
        return f"all {gold} gold keys match exactly"
    parts = [f"{exact} of {gold} gold keys exact"]
    if metrics["missing_keys"]:
        parts.append(f"{len(metrics['missing_keys'])} missing")
    if metrics["extra_keys"]:
        parts.append(f"{len(metrics['extra_keys'])} extra")
    if parse_error:
        parts.append(f"answer not parsed as a structure: {parse_error}")
    return "; ".join(parts)
