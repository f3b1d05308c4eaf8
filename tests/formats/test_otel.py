"""Tests for `assay.formats.otel`: OTLP JSON GenAI spans in, one Trajectory per trace out."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import ReadProblem, trajectories_from_otlp
from assay.records import Trajectory, Usage

SAMPLES = Path(__file__).parent / "samples"
TRACE = "5b8efff798038103d269b633813fc60c"


def sample(name: str) -> Any:
    return orjson.loads((SAMPLES / name).read_bytes())


def attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(
    span_id: str,
    operation: str | None,
    start_ms: int,
    end_ms: int,
    *,
    parent: str = "",
    trace: str = "t",
    **attributes: Any,
) -> dict[str, Any]:
    attrs = [attr(key.replace("__", "."), value) for key, value in attributes.items()]
    if operation is not None:
        attrs.append(attr("gen_ai.operation.name", operation))
    return {
        "traceId": trace,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": f"{operation} x",
        "startTimeUnixNano": str(start_ms * 1_000_000),
        "endTimeUnixNano": str(end_ms * 1_000_000),
        "attributes": attrs,
    }


def export(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]}


def only_run(items: list[Trajectory | ReadProblem]) -> Trajectory:
    runs = [item for item in items if isinstance(item, Trajectory)]
    assert len(runs) == 1, items
    return runs[0]


def test_sample_export() -> None:
    items = trajectories_from_otlp(sample("otel_export.json"), "otel_export.json")
    run, problem = items
    assert isinstance(run, Trajectory) and isinstance(problem, ReadProblem)

    assert run.run_id == TRACE
    assert run.source == f"otel_export.json#{TRACE}"
    assert (run.runner, run.model) == ("asset-ops-agent", "gpt-4o-2024-08-06")
    assert (
        run.question == "How many work orders did chiller CWC04009 have in 2017, and where is it?"
    )
    assert run.answer == "41 work orders; CWC04009 is Chiller 9 at site MAIN."
    assert run.duration_ms == 2600.0

    first, second = run.steps
    assert [step.index for step in run.steps] == [0, 1]
    assert [step.node for step in run.steps] == ["maintenance_planner", "maintenance_planner"]
    assert first.text == "Looking up work orders and the asset."
    assert (first.usage, second.usage) == (Usage(812, 64), Usage(1040, 31))
    assert (first.duration_ms, second.duration_ms) == (1100.0, 800.0)
    assert run.usage == Usage(1852, 95)

    # Both tool spans follow the first chat span (their parent is the agent span); they are
    # ordered by start time, and the call without recorded arguments gets them from the chat
    # span's output message, matched by call id.
    orders, asset = first.tool_calls
    assert (orders.name, orders.call_id, orders.args, orders.result) == (
        "get_work_orders",
        "call_1",
        {"equipment_id": "CWC04009", "year": 2017},
        '{"count": 41}',
    )
    assert (asset.name, asset.call_id, asset.args, asset.result) == (
        "get_asset",
        "call_2",
        {"asset_id": "CWC04009"},
        "Chiller 9 at site MAIN",
    )
    assert second.tool_calls == []

    assert problem.source == "otel_export.json#0af7651916cd43dd8448eb211c80319c"
    assert problem.reason == "no GenAI model call or execute_tool span (operations: embeddings)"


def test_tool_under_a_chat_span_belongs_to_it_and_agents_name_steps() -> None:
    data = export(
        span("root", "invoke_agent", 0, 100, gen_ai__agent__name="router"),
        span("sub", "invoke_agent", 10, 90, parent="root", gen_ai__agent__name="billing"),
        span("c1", "chat", 1, 9, parent="root"),
        span("c2", "chat", 11, 40, parent="sub", gen_ai__usage__prompt_tokens=7),
        span("t1", "execute_tool", 20, 30, parent="c2", gen_ai__tool__name="refund"),
        span("c3", "chat", 41, 50, parent="sub", gen_ai__agent__name="billing_v2"),
        span("t2", "execute_tool", 45, 60, parent="sub", gen_ai__tool__name="notify"),
    )
    run = only_run(trajectories_from_otlp(data, "x"))
    assert [step.node for step in run.steps] == ["router", "billing", "billing_v2"]
    assert [[c.name for c in step.tool_calls] for step in run.steps] == [[], ["refund"], ["notify"]]
    assert run.steps[1].usage == Usage(7, None)  # the older prompt_tokens spelling


def test_tool_follows_the_latest_chat_of_its_own_agent() -> None:
    # Two agents run side by side: b's chat starts after a's, but a's tool belongs to a.
    data = export(
        span("A", "invoke_agent", 0, 100, gen_ai__agent__name="a"),
        span("B", "invoke_agent", 0, 100, gen_ai__agent__name="b"),
        span("ca", "chat", 1, 5, parent="A"),
        span("cb", "chat", 2, 6, parent="B"),
        span("ta", "execute_tool", 7, 8, parent="A", gen_ai__tool__name="tool_a"),
    )
    run = only_run(trajectories_from_otlp(data, "x"))
    assert [(s.node, [c.name for c in s.tool_calls]) for s in run.steps] == [
        ("a", ["tool_a"]),
        ("b", []),
    ]


def test_tool_before_any_model_call_is_a_step_of_its_own() -> None:
    data = export(
        span("t0", "execute_tool", 0, 1, gen_ai__tool__name="warmup", gen_ai__agent__name="boot"),
        span("c1", "chat", 2, 3),
    )
    run = only_run(trajectories_from_otlp(data, "x"))
    assert [[c.name for c in s.tool_calls] for s in run.steps] == [["warmup"], []]
    assert run.steps[0].node == "boot"


def test_requested_calls_when_no_tool_spans_were_recorded() -> None:
    output = [
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "c9", "name": "lookup", "arguments": '{"q": 1}'}],
        }
    ]
    data = export(span("c1", "chat", 0, 1, gen_ai__output__messages=orjson.dumps(output).decode()))
    (call,) = only_run(trajectories_from_otlp(data, "x")).tool_calls()
    assert (call.name, call.call_id, call.args, call.result) == ("lookup", "c9", {"q": 1}, None)


def test_structured_attribute_values_and_agent_output_as_answer() -> None:
    messages = {
        "arrayValue": {
            "values": [
                {
                    "kvlistValue": {
                        "values": [
                            {"key": "role", "value": {"stringValue": "assistant"}},
                            {
                                "key": "parts",
                                "value": {
                                    "arrayValue": {
                                        "values": [
                                            {
                                                "kvlistValue": {
                                                    "values": [
                                                        {
                                                            "key": "type",
                                                            "value": {"stringValue": "text"},
                                                        },
                                                        {
                                                            "key": "content",
                                                            "value": {"stringValue": "done"},
                                                        },
                                                    ]
                                                }
                                            }
                                        ]
                                    }
                                },
                            },
                        ]
                    }
                }
            ]
        }
    }
    agent = span("a", "invoke_agent", 0, 10, gen_ai__usage__input_tokens=50)
    agent["attributes"].append({"key": "gen_ai.output.messages", "value": messages})
    data = export(agent, span("c", "chat", 1, 2, parent="a"))
    run = only_run(trajectories_from_otlp(data, "x"))
    assert run.answer == "done"  # no chat text: the outermost agent's output
    assert run.usage == Usage(50, None)  # no chat usage: the agent span's


def test_flat_span_list_and_console_exporter_form() -> None:
    console = {
        "name": "chat gpt-4o",
        "context": {"trace_id": "0xABC", "span_id": "0x01"},
        "parent_id": None,
        "start_time": "2025-05-01T10:00:00.000000Z",
        "end_time": "2025-05-01T10:00:01.500000Z",
        "attributes": {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"},
    }
    run = only_run(trajectories_from_otlp([console], "spans.json"))
    assert (run.run_id, run.model, run.steps[0].duration_ms) == ("abc", "gpt-4o", 1500.0)


def test_traces_split_over_several_exports_are_joined() -> None:
    first = export(span("c1", "chat", 0, 1, trace="t9"))
    second = export(span("c2", "chat", 2, 3, trace="t9"))
    run = only_run(trajectories_from_otlp([first, second], "lines.jsonl"))
    assert len(run.steps) == 2


def test_spans_without_times_keep_file_order_after_timed_ones() -> None:
    untimed = span("c0", "chat", 0, 0, gen_ai__request__model="late")
    del untimed["startTimeUnixNano"], untimed["endTimeUnixNano"]
    data = export(untimed, span("c1", "chat", 5, 6, gen_ai__request__model="early"))
    run = only_run(trajectories_from_otlp(data, "x"))
    assert run.model == "early"
    assert run.steps[1].duration_ms is None


def test_parent_cycles_end() -> None:
    data = export(
        span("a", "chat", 0, 1, parent="b"),
        span("b", "execute_tool", 2, 3, parent="a", gen_ai__tool__name="t"),
    )
    run = only_run(trajectories_from_otlp(data, "x"))
    assert run.tool_names() == ["t"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            {"resourceSpans": []},
            "no spans found (expected OTLP JSON: resourceSpans, or a list of spans)",
        ),
        ([], "no spans found (expected OTLP JSON: resourceSpans, or a list of spans)"),
        (None, "not an OTLP export: got null"),
        (7, "not an OTLP export: got number"),
        (export(span("s", None, 0, 1)), "no GenAI model call or execute_tool span"),
    ],
)
def test_problems(data: Any, reason: str) -> None:
    (problem,) = trajectories_from_otlp(data, "f.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == reason


HOSTILE: list[Any] = [
    {"resourceSpans": [None, 1, {"scopeSpans": "x"}, {"scopeSpans": [None, {"spans": "x"}]}]},
    {"resourceSpans": [{"scopeSpans": [{"spans": [None, 1, {}, {"traceId": 5}, {"spanId": []}]}]}]},
    export({"traceId": "t", "spanId": "s", "attributes": "x", "startTimeUnixNano": "soon"}),
    export(
        {
            "traceId": "t",
            "spanId": "s",
            "attributes": [None, {"key": 1}, {"key": "gen_ai.operation.name"}],
        }
    ),
    export(
        {
            "traceId": "t",
            "spanId": "s",
            "startTimeUnixNano": -5,
            "endTimeUnixNano": 1e400,
            "attributes": [
                attr("gen_ai.operation.name", "chat"),
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "9" * 40}},
                {"key": "gen_ai.usage.output_tokens", "value": {"doubleValue": "NaN"}},
                {"key": "gen_ai.output.messages", "value": {"stringValue": "[not json"}},
                {"key": "gen_ai.input.messages", "value": {"arrayValue": {"values": "x"}}},
                {
                    "key": "gen_ai.agent.name",
                    "value": {"kvlistValue": {"values": [None, {"key": 3}]}},
                },
            ],
        }
    ),
    export(
        span(
            "c",
            "chat",
            0,
            1,
            gen_ai__output__messages='[{"parts": [1, {"type": "tool_call", "name": 3}]}]',
        )
    ),
    export(
        span(
            "t",
            "execute_tool",
            0,
            1,
            gen_ai__tool__call__arguments="{broken",
            gen_ai__tool__call__id="x",
        )
    ),
    [
        {
            "context": "x",
            "start_time": "not a date",
            "attributes": {"gen_ai.operation.name": "chat", 3: 4},
        }
    ],
    [[[[[[[[{"traceId": "deep", "spanId": "s"}]]]]]]]],
]


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(data: Any) -> None:
    before = copy.deepcopy(data)
    items = trajectories_from_otlp(data, "f")
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    assert data == before


def test_deeply_nested_attribute_values_stop() -> None:
    value: dict[str, Any] = {"stringValue": "leaf"}
    for _ in range(2000):
        value = {"arrayValue": {"values": [value]}}
    data = export(
        {
            "traceId": "t",
            "spanId": "s",
            "attributes": [attr("gen_ai.operation.name", "chat"), {"key": "deep", "value": value}],
        }
    )
    assert isinstance(trajectories_from_otlp(data, "f")[0], Trajectory)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
OPERATIONS = st.sampled_from(["chat", "execute_tool", "invoke_agent", "text_completion", "x"])
KEYS = st.sampled_from(
    [
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.agent.name",
        "gen_ai.usage.input_tokens",
        "gen_ai.output.messages",
        "gen_ai.input.messages",
        "gen_ai.request.model",
    ]
)
any_values = st.fixed_dictionaries(
    {},
    optional={
        "stringValue": json_values,
        "intValue": json_values,
        "arrayValue": json_values,
        "kvlistValue": json_values,
    },
)
spans = st.fixed_dictionaries(
    {
        "traceId": st.sampled_from(["t1", "t2", ""]),
        "spanId": st.sampled_from(["a", "b", "c", "d"]),
        "attributes": st.lists(
            st.fixed_dictionaries({"key": KEYS, "value": any_values})
            | st.builds(lambda op: attr("gen_ai.operation.name", op), OPERATIONS),
            max_size=5,
        ),
    },
    optional={
        "parentSpanId": st.sampled_from(["a", "b", "c", "d", ""]) | json_values,
        "startTimeUnixNano": st.integers(0, 10**12).map(str) | json_values,
        "endTimeUnixNano": st.integers(0, 10**12).map(str) | json_values,
    },
)


@given(st.lists(spans | json_values, max_size=6))
def test_property_never_raises_and_never_mutates(data: list[Any]) -> None:
    before = copy.deepcopy(data)
    items = trajectories_from_otlp(export(*data), "f")
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    assert data == before
