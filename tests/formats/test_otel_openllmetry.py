"""Tests for the OTel reader on OpenLLMetry spans (Traceloop's instrumentors and SDK)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import otlp_shapes as shapes
from assay.formats import ReadProblem, _otel_openllmetry, trajectories_from_otlp
from assay.formats.registry import read_file
from assay.records import Trajectory, Usage
from otlp_shapes import attr, export, only_run, prefixes_rebuilt

KIND = "traceloop.span.kind"
REQUEST = "llm.request.type"


span = functools.partial(shapes.span, trace="tl")


def entity(*args: Any, **kwargs: Any) -> str:
    return orjson.dumps({"args": list(args), "kwargs": kwargs}).decode()


QUESTION = "Is chiller CH-12 running hot?"
ANSWER = "Yes: CH-12 reads 41.5 C, above its 38 C limit."

WORKFLOW = span(
    "wf",
    "chiller_check.workflow",
    0,
    100,
    {
        KIND: "workflow",
        "traceloop.entity.name": "chiller_check",
        "traceloop.workflow.name": "chiller_check",
        "traceloop.entity.input": entity(QUESTION),
        "traceloop.entity.output": orjson.dumps(ANSWER).decode(),
    },
)
AGENT = span(
    "ag",
    "chiller.agent",
    1,
    99,
    {KIND: "agent", "traceloop.entity.name": "chiller"},
    parent="wf",
)
CHAT_1 = span(
    "c1",
    "openai.chat",
    10,
    30,
    {
        REQUEST: "chat",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.usage.prompt_tokens": 120,
        "gen_ai.usage.completion_tokens": 18,
        "llm.usage.total_tokens": 138,
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "You watch chillers.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": QUESTION,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "call_1",
        "gen_ai.completion.0.tool_calls.0.name": "get_sensor",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"asset": "CH-12"}',
    },
    parent="ag",
)
TOOL = span(
    "t1",
    "get_sensor.tool",
    32,
    40,
    {
        KIND: "tool",
        "traceloop.entity.name": "get_sensor",
        "traceloop.entity.input": entity(asset="CH-12"),
        "traceloop.entity.output": '{"temp_c": 41.5}',
    },
    parent="ag",
)
EMBEDDING = span("e", "openai.embeddings", 41, 42, {REQUEST: "embedding"}, parent="ag")
CHAT_2 = span(
    "c2",
    "openai.chat",
    50,
    90,
    {
        REQUEST: "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.prompt_tokens": 160,
        "gen_ai.usage.completion_tokens": 20,
        "gen_ai.prompt.0.role": "user",
        "gen_ai.prompt.0.content": QUESTION,
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.content": ANSWER,
    },
    parent="ag",
)


def test_agent_trace() -> None:
    run = only_run(
        trajectories_from_otlp(export(WORKFLOW, AGENT, CHAT_1, TOOL, EMBEDDING, CHAT_2), "f")
    )
    assert (run.run_id, run.runner, run.model) == ("tl", "chiller-agent", "gpt-4o-2024-08-06")
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    assert [step.node for step in run.steps] == ["chiller", "chiller"]
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.result) == (
        "get_sensor",
        {"asset": "CH-12"},
        {"temp_c": 41.5},
    )
    assert [step.text for step in run.steps] == [None, ANSWER]
    assert run.steps[0].usage == Usage(120, 18)
    assert run.usage == Usage(280, 38)
    assert run.notes == ["not read: 1 span of kind embedding"]


def test_a_prompt_is_read_only_when_the_trace_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # The second call's prompts repeat the first's: with the tool span recording the result,
    # only the first call's prompts are read (for the question).
    read = prefixes_rebuilt(monkeypatch, _otel_openllmetry)
    run = only_run(trajectories_from_otlp(export(WORKFLOW, AGENT, CHAT_1, TOOL, CHAT_2), "f"))
    assert run.question == QUESTION
    assert read.count("gen_ai.prompt") == 1


def test_requested_calls_take_results_from_later_tool_prompts() -> None:
    later = copy.deepcopy(CHAT_2)
    later["attributes"] += [
        attr("gen_ai.prompt.1.role", "assistant"),
        attr("gen_ai.prompt.2.role", "tool"),
        attr("gen_ai.prompt.2.tool_call_id", "call_1"),
        attr("gen_ai.prompt.2.content", "41.5 C"),
    ]
    run = only_run(trajectories_from_otlp(export(AGENT, CHAT_1, later), "f"))
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.call_id, call.result) == (
        "get_sensor",
        {"asset": "CH-12"},
        "call_1",
        "41.5 C",
    )


def test_content_parts_function_call_and_input_tokens() -> None:
    chat = span(
        "c",
        "anthropic.chat",
        0,
        1,
        {
            REQUEST: "completion",
            "gen_ai.usage.input_tokens": 7,
            "gen_ai.usage.output_tokens": 3,
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": '[{"type": "image"}, {"type": "text", "text": "Hot?"}]',
            "gen_ai.completion.0.content": "Checking.",
            "gen_ai.completion.0.function_call.name": "get_sensor",
            "gen_ai.completion.0.function_call.arguments": "{bad",
        },
    )
    run = only_run(trajectories_from_otlp(export(chat), "f"))
    assert (run.question, run.answer, run.usage) == ("Hot?", "Checking.", Usage(7, 3))
    assert [(c.name, c.args) for c in run.tool_calls()] == [("get_sensor", "{bad")]


def test_genai_operation_with_indexed_messages() -> None:
    chat = span(
        "c",
        "chat gpt-4o",
        0,
        1,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "q?",
            "gen_ai.completion.0.content": "a.",
        },
    )
    run = only_run(trajectories_from_otlp(export(chat), "f"))
    assert (run.model, run.question, run.answer) == ("gpt-4o", "q?", "a.")


def test_prompts_without_a_kind_are_a_model_call() -> None:
    chat = span("c", "llm", 0, 1, {"gen_ai.completion.0.content": "hello"})
    run = only_run(trajectories_from_otlp(export(chat), "f"))
    assert run.answer == "hello"


def test_broken_entity_input_is_kept_as_text() -> None:
    tool = span("t", "lookup.tool", 0, 1, {KIND: "tool", "traceloop.entity.input": "{bad"})
    run = only_run(trajectories_from_otlp(export(tool), "f"))
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.result) == ("lookup", "{bad", None)


def test_positional_entity_input_is_kept_whole() -> None:
    positional = {KIND: "tool", "traceloop.entity.input": entity(1, x=2)}
    tool = span("t", "t.tool", 0, 1, positional)  # named after the span: "t"
    run = only_run(trajectories_from_otlp(export(tool), "f"))
    (call,) = run.tool_calls()
    assert (call.name, call.args) == ("t", {"args": [1], "kwargs": {"x": 2}})


def test_chat_without_messages_is_a_step_and_the_workflow_answers() -> None:
    bare = {REQUEST: "chat", "gen_ai.request.model": "m"}
    chat = span("c", "openai.chat", 5, 6, bare, parent="wf")
    run = only_run(trajectories_from_otlp(export(WORKFLOW, chat), "f"))
    assert [(s.text, s.tool_calls, s.node) for s in run.steps] == [(None, [], None)]
    assert (run.model, run.question, run.answer) == ("m", QUESTION, ANSWER)


def test_only_a_workflow_span_is_a_problem() -> None:
    (problem,) = trajectories_from_otlp(export(WORKFLOW), "f.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == (
        "no model call or tool span (GenAI, OpenInference or OpenLLMetry) (span kinds: workflow)"
    )


def test_unknown_kinds_are_noted() -> None:
    spans = [
        span("c", "openai.chat", 0, 1, {REQUEST: "chat"}),
        span("u", "x.unknown", 2, 3, {KIND: "unknown"}),
        span("r", "cohere.rerank", 4, 5, {REQUEST: "rerank"}),
        span("r2", "cohere.rerank", 6, 7, {REQUEST: "rerank"}),
    ]
    run = only_run(trajectories_from_otlp(export(*spans), "f"))
    assert run.notes == ["not read: 1 span of kind unknown", "not read: 2 spans of kind rerank"]


def test_read_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    lines = [orjson.dumps(export(s)) for s in (WORKFLOW, AGENT, CHAT_1, TOOL, CHAT_2)]
    path.write_bytes(b"\n".join(lines) + b"\n")
    (run,) = read_file(path)
    assert isinstance(run, Trajectory)
    assert (run.tool_names(), run.answer) == (["get_sensor"], ANSWER)


KEYS = [
    KIND,
    REQUEST,
    "gen_ai.operation.name",
    "gen_ai.request.model",
    "gen_ai.response.model",
    "gen_ai.usage.prompt_tokens",
    "gen_ai.usage.completion_tokens",
    "gen_ai.prompt",
    "gen_ai.prompt.0",
    "gen_ai.prompt.0.role",
    "gen_ai.prompt.0.content",
    "gen_ai.prompt.0.tool_call_id",
    "gen_ai.prompt.x.role",
    "gen_ai.completion.0.content",
    "gen_ai.completion.0.tool_calls.0.name",
    "gen_ai.completion.0.tool_calls.0.arguments",
    "gen_ai.completion.0.function_call",
    "gen_ai.completion.0.function_call.name",
    "traceloop.entity.name",
    "traceloop.entity.input",
    "traceloop.entity.output",
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["chat", "tool", "agent", "workflow", "user", "tool", '{"args": 1}', "[{}]"])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(deadline=None)
@given(
    st.lists(
        st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=12), VALUES, max_size=8),
        min_size=1,
        max_size=4,
    )
)
def test_property_arbitrary_attribute_maps_never_raise(maps: list[dict[str, Any]]) -> None:
    spans = [
        {"traceId": "t", "spanId": str(i), "parentSpanId": str(i - 1), "attributes": attributes}
        for i, attributes in enumerate(maps)
    ]
    before = copy.deepcopy(spans)
    for item in trajectories_from_otlp(spans, "f"):
        assert isinstance(item, Trajectory | ReadProblem)
    assert spans == before
