"""Whether a span failed, and why: its status, else the exception it recorded.

OpenTelemetry marks a failed span with `status: {"code": 2 | "STATUS_CODE_ERROR", "message"}`
(the console exporter: `{"status_code": "ERROR", "description"}`; MLflow also
`status_code` / `status_message` on the span) and records the exception as a span event
named `exception` with `exception.type` / `exception.message` attributes. The exports that
are not OTLP say it their own way and are put in this form by their flatteners: Jaeger's
`error` tag (or `otel.status_code`) and its `logs`, the OpenAI Agents SDK's span `error`
(`{"message", "data"}`).

A failed span's message is its status message, else its first exception event's
`type: message`, else `status ERROR`; `span_error` gives None for a span that did not fail
(status unset or OK, and no exception event).

Example:
    >>> span_error({"status": {"code": 2, "message": "rate limited"}})
    'rate limited'
    >>> span_error({"events": [{"name": "exception", "attributes": [
    ...     {"key": "exception.type", "value": {"stringValue": "KeyError"}},
    ...     {"key": "exception.message", "value": {"stringValue": "'city'"}}]}]})
    "KeyError: 'city'"
    >>> span_error({"status": {"code": 1}}) is None
    True
"""

from __future__ import annotations

from typing import Any

__all__ = ["ERROR_STATUS", "failed_status", "span_error"]

ERROR_STATUS = 2
"""OTLP's `STATUS_CODE_ERROR`."""

_ERROR_CODES = frozenset({2, "2", "STATUS_CODE_ERROR", "ERROR", "error"})
_MAX_MESSAGE = 1000


def span_error(raw: dict[str, Any]) -> str | None:
    """Why the span failed (see the module docstring); None when it did not."""
    status = raw.get("status")
    code: Any = None
    message: Any = None
    if isinstance(status, dict):
        code = status.get("code", status.get("status_code"))
        message = status.get("message", status.get("description"))
    elif isinstance(status, str):  # MLflow's older spans: the code itself
        code = status
    if code is None and "status_code" in raw:
        code, message = raw.get("status_code"), raw.get("status_message")
    exception = _exception(raw.get("events"))
    failed = isinstance(code, int | str) and code in _ERROR_CODES
    if not failed and exception is None:
        return None
    for said in (message, exception):
        if isinstance(said, str) and said.strip():
            return _line(said)
    return "status ERROR"


def failed_status(message: Any) -> dict[str, Any]:
    """An OTLP status of a failed span, for the flatteners of other exports."""
    said = message if isinstance(message, str) and message.strip() else None
    return {"code": ERROR_STATUS, "message": said}


def _exception(events: Any) -> str | None:
    """`type: message` of the span's first `exception` event, if it has one."""
    if not isinstance(events, list):
        return None
    for event in events[:100]:
        if not isinstance(event, dict) or event.get("name") != "exception":
            continue
        attributes = _plain(event.get("attributes"))
        kind, message = attributes.get("exception.type"), attributes.get("exception.message")
        said = [part for part in (kind, message) if isinstance(part, str) and part.strip()]
        return ": ".join(said) if said else "an exception"
    return None


def _plain(raw: Any) -> dict[str, Any]:
    """Event attributes as a dict: OTLP's `[{key, value: {stringValue}}]` or a plain object."""
    if isinstance(raw, dict):
        return raw
    found: dict[str, Any] = {}
    for item in raw if isinstance(raw, list) else ():
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            value = item.get("value")
            found[item["key"]] = value.get("stringValue") if isinstance(value, dict) else value
    return found


def _line(text: str) -> str:
    """The first non-blank line, bounded (a traceback's head is its message)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first[:_MAX_MESSAGE]
