"""Tests for the other containers the `otel` reader reads: Jaeger JSON, Grafana Tempo's
`batches`, the console exporter's concatenated documents, the OpenAI Agents SDK's trace
export and MLflow's `Trace.to_json()`. Each file is a small run in the tool's own shape: a
model call asking for a tool, the tool span with its result, and a final answer."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from assay.formats import ReadProblem, trajectories_from_otlp
from assay.formats.otel import split_concatenated
from assay.formats.registry import detect_reader, read_file
from assay.records import Trajectory, Usage

QUESTION = "What is the temperature of chiller CH-12?"
ANSWER = "CH-12 is at 41.5 C."
ARGS = '{"asset": "CH-12"}'

ASKED = [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]
CALLS = [
    {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "call_1", "name": "get_sensor", "arguments": ARGS}],
    }
]
REPLY = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]


def only_run(items: list[Trajectory | ReadProblem]) -> Trajectory:
    runs = [item for item in items if isinstance(item, Trajectory)]
    assert len(runs) == 1, items
    return runs[0]


def assert_the_run(run: Trajectory) -> None:
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    first, second = run.steps
    (call,) = first.tool_calls
    assert (call.name, call.args, call.result) == ("get_sensor", {"asset": "CH-12"}, "41.5 C")
    assert (second.text, second.tool_calls) == (ANSWER, [])


def on_disk(tmp_path: Path, name: str, value: Any) -> Path:
    path = tmp_path / name
    path.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2))
    return path


# --- Jaeger --------------------------------------------------------------------------------


def tag(key: str, value: Any) -> dict[str, Any]:
    kind = "int64" if isinstance(value, int) else "string"
    return {"key": key, "type": kind, "value": value}


def jaeger_span(
    span_id: str, parent: str | None, start_us: int, duration_us: int, *tags: dict[str, Any]
) -> dict[str, Any]:
    references = [] if parent is None else [
        {"refType": "CHILD_OF", "traceID": "4bf92f3577b34da6a3ce929d0e0e4736", "spanID": parent}
    ]
    return {
        "traceID": "4bf92f3577b34da6a3ce929d0e0e4736",
        "spanID": span_id,
        "flags": 1,
        "operationName": span_id,
        "references": references,
        "startTime": start_us,
        "duration": duration_us,
        "tags": [*tags, tag("span.kind", "internal"), tag("otel.status_code", "OK")],
        "logs": [],
        "processID": "p1",
        "warnings": None,
    }


def jaeger_export() -> dict[str, Any]:
    start = 1_732_665_600_000_000  # µs
    spans = [
        jaeger_span(
            "a1a1a1a1a1a1a1a1", None, start, 3_000_000,
            tag("gen_ai.operation.name", "invoke_agent"), tag("gen_ai.agent.name", "ops"),
        ),
        jaeger_span(
            "c1c1c1c1c1c1c1c1", "a1a1a1a1a1a1a1a1", start + 100_000, 900_000,
            tag("gen_ai.operation.name", "chat"), tag("gen_ai.request.model", "gpt-4o"),
            tag("gen_ai.usage.input_tokens", 120), tag("gen_ai.usage.output_tokens", 18),
            tag("gen_ai.input.messages", orjson.dumps(ASKED).decode()),
            tag("gen_ai.output.messages", orjson.dumps(CALLS).decode()),
        ),
        jaeger_span(
            "d1d1d1d1d1d1d1d1", "a1a1a1a1a1a1a1a1", start + 1_100_000, 200_000,
            tag("gen_ai.operation.name", "execute_tool"), tag("gen_ai.tool.name", "get_sensor"),
            tag("gen_ai.tool.call.id", "call_1"), tag("gen_ai.tool.call.result", "41.5 C"),
        ),
        jaeger_span(
            "c2c2c2c2c2c2c2c2", "a1a1a1a1a1a1a1a1", start + 1_400_000, 1_000_000,
            tag("gen_ai.operation.name", "chat"), tag("gen_ai.request.model", "gpt-4o"),
            tag("gen_ai.usage.input_tokens", "150"),
            tag("gen_ai.output.messages", orjson.dumps(REPLY).decode()),
        ),
    ]
    return {
        "data": [
            {
                "traceID": "4bf92f3577b34da6a3ce929d0e0e4736",
                "spans": spans,
                "processes": {
                    "p1": {
                        "serviceName": "chiller-agent",
                        "tags": [tag("telemetry.sdk.language", "python")],
                    }
                },
                "warnings": None,
            }
        ],
        "total": 0,
        "limit": 0,
        "offset": 0,
        "errors": None,
    }


def test_jaeger_export(tmp_path: Path) -> None:
    path = on_disk(tmp_path, "trace.json", jaeger_export())
    assert detect_reader(path) == "otel"
    run = only_run(list(read_file(path)))
    assert_the_run(run)
    assert (run.run_id, run.runner, run.model) == (
        "4bf92f3577b34da6a3ce929d0e0e4736",
        "chiller-agent",
        "gpt-4o",
    )
    assert [step.node for step in run.steps] == ["ops", "ops"]
    assert [step.duration_ms for step in run.steps] == [900.0, 1000.0]
    assert run.steps[0].usage == Usage(120, 18)
    assert run.duration_ms == 3000.0

    # One trace on its own (as Jaeger's UI fixtures hold them) reads the same.
    path = on_disk(tmp_path, "one-trace.json", jaeger_export()["data"][0])
    assert detect_reader(path) == "otel"
    assert_the_run(only_run(list(read_file(path))))


def test_jaeger_problems_name_the_export() -> None:
    export = jaeger_export()
    export["data"][0]["traceID"] = None
    for raw in export["data"][0]["spans"]:
        raw["traceID"], raw["spanID"] = 7, None  # broken ids: no span left to read
    (problem,) = trajectories_from_otlp(export, "trace.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "no spans found in the Jaeger JSON export"

    export = jaeger_export()
    for raw in export["data"][0]["spans"]:
        raw["tags"] = [tag("http.method", "GET")]
    (problem,) = trajectories_from_otlp(export, "trace.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("Jaeger JSON export: no GenAI model call")


def test_jaeger_span_with_a_broken_parent_still_reads() -> None:
    export = jaeger_export()
    spans = export["data"][0]["spans"]
    spans[2]["references"] = [{"refType": "CHILD_OF", "spanID": ["not", "an", "id"]}]
    spans[2]["startTime"] = "soon"
    run = only_run(trajectories_from_otlp(export, "trace.json"))
    assert "get_sensor" in run.tool_names()


def test_truncated_file_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(orjson.dumps(jaeger_export())[:-40])
    (problem,) = read_file(path)
    assert isinstance(problem, ReadProblem)
    assert "JSON" in problem.reason


# --- Tempo ---------------------------------------------------------------------------------

TRACE_BYTES = bytes.fromhex("5b8efff798038103d269b633813fc60c")


def b64(hex_id: str) -> str:
    return base64.b64encode(bytes.fromhex(hex_id)).decode()


def attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def tempo_span(
    span_id: str, parent: str, start_ms: int, end_ms: int, *attributes: dict[str, Any]
) -> dict[str, Any]:
    return {
        "traceId": base64.b64encode(TRACE_BYTES).decode(),
        "spanId": b64(span_id),
        "parentSpanId": b64(parent) if parent else "",
        "name": span_id,
        "kind": "SPAN_KIND_INTERNAL",
        "startTimeUnixNano": str(1_732_665_600_000_000_000 + start_ms * 1_000_000),
        "endTimeUnixNano": str(1_732_665_600_000_000_000 + end_ms * 1_000_000),
        "attributes": list(attributes),
        "status": {},
    }


def tempo_export(scopes_key: str = "scopeSpans") -> dict[str, Any]:
    spans = [
        tempo_span(
            "c1c1c1c1c1c1c1c1", "", 0, 900,
            attr("gen_ai.operation.name", "chat"), attr("gen_ai.response.model", "claude-x"),
            attr("gen_ai.input.messages", orjson.dumps(ASKED).decode()),
            attr("gen_ai.output.messages", orjson.dumps(CALLS).decode()),
        ),
        tempo_span(
            "d1d1d1d1d1d1d1d1", "c1c1c1c1c1c1c1c1", 500, 800,
            attr("gen_ai.operation.name", "execute_tool"), attr("gen_ai.tool.name", "get_sensor"),
            attr("gen_ai.tool.call.id", "call_1"), attr("gen_ai.tool.call.result", "41.5 C"),
        ),
        tempo_span(
            "c2c2c2c2c2c2c2c2", "", 1000, 1600,
            attr("gen_ai.operation.name", "chat"),
            attr("gen_ai.output.messages", orjson.dumps(REPLY).decode()),
        ),
    ]
    resource = {"attributes": [attr("service.name", "chiller-agent")]}
    return {
        "batches": [
            {
                "resource": resource,
                scopes_key: [{"scope": {"name": "assay-test"}, "spans": spans}],
            }
        ]
    }


def test_tempo_export_with_base64_ids(tmp_path: Path) -> None:
    for key in ("scopeSpans", "instrumentationLibrarySpans"):
        path = on_disk(tmp_path, f"tempo-{key}.json", tempo_export(key))
        assert detect_reader(path) == "otel"
        run = only_run(list(read_file(path)))
        assert_the_run(run)
        # Ids in base64 are read as the hex they stand for.
        assert (run.run_id, run.runner, run.model) == (
            TRACE_BYTES.hex(),
            "chiller-agent",
            "claude-x",
        )
        # The tool span's parent (in base64) is the first chat span: its step owns the call.
        assert run.steps[0].tool_calls[0].call_id == "call_1"


def test_tempo_v2_api_wrapper() -> None:
    wrapped = {"trace": {"resourceSpans": tempo_export()["batches"]}}
    assert_the_run(only_run(trajectories_from_otlp(wrapped, "tempo.json")))


def test_tempo_problems_name_the_export() -> None:
    bad = {"batches": [{"resource": {}, "scopeSpans": "spans"}]}
    (problem,) = trajectories_from_otlp(bad, "tempo.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "no spans found in the Tempo export (batches)"


# --- the console exporter's concatenated documents -------------------------------------


def console_span(
    span_id: str, parent: str | None, start: str, end: str, attributes: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": span_id,
        "context": {
            "trace_id": "0x5b8efff798038103d269b633813fc60c",
            "span_id": f"0x{span_id}",
            "trace_state": "[]",
        },
        "kind": "SpanKind.INTERNAL",
        "parent_id": None if parent is None else f"0x{parent}",
        "start_time": start,
        "end_time": end,
        "status": {"status_code": "UNSET"},
        "attributes": attributes,
        "events": [],
        "links": [],
        "resource": {"attributes": {"service.name": "chiller-agent"}, "schema_url": ""},
    }


def console_file() -> bytes:
    spans = [
        console_span(
            "d1d1d1d1d1d1d1d1", "c1c1c1c1c1c1c1c1",
            "2024-11-27T00:00:00.500000Z", "2024-11-27T00:00:00.800000Z",
            {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_sensor",
             "gen_ai.tool.call.id": "call_1", "gen_ai.tool.call.result": "41.5 C"},
        ),
        console_span(
            "c1c1c1c1c1c1c1c1", None, "2024-11-27T00:00:00.000000Z",
            "2024-11-27T00:00:00.900000Z",
            {"gen_ai.operation.name": "chat",
             "gen_ai.input.messages": orjson.dumps(ASKED).decode(),
             "gen_ai.output.messages": orjson.dumps(CALLS).decode()},
        ),
        console_span(
            "c2c2c2c2c2c2c2c2", None, "2024-11-27T00:00:01.000000Z",
            "2024-11-27T00:00:01.600000Z",
            {"gen_ai.operation.name": "chat",
             "gen_ai.output.messages": orjson.dumps(REPLY).decode()},
        ),
    ]
    # As `ConsoleSpanExporter` writes them: each span pretty-printed, then a line break.
    return b"".join(orjson.dumps(s, option=orjson.OPT_INDENT_2) + b"\n" for s in spans)


def test_console_exporter_file_split_and_read() -> None:
    documents = split_concatenated(console_file())
    assert documents is not None and len(documents) == 3
    run = only_run(trajectories_from_otlp(documents, "console.json"))
    assert_the_run(run)
    assert (run.run_id, run.runner) == ("5b8efff798038103d269b633813fc60c", "chiller-agent")
    assert run.duration_ms == 1600.0


def test_a_list_of_console_spans_is_claimed(tmp_path: Path) -> None:
    # What a file of concatenated console spans becomes once split (see split_concatenated).
    documents = split_concatenated(console_file())
    path = on_disk(tmp_path, "console.json", documents)
    assert detect_reader(path) == "otel"
    assert_the_run(only_run(list(read_file(path))))


def test_a_console_exporter_file_as_written_is_read(tmp_path: Path) -> None:
    # The file itself: documents one after another, which the registry reads as their list.
    path = tmp_path / "console.json"
    path.write_bytes(console_file())
    assert detect_reader(path) == "otel"
    assert_the_run(only_run(list(read_file(path))))


def test_split_concatenated_refuses_what_is_not_several_documents() -> None:
    data = console_file()
    assert split_concatenated(data[:-30]) is None  # truncated
    assert split_concatenated(b"") is None
    assert split_concatenated(b"{}") is None  # one document: plain JSON's business
    assert split_concatenated(b"\xff\xfe{}") is None
    assert split_concatenated(b"[1] [2]\n") == [[1], [2]]


# --- OpenAI Agents SDK -------------------------------------------------------------------


def agents_span(
    span_id: str, parent: str | None, start: str, end: str, data: dict[str, Any]
) -> dict[str, Any]:
    return {
        "object": "trace.span",
        "id": span_id,
        "trace_id": "trace_3f1c0e8a9b7d4c2e8f6a5b4c3d2e1f0a",
        "parent_id": parent,
        "started_at": start,
        "ended_at": end,
        "span_data": data,
        "error": None,
    }


def agents_export() -> dict[str, Any]:
    trace = {
        "object": "trace",
        "id": "trace_3f1c0e8a9b7d4c2e8f6a5b4c3d2e1f0a",
        "workflow_name": "Agent workflow",
        "group_id": None,
        "metadata": None,
    }
    at = "2025-03-01T10:00:0{}.000000+00:00".format
    question = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": QUESTION}]
    asked = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_sensor", "arguments": ARGS}}
        ],
    }
    spans = [
        agents_span("span_agent", None, at(0), at(9), {
            "type": "agent", "name": "Chiller agent", "handoffs": [], "tools": ["get_sensor"],
            "output_type": "str"}),
        agents_span("span_guard", "span_agent", at(0), at(1), {
            "type": "guardrail", "name": "on_topic", "triggered": False}),
        agents_span("span_gen1", "span_agent", at(1), at(2), {
            "type": "generation", "input": question, "output": [asked], "model": "gpt-4o",
            "model_config": {"temperature": 0}, "usage": {"input_tokens": 52, "output_tokens": 9}}),
        agents_span("span_fn", "span_agent", at(3), at(4), {
            "type": "function", "name": "get_sensor", "input": ARGS, "output": "41.5 C",
            "mcp_data": None}),
        agents_span("span_gen2", "span_agent", at(5), at(6), {
            "type": "generation",
            "input": [*question, asked, {"role": "tool", "tool_call_id": "call_1",
                                          "content": "41.5 C"}],
            "output": [{"role": "assistant", "content": ANSWER}], "model": "gpt-4o",
            "model_config": {}, "usage": {"input_tokens": 80, "output_tokens": 11}}),
        agents_span("span_handoff", "span_agent", at(7), at(7), {
            "type": "handoff", "from_agent": "Chiller agent", "to_agent": "Reporter"}),
        agents_span("span_turn", "span_agent", at(8), at(8), {
            "type": "custom", "name": "turn", "data": {"turn": 1}}),
    ]
    return {"data": [trace, *spans]}


def test_openai_agents_export(tmp_path: Path) -> None:
    path = on_disk(tmp_path, "agents.json", agents_export())
    assert detect_reader(path) == "otel"
    run = only_run(list(read_file(path)))
    assert_the_run(run)
    assert (run.run_id, run.model) == ("trace_3f1c0e8a9b7d4c2e8f6a5b4c3d2e1f0a", "gpt-4o")
    assert [step.node for step in run.steps] == ["Chiller agent", "Chiller agent"]
    assert run.usage == Usage(132, 20)
    assert run.steps[0].duration_ms == 1000.0
    assert run.notes == [
        "not read: 1 span of kind guardrail",
        "not read: 1 span of kind handoff",
        "not read: 1 span of kind custom turn",
    ]


def test_openai_agents_lines_and_bare_lists(tmp_path: Path) -> None:
    items = agents_export()["data"]
    path = tmp_path / "agents.jsonl"
    path.write_bytes(b"".join(orjson.dumps(item) + b"\n" for item in items))
    assert detect_reader(path) == "otel"
    assert_the_run(only_run(list(read_file(path))))
    assert_the_run(only_run(trajectories_from_otlp(items[::-1], "agents.json")))


def test_openai_agents_problems_name_the_export() -> None:
    (problem,) = trajectories_from_otlp({"data": agents_export()["data"][:1]}, "agents.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "no spans found in the OpenAI Agents SDK trace export"

    export = agents_export()
    for item in export["data"][1:]:
        item["span_data"] = "v2"  # not the shape this reads
    (problem,) = trajectories_from_otlp(export, "agents.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("OpenAI Agents SDK trace export: no model call or tool span")


# --- MLflow --------------------------------------------------------------------------------


def encoded(attributes: dict[str, Any]) -> dict[str, str]:
    """MLflow stores every attribute value JSON-encoded."""
    return {key: orjson.dumps(value).decode() for key, value in attributes.items()}


def mlflow_trace(version: int = 3) -> dict[str, Any]:
    base = 1_740_823_200_000_000_000
    chat_request = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": QUESTION}]}
    first_reply = {
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_sensor", "arguments": ARGS}}]}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
    }
    second_reply = {
        "id": "chatcmpl-2", "object": "chat.completion", "model": "gpt-4o-mini",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": ANSWER}}],
        "usage": {"prompt_tokens": 70, "completion_tokens": 10, "total_tokens": 80},
    }
    rows = [
        ("aaaaaaaaaaaaaaaa", None, 0, 2000, "ChillerAgent", "AGENT",
         {"question": QUESTION}, ANSWER),
        ("bbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaa", 100, 700, "Completions", "CHAT_MODEL",
         chat_request, first_reply),
        ("cccccccccccccccc", "aaaaaaaaaaaaaaaa", 800, 900, "get_sensor", "TOOL",
         {"asset": "CH-12"}, "41.5 C"),
        ("dddddddddddddddd", "aaaaaaaaaaaaaaaa", 1000, 1900, "Completions", "CHAT_MODEL",
         chat_request, second_reply),
        ("eeeeeeeeeeeeeeee", "aaaaaaaaaaaaaaaa", 50, 90, "lookup_docs", "RETRIEVER",
         {"query": "CH-12"}, []),
    ]
    spans: list[dict[str, Any]] = []
    for span_id, parent, start, end, name, kind, inputs, outputs in rows:
        attributes = encoded({
            "mlflow.traceRequestId": "tr-6c7f0a1b2c3d4e5f",
            "mlflow.spanType": kind,
            "mlflow.spanInputs": inputs,
            "mlflow.spanOutputs": outputs,
        })
        if version == 2:
            spans.append({
                "name": name,
                "context": {"span_id": f"0x{span_id}",
                            "trace_id": "0x5b8efff798038103d269b633813fc60c"},
                "parent_id": None if parent is None else f"0x{parent}",
                "start_time": base + start * 1_000_000,
                "end_time": base + end * 1_000_000,
                "status_code": "OK", "status_message": "",
                "attributes": attributes, "events": [],
            })
        else:
            spans.append({
                "trace_id": b64("5b8efff798038103d269b633813fc60c"),
                "span_id": b64(span_id),
                "trace_state": "",
                "parent_span_id": "" if parent is None else b64(parent),
                "name": name,
                "start_time_unix_nano": base + start * 1_000_000,
                "end_time_unix_nano": base + end * 1_000_000,
                "attributes": attributes,
                "status": {"code": "STATUS_CODE_OK", "message": ""},
                "events": [],
            })
    info: dict[str, Any] = (
        {"request_id": "tr-6c7f0a1b2c3d4e5f", "experiment_id": "0", "timestamp_ms": 1,
         "execution_time_ms": 2000, "status": "OK", "request_metadata": {}, "tags": {}}
        if version == 2
        else {"trace_id": "tr-6c7f0a1b2c3d4e5f", "state": "OK", "request_preview": QUESTION,
              "response_preview": ANSWER, "execution_duration_ms": 2000}
    )
    return {"info": info, "data": {"spans": spans}}


def test_mlflow_trace(tmp_path: Path) -> None:
    for version in (2, 3):
        path = on_disk(tmp_path, f"mlflow-v{version}.json", mlflow_trace(version))
        assert detect_reader(path) == "otel"
        run = only_run(list(read_file(path)))
        assert_the_run(run)
        assert (run.run_id, run.model) == ("tr-6c7f0a1b2c3d4e5f", "gpt-4o-mini")
        assert [step.node for step in run.steps] == ["ChillerAgent", "ChillerAgent"]
        assert run.usage == Usage(110, 22)
        assert run.steps[0].duration_ms == 600.0
        assert run.notes == ["not read: 1 span of kind RETRIEVER"]


def test_mlflow_chat_messages_and_token_usage() -> None:
    trace = mlflow_trace()
    first = trace["data"]["spans"][1]["attributes"]
    first["mlflow.spanOutputs"] = orjson.dumps("not a completion").decode()
    first["mlflow.chat.messages"] = orjson.dumps([
        {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_sensor", "arguments": ARGS}}]},
    ]).decode()
    first["mlflow.chat.tokenUsage"] = orjson.dumps(
        {"input_tokens": 41, "output_tokens": 13, "total_tokens": 54}
    ).decode()
    run = only_run(trajectories_from_otlp(trace, "mlflow.json"))
    assert_the_run(run)
    assert run.steps[0].usage == Usage(41, 13)


def test_mlflow_problems_name_the_export() -> None:
    empty = {"info": {"trace_id": "tr-1"}, "data": {"spans": []}}
    (problem,) = trajectories_from_otlp(empty, "mlflow.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "no spans found in the MLflow trace"

    trace = mlflow_trace()
    trace["data"]["spans"] = [s for s in trace["data"]["spans"] if s["name"] == "lookup_docs"]
    (problem,) = trajectories_from_otlp(trace, "mlflow.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("MLflow trace: no model call or tool span")


# --- nothing raises ----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["data", "spans", "batches", "info", "object", "traceID", "spanID", "span_data",
             "type", "references", "tags", "startTime", "trace_id", "id", "attributes",
             "scopeSpans", "processes", "context", "span_id", "mlflow.spanType"]
        )
        | st.text(max_size=6),
        children,
        max_size=5,
    ),
    max_leaves=25,
)


@example({"object": []})
@given(json_values)
def test_arbitrary_json_never_raises(value: Any) -> None:
    for data in (
        value,
        {"data": [value]},
        {"data": [{"traceID": "t", "spans": [value]}]},
        {"batches": [value]},
        {"info": {}, "data": {"spans": [value]}},
        {"data": [{"object": "trace.span", "id": "s", "trace_id": "t", "span_data": value}]},
    ):
        items = trajectories_from_otlp(data, "x.json")
        assert items and all(isinstance(i, Trajectory | ReadProblem) for i in items)


@given(st.binary(max_size=64) | json_values.map(lambda v: json.dumps(v).encode() * 2))
def test_split_concatenated_never_raises(data: bytes) -> None:
    result = split_concatenated(data)
    assert result is None or len(result) > 1


@given(json_values, json_values, json_values)
def test_odd_fields_in_each_export_never_raise(first: Any, second: Any, third: Any) -> None:
    jaeger = jaeger_export()
    jaeger["data"][0]["spans"][1]["tags"].append({"key": "gen_ai.input.messages", "value": first})
    jaeger["data"][0]["spans"][2]["references"] = second
    jaeger["data"][0]["processes"]["p1"] = third
    agents = agents_export()
    agents["data"][3]["span_data"]["input"] = first
    agents["data"][3]["span_data"]["output"] = second
    agents["data"][3]["span_data"]["usage"] = third
    agents["data"][4]["span_data"]["input"] = third
    mlflow = mlflow_trace()
    attributes = mlflow["data"]["spans"][1]["attributes"]
    attributes["mlflow.spanInputs"] = json.dumps(first)
    attributes["mlflow.spanOutputs"] = json.dumps(second)
    attributes["mlflow.chat.messages"] = json.dumps(third)
    attributes["mlflow.chat.tokenUsage"] = json.dumps(first)
    for data in (jaeger, agents, mlflow):
        items = trajectories_from_otlp(data, "x.json")
        assert items and all(isinstance(i, Trajectory | ReadProblem) for i in items)


# --- failed spans, as each export marks them ------------------------------------------------


def test_a_failed_tool_span_is_an_error_result_in_every_export() -> None:
    tempo = tempo_export()
    tool_span = tempo["batches"][0]["scopeSpans"][0]["spans"][1]
    tool_span["attributes"] = tool_span["attributes"][:3]  # no result: it raised
    tool_span["status"] = {"code": "STATUS_CODE_ERROR", "message": "sensor offline"}

    jaeger = jaeger_export()
    jaeger_tool = jaeger["data"][0]["spans"][2]
    jaeger_tool["tags"] = [t for t in jaeger_tool["tags"]
                           if t["key"] not in ("gen_ai.tool.call.result", "otel.status_code")]
    jaeger_tool["tags"].append(tag("error", True))
    jaeger_tool["logs"] = [{"timestamp": 1, "fields": [tag("event", "error"),
                                                       tag("message", "sensor offline")]}]

    agents = agents_export()
    agents_tool = agents["data"][4]
    agents_tool["span_data"]["output"] = None
    agents_tool["error"] = {"message": "sensor offline", "data": {"tool_name": "get_sensor"}}

    mlflow = mlflow_trace(3)
    mlflow_tool = mlflow["data"]["spans"][2]
    mlflow_tool["attributes"].pop("mlflow.spanOutputs")
    mlflow_tool["status"] = {"code": "STATUS_CODE_ERROR", "message": ""}
    mlflow_tool["events"] = [{"name": "exception", "timestamp_unix_nano": 1, "attributes": {
        "exception.type": "RuntimeError", "exception.message": "sensor offline"}}]

    for name, export, said in [
        ("tempo", tempo, "sensor offline"),
        ("jaeger", jaeger, "sensor offline"),
        ("agents", agents, "sensor offline"),
        ("mlflow", mlflow, "RuntimeError: sensor offline"),
    ]:
        run = only_run(trajectories_from_otlp(export, f"{name}.json"))
        (call,) = run.tool_calls()
        assert (name, call.name, call.result) == (name, "get_sensor", {"error": said})
        assert run.error is None and run.error_kind is None  # the agent went on


def test_a_failed_root_span_fails_the_run_and_other_failures_are_noted() -> None:
    jaeger = jaeger_export()
    spans = jaeger["data"][0]["spans"]
    spans[0]["tags"].append(tag("error", True))
    spans[0]["tags"].append(tag("otel.status_description", "Traceback...\nboom"))
    spans[1]["tags"] = [t for t in spans[1]["tags"] if t["key"] != "otel.status_code"]
    spans[1]["tags"].append(tag("otel.status_code", "ERROR"))  # a model call that failed
    run = only_run(trajectories_from_otlp(jaeger, "jaeger.json"))
    assert run.error_kind == "agent_error"  # never scored
    assert run.error == "trace error: span 'a1a1a1a1a1a1a1a1' failed: Traceback..."
    assert run.notes == ["span 'c1c1c1c1c1c1c1c1' failed: status ERROR"]
    # Spans whose status says OK, or says nothing, are not failures.
    assert only_run(trajectories_from_otlp(jaeger_export(), "ok.json")).notes == []
    assert only_run(trajectories_from_otlp(mlflow_trace(2), "ok.json")).error is None


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["status", "code", "message", "status_code", "status_message",
                         "description", "events", "name", "attributes", "exception.message",
                         "exception.type", "key", "value"]), inner, max_size=4),
    max_leaves=12,
))
def test_span_error_never_raises(value: Any) -> None:
    from assay.formats._otel_status import span_error

    if isinstance(value, dict):
        said = span_error(value)
        assert said is None or (isinstance(said, str) and said)
