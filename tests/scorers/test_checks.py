"""Rule checks (max_turns, token_budget, response_contains, response_not_contains, escalation,
signal_task_complete, tool_name_match, error_suggestions): every example of the evaluator
catalog on assay records, the catalog code's known crashes as regression tests, and a pass, a
fail and a not-applicable case for each scorer."""

from __future__ import annotations

from typing import Any

import pytest

from assay.formats.scenarios import case_from_object
from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer


def steps(
    *calls: list[ToolCall] | ToolCall | None, texts: list[str | None] | None = None
) -> list[Step]:
    built = []
    for index, item in enumerate(calls):
        tool_calls = [] if item is None else item if isinstance(item, list) else [item]
        text = texts[index] if texts else None
        built.append(Step(index=index, tool_calls=tool_calls, text=text))
    return built


def case(**fields: Any) -> Case:
    """The case of a scenario with these fields, read as a scenario file is."""
    found, _ = case_from_object({"id": "s1", **fields}, "s.json")
    assert found is not None
    return found


def score(name: str, the_case: Case, run: Trajectory, **options: Any) -> Score:
    return create_scorer(name, **options)(the_case, run)


def assert_not_applicable(result: Score) -> None:
    assert result.status is ScoreStatus.UNSCORED
    assert result.value is None and result.passed is None
    assert result.details["reason"] == "not_applicable"


def assert_scored(result: Score, passed: bool, value: float | None = None) -> None:
    assert result.status is ScoreStatus.SCORED, result.rationale
    assert result.passed is passed, result.rationale
    if value is not None:
        assert result.value == pytest.approx(value)
    assert result.value is not None and 0.0 <= result.value <= 1.0


# -- max_turns ------------------------------------------------------------------------------


def conversation(*assistant: str | None) -> list[Message]:
    return [Message("user", "hello"), *(Message("assistant", text) for text in assistant)]


def test_max_turns_catalog_example_list_criteria_counts_assistant_messages() -> None:
    # Regression: the catalog's eval_max_turns calls .get on success_criteria, which crashes
    # on the list form its own scenarios use.
    the_case = case(success_criteria=[{"max_turns": 3}, {"response_contains": ["ok"]}])
    within = score("max_turns", the_case, Trajectory(messages=conversation("a", None, "c")))
    assert_scored(within, True, 1.0)
    assert within.details == {
        "turns": 3,
        "counted": "assistant messages",
        "limit": 3,
        "limit_from": "scenario",
    }
    over = score("max_turns", the_case, Trajectory(messages=conversation("a", "b", "c", "d")))
    assert_scored(over, False, 0.0)
    assert over.rationale == "4 assistant messages, over the limit of 3"


def test_max_turns_mapping_criteria_counts_steps_before_messages() -> None:
    run = Trajectory(steps=steps(None, None), messages=conversation("a", "b", "c"))
    result = score("max_turns", case(success_criteria={"max_turns": 2}), run)
    assert_scored(result, True)
    assert result.rationale == "2 steps, within the limit of 2"


def test_max_turns_option_is_a_default_the_scenario_overrides() -> None:
    run = Trajectory(steps=steps(None, None, None))
    assert_scored(score("max_turns", case(), run, limit=5), True)
    assert_scored(
        score("max_turns", case(success_criteria=[{"max_turns": 2}]), run, limit=5), False
    )


def test_max_turns_not_applicable_without_a_limit() -> None:
    assert_not_applicable(
        score("max_turns", case(success_criteria=[{"max_tokens": 9}]), Trajectory())
    )


def test_max_turns_run_without_turns_is_unscored_not_passed() -> None:
    result = score("max_turns", case(success_criteria=[{"max_turns": 2}]), Trajectory())
    assert result.status is ScoreStatus.UNSCORED
    assert result.details["reason"] == "no_turns"


def test_max_turns_bad_criterion_is_an_error_with_the_reason() -> None:
    result = score("max_turns", case(success_criteria=[{"max_turns": "ten"}]), Trajectory())
    assert result.status is ScoreStatus.ERROR
    assert result.details == {"reason": "bad_expectation", "field": "success_criteria.max_turns"}
    assert result.rationale == (
        "scenario's success_criteria.max_turns is unusable: s.json: "
        "success_criteria[0].max_turns: Input should be a valid integer, got string"
    )


def test_max_turns_rejects_bad_options() -> None:
    with pytest.raises(ValueError, match="limit"):
        create_scorer("max_turns", limit=-1)


# -- token_budget ---------------------------------------------------------------------------


def test_token_budget_catalog_example_default_budget_5000() -> None:
    scorer = create_scorer("token_budget", max_tokens=5000)
    assert_scored(scorer(case(), Trajectory(usage=Usage(3000, 2000))), True)
    over = scorer(case(), Trajectory(usage=Usage(3000, 2001)))
    assert_scored(over, False)
    assert over.details["total_tokens"] == 5001


def test_token_budget_reads_the_scenario_and_sums_steps_when_the_run_has_no_totals() -> None:
    run = Trajectory(
        steps=[Step(index=0, usage=Usage(100, 10)), Step(index=1, usage=Usage(200, 20))]
    )
    result = score("token_budget", case(success_criteria=[{"max_tokens": 300}]), run)
    assert_scored(result, False)
    assert result.rationale == "330 tokens (300 in, 30 out), over the budget of 300"


def test_token_budget_not_applicable_and_no_usage() -> None:
    assert_not_applicable(score("token_budget", case(), Trajectory(usage=Usage(1, 1))))
    result = score("token_budget", case(success_criteria=[{"max_tokens": 10}]), Trajectory())
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_usage"


# -- response_contains / response_not_contains ----------------------------------------------


def test_response_contains_catalog_example_case_insensitive() -> None:
    the_case = case(success_criteria=[{"response_contains": ["Refund", "order 42"]}])
    result = score(
        "response_contains", the_case, Trajectory(answer="Your refund for ORDER 42 is done")
    )
    assert_scored(result, True, 1.0)
    assert result.details["response_from"] == "answer"


def test_response_contains_none_content_regression() -> None:
    # Regression: the catalog reads messages[-1]["content"].lower(), which crashes when the
    # last message carried only tool calls (content None).
    messages = [
        Message("user", "refund please"),
        Message("assistant", "I issued the refund."),
        Message("assistant", None, tool_calls=[ToolCall("signal_task_complete")]),
    ]
    the_case = case(success_criteria=[{"response_contains": ["refund"]}])
    result = score("response_contains", the_case, Trajectory(answer=None, messages=messages))
    assert_scored(result, True)
    assert result.details["response_from"] == "message 1"


def test_response_contains_partial_credit_and_every_item_counts() -> None:
    the_case = case(
        success_criteria=[{"response_contains": ["refund"]}, {"response_contains": ["5 days"]}]
    )
    result = score("response_contains", the_case, Trajectory(answer="refund sent"))
    assert_scored(result, False, 0.5)
    assert result.details["missing"] == ["5 days"]
    assert "'5 days'" in result.rationale


def test_response_contains_without_text_is_unscored() -> None:
    the_case = case(success_criteria=[{"response_contains": ["x"]}])
    run = Trajectory(answer={"not": "text"}, messages=[Message("assistant", None)])
    result = score("response_contains", the_case, run)
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_answer"


def test_response_contains_not_applicable_and_option_default() -> None:
    assert_not_applicable(score("response_contains", case(), Trajectory(answer="x")))
    assert_not_applicable(
        score(
            "response_contains",
            case(success_criteria=[{"response_contains": []}]),
            Trajectory(answer="x"),
        )
    )
    assert_scored(score("response_contains", case(), Trajectory(answer="Hi"), phrases=["hi"]), True)


def test_response_contains_falls_back_to_the_last_step_text() -> None:
    run = Trajectory(steps=steps(None, None, texts=["thinking", "all done"]))
    result = score("response_contains", case(success_criteria={"response_contains": "done"}), run)
    assert_scored(result, True)
    assert result.details["response_from"] == "step 1"


def test_response_not_contains_pass_and_fail() -> None:
    the_case = case(success_criteria=[{"response_not_contains": ["password", "stack trace"]}])
    assert_scored(
        score("response_not_contains", the_case, Trajectory(answer="All good")), True, 1.0
    )
    failed = score("response_not_contains", the_case, Trajectory(answer="Your PASSWORD is x"))
    assert_scored(failed, False, 0.5)
    assert failed.details["present"] == ["password"]
    assert_not_applicable(score("response_not_contains", case(), Trajectory(answer="x")))


# -- escalation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("should", "called", "passed"),
    [(True, True, True), (True, False, False), (False, False, True), (False, True, False)],
)
def test_escalation_catalog_example(should: bool, called: bool, passed: bool) -> None:
    calls = [ToolCall("lookup_order"), *([ToolCall("escalate_to_human")] if called else [])]
    result = score("escalation", case(should_escalate=should), Trajectory(steps=steps(calls)))
    assert_scored(result, passed)
    assert result.details["escalated"] is called


def test_escalation_names_the_step_and_takes_other_tools() -> None:
    run = Trajectory(steps=steps(None, ToolCall("handoff")))
    result = score("escalation", case(should_escalate=True), run, tools=["handoff"])
    assert_scored(result, True)
    assert result.rationale == "escalated (handoff at step 1)"


def test_escalation_not_applicable_unless_the_scenario_or_option_says() -> None:
    # The catalog defaults should_escalate to False; assay does not guess.
    assert_not_applicable(score("escalation", case(), Trajectory()))
    assert_scored(score("escalation", case(), Trajectory(), should_escalate=False), True)
    result = score("escalation", case(should_escalate="yes"), Trajectory())
    assert result.status is ScoreStatus.ERROR


def test_escalation_reads_message_tool_calls_when_there_are_no_steps() -> None:
    messages = [Message("assistant", None, tool_calls=[ToolCall("escalate_to_human")])]
    result = score("escalation", case(should_escalate=True), Trajectory(messages=messages))
    assert_scored(result, True)
    assert "message 0" in result.rationale


# -- signal_task_complete -------------------------------------------------------------------


def test_signal_task_complete_catalog_example() -> None:
    the_case = case(should_signal_complete=True)
    done = Trajectory(steps=steps(ToolCall("lookup"), ToolCall("signal_task_complete")))
    assert_scored(score("signal_task_complete", the_case, done), True)
    not_done = Trajectory(steps=steps(ToolCall("lookup")))
    failed = score("signal_task_complete", the_case, not_done)
    assert_scored(failed, False)
    assert "never called" in failed.rationale


def test_signal_task_complete_false_means_must_not_signal() -> None:
    the_case = case(should_signal_complete=False)
    done = Trajectory(steps=steps(ToolCall("signal_task_complete")))
    assert_scored(score("signal_task_complete", the_case, done), False)
    assert_scored(score("signal_task_complete", the_case, Trajectory()), True)


def test_signal_task_complete_not_applicable_and_required_option() -> None:
    assert_not_applicable(score("signal_task_complete", case(), Trajectory()))
    assert_scored(score("signal_task_complete", case(), Trajectory(), required=True), False)


# -- tool_name_match ------------------------------------------------------------------------


def test_tool_name_match_catalog_level_1_2_example() -> None:
    the_case = case(expected_tools=["search_products", "get_pricing"])
    run = Trajectory(steps=steps(ToolCall("get_pricing"), ToolCall("search_products")))
    result = score("tool_name_match", the_case, run)
    assert_scored(result, True, 1.0)
    assert result.details["matched"] == {"search_products": "step 1", "get_pricing": "step 0"}


def test_tool_name_match_partial_credit_and_threshold() -> None:
    the_case = case(expected_tools=["a", "b", "c", "d"])
    run = Trajectory(steps=steps([ToolCall("a"), ToolCall("b"), ToolCall("c")]))
    assert_scored(score("tool_name_match", the_case, run), False, 0.75)
    assert_scored(score("tool_name_match", the_case, run, threshold=0.75), True, 0.75)
    assert score("tool_name_match", the_case, run).details["missing"] == ["d"]


def test_tool_name_match_not_applicable_and_metadata_is_not_read() -> None:
    assert_not_applicable(score("tool_name_match", case(), Trajectory()))
    assert_not_applicable(score("tool_name_match", Case(id="s", expected_tools=[]), Trajectory()))
    # Only the typed field counts: metadata holds what no scorer reads.
    the_case = Case(id="s", metadata={"expected_tools": ["x"]})
    assert_not_applicable(score("tool_name_match", the_case, Trajectory()))
    assert_scored(score("tool_name_match", Case(id="s", expected_tools=["x"]), Trajectory()), False)


def test_tool_name_match_bad_expected_tools_is_an_error() -> None:
    result = score("tool_name_match", case(expected_tools=["ok", 3]), Trajectory())
    assert result.status is ScoreStatus.ERROR
    assert "s.json: expected_tools[1]: Input should be a valid string" in result.rationale


# -- error_suggestions ----------------------------------------------------------------------


def failing(name: str, **result: Any) -> ToolCall:
    return ToolCall(name, result={"error": "order not found", **result})


def test_error_suggestions_catalog_example_pass() -> None:
    run = Trajectory(
        answer="I could not find it. Please check the order number.",
        steps=steps(failing("lookup_order", suggestions=["Check the order number", "Call us"])),
    )
    result = score("error_suggestions", case(), run)
    assert_scored(result, True, 1.0)
    assert result.details["errors"][0]["mentioned"] == ["Check the order number"]


def test_error_suggestions_fails_without_suggestions_or_mention() -> None:
    run = Trajectory(
        answer="Sorry, something failed.",
        steps=steps(
            failing("a"), failing("b", suggestions=["retry later"]), ToolCall("c", result={"ok": 1})
        ),
    )
    result = score("error_suggestions", case(), run)
    assert_scored(result, False, 0.0)
    assert "no suggestions with a at step 0" in result.rationale
    assert "b at step 1" in result.rationale
    lenient = score("error_suggestions", case(), run, require_mention=False)
    assert_scored(lenient, False, 0.5)


def test_error_suggestions_none_content_regression() -> None:
    # Regression: the catalog reads the last message's content with .lower(); here it is None
    # and the text is in an earlier assistant message.
    messages = [
        Message("assistant", None, tool_calls=[ToolCall("lookup", call_id="c1")]),
        Message(
            "tool", '{"error": "timeout", "suggestions": ["try again later"]}', tool_call_id="c1"
        ),
        Message("assistant", "The service timed out; please try again later."),
        Message("assistant", None),
    ]
    result = score("error_suggestions", case(), Trajectory(messages=messages))
    assert_scored(result, True)


def test_error_suggestions_not_applicable_without_errors_and_odd_results() -> None:
    run = Trajectory(
        answer="x",
        steps=steps(
            [
                ToolCall("a", result=None),
                ToolCall("b", result="Error: plain text"),
                ToolCall("c", result={"error": ""}),
                ToolCall("d", result=["list"]),
            ]
        ),
    )
    assert_not_applicable(score("error_suggestions", case(), run))


def test_error_suggestions_no_answer_is_unscored_when_mentions_decide() -> None:
    run = Trajectory(steps=steps(failing("a", suggestions="retry")))
    result = score("error_suggestions", case(), run)
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "no_answer"
