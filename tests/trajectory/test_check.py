"""check_trajectory: modes, partial credit, reasons, and the defects of other tools."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from assay import (
    MatchType,
    StepType,
    ToolCall,
    Trajectory,
    TrajectoryChecker,
    TrajectoryStep,
    check_trajectory,
)
from assay.records import Step

MODES = ("strict", "unordered", "subsequence", "superset", "subset")


# --- the catalog's examples ------------------------------------------------------------------


def test_strict_mode_passes_the_exact_sequence_and_fails_another_order() -> None:
    expected = ["lookup_order", "check_refund_policy", "process_refund"]
    assert check_trajectory(expected, list(expected), mode="strict").passed
    result = check_trajectory(
        expected, ["lookup_order", "process_refund", "check_refund_policy"], mode="strict"
    )
    assert not result.passed
    assert "step 1" in result.reason and "check_refund_policy" in result.reason


def test_unordered_mode_ignores_order() -> None:
    expected = ["search_products", "check_inventory", "get_pricing"]
    actual = ["get_pricing", "search_products", "check_inventory"]
    assert check_trajectory(expected, actual, mode="unordered").passed


def test_subsequence_mode_allows_extra_calls_between_and_after() -> None:
    result = check_trajectory(
        ["lookup_order", "process_refund"],
        ["lookup_order", "check_refund_policy", "process_refund", "send_email"],
        mode="subsequence",
    )
    assert result.passed and result.score == 1.0


# --- seed 003's vocabulary -----------------------------------------------------------------


def test_tool_call_matches_compares_name_and_the_args_given() -> None:
    expected = ToolCall(name="get_weather", args={"location": "Paris", "units": "celsius"})
    actual = {"name": "get_weather", "args": {"location": "Paris", "units": "celsius", "x": 1}}
    assert expected.matches(actual)
    assert not expected.matches({"name": "get_weather", "args": {"location": "Paris"}})
    assert not expected.matches({"name": "get_time", "args": expected.args})
    assert ToolCall("get_weather").matches({"name": "get_weather", "args": {"a": 1}})


def test_trajectory_steps_and_step_types() -> None:
    node = TrajectoryStep.node("RESEARCH_NODE")
    tool = TrajectoryStep.tool(ToolCall(name="search", args={"query": "AI trends"}))
    assert (node.type, node.name) == (StepType.NODE, "RESEARCH_NODE")
    assert (tool.type, tool.name, tool.call) == (
        StepType.TOOL,
        "search",
        ToolCall("search", {"query": "AI trends"}),
    )
    assert {t.value for t in StepType} == {"node", "tool"}


@pytest.mark.parametrize(
    ("alias", "mode"),
    [
        (MatchType.EXACT, "strict"),
        (MatchType.IN_ORDER, "subsequence"),
        (MatchType.ANY_ORDER, "superset"),
        ("EXACT", "strict"),
    ],
)
def test_match_type_aliases(alias: Any, mode: str) -> None:
    assert check_trajectory(["a"], ["a"], mode=alias).mode == mode


def test_in_order_passes_with_internal_extra_nodes_where_exact_fails() -> None:
    expected = [TrajectoryStep.node("plan"), TrajectoryStep.node("answer")]
    run = Trajectory(
        steps=[
            Step(0, node="plan"),
            Step(1, node="router"),
            Step(2, node="answer"),
        ]
    )
    assert not check_trajectory(expected, run, mode=MatchType.EXACT).passed
    assert check_trajectory(expected, run, mode=MatchType.IN_ORDER).passed


# --- modes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "passed"),
    [
        ("strict", False),
        ("unordered", False),
        ("subsequence", True),
        ("superset", True),
        ("subset", False),
    ],
)
def test_extra_calls(mode: str, passed: bool) -> None:
    assert check_trajectory(["a", "b"], ["a", "x", "b"], mode=mode).passed is passed


@pytest.mark.parametrize(
    ("mode", "passed"),
    [
        ("strict", False),
        ("unordered", False),
        ("subsequence", False),
        ("superset", False),
        ("subset", True),
    ],
)
def test_missing_calls(mode: str, passed: bool) -> None:
    assert check_trajectory(["a", "b", "c"], ["a", "c"], mode=mode).passed is passed


def test_strict_fails_on_trailing_extra_calls() -> None:
    # A match that stops at the end of the expected list would pass this.
    result = check_trajectory(["a", "b"], ["a", "b", "c"], mode="strict")
    assert not result.passed
    assert result.reason.startswith("step 2: unexpected c")


def test_ordered_modes_earn_credit_along_the_longest_common_subsequence() -> None:
    result = check_trajectory(["a", "b", "c"], ["b", "c", "a"], mode="strict")
    assert result.score == pytest.approx(2 / 3)
    assert check_trajectory(["a", "b", "c"], ["b", "c", "a"], mode="subsequence").score == (
        pytest.approx(2 / 3)
    )
    assert check_trajectory(["a", "b", "c"], ["b", "c", "a"], mode="unordered").passed


@pytest.mark.parametrize("mode", MODES)
def test_three_of_four_right_tools_score_more_than_none(mode: str) -> None:
    expected = ["a", "b", "c", "d"]
    some = check_trajectory(expected, ["a", "b", "c", "x"], mode=mode)
    none = check_trajectory(expected, ["w", "x", "y", "z"], mode=mode)
    assert not some.passed and not none.passed
    assert some.score > none.score
    assert none.score == 0.0


def test_parallel_calls_in_one_step_match_in_any_order_but_steps_keep_theirs() -> None:
    assert check_trajectory([["a", "b"], "c"], [["b", "a"], "c"], mode="strict").passed
    # The same calls as two steps are not one step of two parallel calls.
    assert not check_trajectory([["a", "b"], "c"], ["a", "b", "c"], mode="strict").passed
    assert check_trajectory([["a", "b"], "c"], ["a", "b", "c"], mode="unordered").passed


def test_steps_without_calls_are_not_part_of_the_check() -> None:
    run = Trajectory(
        steps=[
            Step(0, text="thinking"),
            Step(1, tool_calls=[ToolCall("a")]),
            Step(2, text="done"),
        ]
    )
    assert check_trajectory(["a"], run, mode="strict").passed


@pytest.mark.parametrize("mode", MODES)
def test_empty_trajectories(mode: str) -> None:
    assert check_trajectory([], [], mode=mode).passed
    empty_expected = check_trajectory([], ["a"], mode=mode)
    assert empty_expected.passed is (mode in ("subsequence", "superset"))
    nothing_called = check_trajectory(["a"], [], mode=mode)
    assert nothing_called.passed is (mode == "subset")


def test_reasons_name_step_tool_expected_and_got() -> None:
    result = check_trajectory(
        [{"name": "get_weather", "args": {"city": "Paris"}}],
        [{"name": "get_weather", "args": {"city": "paris"}}],
    )
    assert result.reason == (
        "step 0: get_weather: argument 'city': expected 'Paris', got 'paris'; "
        "0 of 1 expected calls matched in order"
    )
    unordered = check_trajectory(["a", "b"], ["b", "c"], mode="unordered")
    assert unordered.reason == (
        "missing a (step 0); unexpected c (step 1); 1 of 2 expected calls matched"
    )
    superset = check_trajectory(
        [{"name": "f", "args": {"x": 1}}], [{"name": "f", "args": {"x": 2}}], mode="superset"
    )
    assert "f: argument 'x': expected 1, got 2" in superset.reason
    assert superset.missing[0]["why"] == "f: argument 'x': expected 1, got 2"


def test_report_lists_matched_missing_and_unexpected_calls() -> None:
    result = check_trajectory(["a", "b"], ["a", "c"], mode="unordered")
    details = result.to_details()
    assert details["matched"] == [
        {"expected_step": 0, "expected": "a", "actual_step": 0, "actual": "a"}
    ]
    assert details["missing"] == [{"step": 1, "call": "b"}]
    assert details["unexpected"] == [{"step": 1, "call": "c"}]
    assert (details["expected_calls"], details["actual_calls"]) == (2, 2)


# --- arguments -----------------------------------------------------------------------------


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


@pytest.mark.parametrize(
    ("mode", "expected_args", "actual_args", "passed"),
    [
        ("exact", {"a": 1}, {"a": 1.0}, True),
        ("exact", {"a": 1}, {"a": 1, "b": 2}, False),
        ("exact", {"a": True}, {"a": 1}, False),
        ("exact", {"a": [1, 2]}, {"a": (1, 2)}, True),
        ("superset", {"a": 1}, {"a": 1, "b": 2}, True),
        ("superset", {"a": 1, "b": 2}, {"a": 1}, False),
        ("superset", {"t": {"start": 9}}, {"t": {"start": 9, "end": 10}}, True),
        ("subset", {"a": 1, "b": 2}, {"a": 1}, True),
        ("subset", {"a": 1}, {"a": 1, "b": 2}, False),
        ("ignore", {"a": 1}, {"z": 0}, True),
    ],
)
def test_argument_modes(
    mode: str, expected_args: dict[str, Any], actual_args: dict[str, Any], passed: bool
) -> None:
    result = check_trajectory(
        [{"name": "f", "args": expected_args}], [{"name": "f", "args": actual_args}], args=mode
    )
    assert result.passed is passed


def test_booleans_are_not_numbers() -> None:
    assert not check_trajectory([call("f", on=True)], [call("f", on=1)]).passed
    assert not check_trajectory([call("f", n=0)], [call("f", n=False)]).passed
    assert check_trajectory([call("f", n=2)], [call("f", n=2.0)]).passed


def test_optimal_pairing_where_a_greedy_first_match_fails() -> None:
    expected = [call("A", x=1), call("A", x=1, y=2)]
    actual = [call("A", x=1, y=2), call("A", x=1)]
    for mode in ("unordered", "superset", "subset"):
        assert check_trajectory(expected, actual, mode=mode, args="superset").passed, mode
    mirrored = check_trajectory(actual, expected, mode="superset", args="subset")
    assert mirrored.passed


def test_parallel_calls_pair_optimally_inside_a_step() -> None:
    expected = [[call("A", x=1), call("A", x=1, y=2)]]
    actual = [[call("A", x=1, y=2), call("A", x=1)]]
    assert check_trajectory(expected, actual, mode="strict").passed


def test_openai_argument_strings_are_parsed_and_identical_strings_need_no_parsing() -> None:
    expected = [{"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]
    actual = [{"type": "function", "function": {"name": "f", "arguments": '{"a": 1.0}'}}]
    assert check_trajectory(expected, actual, args="exact").passed
    broken = [{"type": "function", "function": {"name": "f", "arguments": "{not json"}}]
    assert check_trajectory(broken, copy.deepcopy(broken), args="exact").passed


def test_malformed_arguments_are_a_mismatch_with_a_reason_not_an_exception() -> None:
    expected = [{"name": "f", "args": '{"a": 1}'}]
    actual = [{"name": "f", "args": '{"a": 1'}]
    for mode in MODES:
        result = check_trajectory(expected, actual, mode=mode, args="exact")
        assert not result.passed, mode
        assert "actual arguments are not valid JSON" in result.reason, mode
    strict = check_trajectory(expected, actual, args="exact")
    assert strict.reason.startswith("step 0: f: actual arguments are not valid JSON")


def test_field_path_overrides_need_the_path_on_both_sides() -> None:
    overrides = {"book": ["time.start", "room"]}
    expected = [call("book", time={"start": "09:00", "end": "10:00"}, room="A")]
    same_start = [call("book", time={"start": "09:00", "end": "11:00"}, room="A", who="x")]
    assert check_trajectory(expected, same_start, overrides=overrides).passed
    other_start = [call("book", time={"start": "10:00"}, room="A")]
    assert not check_trajectory(expected, other_start, overrides=overrides).passed
    no_room = [call("book", time={"start": "09:00"})]
    result = check_trajectory(expected, no_room, overrides=overrides)
    assert not result.passed and "argument 'room' missing" in result.reason
    neither = check_trajectory([call("book")], [call("book")], overrides={"book": ["room"]})
    assert not neither.passed and "missing on both sides" in neither.reason


def test_mode_overrides_apply_per_tool() -> None:
    expected = [call("search", q="x"), call("log", level="info")]
    actual = [call("search", q="x", page=2), call("log", level="debug")]
    assert not check_trajectory(expected, actual, args="superset").passed
    assert check_trajectory(expected, actual, overrides={"log": "ignore"}).passed
    assert not check_trajectory(expected, actual, args="exact", overrides={"log": "ignore"}).passed


@dataclass
class Recorder:
    seen: list[tuple[Any, Any]] = field(default_factory=list)

    def __call__(self, actual: Any, expected: Any) -> bool:
        self.seen.append((actual, expected))
        return bool(actual.get("city", "").lower() == expected["city"].lower())


@pytest.mark.parametrize("mode", MODES)
def test_custom_matchers_are_always_called_actual_first(mode: str) -> None:
    recorder = Recorder()
    expected = [call("weather", city="Paris")]
    actual = [call("weather", city="paris", units="C")]
    result = check_trajectory(expected, actual, mode=mode, overrides={"weather": recorder})
    assert result.passed
    assert recorder.seen
    assert all(a == {"city": "paris", "units": "C"} for a, _ in recorder.seen)
    assert all(e == {"city": "Paris"} for _, e in recorder.seen)


def test_a_matcher_that_raises_is_a_mismatch_with_its_error_in_the_reason() -> None:
    def strict_city(actual: Any, expected: Any) -> bool:
        return bool(actual["city"] == expected["city"])

    result = check_trajectory(
        [call("weather", city="Paris")], [call("weather")], overrides={"weather": strict_city}
    )
    assert not result.passed
    assert "custom argument matcher raised KeyError" in result.reason


@pytest.mark.parametrize(
    "bad",
    [{"f": "superest"}, {"f": []}, {"f": 3}, {"f": ["ok", 2]}],
)
def test_unknown_override_modes_are_errors_when_the_check_is_built(bad: Any) -> None:
    with pytest.raises(ValueError, match="f"):
        TrajectoryChecker(overrides=bad)


def test_unknown_modes_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown trajectory mode"):
        check_trajectory([], [], mode="loose")
    with pytest.raises(ValueError, match="unknown argument mode"):
        check_trajectory([], [], args="partial")


def test_inputs_are_never_mutated() -> None:
    expected: list[Any] = [
        {"name": "f", "args": '{"a": 1}'},
        {"type": "function", "function": {"name": "g", "arguments": '{"b": [1, 2]}'}},
        ToolCall("h", {"c": {"d": 1}}),
    ]
    actual: list[Any] = [
        {
            "role": "assistant",
            "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
        },
        {"role": "tool", "tool_call_id": "1", "content": "ok"},
    ]
    before = copy.deepcopy((expected, actual))
    for mode in MODES:
        for args in ("exact", "ignore", "subset", "superset"):
            check_trajectory(expected, actual, mode=mode, args=args)
    assert (expected, actual) == before


# --- inputs ----------------------------------------------------------------------------------


def openai_messages() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "rain"},
        {"role": "assistant", "content": "Sunny in Paris, rain in Rome."},
    ]


def test_openai_messages_make_one_step_of_parallel_calls() -> None:
    expected = [[call("get_weather", city="Rome"), call("get_weather", city="Paris")]]
    assert check_trajectory(expected, openai_messages(), mode="strict").passed
    assert check_trajectory(openai_messages(), openai_messages(), args="exact").passed


@dataclass
class LangChainMessage:
    type: str
    content: Any = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    name: str | None = None
    tool_call_id: str | None = None


def test_langchain_messages_as_objects_dicts_and_serialised() -> None:
    objects = [
        LangChainMessage("human", "refund order 7"),
        LangChainMessage("ai", "", [{"name": "lookup_order", "args": {"id": 7}, "id": "t1"}]),
        LangChainMessage("tool", "found", tool_call_id="t1"),
        LangChainMessage("ai", "", [{"name": "process_refund", "args": {"id": 7}, "id": "t2"}]),
        LangChainMessage("ai", "Refunded."),
    ]
    dicts = [{"type": m.type, "content": m.content, "tool_calls": m.tool_calls} for m in objects]
    serialised = [
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", "AIMessage" if m.type == "ai" else "X"],
            "kwargs": {"content": m.content, "tool_calls": m.tool_calls},
        }
        for m in objects
    ]
    expected = [call("lookup_order", id=7), call("process_refund", id=7)]
    for shape in (objects, dicts, serialised):
        assert check_trajectory(expected, shape, mode="strict", args="exact").passed


def test_node_order_from_langgraph_agent_names() -> None:
    messages = [
        {"type": "human", "content": "help"},
        {"type": "ai", "name": "supervisor", "tool_calls": [{"name": "route", "args": {}}]},
        {"type": "ai", "name": "billing", "tool_calls": [{"name": "refund", "args": {}}]},
        {"type": "ai", "name": "billing", "content": "done"},
    ]
    nodes = [TrajectoryStep.node("supervisor"), TrajectoryStep.node("billing")]
    assert check_trajectory(nodes, messages, mode="strict").passed
    mixed = [
        TrajectoryStep.node("supervisor"),
        TrajectoryStep.tool("route"),
        TrajectoryStep.node("billing"),
        TrajectoryStep.tool(ToolCall("refund", {})),
    ]
    assert check_trajectory(mixed, messages, mode="strict").passed
    for mode in MODES:
        assert check_trajectory(nodes, messages, mode=mode).passed, mode
    assert not check_trajectory(list(reversed(nodes)), messages, mode="strict").passed


def _flight_chat(arguments: list[str], name: str | None) -> list[dict[str, Any]]:
    """A two-turn OpenAI chat; the assistant of the second turn optionally `name`d."""
    speaker = {"name": name} if name is not None else {}
    return [
        {"role": "user", "content": "When is my flight?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "type": "function",
                    "id": "c1",
                    "function": {"name": "fetch_flight", "arguments": '{"user_id": "42"}'},
                }
            ],
        },
        {"role": "tool", "name": "fetch_flight", "tool_call_id": "c1", "content": "[]"},
        {"role": "assistant", "content": "Your flight leaves at 18:30."},
        {"role": "user", "content": "Can I get an upgrade?"},
        {
            "role": "assistant",
            **speaker,
            "content": "",
            "tool_calls": [
                {
                    "type": "function",
                    "id": f"p{i}",
                    "function": {"name": "lookup_policy", "arguments": text},
                }
                for i, text in enumerate(arguments)
            ],
        },
        {"role": "assistant", **speaker, "content": "Upgrades are possible."},
    ]


@pytest.mark.parametrize("mode", ["unordered", "superset", "subset", "strict"])
def test_an_openai_message_name_is_not_a_node(mode: str) -> None:
    # The shape of agentevals' nested-field-override test: the reference's assistant messages
    # carry a participant `name` the run's lack; the calls agree on the one field that counts.
    window = '"time": {"start": "2025-03-22T18:34:40Z", "end": "%s"}'
    actual = _flight_chat(
        [
            '{"query": "flight upgrades", ' + window % "2025-03-22T20:34:40Z" + "}",
            '{"query": "first class", ' + window % "2025-03-22T20:34:40Z" + "}",
        ],
        name=None,
    )
    reference = _flight_chat(
        ['{"query": "foo", ' + window % "baz" + "}", '{"query": "bar", ' + window % "baz" + "}"],
        name="flight_agent",
    )
    assert not check_trajectory(reference, actual, mode=mode).passed
    result = check_trajectory(
        reference, actual, mode=mode, overrides={"lookup_policy": ["time.start"]}
    )
    assert result.passed, result.reason
    assert result.n_expected == result.n_actual == 3  # no node step on either side


def test_a_trajectory_record_is_accepted_on_either_side() -> None:
    run = Trajectory(
        steps=[
            Step(0, tool_calls=[ToolCall("a", {"x": 1}), ToolCall("b", '{"y": 2}')]),
            Step(1, tool_calls=[ToolCall("c")]),
        ]
    )
    assert check_trajectory(run, run, args="exact").passed
    assert check_trajectory([["b", "a"], "c"], run).passed


@pytest.mark.parametrize("bad", [None, 3, "a,b", {"steps": []}, [object()]])
def test_inputs_in_no_accepted_shape_are_type_errors(bad: Any) -> None:
    with pytest.raises(TypeError):
        check_trajectory(bad, ["a"])


@pytest.mark.parametrize("mode", MODES)
def test_arguments_nested_past_the_limit_are_a_mismatch_not_a_crash(mode: str) -> None:
    deep = '{"a": ' + "[" * 900 + "]" * 900 + "}"
    other = '{"a": ' + "[" * 899 + "1" + "]" * 899 + "}"
    for args in ("exact", "superset"):
        result = check_trajectory(
            [{"name": "f", "arguments": deep}], [{"name": "f", "arguments": other}], mode=mode,
            args=args,
        )  # fmt: skip
        assert not result.passed, (mode, args)
        assert result.to_details()["expected_calls"] == 1
    strict = check_trajectory(
        [{"name": "f", "arguments": deep}], [{"name": "f", "arguments": other}]
    )
    assert "nested deeper than 64 levels" in strict.reason


@pytest.mark.slow
def test_very_long_trajectories_stay_fast_and_exact_for_one_call_steps() -> None:
    expected = [f"tool{i}" for i in range(3000)]
    actual = expected[1:] + expected[:1]  # the first call moved to the end
    result = check_trajectory(expected, actual)
    assert result.score == pytest.approx(2999 / 3000)
    assert "aligned by steps" not in result.reason  # one call a step: still the optimum
    # Parallel steps past the table's size, with nothing the same at either end.
    parallel = check_trajectory(
        [["x", "y"]] * 1100 + ["end"], ["start"] + [["y", "x"]] * 1100, mode="strict"
    )
    assert parallel.score > 0.99
    assert "aligned by steps: over 1,000,000 step pairs" in parallel.reason
    trimmed = check_trajectory([["x", "y"]] * 1100, [["y", "x"]] * 1099 + [["z"]], mode="strict")
    assert "aligned by steps" not in trimmed.reason  # the ends matched: a small table did


def _openai(arguments: str) -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": [call]}]


@pytest.mark.parametrize("levels", [65, 200, 1000])
@pytest.mark.parametrize("mode", MODES)
def test_deep_arguments_in_messages_agree_with_the_general_path(mode: str, levels: int) -> None:
    # The same value written two ways: the quick path must not compare values nested past
    # the limit (Python's == would even overflow at 1,000 levels), just as the general path.
    text = '{"a": ' + "[" * levels + "]" * levels + "}"
    spaced = '{ "a" : ' + "[" * levels + "]" * levels + " }"
    for args in ("exact", "superset", "subset"):
        checker = TrajectoryChecker(mode=mode, args=args)
        quick = checker(_openai(text), _openai(spaced))
        general = checker._general(_openai(text), _openai(spaced))
        assert quick.passed is general.passed is False, (mode, args)
        assert quick.score == general.score


def _openai_calls(*calls: tuple[str, str | None]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for index, (name, arguments) in enumerate(calls):
        function: dict[str, Any] = {"name": name}
        if arguments is not None:
            function["arguments"] = arguments
        call = {"id": f"c{index}", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
    return messages


def test_a_call_without_expected_arguments_is_not_paired_early_with_its_twin() -> None:
    # Pairing the two argument-less calls where they stand would leave {"x": 1} against
    # {"y": 2} (no match in subset mode); the best pairing crosses them and matches both.
    expected = _openai_calls(("a", None), ("a", '{"x": 1}'))
    actual = _openai_calls(("a", None), ("a", '{"y": 2}'))
    for mode in ("unordered", "superset", "subset"):
        result = check_trajectory(expected, actual, mode=mode, args="subset")
        assert result.passed, (mode, result.reason)


def test_reserialised_arguments_are_paired_where_they_stand_but_booleans_are_not_numbers() -> None:
    expected = _openai_calls(("f", '{"a": 1, "b": true}'), ("g", '{"n": 2}'))
    same_values = _openai_calls(("f", '{"b":true,"a":1.0}'), ("g", '{ "n" : 2 }'))
    number_for_bool = _openai_calls(("f", '{"b":1,"a":1}'), ("g", '{"n": 2}'))
    for mode in MODES:
        assert check_trajectory(expected, same_values, mode=mode, args="exact").passed, mode
        result = check_trajectory(expected, number_for_bool, mode=mode, args="exact")
        assert not result.passed, mode
        assert "f" in result.reason
