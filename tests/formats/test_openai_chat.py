"""Tests for `assay.formats.openai_chat`: chat-completions conversations in, Trajectories out."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import trajectory_from_openai_messages
from assay.records import Trajectory, Usage
from assay.trajectory import turns_of

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> Any:
    return orjson.loads((SAMPLES / name).read_bytes())


def call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# --- the committed sample -----------------------------------------------------------------


def test_sample_with_parallel_calls_and_a_malformed_argument_string() -> None:
    data = sample("openai_parallel.json")
    run = trajectory_from_openai_messages(data, source="openai_parallel.json")

    assert (run.run_id, run.scenario_id, run.model) == ("chat-0007", "11", "gpt-4o-2024-08-06")
    assert run.question is not None and run.question.startswith("How many work orders")
    assert run.answer == '{"corrective": 14, "preventive": 27}'
    assert run.source == "openai_parallel.json"
    assert [step.index for step in run.steps] == [0, 1, 2]

    parallel, retry, final = run.steps
    assert parallel.text is None
    assert [c.name for c in parallel.tool_calls] == [
        "get_work_orders",
        "get_work_orders",
        "get_asset",
    ]
    corrective, preventive, broken = parallel.tool_calls
    assert corrective.args == {"equipment_id": "CWC04009", "year": 2017, "kind": "corrective"}
    # Results arrive out of order; they pair by tool_call_id, not by position.
    assert (corrective.call_id, corrective.result) == ("call_Qm1", '{"count": 14}')
    assert (preventive.call_id, preventive.result) == ("call_Qm2", '{"count": 27}')
    assert broken.args == '{"asset_id": "CWC04009"'  # malformed JSON kept raw
    assert broken.result == "error: arguments are not valid JSON"

    assert retry.text == "Retrying the asset lookup."
    assert retry.tool_calls[0].args == {"asset_id": "CWC04009"}
    assert retry.tool_calls[0].result == '{"name": "Chiller 9", "site": "MAIN"}'  # content parts
    assert final.text == run.answer and final.tool_calls == []

    # The steps carry no tokens, so the run keeps the response's own totals.
    assert all(step.usage == Usage() for step in run.steps)
    assert run.usage == Usage(2310, 188)

    roles = [m.role for m in run.messages]
    assert roles == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
        "tool",
        "assistant",
    ]
    assert run.messages[2].tool_calls == parallel.tool_calls
    assert run.messages[2].tool_calls[0] is corrective  # one call, seen from both
    assert [m.tool_call_id for m in run.messages if m.role == "tool"] == [
        "call_Qm2",
        "call_Qm1",
        "call_Qm3",
        "call_Qm4",
    ]


def test_keyword_arguments_win_over_the_exchange() -> None:
    run = trajectory_from_openai_messages(
        sample("openai_parallel.json"), run_id="mine", scenario_id="12", model="m"
    )
    assert (run.run_id, run.scenario_id, run.model) == ("mine", "12", "m")


# --- message shapes -------------------------------------------------------------------------


def test_a_bare_message_list() -> None:
    run = trajectory_from_openai_messages(
        [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Status of P-7?"},
            {"role": "assistant", "content": "Running.", "name": "ops_agent"},
        ]
    )
    assert [m.role for m in run.messages] == ["system", "user", "assistant"]
    assert (run.question, run.answer, run.run_id, run.model) == (
        "Status of P-7?",
        "Running.",
        None,
        None,
    )
    # OpenAI's `name` tells participants apart; it is not an agent node.
    assert run.steps[0].node is None


def test_legacy_function_call_and_function_result() -> None:
    run = trajectory_from_openai_messages(
        [
            {"role": "user", "content": "Weather in Paris?"},
            {
                "role": "assistant",
                "content": None,
                "function_call": {"name": "weather", "arguments": '{"city": "Paris"}'},
            },
            {"role": "function", "name": "weather", "content": "rain"},
            {"role": "assistant", "content": "It rains."},
        ]
    )
    weather = run.steps[0].tool_calls[0]
    assert (weather.name, weather.args, weather.call_id, weather.result) == (
        "weather",
        {"city": "Paris"},
        None,
        "rain",
    )
    assert [m.role for m in run.messages] == ["user", "assistant", "tool", "assistant"]


def test_answer_is_the_last_assistant_message_with_text() -> None:
    run = trajectory_from_openai_messages(
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "first"},
            {"role": "assistant", "content": "   ", "tool_calls": [call("c", "t", "{}")]},
            {"role": "tool", "tool_call_id": "c", "content": "done"},
            {"role": "assistant", "content": None, "tool_calls": [call("d", "t", "{}")]},
        ]
    )
    assert run.answer == "first"
    assert trajectory_from_openai_messages([{"role": "user", "content": "q"}]).answer is None


def test_refusal_is_the_text_when_there_is_no_content() -> None:
    run = trajectory_from_openai_messages(
        [{"role": "assistant", "content": None, "refusal": "I can't help with that."}]
    )
    assert run.answer == "I can't help with that."


def test_results_pair_by_id_and_never_land_on_another_id() -> None:
    run = trajectory_from_openai_messages(
        [
            {"role": "assistant", "tool_calls": [call("a", "x", "{}"), call("b", "y", "{}")]},
            {"role": "tool", "tool_call_id": "zzz", "content": "unknown id"},
            {"role": "tool", "tool_call_id": "b", "content": "for b"},
            {"role": "tool", "content": "no id: first open call"},
        ]
    )
    a, b = run.steps[0].tool_calls
    assert (a.result, b.result) == ("no id: first open call", "for b")
    # The unpaired result is still in the conversation.
    assert next(m.content for m in run.messages if m.role == "tool") == "unknown id"


def test_arguments_that_are_not_an_object_stay_as_written() -> None:
    run = trajectory_from_openai_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    call("1", "a", "[1, 2]"),
                    call("2", "b", ""),
                    {"id": "3", "function": {"name": "c", "arguments": {"already": "a dict"}}},
                    {"id": "4", "function": {"name": "d"}},
                    {"id": "5", "function": {"arguments": "{}"}},
                    {"id": "6", "name": "flat", "arguments": '{"k": 1}'},
                ],
            }
        ]
    )
    assert [(c.name, c.args) for c in run.tool_calls()] == [
        ("a", "[1, 2]"),
        ("b", ""),
        ("c", {"already": "a dict"}),
        ("d", None),
        ("", {}),  # no name: kept, so the call still counts
        ("flat", {"k": 1}),
    ]


def test_usage_on_messages_is_per_step() -> None:
    run = trajectory_from_openai_messages(
        [
            {
                "role": "assistant",
                "content": "a",
                "usage": {"prompt_tokens": 10, "completion_tokens": 2},
            },
            {
                "role": "assistant",
                "content": "b",
                "usage": {"input_tokens": "5", "output_tokens": 1},
            },
        ]
    )
    assert [s.usage for s in run.steps] == [Usage(10, 2), Usage(5, 1)]
    assert run.usage == Usage(15, 3)


def test_request_and_response_log() -> None:
    log = {
        "request": {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "2+2?"}]},
        "response": {
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "4"}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 1},
        },
    }
    run = trajectory_from_openai_messages(log)
    assert (run.question, run.answer, run.model, run.usage) == (
        "2+2?",
        "4",
        "gpt-4o-mini",
        Usage(9, 1),
    )


def test_sdk_style_objects_are_read_by_attribute() -> None:
    function = SimpleNamespace(name="status", arguments='{"asset": "P-7"}')
    reply = SimpleNamespace(
        role="assistant",
        content=None,
        refusal=None,
        tool_calls=[SimpleNamespace(id="c1", type="function", function=function)],
        function_call=None,
    )
    messages = [
        SimpleNamespace(role="user", content=[SimpleNamespace(type="text", text="P-7?")]),
        reply,
        SimpleNamespace(role="tool", tool_call_id="c1", content="running"),
        SimpleNamespace(role="assistant", content="Running.", tool_calls=None),
    ]
    run = trajectory_from_openai_messages(messages)
    assert run.question == "P-7?"
    only = run.steps[0].tool_calls[0]
    assert (only.name, only.args, only.result) == ("status", {"asset": "P-7"}, "running")
    assert run.answer == "Running."


class _Hostile:
    """An object whose every attribute read fails."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no {name} for you")


# --- hostile input --------------------------------------------------------------------------

HOSTILE: list[Any] = [
    None,
    0,
    3.5,
    "a string",
    b"bytes",
    True,
    {},
    {"messages": None},
    {"messages": "not a list"},
    {"messages": [None, 1, "x", [], {}]},
    [None, 1, "x", [], {}],
    [{"role": None, "content": "x"}],
    [{"role": 5}],
    [{"role": "assistant", "content": None}],
    [{"role": "assistant", "content": [None, 1, [], {"type": "text", "text": 5}]}],
    [{"role": "assistant", "tool_calls": "nope"}],
    [{"role": "assistant", "tool_calls": [None, 1, "name", [], {"function": "x"}]}],
    [{"role": "assistant", "tool_calls": [{"function": {"name": ["n"], "arguments": 12}}]}],
    [{"role": "assistant", "function_call": "weather"}],
    [{"role": "tool", "tool_call_id": {"not": "an id"}, "content": {"a": 1}}],
    [{"role": "tool"}, {"role": "function"}],
    [{"role": "assistant", "usage": {"prompt_tokens": "lots", "completion_tokens": -4}}],
    {"choices": "x", "usage": [], "model": 3},
    {"request": None, "response": {"choices": [None]}},
    {"response": {"choices": [{"message": {"role": "assistant", "content": "late"}}]}},
    [_Hostile(), SimpleNamespace(role="assistant", tool_calls=[_Hostile()], content=_Hostile())],
    _Hostile(),
    [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]],
]


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_gives_a_trajectory(value: Any) -> None:
    try:
        before = copy.deepcopy(value)
    except RuntimeError:  # the hostile objects refuse even to be copied
        before = None
    run = trajectory_from_openai_messages(value, source="hostile")
    assert isinstance(run, Trajectory)
    assert run.source == "hostile"
    if before is not None:
        assert value == before


def test_deeply_nested_arguments_do_not_break_conversion() -> None:
    deep: Any = "leaf"
    for _ in range(5000):
        deep = [deep]
    run = trajectory_from_openai_messages(
        [{"role": "assistant", "tool_calls": [{"function": {"name": "x", "arguments": deep}}]}]
    )
    assert isinstance(run.tool_calls()[0].args, str)


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = [
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "function",
    "function_call",
    "name",
    "arguments",
    "id",
    "type",
    "text",
    "usage",
    "prompt_tokens",
    "refusal",
    "messages",
]
ROLES = st.sampled_from(["system", "developer", "user", "assistant", "tool", "function", "odd"])
messages = st.fixed_dictionaries(
    {"role": ROLES},
    optional={key: json_values for key in KEYS if key != "role"},
)
conversations = st.lists(messages | json_values, max_size=8)


@given(conversations)
def test_property_never_raises_and_never_mutates(value: list[Any]) -> None:
    before = copy.deepcopy(value)
    run = trajectory_from_openai_messages(value)
    assert isinstance(run, Trajectory)
    assert value == before
    assert [step.index for step in run.steps] == list(range(len(run.steps)))


@given(json_values)
def test_property_any_json_value_is_accepted(value: Any) -> None:
    before = copy.deepcopy(value)
    assert isinstance(trajectory_from_openai_messages(value), Trajectory)
    assert value == before


def test_steps_carry_the_turn_of_the_user_message_before_them() -> None:
    run = trajectory_from_openai_messages(
        [
            {"role": "system", "content": "You book flights."},
            {"role": "assistant", "content": "Hello, how can I help?"},
            {"role": "user", "content": "Find a flight to London"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "1",
                        "type": "function",
                        "function": {"name": "find_flight", "arguments": "{}"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "1", "content": "BA303"},
            {"role": "assistant", "content": "BA303 leaves at 18:30."},
            {"role": "user", "content": "Thanks"},
            {"role": "user", "content": "Book it"},
            {
                "role": "assistant",
                "name": "booking_desk",
                "tool_calls": [
                    {
                        "id": "2",
                        "type": "function",
                        "function": {"name": "book_flight", "arguments": "{}"},
                    },
                ],
            },
        ]
    )
    # Before the first user message: turn 0; an unanswered user message is a turn skipped.
    assert [(step.turn, step.node) for step in run.steps] == [
        (0, None),
        (0, None),
        (0, None),
        (2, None),
    ]
    turns = turns_of(run)
    assert turns is not None
    assert [[call.name for call in turn] for turn in turns] == [
        ["find_flight"],
        [],
        ["book_flight"],
    ]
