"""Tests for the OTel reader on OpenInference spans (Arize Phoenix's instrumentors)."""

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
from assay.formats import ReadProblem, _otel_openinference, trajectories_from_otlp
from assay.formats.registry import read_file
from assay.records import Trajectory, Usage
from otlp_shapes import attr, export, only_run, prefixes_rebuilt

KIND = "openinference.span.kind"


span = functools.partial(shapes.span, trace="oi")


QUESTION = "Is chiller CH-12 running hot?"
ANSWER = "Yes: CH-12 reads 41.5 C, above its 38 C limit."
IN_MSG = "llm.input_messages"
OUT_MSG = "llm.output_messages"

AGENT = span(
    "ag",
    "AgentExecutor",
    0,
    100,
    {
        KIND: "AGENT",
        "input.value": orjson.dumps({"input": QUESTION}).decode(),
        "input.mime_type": "application/json",
        "output.value": orjson.dumps({"output": ANSWER}).decode(),
        "output.mime_type": "application/json",
    },
)
LLM_1 = span(
    "l1",
    "ChatOpenAI",
    10,
    30,
    {
        KIND: "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.token_count.prompt": 120,
        "llm.token_count.completion": 18,
        "llm.token_count.total": 138,
        f"{IN_MSG}.0.message.role": "system",
        f"{IN_MSG}.0.message.content": "You watch chillers.",
        f"{IN_MSG}.1.message.role": "user",
        f"{IN_MSG}.1.message.content": QUESTION,
        f"{OUT_MSG}.0.message.role": "assistant",
        f"{OUT_MSG}.0.message.tool_calls.0.tool_call.id": "call_1",
        f"{OUT_MSG}.0.message.tool_calls.0.tool_call.function.name": "get_sensor",
        f"{OUT_MSG}.0.message.tool_calls.0.tool_call.function.arguments": '{"asset": "CH-12"}',
        "output.value": '{"choices": []}',
        "output.mime_type": "application/json",
    },
    parent="ag",
)
TOOL = span(
    "t1",
    "get_sensor",
    32,
    40,
    {
        KIND: "TOOL",
        "tool.name": "get_sensor",
        "tool.description": "Read a sensor",
        "input.value": '{"asset": "CH-12"}',
        "output.value": '{"temp_c": 41.5}',
        "output.mime_type": "application/json",
    },
    parent="ag",
)
RETRIEVERS = [
    span(f"r{i}", "VectorStoreRetriever", 41 + i, 42 + i, {KIND: "RETRIEVER"}, parent="ag")
    for i in range(2)
]
LLM_2 = span(
    "l2",
    "ChatOpenAI",
    50,
    90,
    {
        KIND: "LLM",
        "llm.model_name": "gpt-4o-mini",
        "llm.token_count.prompt": 160,
        "llm.token_count.completion": 20,
        f"{IN_MSG}.0.message.role": "user",
        f"{IN_MSG}.0.message.content": QUESTION,
        f"{OUT_MSG}.0.message.role": "assistant",
        f"{OUT_MSG}.0.message.content": ANSWER,
    },
    parent="ag",
)


def test_langchain_agent_trace() -> None:
    run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, TOOL, *RETRIEVERS, LLM_2), "f"))
    assert (run.run_id, run.runner, run.model) == ("oi", "chiller-agent", "gpt-4o-mini")
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    assert [step.node for step in run.steps] == ["AgentExecutor", "AgentExecutor"]
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.result) == (
        "get_sensor",
        {"asset": "CH-12"},
        {"temp_c": 41.5},
    )
    assert run.steps[0].text is None  # the raw JSON output.value is no reply text
    assert run.steps[1].text == ANSWER
    assert run.steps[0].usage == Usage(120, 18)
    assert run.usage == Usage(280, 38)
    assert run.steps[0].duration_ms == 20.0
    assert run.notes == ["not read: 2 spans of kind RETRIEVER"]


def _recorded_again(model: dict[str, Any], span_id: str, parent: str, shift_ms: int = 1) -> (
    dict[str, Any]
):
    """The model call `model` as a second instrumentor (the OpenAI SDK's, under LangChain's)
    records it: the same reply, its own tokens, within the first span's time."""
    again = copy.deepcopy(model)
    start, end = int(again["startTimeUnixNano"]), int(again["endTimeUnixNano"])
    again.update(spanId=span_id, parentSpanId=parent, name="ChatCompletion",
                 startTimeUnixNano=str(start + shift_ms * 1_000_000),
                 endTimeUnixNano=str(end - shift_ms * 1_000_000))
    return again


def test_a_model_call_two_instrumentors_record_is_one_step() -> None:
    # Nested (LangChain's span the parent of the SDK's), or beside it when their contexts are
    # not linked (a real LangChain agent under Phoenix's two instrumentors): one call.
    for parent in ("l1", "ag"):
        inner = _recorded_again(LLM_1, "l1b", parent)
        run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, inner, TOOL, LLM_2), "f"))
        assert len(run.steps) == 2, parent
        assert [c.name for c in run.tool_calls()] == ["get_sensor"]
        assert run.usage == Usage(280, 38)
    # LangChain's span without tokens: the call's come from the SDK's.
    outer = copy.deepcopy(LLM_1)
    outer["attributes"] = [a for a in outer["attributes"] if "token_count" not in a["key"]]
    inner = _recorded_again(LLM_1, "l1b", "l1")
    run = only_run(trajectories_from_otlp(export(AGENT, outer, inner, TOOL, LLM_2), "f"))
    assert run.steps[0].usage == Usage(120, 18)


def test_two_calls_at_once_with_different_replies_stay_two_steps() -> None:
    other = _recorded_again(LLM_1, "l1b", "ag")
    other["attributes"] = [
        attr(f"{OUT_MSG}.0.message.tool_calls.0.tool_call.function.arguments", '{"asset": "P-7"}')
        if item["key"].endswith("function.arguments") else item
        for item in other["attributes"]
    ]
    run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, other, LLM_2), "f"))
    assert [c.args for c in run.tool_calls()] == [{"asset": "CH-12"}, {"asset": "P-7"}]


def test_requested_calls_take_results_from_later_tool_messages() -> None:
    later = copy.deepcopy(LLM_2)
    later["attributes"] += [
        attr(f"{IN_MSG}.1.message.role", "assistant"),
        attr(f"{IN_MSG}.2.message.role", "tool"),
        attr(f"{IN_MSG}.2.message.tool_call_id", "call_1"),
        attr(f"{IN_MSG}.2.message.content", "41.5 C"),
    ]
    run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, later), "f"))
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.call_id, call.result) == (
        "get_sensor",
        {"asset": "CH-12"},
        "call_1",
        "41.5 C",
    )


def test_only_the_requests_the_trace_needs_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # Each model call's input repeats the conversation so far: reading every request would
    # cost time quadratic in the conversation's length. With a tool span recording the result,
    # only the first call's request is read (for the question).
    read = prefixes_rebuilt(monkeypatch, _otel_openinference)
    run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, TOOL, LLM_2), "f"))
    assert run.question == QUESTION
    assert [c.result for c in run.tool_calls()] == [{"temp_c": 41.5}]
    assert read.count(IN_MSG) == 1
    read.clear()
    without_tool = copy.deepcopy(LLM_2)
    without_tool["attributes"] += [
        attr(f"{IN_MSG}.1.message.role", "tool"),
        attr(f"{IN_MSG}.1.message.tool_call_id", "call_1"),
        attr(f"{IN_MSG}.1.message.content", "41.5 C"),
    ]
    run = only_run(trajectories_from_otlp(export(AGENT, LLM_1, without_tool), "f"))
    assert [c.result for c in run.tool_calls()] == ["41.5 C"]
    assert read.count(IN_MSG) == 2  # a result waits: the later request is read for it


def test_agent_names_contents_and_graph_nodes() -> None:
    agent = span("ag", "invoke", 0, 10, {KIND: "AGENT", "graph.node.id": "planner"})
    named = span("ag2", "invoke", 11, 20, {KIND: "agent", "agent.name": "writer"})
    llm = span(
        "l",
        "llm",
        1,
        2,
        {
            KIND: "LLM",
            f"{IN_MSG}.0.message.role": "user",
            f"{IN_MSG}.0.message.contents.0.message_content.type": "image",
            f"{IN_MSG}.0.message.contents.1.message_content.type": "text",
            f"{IN_MSG}.0.message.contents.1.message_content.text": "Plan it",
            f"{OUT_MSG}.0.message.content": "a plan",
        },
        parent="ag",
    )
    own_attributes = {KIND: "LLM", "agent.name": "editor", "output.value": "done"}
    own = span("l2", "llm", 12, 13, own_attributes, parent="ag2")
    run = only_run(trajectories_from_otlp(export(agent, llm, named, own), "f"))
    assert [(s.node, s.text) for s in run.steps] == [("planner", "a plan"), ("editor", "done")]
    assert (run.question, run.answer) == ("Plan it", "done")


def test_broken_tool_parameters_are_kept_as_text() -> None:
    broken = {KIND: "TOOL", "tool.name": "lookup", "tool.parameters": "{bad"}
    tool = span("t", "lookup", 0, 1, broken)
    run = only_run(trajectories_from_otlp(export(tool), "f"))
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.result) == ("lookup", "{bad", None)


def test_tool_without_a_name_takes_the_span_name_and_its_call_id() -> None:
    unnamed = {KIND: "TOOL", "tool_call.id": "c9", "input.value": "cats"}
    tool = span("t", "search_web", 0, 1, unnamed)
    run = only_run(trajectories_from_otlp(export(tool), "f"))
    (call,) = run.steps[0].tool_calls
    assert (call.name, call.args, call.call_id) == ("search_web", "cats", "c9")


def test_llm_span_without_messages_is_a_step_and_the_agent_answers() -> None:
    llm = span("l", "llm", 1, 2, {KIND: "LLM", "llm.model_name": "m"}, parent="ag")
    run = only_run(trajectories_from_otlp(export(AGENT, llm), "f"))
    assert [(s.text, s.tool_calls) for s in run.steps] == [(None, [])]
    assert (run.model, run.question, run.answer) == ("m", QUESTION, ANSWER)
    assert run.notes == []


def test_root_chain_stands_for_question_and_answer() -> None:
    chain = span(
        "c", "RunnableSequence", 0, 9, {KIND: "CHAIN", "input.value": "hi", "output.value": "hey"}
    )
    llm = span("l", "llm", 1, 2, {KIND: "LLM"}, parent="c")
    run = only_run(trajectories_from_otlp(export(chain, llm), "f"))
    assert (run.question, run.answer) == ("hi", "hey")


def test_only_a_chain_span_is_a_problem() -> None:
    chain = span("c", "RunnableSequence", 0, 1, {KIND: "CHAIN", "input.value": "x"})
    retriever = span("r", "retrieve", 0, 1, {KIND: "RETRIEVER"}, parent="c")
    (problem,) = trajectories_from_otlp(export(chain, retriever), "f.json")
    assert isinstance(problem, ReadProblem)
    assert problem.source == "f.json#oi"
    assert problem.reason == (
        "no model call or tool span (GenAI, OpenInference or OpenLLMetry) "
        "(span kinds: CHAIN, RETRIEVER)"
    )


def test_unread_kinds_are_counted_per_kind() -> None:
    spans = [
        span("l", "llm", 0, 1, {KIND: "LLM"}),
        span("e", "embed", 2, 3, {KIND: "EMBEDDING"}),
        span("g", "guard", 4, 5, {KIND: "GUARDRAIL"}),
        span("e2", "embed", 6, 7, {KIND: "EMBEDDING"}),
    ]
    run = only_run(trajectories_from_otlp(export(*spans), "f"))
    assert run.notes == [
        "not read: 2 spans of kind EMBEDDING",
        "not read: 1 span of kind GUARDRAIL",
    ]


def test_messages_recorded_whole_and_console_form() -> None:
    console = {
        "name": "llm",
        "context": {"trace_id": "0xAB", "span_id": "0x1"},
        "parent_id": None,
        "start_time": "2025-01-01T00:00:00Z",
        "attributes": {
            KIND: "LLM",
            IN_MSG: [{"message": {"role": "user", "content": "q?"}}],
            OUT_MSG: '[{"message": {"role": "assistant", "content": "a."}}]',
        },
    }
    run = only_run(trajectories_from_otlp([console], "f"))
    assert (run.run_id, run.question, run.answer) == ("ab", "q?", "a.")


def test_read_through_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps(export(AGENT, LLM_1, TOOL, LLM_2)))
    (run,) = read_file(path)
    assert isinstance(run, Trajectory)
    assert run.tool_names() == ["get_sensor"]


KEYS = [
    KIND,
    "llm.model_name",
    "llm.token_count.prompt",
    "llm.token_count.completion",
    IN_MSG,
    OUT_MSG,
    f"{IN_MSG}.0.message.role",
    f"{IN_MSG}.0.message.content",
    f"{IN_MSG}.0.message.tool_call_id",
    f"{IN_MSG}.0",
    f"{OUT_MSG}.0.message.content",
    f"{OUT_MSG}.0.message.contents.0.message_content.text",
    f"{OUT_MSG}.0.message.tool_calls.0.tool_call.function.name",
    f"{OUT_MSG}.0.message.tool_calls.0.tool_call.function.arguments",
    f"{OUT_MSG}.0.message.tool_calls.x.tool_call",
    "input.value",
    "output.value",
    "output.mime_type",
    "tool.name",
    "tool.parameters",
    "tool_call.id",
    "agent.name",
    "graph.node.id",
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["LLM", "TOOL", "AGENT", "CHAIN", "RETRIEVER", "application/json", "[", "{}"])
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


def test_a_completions_api_call_reads_its_prompt_and_choice() -> None:
    # The legacy completions API (a text model, no chat messages), as Phoenix records it.
    completion = span("c1", "OpenAI.Completion", 0, 40, {
        KIND: "LLM", "llm.model_name": "gpt-3.5-turbo-instruct",
        "llm.prompts.0.prompt.text": QUESTION,
        "llm.choices.0.completion.text": ANSWER,
        "llm.choices.1.completion.text": "a second choice, not the one used",
        "llm.token_count.prompt": 12, "llm.token_count.completion": 9,
    })
    run = only_run(trajectories_from_otlp(export(completion), "completions.json"))
    assert (run.question, run.answer, run.model) == (QUESTION, ANSWER, "gpt-3.5-turbo-instruct")
    assert run.steps[0].usage == Usage(12, 9)
    # Chat messages, when a span has both, are what it is read from.
    both = span("c2", "ChatOpenAI", 0, 40, {
        KIND: "LLM", "llm.prompts.0.prompt.text": "not this",
        f"{IN_MSG}.0.message.role": "user", f"{IN_MSG}.0.message.content": QUESTION,
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": ANSWER,
        "llm.choices.0.completion.text": "nor this",
    })
    run = only_run(trajectories_from_otlp(export(both), "both.json"))
    assert (run.question, run.answer) == (QUESTION, ANSWER)


def test_calls_whose_arguments_nest_too_deep_to_compare_stay_two_steps() -> None:
    deep = '{"x":' * 1000 + "1" + "}" * 1000  # within orjson's depth, past what == walks
    model = copy.deepcopy(LLM_1)
    model["attributes"] = [
        attr(item["key"], deep) if item["key"].endswith("function.arguments") else item
        for item in model["attributes"]
    ]
    run = only_run(trajectories_from_otlp(
        export(AGENT, model, _recorded_again(model, "l1b", "l1")), "f"))
    assert len(run.steps) == 2


def test_a_rag_chains_question_is_its_input_not_the_prompt_built_around_it() -> None:
    asked = "What was Meta's revenue in Q4 2023?"
    prompt = f"Answer from the context.\n\nContext: Meta's Q4 2023 revenue was $40.1B.\n\n{asked}"

    def trace(chain_input: str) -> dict[str, Any]:
        wrapper = span("w0", "main", 0, 100, {})  # another SDK's span, no convention's
        chain = span("c0", "retrieval_chain", 1, 99, {KIND: "CHAIN", "input.value": chain_input,
                                                      "output.value": "$40.1B"}, parent="w0")
        model = span("m0", "ChatOpenAI", 10, 90, {
            KIND: "LLM", f"{IN_MSG}.0.message.role": "user",
            f"{IN_MSG}.0.message.content": prompt,
            f"{OUT_MSG}.0.message.role": "assistant",
            f"{OUT_MSG}.0.message.content": "$40.1B"}, parent="c0")
        return export(wrapper, chain, model)

    assert only_run(trajectories_from_otlp(trace(asked), "f")).question == asked
    # An input the prompt does not hold says nothing of it: the prompt's text stays.
    assert only_run(trajectories_from_otlp(trace("Summarise the call"), "f")).question == prompt
