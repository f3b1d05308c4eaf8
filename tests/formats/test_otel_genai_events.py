"""Tests for GenAI content recorded in span events (the convention's
`gen_ai.client.inference.operation.details` event, and the per-message events of v1.36 and
before, as Azure AI Inference's tracing attaches them to its spans)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.formats import ReadProblem, trajectories_from_otlp
from assay.formats.registry import read_file
from assay.records import Trajectory
from otlp_shapes import attr, export, only_run, span

QUESTION = "Is chiller CH-12 running hot?"
ANSWER = "Yes: CH-12 reads 41.5 C, above its 38 C limit."


def event(name: str, attributes: dict[str, Any], at_ms: int = 1) -> dict[str, Any]:
    return {
        "timeUnixNano": str(at_ms * 1_000_000),
        "name": name,
        "attributes": [attr(key, value) for key, value in attributes.items()],
    }


def with_events(raw: dict[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    return {**raw, "events": list(events)}


def azure(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """A v1.36 per-message event as Azure AI Inference's tracing writes it: the body as JSON
    in `gen_ai.event.content`."""
    content = orjson.dumps(body).decode()
    return event(name, {"gen_ai.system": "az.ai.inference", "gen_ai.event.content": content})


CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}


def test_the_operation_details_event_carries_the_span_content() -> None:
    inputs = [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}]
    outputs = [
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "get_sensor", "arguments": {"a": 1}}
            ],
        }
    ]
    first = with_events(
        span("m1", "chat gpt-4o", 0, 10, CHAT),
        event(
            "gen_ai.client.inference.operation.details",
            {
                "gen_ai.input.messages": orjson.dumps(inputs).decode(),
                "gen_ai.output.messages": orjson.dumps(outputs).decode(),
            },
        ),
    )
    answered = [
        *inputs,
        *outputs,
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "41.5"}]},
    ]
    reply = [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
    second = with_events(
        span("m2", "chat gpt-4o", 20, 30, CHAT),
        event(
            "gen_ai.client.inference.operation.details",
            {
                "gen_ai.input.messages": orjson.dumps(answered).decode(),
                "gen_ai.output.messages": orjson.dumps(reply).decode(),
            },
        ),
    )
    run = only_run(trajectories_from_otlp(export(first, second), "f"))
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    (call,) = run.tool_calls()
    assert (call.name, call.args, call.call_id, call.result) == (
        "get_sensor",
        {"a": 1},
        "c1",
        "41.5",
    )
    assert run.notes == []


def test_per_message_events_are_the_conversation() -> None:
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_sensor", "arguments": '{"a": 1}'},
        }
    ]
    first = with_events(
        span("m1", "chat gpt-4o", 0, 10, CHAT),
        azure("gen_ai.system.message", {"content": "You watch chillers."}),
        azure("gen_ai.user.message", {"content": QUESTION}),
        azure(
            "gen_ai.choice",
            {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": calls}},
        ),
    )
    second = with_events(
        span("m2", "chat gpt-4o", 20, 30, CHAT),
        azure("gen_ai.system.message", {"content": "You watch chillers."}),
        azure("gen_ai.user.message", {"content": QUESTION}),
        azure("gen_ai.assistant.message", {"tool_calls": calls}),
        azure("gen_ai.tool.message", {"content": "41.5 C", "id": "c1"}),
        azure("gen_ai.choice", {"index": 1, "message": {"content": "Another choice."}}),
        azure("gen_ai.choice", {"index": 0, "message": {"content": ANSWER}}),
    )
    run = only_run(trajectories_from_otlp(export(first, second), "f"))
    assert (run.question, run.answer) == (QUESTION, ANSWER)  # choice 0, whatever the order
    assert [step.text for step in run.steps] == [None, ANSWER]
    (call,) = run.tool_calls()
    assert (call.name, call.args, call.result) == ("get_sensor", {"a": 1}, "41.5 C")


def test_a_body_in_the_event_attributes_and_the_span_attributes_win() -> None:
    own = [{"role": "user", "parts": [{"type": "text", "content": "the span's own"}]}]
    raw = with_events(
        span("m1", "chat", 0, 10, {**CHAT, "gen_ai.input.messages": orjson.dumps(own).decode()}),
        event("gen_ai.user.message", {"content": QUESTION}),
        event("gen_ai.choice", {"index": 0, "finish_reason": "stop", "content": ANSWER}),
    )
    run = only_run(trajectories_from_otlp(export(raw), "f"))
    assert (run.question, run.answer) == ("the span's own", ANSWER)


def test_the_older_content_events_as_json_messages_or_text() -> None:
    prompt = [
        {"role": "system", "content": "You watch chillers."},
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "get_sensor"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "41.5 C"},
    ]
    first = with_events(
        span("m1", "chat", 0, 10, CHAT),
        event("gen_ai.content.prompt", {"gen_ai.prompt": orjson.dumps(prompt[:2]).decode()}),
        event(
            "gen_ai.content.completion",
            {"gen_ai.completion": orjson.dumps([{"message": prompt[2]}]).decode()},
        ),
    )
    second = with_events(
        span("m2", "chat", 20, 30, CHAT),
        event("gen_ai.content.prompt", {"gen_ai.prompt": orjson.dumps(prompt).decode()}),
        event("gen_ai.content.completion", {"gen_ai.completion": ANSWER}),  # text, as written
    )
    run = only_run(trajectories_from_otlp(export(first, second), "f"))
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    (call,) = run.tool_calls()
    assert (call.name, call.call_id, call.result) == ("get_sensor", "c1", "41.5 C")
    text_only = with_events(
        span("m1", "chat", 0, 10, CHAT),
        event("gen_ai.content.prompt", {"gen_ai.prompt": "user: " + QUESTION}),
    )
    run = only_run(trajectories_from_otlp(export(text_only), "f"))
    assert run.question == "user: " + QUESTION  # the prompt as recorded, not guessed apart


def test_messages_recorded_as_text_are_read_as_written() -> None:
    # OpenLIT's older instrumentations write "role: content" lines, on the span and in its
    # content events under the current attribute names.
    on_span = span(
        "m1",
        "chat",
        0,
        10,
        {
            **CHAT,
            "gen_ai.input.messages": f"system: You watch chillers.\nuser: {QUESTION}",
            "gen_ai.output.messages": ANSWER,
        },
    )
    run = only_run(trajectories_from_otlp(export(on_span), "f"))
    assert (run.question, run.answer) == (f"system: You watch chillers.\nuser: {QUESTION}", ANSWER)
    in_events = with_events(
        span("m1", "chat", 0, 10, CHAT),
        event("gen_ai.content.prompt", {"gen_ai.input.messages": f"user: {QUESTION}"}),
        event("gen_ai.content.completion", {"gen_ai.output.messages": ANSWER}),
    )
    run = only_run(trajectories_from_otlp(export(in_events), "f"))
    assert (run.question, run.answer) == (f"user: {QUESTION}", ANSWER)


def test_other_genai_events_are_noted_and_others_ignored() -> None:
    raw = with_events(
        span("m1", "chat", 0, 10, CHAT),
        azure("gen_ai.user.message", {"content": QUESTION}),
        event("gen_ai.evaluation.result", {"gen_ai.evaluation.name": "relevance"}),
        event("gen_ai.evaluation.result", {"gen_ai.evaluation.name": "groundedness"}),
        event("gen_ai.client.operation.exception", {"error.type": "timeout"}),
        event("stream.start", {}),
    )
    run = only_run(trajectories_from_otlp(export(raw), "f"))
    assert run.question == QUESTION
    assert run.notes == [
        "not read: 2 span events gen_ai.evaluation.result",
        "not read: 1 span event gen_ai.client.operation.exception",
    ]


def test_console_exporter_events_are_read_through_the_registry(tmp_path: Path) -> None:
    # The SDK's console exporter writes attributes as plain objects, events the same way.
    spans = [
        {
            "name": "chat gpt-4o",
            "context": {"trace_id": "0xab", "span_id": "0x01"},
            "parent_id": None,
            "start_time": "2025-01-01T00:00:00.000000Z",
            "end_time": "2025-01-01T00:00:01.000000Z",
            "attributes": CHAT,
            "events": [
                {
                    "name": "gen_ai.user.message",
                    "timestamp": "2025-01-01T00:00:00.100000Z",
                    "attributes": {"content": QUESTION},
                },
                {
                    "name": "gen_ai.choice",
                    "timestamp": "2025-01-01T00:00:00.900000Z",
                    "attributes": {
                        "index": 0,
                        "message": orjson.dumps({"content": ANSWER}).decode(),
                    },
                },
            ],
        }
    ]
    path = tmp_path / "console.json"
    path.write_bytes(orjson.dumps(spans))
    (run,) = list(read_file(path))
    assert isinstance(run, Trajectory)
    assert (run.question, run.answer) == (QUESTION, ANSWER)


EVENT_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    events=st.lists(
        st.fixed_dictionaries(
            {
                "name": st.sampled_from(
                    [
                        "gen_ai.user.message",
                        "gen_ai.assistant.message",
                        "gen_ai.tool.message",
                        "gen_ai.choice",
                        "gen_ai.client.inference.operation.details",
                        "gen_ai.other",
                        "exception",
                    ]
                ),
                "attributes": st.dictionaries(
                    st.sampled_from(
                        ["gen_ai.event.content", "content", "message", "tool_calls", "index", "id"]
                    ),
                    EVENT_VALUES | EVENT_VALUES.map(lambda v: orjson.dumps(v).decode()),
                    max_size=4,
                ),
            }
        ),
        max_size=6,
    )
)
def test_property_arbitrary_events_never_raise(events: list[dict[str, Any]]) -> None:
    spans = [
        {
            "name": "chat",
            "context": {"trace_id": "0xab", "span_id": "0x01"},
            "attributes": CHAT,
            "events": events,
        }
    ]
    (item,) = trajectories_from_otlp(spans, "f")
    assert isinstance(item, Trajectory | ReadProblem)


# --- GenAI events recorded as log records ----------------------------------------------------


def any_value(value: Any) -> dict[str, Any]:
    """A value as OTLP's `AnyValue`."""
    if isinstance(value, dict):
        pairs = [{"key": k, "value": any_value(v)} for k, v in value.items()]
        return {"kvlistValue": {"values": pairs}}
    if isinstance(value, list):
        return {"arrayValue": {"values": [any_value(v) for v in value]}}
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    return {"stringValue": value}


def log(
    name: str, body: dict[str, Any], span_id: str, trace: str = "t", *, older: bool = False
) -> dict[str, Any]:
    """A log record of the span `span_id`, as the OTLP exporter writes an event: named by
    its `eventName`, or (`older` SDKs) by an `event.name` attribute."""
    record = {
        "timeUnixNano": "1000000",
        "observedTimeUnixNano": "1000000",
        "severityNumber": 9,
        "body": any_value(body),
        "attributes": [attr("gen_ai.system", "openai")],
        "traceId": trace,
        "spanId": span_id,
    }
    if older:
        record["attributes"].append(attr("event.name", name))
    else:
        record["eventName"] = name
    return record


def logs_export(*records: dict[str, Any]) -> dict[str, Any]:
    scope = {
        "scope": {"name": "opentelemetry.instrumentation.openai_v2"},
        "logRecords": list(records),
    }
    return {"resourceLogs": [{"resource": {"attributes": []}, "scopeLogs": [scope]}]}


def test_events_recorded_as_logs_join_their_spans_in_a_collector_file(tmp_path: Path) -> None:
    # The collector's file exporter writes each export as a line: logs and spans mixed.
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "get_sensor", "arguments": "{}"}}
    ]
    spans = export(
        span("m1", "chat gpt-4o", 0, 10, CHAT),
        span(
            "x1",
            "execute_tool get_sensor",
            12,
            14,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_sensor",
                "gen_ai.tool.call.id": "c1",
            },
        ),
        span("m2", "chat gpt-4o", 20, 30, CHAT),
    )
    first = logs_export(
        log("gen_ai.user.message", {"content": QUESTION}, "m1"),
        log(
            "gen_ai.choice",
            {"index": 0, "finish_reason": "tool_calls", "message": {"tool_calls": calls}},
            "m1",
        ),
    )
    second = logs_export(
        log("gen_ai.user.message", {"content": QUESTION}, "m2", older=True),
        log("gen_ai.tool.message", {"content": "41.5 C", "id": "c1"}, "m2", older=True),
        log("gen_ai.choice", {"index": 0, "message": {"content": ANSWER}}, "m2"),
        {"body": any_value("request done"), "severityNumber": 9, "traceId": "t", "spanId": "m2"},
    )
    path = tmp_path / "otel.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(doc) for doc in (first, spans, second)) + b"\n")
    (run,) = list(read_file(path))
    assert isinstance(run, Trajectory)
    assert (run.question, run.answer) == (QUESTION, ANSWER)
    assert [step.text for step in run.steps] == [None, ANSWER]
    (call,) = run.tool_calls()
    assert (call.name, call.call_id) == ("get_sensor", "c1")
    assert run.notes == ["not read: 1 log record"]


def test_log_records_without_their_spans_are_said() -> None:
    only_logs = logs_export(log("gen_ai.user.message", {"content": QUESTION}, "m1"))
    (problem,) = trajectories_from_otlp(only_logs, "logs.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("no spans found, only 1 log record (OTLP logs)")
    both = [
        export(span("m1", "chat", 0, 10, CHAT)),
        logs_export(
            log("gen_ai.user.message", {"content": QUESTION}, "m1"),
            log("gen_ai.user.message", {"content": "elsewhere"}, "zz", trace="u"),
        ),
    ]
    run, lone = trajectories_from_otlp(both, "f")
    assert isinstance(run, Trajectory) and run.question == QUESTION
    assert isinstance(lone, ReadProblem)
    assert lone.reason == "1 log record of spans not in the file: not read"


def test_console_exporter_log_records_join_their_spans() -> None:
    spans = [
        {
            "name": "chat gpt-4o",
            "context": {"trace_id": "0xab", "span_id": "0x01"},
            "attributes": CHAT,
        },
        {
            "body": {"content": QUESTION},
            "severity_number": 9,
            "attributes": {"event.name": "gen_ai.user.message"},
            "trace_id": "0xab",
            "span_id": "0x01",
            "resource": {"attributes": {}},
        },
    ]
    run = only_run(trajectories_from_otlp(spans, "f"))
    assert run.question == QUESTION


@settings(max_examples=150, deadline=None)
@given(
    records=st.lists(
        st.fixed_dictionaries(
            {
                "body": EVENT_VALUES.map(any_value) | EVENT_VALUES,
                "attributes": st.lists(
                    st.builds(
                        attr,
                        st.sampled_from(["event.name", "gen_ai.event.content", "content"]),
                        st.sampled_from(["gen_ai.choice", "gen_ai.user.message", "x", "{}"]),
                    ),
                    max_size=3,
                ),
                "spanId": st.sampled_from(["m1", "m2", ""]),
                "traceId": st.sampled_from(["t", "u"]),
            },
            optional={"eventName": st.sampled_from(["gen_ai.tool.message", "gen_ai.choice", 3])},
        ),
        max_size=6,
    )
)
def test_property_arbitrary_log_records_never_raise(records: list[dict[str, Any]]) -> None:
    items = trajectories_from_otlp(
        [export(span("m1", "chat", 0, 10, CHAT)), logs_export(*records)], "f"
    )
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
