"""Tests for `assay.formats.langchain`: LangChain / LangGraph messages in, Trajectories out."""

from __future__ import annotations

import copy
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import trajectory_from_langchain_messages
from assay.records import Trajectory, Usage

SAMPLES = Path(__file__).parent / "samples"
QUESTION = "Which chillers at site MAIN have open work orders, and which is the oldest?"
ANSWER = "CH-1 is the only chiller at MAIN with an open work order (WO-118, opened 2017-03-02)."


def sample(name: str) -> Any:
    return orjson.loads((SAMPLES / name).read_bytes())


def check_supervisor_graph(run: Trajectory) -> None:
    """What both spellings of the committed LangGraph sample must give."""
    assert run.question == QUESTION
    assert run.answer == ANSWER
    assert run.model == "gpt-4o-mini-2024-07-18"
    assert [step.node for step in run.steps] == [
        "supervisor",
        "asset_agent",
        "asset_agent",
        "supervisor",
        "work_order_agent",
        "work_order_agent",
        "supervisor",
    ]
    assert run.tool_names() == [
        "transfer_to_asset_agent",
        "list_assets",
        "transfer_back_to_supervisor",
        "transfer_to_work_order_agent",
        "get_open_work_orders",
        "get_open_work_orders",
        "get_open_work_orders",
        "transfer_back_to_supervisor",
    ]
    listing = run.steps[1].tool_calls[0]
    assert (listing.args, listing.call_id) == ({"site": "MAIN", "kind": "chiller"}, "call_a1")
    assert listing.result == '["CH-1", "CH-2", "CH-9"]'
    assert run.steps[2].text == "MAIN has chillers CH-1, CH-2 and CH-9."  # content blocks

    # Two parallel calls and one the model malformed (invalid_tool_calls): all three happened.
    ch1, ch9, broken = run.steps[4].tool_calls
    assert (ch1.args, ch1.result) == (
        {"asset_id": "CH-1"},
        '[{"wo": "WO-118", "opened": "2017-03-02"}]',
    )
    assert (ch9.args, ch9.result) == ({"asset_id": "CH-9"}, "[]")
    assert broken.args == '{"asset_id": "CH-2"'
    assert broken.result == "Error: arguments are not valid JSON"

    assert run.steps[0].usage == Usage(352, 14)
    assert run.usage == Usage(
        352 + 410 + 455 + 498 + 540 + 640 + 702, 14 + 22 + 30 + 15 + 61 + 33 + 28
    )
    assert [m.role for m in run.messages][:3] == ["user", "assistant", "tool"]
    assert len(run.messages) == 16


def test_langgraph_sample_in_dict_form() -> None:
    run = trajectory_from_langchain_messages(sample("langgraph_dicts.json"), source="d.json")
    check_supervisor_graph(run)
    assert (run.scenario_id, run.source) == ("lg-3", "d.json")


def test_langgraph_sample_in_serialised_form() -> None:
    run = trajectory_from_langchain_messages(sample("langgraph_serialised.json"))
    check_supervisor_graph(run)


def test_both_spellings_give_the_same_steps() -> None:
    dicts = trajectory_from_langchain_messages(sample("langgraph_dicts.json"))
    serialised = trajectory_from_langchain_messages(sample("langgraph_serialised.json"))
    assert dicts.steps == serialised.steps
    assert dicts.messages == serialised.messages


def test_messages_to_dict_form() -> None:
    run = trajectory_from_langchain_messages(
        [
            {"type": "human", "data": {"content": "Hi", "type": "human"}},
            {
                "type": "ai",
                "data": {
                    "content": "",
                    "tool_calls": [{"name": "lookup", "args": {"q": "x"}, "id": "1"}],
                },
            },
            {"type": "tool", "data": {"content": "found", "tool_call_id": "1"}},
            {"type": "ai", "data": {"content": "Found it."}},
        ]
    )
    assert (run.question, run.answer) == ("Hi", "Found it.")
    assert run.steps[0].tool_calls[0].result == "found"


def test_message_objects_are_read_by_attribute() -> None:
    messages = [
        SimpleNamespace(type="human", content="P-7?"),
        SimpleNamespace(
            type="ai",
            content=[{"type": "text", "text": "Checking."}, {"type": "tool_use", "id": "t1"}],
            name="inspector",
            tool_calls=[{"name": "status", "args": {"asset": "P-7"}, "id": "t1"}],
            invalid_tool_calls=[],
            usage_metadata={"input_tokens": 20, "output_tokens": 4, "total_tokens": 24},
            response_metadata={"model_name": "claude-sonnet-4"},
        ),
        SimpleNamespace(type="tool", content="running", tool_call_id="t1", name="status"),
        SimpleNamespace(type="AIMessageChunk", content="Run", tool_calls=[]),  # a stream chunk
        SimpleNamespace(type="ai", content="Running.", name=None, tool_calls=[]),
        SimpleNamespace(type="Unknown", content="skipped"),
    ]
    run = trajectory_from_langchain_messages(messages)
    assert run.steps[0].text == "Checking."  # tool_use blocks are not text
    assert run.steps[0].node == "inspector"
    assert run.steps[0].usage == Usage(20, 4)
    assert run.steps[0].tool_calls[0].result == "running"
    assert (run.model, run.answer, len(run.steps)) == ("claude-sonnet-4", "Running.", 3)
    assert run.steps[1].text == "Run"


def test_langgraph_state_object_and_role_keyed_dicts() -> None:
    state = SimpleNamespace(
        messages=[
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"name": "t", "args": {}, "id": "c"}],
            },
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ]
    )
    run = trajectory_from_langchain_messages(state)
    assert (run.question, run.tool_names(), run.steps[0].tool_calls[0].result) == ("q", ["t"], "r")


def test_chat_message_uses_its_own_role_and_old_calls_sit_in_additional_kwargs() -> None:
    run = trajectory_from_langchain_messages(
        [
            {
                "lc": 1,
                "type": "constructor",
                "id": ["langchain", "schema", "messages", "ChatMessage"],
                "kwargs": {"role": "user", "content": "q"},
            },
            {
                "type": "ai",
                "content": "",
                "additional_kwargs": {
                    "tool_calls": [
                        {
                            "id": "x",
                            "type": "function",
                            "function": {"name": "f", "arguments": '{"a": 1}'},
                        }
                    ]
                },
            },
            {"type": "function", "name": "f", "content": "done"},
        ]
    )
    assert run.question == "q"
    only = run.steps[0].tool_calls[0]
    assert (only.name, only.args, only.result) == ("f", {"a": 1}, "done")


def test_token_usage_from_response_metadata_when_usage_metadata_is_absent() -> None:
    run = trajectory_from_langchain_messages(
        [
            {
                "type": "ai",
                "content": "x",
                "response_metadata": {"token_usage": {"prompt_tokens": 7, "completion_tokens": 3}},
            }
        ]
    )
    assert run.usage == Usage(7, 3)


# --- hostile input --------------------------------------------------------------------------

HOSTILE: list[Any] = [
    None,
    42,
    "human",
    [],
    {},
    {"messages": {"not": "a list"}},
    [None, 1, "ai", [], {}],
    [{"type": None}, {"type": 3}, {"type": "constructor"}, {"lc": 1, "type": "constructor"}],
    [{"lc": 1, "type": "constructor", "id": "AIMessage", "kwargs": "x"}],
    [{"lc": 1, "type": "constructor", "id": [5], "kwargs": {"type": "ai", "content": None}}],
    [{"lc": 1, "type": "constructor", "id": [], "kwargs": None}],
    [{"type": "ai", "content": None, "tool_calls": None, "invalid_tool_calls": "x"}],
    [{"type": "ai", "tool_calls": [None, 1, {"name": 3, "args": "{bad", "id": []}]}],
    [{"type": "ai", "usage_metadata": "lots", "response_metadata": [1]}],
    [{"type": "ai", "additional_kwargs": {"tool_calls": [1, None], "function_call": "f"}}],
    [{"type": "tool", "tool_call_id": None, "content": [{"type": "text"}]}],
    [{"type": "chat", "role": None}],
    [{"type": "human", "data": None}, {"type": "ai", "data": "x"}],
    [SimpleNamespace(type="ai", content=SimpleNamespace(), tool_calls=SimpleNamespace())],
]


@pytest.mark.parametrize("value", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_gives_a_trajectory(value: Any) -> None:
    try:
        before = copy.deepcopy(value)
    except TypeError:
        before = None
    run = trajectory_from_langchain_messages(value, source="hostile")
    assert isinstance(run, Trajectory)
    if before is not None:
        assert value == before


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = [
    "content",
    "tool_calls",
    "invalid_tool_calls",
    "tool_call_id",
    "name",
    "args",
    "id",
    "usage_metadata",
    "response_metadata",
    "additional_kwargs",
    "data",
    "role",
    "lc",
    "kwargs",
]
TYPES = st.sampled_from(["human", "ai", "tool", "system", "chat", "function", "constructor", "x"])
plain = st.fixed_dictionaries({"type": TYPES}, optional={key: json_values for key in KEYS})
serialised = st.fixed_dictionaries(
    {
        "lc": st.just(1),
        "type": st.just("constructor"),
        "id": st.lists(
            st.sampled_from(["langchain", "AIMessage", "ToolMessage", "HumanMessage"]), max_size=4
        ),
        "kwargs": st.fixed_dictionaries({}, optional={key: json_values for key in KEYS})
        | json_values,
    }
)
message_lists = st.lists(plain | serialised | json_values, max_size=8)


@given(message_lists | json_values)
def test_property_never_raises_and_never_mutates(value: Any) -> None:
    before = copy.deepcopy(value)
    run = trajectory_from_langchain_messages(value)
    assert isinstance(run, Trajectory)
    assert value == before
    assert [step.index for step in run.steps] == list(range(len(run.steps)))


def test_steps_carry_the_turn_of_the_human_message_before_them() -> None:
    run = trajectory_from_langchain_messages(
        [
            {"type": "human", "content": "Which pumps are down?"},
            {
                "type": "ai",
                "name": "inspector",
                "content": "",
                "tool_calls": [{"name": "down_assets", "args": {}, "id": "t1"}],
            },
            {"type": "tool", "tool_call_id": "t1", "content": "P-3"},
            {"type": "ai", "name": "inspector", "content": "P-3."},
            {"type": "human", "content": "Open a work order"},
            {
                "type": "ai",
                "name": "planner",
                "content": "",
                "tool_calls": [{"name": "open_work_order", "args": {"asset": "P-3"}, "id": "t2"}],
            },
        ]
    )
    # LangGraph's agent names stay nodes; turns follow the human messages.
    assert [(step.turn, step.node) for step in run.steps] == [
        (0, "inspector"),
        (0, "inspector"),
        (1, "planner"),
    ]
