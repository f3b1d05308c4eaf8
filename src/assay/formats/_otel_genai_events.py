"""GenAI content a span records in its events, put where the GenAI reader looks for it.

The OpenTelemetry GenAI convention lets an instrumentation record a model call's messages
as events rather than span attributes, and instrumentations attach those events to the span
(OTLP `events`, the console exporter's `events`):

- `gen_ai.client.inference.operation.details` (the convention from v1.37): the event carries
  the attributes the span would (`gen_ai.input.messages`, `gen_ai.output.messages`,
  `gen_ai.system_instructions`, ...); they are the span's, its own attributes winning.
- the per-message events of v1.36 and before (`gen_ai.system.message`, `gen_ai.user.message`,
  `gen_ai.assistant.message`, `gen_ai.tool.message`, and `gen_ai.choice` for each choice of the
  reply), their body (`content`, `tool_calls` in OpenAI's shape, a tool message's `id`, a
  choice's `index` and `message`) in the event's `gen_ai.event.content` attribute as JSON (as
  Azure AI Inference's tracing writes it), else in the event's attributes (a `message` or
  `tool_calls` there as JSON text, attribute values being flat): made the span's
  `gen_ai.input.messages` and `gen_ai.output.messages`, in the convention's current shape
  (`{role, parts: [{type: text | tool_call | tool_call_response, ...}]}`), unless the span
  records those itself;
- the content events of v1.27 (`gen_ai.content.prompt` / `gen_ai.content.completion`, their
  `gen_ai.prompt` / `gen_ai.completion` attribute, or `gen_ai.input.messages` /
  `gen_ai.output.messages` as OpenLIT writes them, JSON text of chat messages or plain text):
  the same, the prompt's messages as input, the completion's as output.

Log records of the span (`collect_spans` joins them to it) are read the same way, a record's
body standing for `gen_ai.event.content`: the GenAI instrumentations emit these events as logs
as often as on spans.

Any other event named `gen_ai.*`, and any other log record, is content assay does not read:
returned, for the run's notes.

Example:
    >>> from assay.formats._otel_spans import Span
    >>> span = Span("t", "s", None, "chat gpt-4o", None, None, {}, {}, 0, events=[
    ...     {"name": "gen_ai.user.message",
    ...      "attributes": {"gen_ai.event.content": '{"content": "Is CH-12 hot?"}'}},
    ...     {"name": "gen_ai.choice", "attributes": {"gen_ai.event.content":
    ...      '{"index": 0, "message": {"content": "Yes."}}'}}])
    >>> read_content_events(span)
    []
    >>> span.attributes["gen_ai.input.messages"]
    [{'role': 'user', 'parts': [{'type': 'text', 'content': 'Is CH-12 hot?'}]}]
    >>> span.attributes["gen_ai.output.messages"][0]["parts"]
    [{'type': 'text', 'content': 'Yes.'}]
"""

from __future__ import annotations

from typing import Any

from assay.formats._otel_convention import json_or_text
from assay.formats._otel_spans import Span, attribute_map

__all__ = ["DETAILS_EVENT", "read_content_events"]

DETAILS_EVENT = "gen_ai.client.inference.operation.details"
"""The event that carries a model call's content as the span's own attributes would."""

_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_CHOICE_EVENT = "gen_ai.choice"
_INPUT = "gen_ai.input.messages"
_OUTPUT = "gen_ai.output.messages"
_CONTENT_EVENTS = {
    "gen_ai.content.prompt": (("gen_ai.prompt", _INPUT), "user"),
    "gen_ai.content.completion": (("gen_ai.completion", _OUTPUT), "assistant"),
}
_BODY = "gen_ai.event.content"


def read_content_events(span: Span) -> list[tuple[str, str]]:
    """Put the content the span's GenAI events carry into its attributes (see the module
    notes); what it has that is not read, one per event: `("span event", NAME)` for a
    `gen_ai.*` event, `("log record", NAME)` for a log record (its event name, or "")."""
    unread: list[tuple[str, str]] = []
    inputs: list[dict[str, Any]] = []
    choices: list[tuple[int, int, dict[str, Any]]] = []
    outputs: list[dict[str, Any]] = []
    for event in span.events:
        if not isinstance(event, dict):
            continue
        name = event.get("name")
        logged = event.get("log") is True
        if not isinstance(name, str) or not name.startswith("gen_ai."):
            if logged:  # a log record of the span: content of some kind, said
                unread.append(("log record", name if isinstance(name, str) else ""))
            continue
        attributes = attribute_map(event.get("attributes"))
        if logged and isinstance(event.get("body"), dict):
            attributes = {**attributes, _BODY: event["body"]}  # a log record's body is its own
        if name == DETAILS_EVENT:
            for key, value in attributes.items():
                span.attributes.setdefault(key, value)
        elif name in _MESSAGE_EVENTS:
            inputs.append(_message(_MESSAGE_EVENTS[name], _body(attributes)))
        elif name in _CONTENT_EVENTS:
            (key, current), role = _CONTENT_EVENTS[name]
            recorded = attributes.get(key)
            read = _recorded(attributes.get(current) if recorded is None else recorded, role)
            (inputs if role == "user" else outputs).extend(read)
        elif name == _CHOICE_EVENT:
            body = _body(attributes)
            index = body.get("index")
            message = json_or_text(body.get("message"))  # JSON text when an attribute
            choices.append(
                (
                    index if type(index) is int else len(choices),
                    len(choices),
                    _message("assistant", message if isinstance(message, dict) else body),
                )
            )
        else:
            unread.append(("log record" if logged else "span event", name))
    if inputs:
        span.attributes.setdefault(_INPUT, inputs)
    outputs = [message for _, _, message in sorted(choices)] + outputs
    if outputs:
        span.attributes.setdefault(_OUTPUT, outputs)
    return unread


def _recorded(value: Any, role: str) -> list[dict[str, Any]]:
    """A `gen_ai.prompt` / `gen_ai.completion` attribute of the v1.27 content events: JSON
    text of chat messages (or of choices, `{message}`), else plain text, one message."""
    value = json_or_text(value)
    if isinstance(value, str):
        return [_message(role, {"content": value})] if value else []
    found = []
    for item in value if isinstance(value, list) else [value]:
        message = item.get("message", item) if isinstance(item, dict) else None
        if isinstance(message, dict):
            found.append(_message(role, message))
    return found


def _body(attributes: dict[str, Any]) -> dict[str, Any]:
    """An event's body: its `gen_ai.event.content` JSON object, else its attributes."""
    body = json_or_text(attributes.get(_BODY))
    return body if isinstance(body, dict) else attributes


def _message(role: str, body: dict[str, Any]) -> dict[str, Any]:
    """An event's body, or a chat message in OpenAI's shape, as a message of the current
    convention (`{role, parts}`)."""
    said = body.get("role")
    role = said if isinstance(said, str) and said else role
    parts: list[dict[str, Any]] = []
    content = body.get("content")
    if role == "tool":
        answered = body.get("id")
        answered = body.get("tool_call_id") if answered is None else answered  # OpenAI's
        parts.append({"type": "tool_call_response", "id": answered, "response": content})
    elif isinstance(content, str):
        parts.append({"type": "text", "content": content})
    elif isinstance(content, list):  # content parts, as the chat APIs write them
        for part in content:
            text = part.get("text") if isinstance(part, dict) else part
            if isinstance(text, str):
                parts.append({"type": "text", "content": text})
    calls = json_or_text(body.get("tool_calls"))
    for call in calls if isinstance(calls, list) else ():
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else call
        parts.append(
            {
                "type": "tool_call",
                "id": call.get("id"),
                "name": function.get("name"),
                "arguments": function.get("arguments"),
            }
        )
    return {"role": role, "parts": parts}
