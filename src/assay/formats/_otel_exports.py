"""Trace exports of other tools, turned into the flat spans `assay.formats.otel` reads.

Each function here takes one container and returns span objects in the flat shape the OTel
reader already reads (`traceId`, `spanId`, `parentSpanId`, `name`, `startTimeUnixNano`,
`endTimeUnixNano`, `attributes` as a plain object, `resource.attributes`), with attributes in
the GenAI convention where the export has its own words for a model call, a tool call or an
agent. A span the converter cannot place (no trace id and no span id) is left out: the reader
then reports what it did not find.

- Jaeger JSON (the UI's "Download JSON", the query API's `/api/traces`): `{"data": [{"traceID",
  "spans": [{"traceID", "spanID", "operationName", "references": [{"refType", "spanID"}],
  "startTime" (µs), "duration" (µs), "tags": [{"key", "type", "value"}], "processID"}],
  "processes": {ID: {"serviceName", "tags"}}}]}`. Tags are the span's attributes (an OTel
  span stored in Jaeger keeps its GenAI attributes as tags), the process its resource; the
  parent is the first `CHILD_OF` reference within the trace (else the first reference). A
  bare trace object (`{"traceID", "spans", "processes"}`) is read too. A span tagged `error`
  (or `otel.status_code` ERROR) failed, its message from `otel.status_description` or its
  logs; logs are not read otherwise.
- MLflow `Trace.to_json()`: `{"info": {"request_id" | "trace_id", ...}, "data": {"spans":
  [...]}}`, spans in MLflow's v2 form (`context.span_id`, `parent_id`, `start_time` in ns) or
  its later OTLP-like form (`span_id`, `parent_span_id`, `start_time_unix_nano`), attribute
  values JSON-encoded. `mlflow.spanType` decides: `LLM` / `CHAT_MODEL` a model call (messages
  from `mlflow.spanInputs` / `mlflow.spanOutputs` in the OpenAI chat shape, or
  `mlflow.chat.messages`; tokens from `mlflow.chat.tokenUsage` or the reply's `usage`),
  `TOOL` a tool call (the span name, inputs as arguments, outputs as result), `AGENT` an agent
  (the span name), `CHAIN` structure (its inputs and outputs may stand for the question and
  answer); any other type is noted, one line per type.

Example:
    >>> export = {"data": [{"traceID": "t1", "processes": {"p1": {"serviceName": "bot"}},
    ...     "spans": [{"traceID": "t1", "spanID": "s1", "operationName": "chat",
    ...                "startTime": 1000, "duration": 5, "processID": "p1",
    ...                "tags": [{"key": "gen_ai.operation.name", "type": "string",
    ...                          "value": "chat"}]}]}]}
    >>> span = jaeger_spans(export["data"])[0]
    >>> span["spanId"], span["startTimeUnixNano"], span["endTimeUnixNano"], span["resource"]
    ('s1', 1000000, 1005000, {'attributes': {'service.name': 'bot'}})
"""

from __future__ import annotations

from typing import Any, TypeGuard

import orjson

from assay.formats._otel_convention import json_or_text
from assay.formats._otel_status import failed_status

__all__ = [
    "FOREIGN_KIND",
    "chat_messages",
    "is_jaeger",
    "is_mlflow",
    "jaeger_spans",
    "mlflow_spans",
]

FOREIGN_KIND = "assay.foreign.span.kind"
"""Set on a converted span of a kind its tool names but assay does not read: the OTel reader
counts such spans in the run's notes, one line per kind."""

# A list longer than this in a container is not one anyone exported by hand; stopping keeps
# hostile input cheap. Spans beyond it are said to be left out (see `otel`).
MAX_ITEMS = 1_000_000


# --- Jaeger --------------------------------------------------------------------------------


def is_jaeger(data: Any) -> TypeGuard[list[Any]]:
    """Whether a `data` list holds Jaeger traces (objects with `spans` or `processes`, spans
    with `spanID`)."""
    if not isinstance(data, list) or not data:
        return False
    first = data[0]
    if not isinstance(first, dict):
        return False
    if "processes" in first or "traceID" in first:
        return True
    spans = first.get("spans")
    return isinstance(spans, list) and bool(spans) and isinstance(spans[0], dict) and (
        "spanID" in spans[0]
    )


def jaeger_spans(traces: list[Any]) -> list[dict[str, Any]]:
    """The spans of Jaeger's `data` list, as flat OTLP-like spans."""
    out: list[dict[str, Any]] = []
    for trace in traces[:MAX_ITEMS]:
        if not isinstance(trace, dict):
            continue
        processes = trace.get("processes")
        processes = processes if isinstance(processes, dict) else {}
        spans = trace.get("spans")
        for raw in spans[:MAX_ITEMS] if isinstance(spans, list) else ():
            if isinstance(raw, dict):
                out.append(_jaeger_span(raw, processes, trace.get("traceID")))
    return out


def _jaeger_span(raw: dict[str, Any], processes: dict[str, Any], trace_id: Any) -> dict[str, Any]:
    start = _whole(raw.get("startTime"))
    duration = _whole(raw.get("duration"))
    process = raw.get("process")  # an older export embeds the process in the span
    if not isinstance(process, dict):
        found = processes.get(raw["processID"]) if isinstance(raw.get("processID"), str) else None
        process = found if isinstance(found, dict) else {}
    resource = _tags(process.get("tags"))
    if isinstance(process.get("serviceName"), str):
        resource = {"service.name": process["serviceName"], **resource}
    own_trace = raw.get("traceID")
    tags = _tags(raw.get("tags"))
    return {
        "traceId": own_trace if isinstance(own_trace, str) else trace_id,
        "spanId": raw.get("spanID"),
        "parentSpanId": _jaeger_parent(raw),
        "name": raw.get("operationName"),
        "startTimeUnixNano": None if start is None else start * 1000,
        "endTimeUnixNano": None if start is None or duration is None else (start + duration) * 1000,
        "attributes": tags,
        "resource": {"attributes": resource},
        **_jaeger_status(tags, raw.get("logs")),
    }


def _jaeger_status(tags: dict[str, Any], logs: Any) -> dict[str, Any]:
    """The OTLP status of a Jaeger span its tags mark as failed (`error`, or the OTel
    exporter's `otel.status_code`), with the message of its tags or of its error log."""
    if tags.get("error") not in (True, "true") and tags.get("otel.status_code") != "ERROR":
        return {}
    message = tags.get("otel.status_description")
    for log in logs[:100] if isinstance(logs, list) and message is None else ():
        fields = _tags(log.get("fields")) if isinstance(log, dict) else {}
        found = next((fields[k] for k in _LOG_MESSAGES if isinstance(fields.get(k), str)), None)
        if found is not None:
            message = found
            break
    return {"status": failed_status(message)}


_LOG_MESSAGES = ("exception.message", "error.message", "message", "error.object", "event")


def _jaeger_parent(raw: dict[str, Any]) -> Any:
    references = raw.get("references")
    refs = [r for r in references if isinstance(r, dict)] if isinstance(references, list) else []
    # A reference into another trace is no parent here.
    refs = [r for r in refs if r.get("traceID") in (None, raw.get("traceID"))] or refs
    chosen = next((r for r in refs if r.get("refType") == "CHILD_OF"), refs[0] if refs else None)
    if chosen is not None:
        return chosen.get("spanID")
    return raw.get("parentSpanID")


def _tags(raw: Any) -> dict[str, Any]:
    tags: dict[str, Any] = {}
    for tag in raw[:MAX_ITEMS] if isinstance(raw, list) else ():
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        value = tag.get("value")
        if tag.get("type") == "int64" and isinstance(value, str):
            value = _whole(value) if value.lstrip("-").isdigit() else value
        tags[tag["key"]] = value
    return tags


def _whole(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and 0 <= value < 1e20:
        return int(value)
    if isinstance(value, str) and value.isdigit() and len(value) <= 20:
        return int(value)
    return None


# --- MLflow --------------------------------------------------------------------------------

_MLFLOW_MODEL = frozenset({"LLM", "CHAT_MODEL"})
_MLFLOW_STATUS = ("status", "status_code", "status_message", "events")
"""What says whether an MLflow span failed, read as an OTLP span's (`_otel_status`)."""


def is_mlflow(data: dict[str, Any]) -> bool:
    """Whether an object is an MLflow trace (`info` and `data.spans`)."""
    inner = data.get("data")
    return isinstance(data.get("info"), dict) and isinstance(inner, dict) and "spans" in inner


def mlflow_spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The spans of an MLflow `Trace.to_json()` object, as flat spans of one trace."""
    info = data["info"]
    trace_id = info.get("request_id") or info.get("trace_id")
    spans = data["data"].get("spans")
    out = []
    for raw in spans[:MAX_ITEMS] if isinstance(spans, list) else ():
        if not isinstance(raw, dict):
            continue
        raw_attributes = raw.get("attributes")
        attributes = {
            key: json_or_text(value)
            for key, value in (raw_attributes.items() if isinstance(raw_attributes, dict) else ())
            if isinstance(key, str)
        }
        context = raw.get("context")
        span_id = raw.get("span_id")
        if span_id is None and isinstance(context, dict):
            span_id = context.get("span_id")
        own_trace = attributes.get("mlflow.traceRequestId")
        out.append(
            {
                "traceId": trace_id if isinstance(trace_id, str) and trace_id else own_trace,
                "spanId": span_id,
                "parentSpanId": raw.get("parent_span_id") or raw.get("parent_id"),
                "name": raw.get("name"),
                "startTimeUnixNano": _whole(raw.get("start_time_unix_nano", raw.get("start_time"))),
                "endTimeUnixNano": _whole(raw.get("end_time_unix_nano", raw.get("end_time"))),
                "attributes": _mlflow_attributes(attributes, raw.get("name")),
                **{key: raw[key] for key in _MLFLOW_STATUS if key in raw},
            }
        )
    return out


def _mlflow_attributes(attributes: dict[str, Any], name: Any) -> dict[str, Any]:
    kind = attributes.get("mlflow.spanType")
    kind = kind.upper() if isinstance(kind, str) else "UNKNOWN"
    inputs = attributes.get("mlflow.spanInputs")
    outputs = attributes.get("mlflow.spanOutputs")
    name = name if isinstance(name, str) else ""
    if kind in _MLFLOW_MODEL:
        return _mlflow_model(attributes, inputs, outputs)
    if kind == "TOOL":
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.arguments": inputs,
            "gen_ai.tool.call.result": outputs,
        }
    if kind == "AGENT":
        return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name}
    if kind == "CHAIN":
        return {
            "openinference.span.kind": "CHAIN",
            "input.value": _as_text(inputs),
            "output.value": _as_text(outputs),
        }
    return {FOREIGN_KIND: kind}


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return None


def _mlflow_model(attributes: dict[str, Any], inputs: Any, outputs: Any) -> dict[str, Any]:
    found: dict[str, Any] = {"gen_ai.operation.name": "chat"}
    request = inputs if isinstance(inputs, dict) else {}
    reply = outputs if isinstance(outputs, dict) else {}
    history = attributes.get("mlflow.chat.messages")
    asked = request.get("messages")
    if isinstance(history, list) and history:
        # The whole conversation, the reply last: split it where the input ends.
        cut = len(asked) if isinstance(asked, list) and len(asked) < len(history) else -1
        found["gen_ai.input.messages"] = chat_messages(history[:cut])
        found["gen_ai.output.messages"] = chat_messages(history[cut:])
    else:
        found["gen_ai.input.messages"] = chat_messages(asked if isinstance(asked, list) else [])
        choices = reply.get("choices")
        replies = [
            choice["message"]
            for choice in (choices if isinstance(choices, list) else ())
            if isinstance(choice, dict) and isinstance(choice.get("message"), dict)
        ]
        if not replies and isinstance(outputs, str):
            replies = [{"role": "assistant", "content": outputs}]
        found["gen_ai.output.messages"] = chat_messages(replies)
    model = reply.get("model") or request.get("model")
    if isinstance(model, str):
        found["gen_ai.response.model"] = model
    usage = attributes.get("mlflow.chat.tokenUsage")
    if not isinstance(usage, dict):
        usage = reply.get("usage")
    if not isinstance(usage, dict):
        usage = {}
    found["gen_ai.usage.input_tokens"] = usage.get("input_tokens", usage.get("prompt_tokens"))
    found["gen_ai.usage.output_tokens"] = usage.get("output_tokens", usage.get("completion_tokens"))
    return found


# --- chat messages -------------------------------------------------------------------------


def chat_messages(messages: Any) -> list[dict[str, Any]]:
    """OpenAI chat messages (`role`, `content`, `tool_calls`, a tool message's
    `tool_call_id`) as GenAI messages (`role`, `parts`: `text`, `tool_call`,
    `tool_call_response`).

    Example:
        >>> chat_messages([{"role": "assistant", "content": None, "tool_calls": [
        ...     {"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}])[0]["parts"]
        [{'type': 'tool_call', 'id': 'c1', 'name': 'f', 'arguments': '{}'}]
    """
    out: list[dict[str, Any]] = []
    for message in messages[:MAX_ITEMS] if isinstance(messages, list) else ():
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        content = message.get("content")
        parts: list[dict[str, Any]] = []
        if role == "tool":
            parts.append(
                {
                    "type": "tool_call_response",
                    "id": message.get("tool_call_id"),
                    "response": json_or_text(_content_text(content)),
                }
            )
        else:
            text = _content_text(content)
            if text is not None:
                parts.append({"type": "text", "content": text})
        calls = message.get("tool_calls")
        for call in calls[:MAX_ITEMS] if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                parts.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": function.get("name"),
                        "arguments": function.get("arguments"),
                    }
                )
        out.append({"role": role if isinstance(role, str) else "", "parts": parts})
    return out


def _content_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}]
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        ]
        return "".join(texts) if texts else None
    return None
