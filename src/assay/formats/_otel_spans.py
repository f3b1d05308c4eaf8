"""The span model under the `otel` reader: the spans of any container assay reads (OTLP JSON,
a list of spans, the SDK console exporter's, Jaeger's and Tempo's exports, MLflow traces, the
OpenAI Agents SDK's trace export), each with its ids, times, status and attributes as plain
values. What the spans mean is the conventions' (`_otel_convention` and the modules beside it)
and the trace builder's (`assay.formats.otel`).

Example:
    >>> export = {"resourceSpans": [{"resource": {"attributes": [
    ...     {"key": "service.name", "value": {"stringValue": "agent"}}]},
    ...     "scopeSpans": [{"spans": [{"traceId": "t1", "spanId": "s1", "name": "chat",
    ...     "startTimeUnixNano": "1000000", "endTimeUnixNano": "3000000", "attributes": [
    ...     {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "12"}}]}]}]}]}
    >>> (span,), seen, lone_logs = collect_spans(export)
    >>> span.trace_id, span.name, span.end - span.start, span.attributes, seen, lone_logs
    ('t1', 'chat', 2000000, {'gen_ai.usage.input_tokens': 12}, [], 0)
"""

from __future__ import annotations

import base64
import binascii
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from assay.formats import _otel_exports as _exports
from assay.formats import _otel_openai_agents as _openai_agents
from assay.formats._otel_convention import Reading, Role
from assay.formats._otel_status import span_error

__all__ = [
    "EXPORT_FIELDS",
    "LOG_FIELDS",
    "OPERATION",
    "Collected",
    "Span",
    "attribute_map",
    "collect_spans",
]

_JAEGER = "Jaeger JSON export"
_TEMPO = "Tempo export (batches)"
_MLFLOW = "MLflow trace"
_OPENAI_AGENTS = "OpenAI Agents SDK trace export"

OPERATION = "gen_ai.operation.name"
"""The GenAI attribute that says what a span is (`chat`, `execute_tool`, `invoke_agent`)."""

EXPORT_FIELDS = ("resourceSpans", "resource_spans")
"""The keys of an OTLP export."""

LOG_FIELDS = ("resourceLogs", "resource_logs")
"""The keys of an OTLP logs export."""

# AnyValue nests (arrays of kvlists of arrays ...); deeper than this is not telemetry anyone
# wrote on purpose, and stopping keeps conversion iterative-safe on hostile input.
_MAX_VALUE_DEPTH = 32

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class Collected(NamedTuple):
    """What `collect_spans` found."""

    spans: list[Span]
    seen: list[str]
    """The other tools' containers met (for the problem of a container with no span)."""
    lone_logs: int
    """Log records whose span is not among `spans`."""


def collect_spans(data: Any) -> Collected:
    """Every span in `data`, whatever container holds it.

    Log records (OTLP `resourceLogs`, the console exporter's records) join the events of the
    span they name (`Span.events`, marked `"log": True`, with their `body`): GenAI events are
    recorded as logs as often as on spans."""
    spans: list[Span] = []
    seen: list[str] = []
    logs: list[_LogRecord] = []
    _collect(data, {}, spans, 0, seen, logs)
    alone = 0
    if logs:
        by_id = {(span.trace_id, span.span_id): span for span in spans if span.span_id}
        for record in logs:
            span = None if record.span_id is None else by_id.get(
                (record.trace_id or "", record.span_id)
            )
            if span is None:
                alone += 1
            else:
                span.events.append(record.event)
    return Collected(spans, seen, alone)


@dataclass(slots=True)
class _LogRecord:
    """A log record: the span it names, and itself as an event of that span."""

    trace_id: str | None
    span_id: str | None
    event: dict[str, Any]


@dataclass(slots=True)
class Span:
    """One span: its ids, name, times in nanoseconds since the epoch, attributes and its
    resource's as plain values, its position in the file (`order`) and why it failed. The
    trace builder fills in `rank` (its place in the trace), `role` and `reading` (what a
    convention makes of it)."""

    trace_id: str
    span_id: str | None
    parent_id: str | None
    name: str
    start: int | None
    end: int | None
    attributes: dict[str, Any]
    resource: dict[str, Any]
    order: int
    rank: int = 0
    role: Role | None = None
    reading: Reading | None = None
    error: str | None = None
    """Why the span failed (its status, or the exception it recorded); None: it did not."""

    events: list[Any] = field(default_factory=list)
    """The span's events as written (read by the conventions that record content in them)."""

    @property
    def operation(self) -> str | None:
        value = self.attributes.get(OPERATION)
        return value if isinstance(value, str) else None

    def text(self, key: str) -> str | None:
        value = self.attributes.get(key)
        return value if isinstance(value, str) and value else None


def _collect(
    data: Any,
    resource: dict[str, Any],
    out: list[Span],
    depth: int,
    seen: list[str],
    logs: list[_LogRecord],
) -> None:
    """Every span in `data`, whatever container holds it; `seen` gets the names of the
    containers met (for the problem of a container with no span in it), `logs` the log
    records."""
    if depth > 4:  # exports in lists in lists: deeper is not an export
        return
    if isinstance(data, list):
        if _openai_agents.is_export(data):
            seen.append(_OPENAI_AGENTS)
            for flat in _openai_agents.spans(data):
                _add_span(flat, {}, out)
            return
        for item in data:
            _collect(item, resource, out, depth + 1, seen, logs)
        return
    if not isinstance(data, dict):
        return
    resource_logs = _get(data, *LOG_FIELDS)
    if isinstance(resource_logs, list):
        _otlp_logs(resource_logs, logs)
        if not any(key in data for key in EXPORT_FIELDS):
            return
    if _is_console_record(data):
        logs.append(_log_record(data, data.get("body"), data.get("attributes")))
        return
    resource_spans = _get(data, "resourceSpans", "resource_spans")
    if resource_spans is None and "batches" in data:  # Grafana Tempo's trace by id
        resource_spans = data["batches"]
        seen.append(_TEMPO)
    if isinstance(resource_spans, list):
        for group in resource_spans:
            if not isinstance(group, dict):
                continue
            own = attribute_map(_get(group.get("resource"), "attributes", "attributes"))
            scopes = _get(group, "scopeSpans", "scope_spans")
            if scopes is None:
                scopes = _get(group, "instrumentationLibrarySpans", "instrumentation_library_spans")
            for scope in scopes if isinstance(scopes, list) else ():
                raw_spans = scope.get("spans") if isinstance(scope, dict) else None
                for raw in raw_spans if isinstance(raw_spans, list) else ():
                    _add_span(raw, own, out)
        return
    for wrapper in ("trace", "result"):  # Tempo's v2 API; Jaeger's v3 API
        inner = data.get(wrapper)
        if isinstance(inner, dict) and any(key in inner for key in EXPORT_FIELDS):
            _collect(inner, resource, out, depth + 1, seen, logs)
            return
    inner = data.get("data")
    if not _exports.is_jaeger(inner) and _exports.is_jaeger([data]):
        inner = [data]  # one trace of Jaeger's, as its UI fixtures hold them
    if _exports.is_jaeger(inner):
        seen.append(_JAEGER)
        for flat in _exports.jaeger_spans(inner):
            _add_span(flat, {}, out)
        return
    if _openai_agents.is_export(inner):
        _collect(inner, resource, out, depth + 1, seen, logs)
        return
    if _exports.is_mlflow(data):
        seen.append(_MLFLOW)
        for flat in _exports.mlflow_spans(data):
            _add_span(flat, {}, out)
        return
    if _openai_agents.is_item(data):
        seen.append(_OPENAI_AGENTS)
        for flat in _openai_agents.spans([data]):
            _add_span(flat, {}, out)
        return
    if isinstance(data.get("spans"), list):
        for raw in data["spans"]:
            _add_span(raw, resource, out)
        return
    _add_span(data, resource, out)


def _otlp_logs(groups: list[Any], logs: list[_LogRecord]) -> None:
    for group in groups:
        scopes = _get(group, "scopeLogs", "scope_logs") if isinstance(group, dict) else None
        for scope in scopes if isinstance(scopes, list) else ():
            records = _get(scope, "logRecords", "log_records")
            for raw in records if isinstance(records, list) else ():
                if isinstance(raw, dict):
                    body = _any_value(raw.get("body"), 0)
                    logs.append(_log_record(raw, body, raw.get("attributes")))


def _is_console_record(raw: dict[str, Any]) -> bool:
    """Whether an object is a log record as the SDK's console exporter writes it."""
    return "body" in raw and ("severity_number" in raw or "observed_timestamp" in raw)


def _log_record(raw: dict[str, Any], body: Any, attributes: Any) -> _LogRecord:
    """A log record as the event of its span: named by its event name (OTLP's `eventName`,
    else its `event.name` attribute), its body beside its attributes."""
    plain = attribute_map(attributes)
    name = _get(raw, "eventName", "event_name") or plain.get("event.name")
    event = {"name": name, "attributes": plain, "body": body, "log": True}
    trace_id = _span_id(_get(raw, "traceId", "trace_id"))
    return _LogRecord(trace_id, _span_id(_get(raw, "spanId", "span_id")), event)


def _add_span(raw: Any, resource: dict[str, Any], out: list[Span]) -> None:
    if not isinstance(raw, dict):
        return
    context = raw.get("context")
    trace_id = _span_id(_get(raw, "traceId", "trace_id")) or _span_id(
        _get(context, "trace_id", "traceId")
    )
    span_id = _span_id(_get(raw, "spanId", "span_id")) or _span_id(
        _get(context, "span_id", "spanId")
    )
    if trace_id is None and span_id is None:
        return  # not a span
    parent = _span_id(_get(raw, "parentSpanId", "parent_span_id")) or _span_id(raw.get("parent_id"))
    attributes = attribute_map(raw.get("attributes"))
    span_resource = resource
    if not span_resource and isinstance(raw.get("resource"), dict):
        span_resource = attribute_map(_get(raw["resource"], "attributes", "attributes"))
    name = raw.get("name")
    events = raw.get("events")
    out.append(
        Span(
            trace_id=trace_id or "",
            span_id=span_id,
            parent_id=parent,
            name=name if isinstance(name, str) else "",
            start=_time(raw, "startTimeUnixNano", "start_time_unix_nano", "start_time"),
            end=_time(raw, "endTimeUnixNano", "end_time_unix_nano", "end_time"),
            attributes=attributes,
            resource=span_resource,
            order=len(out),
            error=span_error(raw),
            events=events if isinstance(events, list) else [],
        )
    )


def _span_id(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    text: str = value
    # The console exporter writes ids as 0x-prefixed hex; OTLP as bare hex (left as written).
    if text[:2] in ("0x", "0X"):
        return text[2:].lower()
    # Tempo (and protobuf's JSON) write the id's bytes in base64: a 16-byte trace id is 24
    # characters ending `==`, an 8-byte span id 12 ending `=`, lengths hex ids never have.
    if (len(text) == 24 and text.endswith("==")) or (len(text) == 12 and text[-1:] == "="):
        try:
            return base64.b64decode(text, validate=True).hex()
        except binascii.Error:
            return text
    return text


def _time(raw: dict[str, Any], camel: str, snake: str, iso: str) -> int | None:
    value = _get(raw, camel, snake)
    if isinstance(value, str) and value.isdigit() and len(value) <= 20:
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, float) and math.isfinite(value) and value >= 0:
        return int(value)
    text = raw.get(iso)
    if isinstance(text, int) and not isinstance(text, bool) and text >= 0:
        return text  # MLflow's older span form: nanoseconds under the console's name
    if isinstance(text, str) and len(text) <= 64:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return (moment - _EPOCH) // timedelta(microseconds=1) * 1000
    return None


def attribute_map(raw: Any) -> dict[str, Any]:
    """Attributes as plain values by key: OTLP's `[{key, value: AnyValue}]`, or the console
    exporter's plain object (of a span, a resource or an event)."""
    if isinstance(raw, dict):  # the console exporter writes plain values
        return {key: value for key, value in raw.items() if isinstance(key, str)}
    if not isinstance(raw, list):
        return {}
    attributes: dict[str, Any] = {}
    for item in raw:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            attributes[item["key"]] = _any_value(item.get("value"), 0)
    return attributes


def _any_value(value: Any, depth: int) -> Any:
    """An OTLP `AnyValue` as a plain value (`intValue` arrives as text: int64 in JSON)."""
    if not isinstance(value, dict) or depth > _MAX_VALUE_DEPTH:
        return None
    for camel, snake in (("stringValue", "string_value"), ("bytesValue", "bytes_value")):
        found = _get(value, camel, snake)
        if isinstance(found, str):
            return found
    found = _get(value, "boolValue", "bool_value")
    if isinstance(found, bool):
        return found
    found = _get(value, "intValue", "int_value")
    if found is not None:
        if isinstance(found, int) and not isinstance(found, bool):
            return found
        if isinstance(found, str) and len(found) <= 24:
            try:
                return int(found)
            except ValueError:
                return None
        return None
    found = _get(value, "doubleValue", "double_value")
    if found is not None:
        if isinstance(found, int | float) and not isinstance(found, bool):
            return float(found)
        if isinstance(found, str) and len(found) <= 32:
            try:
                return float(found)
            except ValueError:
                return None
        return None
    array = _get(value, "arrayValue", "array_value")
    if isinstance(array, dict):
        values = array.get("values")
        return [_any_value(v, depth + 1) for v in values] if isinstance(values, list) else []
    kvlist = _get(value, "kvlistValue", "kvlist_value")
    if isinstance(kvlist, dict):
        pairs = kvlist.get("values")
        return {
            pair["key"]: _any_value(pair.get("value"), depth + 1)
            for pair in (pairs if isinstance(pairs, list) else ())
            if isinstance(pair, dict) and isinstance(pair.get("key"), str)
        }
    return None


def _get(obj: Any, camel: str, snake: str) -> Any:
    if not isinstance(obj, dict):
        return None
    value = obj.get(camel)
    return obj.get(snake) if value is None else value
