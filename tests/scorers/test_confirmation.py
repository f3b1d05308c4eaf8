"""confirmation_flow, interrupt_rejection and idempotency: the catalog's examples on assay
records, its crashes as regression tests, and pass / fail / not-applicable cases."""

from __future__ import annotations

from typing import Any

import pytest

from assay.formats.scenarios import case_from_object
from assay.records import Case, Message, Step, ToolCall, Trajectory
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer

PENDING = {"status": "pending_confirmation", "summary": "refund $40 on order 42"}
DONE = {"status": "completed"}


def run_of(*turns: ToolCall | list[ToolCall]) -> Trajectory:
    return Trajectory(
        steps=[
            Step(index=i, tool_calls=turn if isinstance(turn, list) else [turn])
            for i, turn in enumerate(turns)
        ]
    )


def case(**fields: Any) -> Case:
    """The case of a scenario with these fields, read as a scenario file is."""
    found, _ = case_from_object({"id": "s", **fields}, "s.json")
    assert found is not None
    return found


def score(name: str, the_case: Case, run: Trajectory, **options: Any) -> Score:
    return create_scorer(name, **options)(the_case, run)


def assert_scored(result: Score, passed: bool, value: float | None = None) -> None:
    assert result.status is ScoreStatus.SCORED, result.rationale
    assert result.passed is passed, result.rationale
    if value is not None:
        assert result.value == pytest.approx(value)


APPROVE = case(sensitive_tool="process_refund", approval="approve")
REJECT = case(sensitive_tool="process_refund", approval="reject")


# -- confirmation_flow ----------------------------------------------------------------------


def test_confirmation_flow_catalog_example_invoke_pending_confirm_completed() -> None:
    run = run_of(
        ToolCall("lookup_order", result={"id": 42}),
        ToolCall("process_refund", {"order": 42}, result=PENDING),
        ToolCall("confirm_process_refund", result=DONE),
    )
    result = score("confirmation_flow", APPROVE, run)
    assert_scored(result, True, 1.0)
    assert result.rationale == (
        "process_refund at step 1 returned pending_confirmation; "
        "confirmed with confirm_process_refund at step 2"
    )
    assert result.details["calls"][1]["confirms"] == "step 1"


def test_confirmation_flow_direct_execution_fails() -> None:
    run = run_of(ToolCall("process_refund", result=DONE))
    result = score("confirmation_flow", APPROVE, run)
    assert_scored(result, False, 0.0)
    assert "returned status 'completed', not pending_confirmation" in result.rationale


def test_confirmation_flow_confirm_without_sensitive_call_regression() -> None:
    # Regression: the catalog calls tool_names.index(sensitive_tool), which raises when the
    # agent confirms without ever calling the sensitive tool.
    run = run_of(ToolCall("confirm_process_refund", result=DONE))
    result = score("confirmation_flow", APPROVE, run)
    assert_scored(result, False)
    assert result.rationale == (
        "confirm_process_refund at step 0 without a pending process_refund call before it"
    )


def test_confirmation_flow_result_none_or_text_regression() -> None:
    # Regression: the catalog calls .get on the result, which crashes on None or text.
    for result_value in (None, "ok, refunded"):
        run = run_of(ToolCall("process_refund", result=result_value))
        result = score("confirmation_flow", APPROVE, run)
        assert_scored(result, False)
        assert "returned no status" in result.rationale


def test_confirmation_flow_result_as_json_text_is_read() -> None:
    run = run_of(
        ToolCall("process_refund", result='{"status": "pending_confirmation"}'),
        ToolCall("confirm_process_refund"),
    )
    assert_scored(score("confirmation_flow", APPROVE, run), True)


def test_confirmation_flow_confirm_in_the_same_turn_does_not_count() -> None:
    run = run_of([ToolCall("process_refund", result=PENDING), ToolCall("confirm_process_refund")])
    result = score("confirmation_flow", APPROVE, run)
    assert_scored(result, False)
    assert "without a pending process_refund call before it" in result.rationale


def test_confirmation_flow_approved_but_never_confirmed_fails() -> None:
    run = run_of(ToolCall("process_refund", result=PENDING))
    result = score("confirmation_flow", APPROVE, run)
    assert_scored(result, False)
    assert result.rationale == (
        "approved, but process_refund at step 0 was never confirmed with confirm_process_refund"
    )


def test_confirmation_flow_rejected_must_not_confirm() -> None:
    pending_only = run_of(ToolCall("process_refund", result=PENDING))
    assert_scored(score("confirmation_flow", REJECT, pending_only), True)
    confirmed = run_of(
        ToolCall("process_refund", result=PENDING), ToolCall("confirm_process_refund")
    )
    result = score("confirmation_flow", REJECT, confirmed)
    assert_scored(result, False)
    assert "although the operation was rejected" in result.rationale


def test_confirmation_flow_never_called_fails_and_not_applicable_without_tool() -> None:
    result = score("confirmation_flow", APPROVE, run_of(ToolCall("lookup_order")))
    assert_scored(result, False)
    assert "never called" in result.rationale
    na = score("confirmation_flow", case(approval="approve"), run_of(ToolCall("x")))
    assert na.status is ScoreStatus.UNSCORED and na.details["reason"] == "not_applicable"


def test_confirmation_flow_options_and_bad_expectations() -> None:
    run = run_of(ToolCall("wipe", result=PENDING), ToolCall("approve_wipe"))
    result = score(
        "confirmation_flow",
        case(),
        run,
        sensitive_tool="wipe",
        confirm_prefix="approve_",
        approval="approve",
    )
    assert_scored(result, True)
    bad = score("confirmation_flow", case(sensitive_tool="x", approval="maybe"), run)
    assert bad.status is ScoreStatus.ERROR and "approval" in bad.rationale
    with pytest.raises(ValueError, match="approval"):
        create_scorer("confirmation_flow", approval="yes")


def test_confirmation_flow_message_only_run_pairs_results_by_call_id() -> None:
    messages = [
        Message("user", "refund order 42"),
        Message("assistant", None, tool_calls=[ToolCall("process_refund", call_id="c1")]),
        Message("tool", '{"status": "pending_confirmation"}', tool_call_id="c1"),
        Message("user", "yes, go ahead"),
        Message("assistant", None, tool_calls=[ToolCall("confirm_process_refund", call_id="c2")]),
        Message("tool", '{"status": "completed"}', tool_call_id="c2"),
        Message("assistant", "Done."),
    ]
    result = score("confirmation_flow", APPROVE, Trajectory(messages=messages))
    assert_scored(result, True)
    assert "message 1" in result.rationale and "message 4" in result.rationale


# -- interrupt_rejection --------------------------------------------------------------------


def test_interrupt_rejection_catalog_example_pass() -> None:
    run = run_of(
        ToolCall("process_refund", result=PENDING),
        ToolCall("send_message", {"text": "Understood, no refund."}),
    )
    result = score("interrupt_rejection", REJECT, run)
    assert_scored(result, True, 1.0)
    assert result.details["asked_at"] == "step 0"


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (ToolCall("confirm_process_refund"), "confirm_process_refund at step 1"),
        (ToolCall("process_refund", result=DONE), "process_refund at step 1 (executed"),
        (ToolCall("process_refund", result=PENDING), "process_refund at step 1 (asked again)"),
    ],
)
def test_interrupt_rejection_fails_when_the_operation_goes_on(
    after: ToolCall, expected: str
) -> None:
    run = run_of(ToolCall("process_refund", result=PENDING), after)
    result = score("interrupt_rejection", REJECT, run)
    assert_scored(result, False, 0.0)
    assert expected in result.rationale


def test_interrupt_rejection_direct_execution_fails() -> None:
    result = score("interrupt_rejection", REJECT, run_of(ToolCall("process_refund", result=None)))
    assert_scored(result, False)
    assert "no pending confirmation" in result.rationale


def test_interrupt_rejection_confirm_without_sensitive_call_fails_not_crashes() -> None:
    result = score("interrupt_rejection", REJECT, run_of(ToolCall("confirm_process_refund")))
    assert_scored(result, False)


def test_interrupt_rejection_not_applicable_or_not_exercised() -> None:
    na = score("interrupt_rejection", APPROVE, run_of(ToolCall("process_refund", result=PENDING)))
    assert na.status is ScoreStatus.UNSCORED and na.details["reason"] == "not_applicable"
    na = score("interrupt_rejection", case(approval="reject"), run_of(ToolCall("x")))
    assert na.details["reason"] == "not_applicable"
    idle = score("interrupt_rejection", REJECT, run_of(ToolCall("lookup_order")))
    assert idle.status is ScoreStatus.UNSCORED and idle.details["reason"] == "not_exercised"


# -- idempotency ----------------------------------------------------------------------------


def charge(key: Any, result: Any) -> ToolCall:
    return ToolCall("charge_card", {"amount": 40, "idempotency_key": key}, result=result)


def test_idempotency_catalog_example_retry_returns_already_processed_same_data() -> None:
    first = {"status": "completed", "data": {"charge_id": "ch_1"}}
    again = {"status": "already_processed", "data": {"charge_id": "ch_1"}}
    result = score("idempotency", case(), run_of(charge("k-1", first), charge("k-1", again)))
    assert_scored(result, True, 1.0)
    assert result.details["retries"][0]["retry"] == "step 1"


def test_idempotency_fails_on_re_execution_or_different_data() -> None:
    first = {"status": "completed", "data": {"charge_id": "ch_1"}}
    re_run = {"status": "completed", "data": {"charge_id": "ch_2"}}
    other_data = {"status": "already_processed", "data": {"charge_id": "ch_9"}}
    good = {"status": "already_processed", "data": {"charge_id": "ch_1"}}
    run = run_of(
        charge("k", first), charge("k", re_run), charge("k", other_data), charge("k", good)
    )
    result = score("idempotency", case(), run)
    assert_scored(result, False, 1 / 3)
    assert (
        "charge_card at step 1 (key 'k'): status 'completed', data differs from the first "
        "call's (step 0)"
    ) in result.rationale


def test_idempotency_not_applicable_without_repeated_keys() -> None:
    run = run_of(
        charge("a", None),
        charge("b", None),
        ToolCall("charge_card", "idempotency_key=a"),  # raw, unparsable arguments
        ToolCall("refund", {"idempotency_key": "a"}),  # same key, another tool
        ToolCall("charge_card", None),
    )
    result = score("idempotency", case(), run)
    assert result.status is ScoreStatus.UNSCORED and result.details["reason"] == "not_applicable"


def test_idempotency_reads_args_given_as_json_text_and_other_key_names() -> None:
    first = ToolCall("pay", '{"request_id": 7}', result={"status": "ok", "data": 1})
    again = ToolCall(
        "pay", '{"request_id": 7}', result='{"status": "already_processed", "data": 1}'
    )
    result = score("idempotency", case(), run_of(first, again), key_arg="request_id")
    assert_scored(result, True)
