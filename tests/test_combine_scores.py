"""The combined verdict of several scorers: what does not apply is left out, what gave no
verdict makes the run partially scored, never passed."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import assay.scorers
from assay.models.types import ModelError
from assay.results import (
    DOES_NOT_APPLY,
    NOT_APPLICABLE,
    PARTIALLY_SCORED,
    Score,
    ScoreStatus,
    combine_scores,
)
from assay.scorers import _runs

NO_VERDICT = frozenset(
    {
        "no_answer",
        "no_turns",
        "no_usage",
        "no_nodes",
        "no_trajectory",
        "no_tool_results",
        "not_exercised",
        "self_judge",
        "judge_failed",
        "no_part_scored",
        "no_weight",
        "pattern_timeout",
        "partially_scored",
        "answer_over_limit",
    }
)
"""The unscored reason codes the scorers give that mean "no verdict could be given"."""

ERROR_CODES = frozenset(
    {
        "bad_expectation",
        "bad_ground_truth",
        "bad_options",
        "bad_rubrics",
        "bad_rules",
        "part_error",
        "scorer_error",
    }
)
"""The reason codes of errored scores (an error is never left out of a combined verdict)."""


def judge_failed(kind: str = "http_error") -> Score:
    return Score.unscored("llm_judge", "judge call failed (http_error): 500", {"reason": kind})


def test_a_judge_that_failed_beside_a_passed_check_is_a_partially_scored_run() -> None:
    combined = combine_scores([Score.scored("static_json", 1.0, passed=True), judge_failed()])
    assert combined.status is ScoreStatus.UNSCORED
    assert (combined.value, combined.passed) == (None, None)
    assert combined.details["reason"] == PARTIALLY_SCORED
    assert combined.details["without_verdict"] == ["llm_judge"]
    assert combined.details["parts"] == [
        {"scorer": "static_json", "status": "scored", "score": 1.0, "passed": True,
         "reason": None},
        {"scorer": "llm_judge", "status": "unscored", "score": None, "passed": None,
         "reason": "http_error"},
    ]  # fmt: skip
    assert combined.rationale == (
        "no verdict from llm_judge: judge call failed (http_error): 500; static_json passed"
    )


def test_a_failed_check_beside_a_missing_verdict_is_partially_scored_and_says_so() -> None:
    failed = Score.scored("static_json", 0.0, passed=False, rationale="count differs")
    combined = combine_scores([failed, judge_failed("timeout")])
    assert combined.details["reason"] == PARTIALLY_SCORED and combined.value is None
    assert "static_json failed (count differs)" in combined.rationale


def test_a_run_without_an_answer_is_not_passed_by_its_other_checks() -> None:
    trajectory = Score.scored("trajectory", 1.0, passed=True)
    combined = combine_scores([Score.no_answer("static_json", None), trajectory])
    assert combined.status is ScoreStatus.UNSCORED
    assert combined.details["reason"] == PARTIALLY_SCORED


def test_a_check_that_does_not_apply_is_left_out() -> None:
    not_applicable = _runs.not_applicable("max_turns", "scenario sets no max_turns")
    combined = combine_scores([Score.scored("static_json", 0.8, passed=True), not_applicable])
    assert (combined.status, combined.value, combined.passed) == (ScoreStatus.SCORED, 0.8, True)


def test_an_errored_part_keeps_the_verdict_an_error() -> None:
    broken = Score.error("trajectory", "bad expectation", {"reason": "bad_expectation"})
    passed = Score.scored("static_json", 1.0, passed=True)
    combined = combine_scores([passed, judge_failed(), broken])
    assert combined.status is ScoreStatus.ERROR and combined.details["reason"] == "part_error"


def test_parts_that_all_do_not_apply_make_a_run_that_does_not_apply() -> None:
    parts = [
        _runs.not_applicable("max_turns", "scenario sets no max_turns"),
        Score.unscored("static_json", "characteristic_form only", {"reason": "no_expected_answer"}),
    ]
    combined = combine_scores(parts)
    assert combined.status is ScoreStatus.UNSCORED
    assert combined.details["reason"] == NOT_APPLICABLE and combined.does_not_apply()


def test_no_part_scored_stays_unscored_with_the_shared_reason() -> None:
    combined = combine_scores([Score.no_answer("a", None), Score.no_answer("b", 3)])
    assert combined.details["reason"] == "no_answer"
    mixed = combine_scores([Score.no_answer("a", None), judge_failed()])
    assert mixed.details["reason"] == "no_part_scored" and not mixed.does_not_apply()


def test_only_the_not_applicable_codes_do_not_apply() -> None:
    assert sorted(DOES_NOT_APPLY) == ["no_expected_answer", "not_applicable"]
    assert not DOES_NOT_APPLY & NO_VERDICT
    assert not Score.unscored("plugin", "something went wrong").does_not_apply()
    scored = Score.scored("a", 1.0, passed=True, details={"reason": NOT_APPLICABLE})
    assert not scored.does_not_apply()  # only an unscored score can be one that does not apply


def _kinds(error: type[ModelError]) -> set[str]:
    found = {error.kind}
    for sub in error.__subclasses__():
        found |= _kinds(sub)
    return found


def test_a_judge_failure_of_any_kind_is_no_verdict() -> None:
    kinds = _kinds(ModelError) | {"invalid_verdict", "judge_failed"}
    assert {"timeout", "rate_limited", "http_error", "budget", "cache_miss"} <= kinds
    assert not kinds & DOES_NOT_APPLY


def test_every_reason_code_the_scorers_give_is_classified() -> None:
    # A new reason code must be placed: does it mean "does not apply" or "no verdict"?
    given_codes: set[str] = set()
    for module in Path(assay.scorers.__file__).parent.glob("*.py"):
        for line in module.read_text(encoding="utf-8").splitlines():
            if '"reason"' in line:
                given_codes |= set(re.findall(r'(?<!"field": )"([a-z_]+)"(?!\s*:)', line))
    given_codes.discard("reason")
    assert "not_exercised" in given_codes and "no_usage" in given_codes  # the scan finds them
    unclassified = given_codes - DOES_NOT_APPLY - NO_VERDICT - ERROR_CODES
    assert not unclassified, unclassified


# --- the property: a combined verdict passes only when every part that applies passed -----

_NOT_APPLY = sorted(DOES_NOT_APPLY)
_MISSING = [*sorted(NO_VERDICT | {"timeout", "invalid_verdict"}), None]
_NAMES = st.sampled_from(["a", "b", "c"])


def _unscored(name: str, reason: str | None) -> Score:
    return Score.unscored(name, "no verdict", {} if reason is None else {"reason": reason})


part_scores = st.one_of(
    st.builds(
        lambda name, value, passed: Score.scored(name, value, passed=passed),
        _NAMES,
        st.floats(0.0, 1.0),
        st.booleans(),
    ),
    st.builds(_unscored, _NAMES, st.sampled_from(_NOT_APPLY)),
    st.builds(_unscored, _NAMES, st.sampled_from(_MISSING)),
    st.builds(lambda name: Score.error(name, "broke"), _NAMES),
)


@given(st.lists(part_scores, min_size=2, max_size=6))
def test_a_combined_verdict_passes_only_when_every_part_that_applies_passed(
    parts: list[Score],
) -> None:
    combined = combine_scores(parts)
    applying = [part for part in parts if not part.does_not_apply()]
    everything_passed = bool(applying) and all(
        part.status is ScoreStatus.SCORED and part.passed for part in applying
    )
    assert (combined.passed is True) == everything_passed
    if combined.status is not ScoreStatus.SCORED:
        assert (combined.value, combined.passed) == (None, None)
    else:  # a score is only given when every part that applies gave one
        assert all(part.status is ScoreStatus.SCORED for part in applying)
        assert combined.value is not None and 0.0 <= combined.value <= 1.0
    if any(part.status is ScoreStatus.ERROR for part in parts):
        assert combined.status is ScoreStatus.ERROR
    scored = any(part.status is ScoreStatus.SCORED for part in parts)
    missing = [p for p in applying if p.status is ScoreStatus.UNSCORED]
    if combined.status is not ScoreStatus.ERROR and scored and missing:
        assert combined.details["reason"] == PARTIALLY_SCORED
        assert combined.details["without_verdict"] == [part.scorer for part in missing]
