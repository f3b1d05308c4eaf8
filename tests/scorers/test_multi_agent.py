"""tool_graph, routing, hierarchical and routing_accuracy: the catalog's examples on assay
records, its crashes as regression tests, and pass / fail / not-applicable cases."""

from __future__ import annotations

from typing import Any

import pytest

from assay.formats.scenarios import case_from_object
from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer
from assay.scorers.multi_agent import routing_accuracy


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


def offers(*tools: Any) -> dict[str, Any]:
    return {"status": "ok", "available_actions": list(tools)}


# -- tool_graph -----------------------------------------------------------------------------


GRAPH = {"search_products": ["check_inventory", "get_pricing"]}


def test_tool_graph_catalog_example_expected_next_tools_advertised() -> None:
    run = run_of(
        ToolCall(
            "search_products",
            result=offers({"tool": "check_inventory"}, {"tool": "get_pricing"}),
        ),
        ToolCall("get_pricing", result=offers("add_to_cart")),
        ToolCall("add_to_cart", result={"status": "ok"}),
    )
    result = score("tool_graph", case(expected_tool_graph=GRAPH), run)
    assert_scored(result, True, 1.0)
    assert result.rationale == "all 3 navigation checks met (2 transitions, 1 graph checks)"


def test_tool_graph_plain_name_actions_regression() -> None:
    # Regression: the catalog indexes a["tool"] on every action, which crashes on plain names.
    run = run_of(ToolCall("search_products", result=offers("check_inventory", "get_pricing")))
    assert_scored(score("tool_graph", case(expected_tool_graph=GRAPH), run), True)


def test_tool_graph_missing_advertisement_fails_with_evidence() -> None:
    run = run_of(ToolCall("search_products", result=offers({"tool": "check_inventory"})))
    result = score("tool_graph", case(expected_tool_graph=GRAPH), run)
    assert_scored(result, False, 0.0)
    assert result.rationale == "search_products at step 0 did not advertise get_pricing"


def test_tool_graph_result_none_or_text_regression() -> None:
    # Regression: the catalog calls .get on the result; None and text count as no actions.
    for value in (None, "plain text"):
        run = run_of(ToolCall("search_products", result=value), ToolCall("anything"))
        result = score("tool_graph", case(expected_tool_graph=GRAPH), run)
        assert_scored(result, False)
        assert "did not advertise check_inventory and get_pricing" in result.rationale


def test_tool_graph_transition_off_the_advertised_actions_fails() -> None:
    run = run_of(
        ToolCall("open_ticket", result=offers("add_note", "close_ticket")),
        [ToolCall("add_note", result=offers("close_ticket")), ToolCall("delete_ticket")],
        ToolCall("close_ticket"),
    )
    result = score("tool_graph", case(), run)
    assert_scored(result, False, 2 / 3)
    assert result.rationale == (
        "delete_ticket at step 1 was not advertised by step 0 (offered: add_note and close_ticket)"
    )


def test_tool_graph_turns_without_actions_leave_the_next_turn_free() -> None:
    run = run_of(
        ToolCall("a", result={"x": 1}),
        ToolCall("b", result='{"available_actions": ["c"]}'),
        ToolCall("c"),
    )
    result = score("tool_graph", case(), run)
    assert_scored(result, True)
    assert result.details["unchecked_calls"] == 1


def test_tool_graph_not_applicable_and_not_exercised() -> None:
    na = score("tool_graph", case(), run_of(ToolCall("a"), ToolCall("b")))
    assert na.status is ScoreStatus.UNSCORED and na.details["reason"] == "not_applicable"
    idle = score("tool_graph", case(expected_tool_graph=GRAPH), run_of(ToolCall("other")))
    assert idle.status is ScoreStatus.UNSCORED and idle.details["reason"] == "not_exercised"


def test_tool_graph_option_graph_and_bad_scenario_graph() -> None:
    run = run_of(ToolCall("a", result=offers("b")))
    assert_scored(score("tool_graph", case(), run, expected_graph={"a": ["b"]}), True)
    bad = score("tool_graph", case(expected_tool_graph=["a", "b"]), run)
    assert bad.status is ScoreStatus.ERROR
    with pytest.raises(ValueError, match="expected_graph"):
        create_scorer("tool_graph", expected_graph={"a": [1]})


# -- routing --------------------------------------------------------------------------------


def test_routing_coordinator_example_delegate_call() -> None:
    run = run_of(ToolCall("delegate_to_billing", {"task": "refund order 42"}))
    result = score("routing", case(expected_subagent="billing"), run)
    assert_scored(result, True, 1.0)
    assert result.rationale == "delegated to billing (delegate_to_billing at step 0)"


def test_routing_by_node_and_wrong_routing() -> None:
    run = Trajectory(steps=[Step(index=0, node="coordinator"), Step(index=1, node="Billing")])
    assert_scored(score("routing", case(expected_subagent="billing"), run), True)
    wrong = run_of(ToolCall("delegate_to_shipping"))
    result = score("routing", case(expected_subagent="billing"), wrong)
    assert_scored(result, False, 0.0)
    assert result.details["delegations"] == [
        {"agent": "shipping", "evidence": "delegate_to_shipping at step 0"}
    ]


def test_routing_does_not_match_substrings() -> None:
    # The catalog tests `expected in name`, so "bill" would match delegate_to_billing.
    result = score(
        "routing", case(expected_subagent="bill"), run_of(ToolCall("delegate_to_billing"))
    )
    assert_scored(result, False)


def test_routing_no_delegation_and_not_applicable() -> None:
    result = score("routing", case(expected_subagent="billing"), Trajectory())
    assert_scored(result, False)
    assert "records no delegation" in result.rationale
    na = score("routing", case(), run_of(ToolCall("delegate_to_billing")))
    assert na.status is ScoreStatus.UNSCORED and na.details["reason"] == "not_applicable"


def test_routing_reads_message_tool_calls() -> None:
    messages = [Message("assistant", None, tool_calls=[ToolCall("delegate_to_billing")])]
    assert_scored(
        score("routing", case(expected_subagent="billing"), Trajectory(messages=messages)), True
    )


def test_routing_accuracy_catalog_example() -> None:
    cases = [case(expected_subagent=name) for name in ("billing", "shipping", "returns")]
    runs = [
        run_of(ToolCall("delegate_to_billing")),
        run_of(ToolCall("delegate_to_shipping")),
        run_of(ToolCall("delegate_to_billing")),
    ]
    accuracy = routing_accuracy(zip(cases, runs, strict=True))
    assert accuracy == pytest.approx(2 / 3)
    assert not accuracy > 0.90  # the catalog's gate would fail this system


def test_routing_accuracy_is_none_without_expected_subagents() -> None:
    # The catalog answers 1.0 when no scenario names a sub-agent.
    assert routing_accuracy([(case(), run_of(ToolCall("delegate_to_billing")))]) is None
    assert routing_accuracy([]) is None


# -- hierarchical ---------------------------------------------------------------------------


def hierarchy_run(billing_text: str, *, signal: bool = True) -> Trajectory:
    billing_calls = [ToolCall("process_refund", result={"status": "completed"})]
    if signal:
        billing_calls.append(ToolCall("signal_task_complete"))
    return Trajectory(
        answer="Routed.",
        steps=[
            Step(index=0, node="coordinator", tool_calls=[ToolCall("delegate_to_billing")]),
            Step(index=1, node="billing", tool_calls=billing_calls, usage=Usage(50, 5)),
            Step(index=2, node="billing", text=billing_text, usage=Usage(60, 6)),
            Step(index=3, node="coordinator", text="Anything else?"),
        ],
    )


BILLING = case(
    expected_subagent="billing",
    should_signal_complete=True,
    success_criteria=[{"response_contains": ["refund"]}, {"max_turns": 2}],
)
SUBAGENTS = {"billing": ["response_contains", "signal_task_complete", "max_turns"]}


def test_hierarchical_catalog_example_routing_then_subagent_checks() -> None:
    result = score("hierarchical", BILLING, hierarchy_run("Refund issued."), subagents=SUBAGENTS)
    assert_scored(result, True, 1.0)
    parts = result.details["parts"]
    assert set(parts) == {
        "routing",
        "billing/response_contains",
        "billing/signal_task_complete",
        "billing/max_turns",
    }
    # The sub-agent is judged on its own two steps, not the run's four.
    assert parts["billing/max_turns"]["details"]["turns"] == 2


def test_hierarchical_subagent_failure_fails_the_whole() -> None:
    run = hierarchy_run("All set.", signal=False)
    result = score("hierarchical", BILLING, run, subagents=SUBAGENTS)
    assert_scored(result, False, 0.0)
    assert "billing/response_contains" in result.rationale
    assert "billing/signal_task_complete" in result.rationale


def test_hierarchical_routing_failure_and_idle_subagent() -> None:
    run = Trajectory(
        steps=[Step(index=0, node="coordinator", tool_calls=[ToolCall("delegate_to_shipping")])]
    )
    result = score("hierarchical", BILLING, run, subagents=SUBAGENTS)
    assert_scored(result, False)
    assert result.rationale.startswith("failed: routing")
    idle = result.details["parts"]["billing/max_turns"]
    assert idle["status"] == "unscored"
    assert idle["details"]["reason"] == "not_exercised"  # the expected sub-agent never ran


def test_hierarchical_weighted_and_not_applicable() -> None:
    run = hierarchy_run("All set.")
    weighted = score(
        "hierarchical",
        BILLING,
        run,
        subagents={"billing": [{"scorer": "response_contains", "weight": 1}]},
        mode="weighted",
        routing_weight=3,
        threshold=0.7,
    )
    assert_scored(weighted, True, 0.75)
    na = score("hierarchical", case(), run_of(ToolCall("x")), subagents=SUBAGENTS)
    assert na.status is ScoreStatus.UNSCORED and na.details["reason"] == "not_applicable"


def test_hierarchical_rejects_bad_configuration() -> None:
    with pytest.raises(ValueError, match="subagents"):
        create_scorer("hierarchical", subagents=["billing"])
    with pytest.raises(ValueError, match="mode"):
        create_scorer("hierarchical", mode="most")


def test_tool_graph_repeated_failures_are_counted_once_in_the_rationale() -> None:
    run = run_of(ToolCall("a", result=offers("b")), [ToolCall("c"), ToolCall("c")])
    result = score("tool_graph", case(), run)
    assert_scored(result, False, 0.0)
    assert result.rationale == "c at step 1 was not advertised by step 0 (offered: b) (x2)"
