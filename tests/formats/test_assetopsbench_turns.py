"""SDK turns are read by the general rules, whatever shape their fields take.

These tests hold `assay.formats.assetopsbench` to a step-by-step statement of those rules: the
usual shape (text as a string, token counts as ints, a float duration, tool calls
`{"name", "input", "output"}` with object arguments), the boundary values (negative or boolean
counts, NaN, infinite or negative durations, arguments as text, nested `function` objects,
numeric ids) and, by property, any turn built from such values.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.formats import trajectory_from_record
from assay.formats._common import id_text, tool_args
from assay.formats.assetopsbench import (
    _IN_KEYS,
    _OUT_KEYS,
    _call_name,
    _content_text,
    _duration_of,
    _first_present,
    _usage_of,
)
from assay.records import Step, ToolCall, Usage


def _read_turn(turn: dict[str, Any]) -> Step:
    return trajectory_from_record({"run_id": "r", "trajectory": {"turns": [turn]}}, "x").steps[0]


def _general_call(raw: Any) -> ToolCall | None:
    """A tool call by the general rules, step by step (the reference for the reader)."""
    name = _call_name(raw)
    if name is None:
        return None
    if isinstance(raw, str):
        return ToolCall(name=raw)
    function = raw.get("function")
    if not isinstance(function, dict):
        function = {}
    args = _first_present(raw, ("input", "args", "arguments"))
    if args is None:
        args = function.get("arguments")
    return ToolCall(
        name=name,
        args=tool_args(args),
        call_id=id_text(_first_present(raw, ("id", "call_id"))),
        result=raw["output"] if "output" in raw else raw.get("result"),
    )


def _general_turn(turn: dict[str, Any]) -> Step:
    """A turn by the general rules (the reference for the reader)."""
    text = _content_text(turn.get("text"))
    if text is None:
        text = _content_text(turn.get("content"))
    raw_calls = turn.get("tool_calls")
    calls = [_general_call(raw) for raw in raw_calls] if isinstance(raw_calls, list) else []
    node = turn.get("node")
    conversation = turn.get("conversation_turn")
    return Step(
        index=0,
        text=text,
        tool_calls=[call for call in calls if call is not None],
        usage=_usage_of(turn, _IN_KEYS, _OUT_KEYS),
        duration_ms=_duration_of(turn),
        node=node if isinstance(node, str) else None,
        turn=conversation if type(conversation) is int and conversation >= 0 else None,
    )


def test_the_usual_turn_is_read_whole() -> None:
    turn = {
        "index": 3,
        "text": "checking",
        "tool_calls": [{"name": "sensors", "input": {"site": "MAIN"}, "output": [1, 2]}],
        "input_tokens": 90,
        "output_tokens": 12,
        "duration_ms": 400.5,
    }
    assert _read_turn(turn) == Step(
        index=0,
        text="checking",
        tool_calls=[ToolCall(name="sensors", args={"site": "MAIN"}, result=[1, 2])],
        usage=Usage(90, 12),
        duration_ms=400.5,
    )


def test_a_negative_count_is_unknown_and_does_not_fall_back_to_prompt_tokens() -> None:
    step = _read_turn({"input_tokens": -1, "prompt_tokens": 5, "output_tokens": 3})
    assert step.usage == Usage(None, 3)


def test_boolean_and_textual_counts_follow_the_general_rules() -> None:
    assert _read_turn({"input_tokens": True, "output_tokens": 2}).usage == Usage(None, 2)
    assert _read_turn({"input_tokens": "12", "output_tokens": 2}).usage == Usage(12, 2)


def test_counts_nested_under_usage_are_read_when_the_turn_has_none() -> None:
    step = _read_turn({"usage": {"prompt_tokens": 7, "completion_tokens": 1}})
    assert step.usage == Usage(7, 1)


def test_durations_that_are_no_time_fall_back_to_seconds() -> None:
    for bad in (math.nan, math.inf, -1.0):
        assert _read_turn({"duration_ms": bad, "duration_s": 1.5}).duration_ms == 1500.0
    assert _read_turn({"duration_ms": 7}).duration_ms == 7.0
    zero = _read_turn({"duration_ms": -0.0}).duration_ms
    assert zero == 0.0 and math.copysign(1.0, zero) == -1.0  # as float(-0.0) * 1.0 gives


def test_calls_off_the_usual_shape_take_the_general_path() -> None:
    step = _read_turn(
        {
            "tool_calls": [
                {"name": "a", "input": '{"x": 1}', "id": 17},
                {"function": {"name": "b", "arguments": '{"y": 2}'}, "call_id": "c9"},
                {"name": 5, "input": {"z": 3}},
                {"name": "d", "input": {}, "result": "done", "call_id": 2.5},
                "e",
                7,
            ]
        }
    )
    assert step.tool_calls == [
        ToolCall(name="a", args={"x": 1}, call_id="17"),
        ToolCall(name="b", args={"y": 2}, call_id="c9"),
        ToolCall(name="", args={"z": 3}),
        ToolCall(name="d", args={}, call_id="2.5", result="done"),
        ToolCall(name="e"),
    ]


_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", "1.5", "x", "", "-4"]),
)
_call = st.one_of(
    st.text(max_size=3),
    st.integers(),
    st.dictionaries(
        st.sampled_from(["name", "input", "args", "arguments", "function", "id", "call_id",
                         "output", "result"]),
        st.one_of(
            _values,
            st.text(max_size=4),
            st.just('{"a": 1}'),
            st.dictionaries(st.sampled_from(["name", "arguments", "a"]),
                            st.one_of(st.text(max_size=3), st.just('{"b": 2}'), _values),
                            max_size=2),
        ),
    ),
)
_turn = st.dictionaries(
    st.sampled_from(
        ["text", "content", "tool_calls", "input_tokens", "output_tokens", "prompt_tokens",
         "completion_tokens", "usage", "duration_ms", "duration_s", "node",
         "conversation_turn"]
    ),
    st.one_of(
        _values,
        st.text(max_size=4),
        st.lists(_call, max_size=3),
        st.lists(st.one_of(st.text(max_size=3), st.fixed_dictionaries({"text": _values})),
                 max_size=2),
        st.fixed_dictionaries({}, optional={"input_tokens": _values, "output_tokens": _values}),
    ),
)


@settings(max_examples=examples(500))
@given(turn=_turn)
def test_any_turn_is_read_as_the_general_rules_read_it(turn: dict[str, Any]) -> None:
    got, want = _read_turn(turn), _general_turn(turn)
    # Compared by repr: a NaN duration never equals itself, its repr does.
    assert repr(got) == repr(want)
