"""The OpenTelemetry GenAI convention's span attributes, and Google ADK's own, as the trace
builder (`assay.formats.otel`) reads them: tokens (`gen_ai.usage.*`), messages
(`gen_ai.input.messages` / `gen_ai.output.messages`: their text, the calls a reply asked for),
and ADK's recorded request and reply (`gcp.vertex.agent.llm_request` / `llm_response`).

Example:
    >>> reply = [{"role": "assistant", "parts": [{"type": "text", "content": "42"},
    ...     {"type": "tool_call", "name": "add", "arguments": {"x": 1}, "id": "c1"}]}]
    >>> output_text(reply), [(c.name, c.args) for c in requested_calls(reply)]
    ('42', [('add', {'x': 1})])
    >>> genai_usage({"gen_ai.usage.input_tokens": 12, "gen_ai.usage.output_tokens": 3})
    Usage(input_tokens=12, output_tokens=3)
"""

from __future__ import annotations

from typing import Any

import orjson

from assay.formats._common import count
from assay.formats._otel_convention import json_or_text
from assay.formats._otel_spans import Span
from assay.formats.openai_chat import openai_call
from assay.records import ToolCall, Usage

__all__ = [
    "ADK_REQUEST",
    "ADK_RESPONSE",
    "adk_calls",
    "adk_contents",
    "adk_parts",
    "adk_question",
    "adk_text",
    "first_user_text",
    "genai_messages",
    "genai_parts",
    "genai_usage",
    "output_text",
    "requested_calls",
]

_IN_KEYS = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUT_KEYS = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")


def genai_usage(attributes: dict[str, Any]) -> Usage:
    """A span's tokens (`gen_ai.usage.input_tokens` / `output_tokens`, or the older
    `prompt_tokens` / `completion_tokens`)."""
    tokens_in = next((attributes[k] for k in _IN_KEYS if attributes.get(k) is not None), None)
    tokens_out = next((attributes[k] for k in _OUT_KEYS if attributes.get(k) is not None), None)
    return Usage(count(tokens_in), count(tokens_out))


def genai_messages(value: Any, role: str) -> list[Any]:
    """`gen_ai.input.messages` / `gen_ai.output.messages`: structured, or JSON text. Plain text
    (as OpenLIT's older instrumentations record it, `"user: ..."`) is one message of `role`
    (`user` for the input, `assistant` for the output) with that text as written."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            text = value.strip()
            return [{"role": role, "parts": [{"type": "text", "content": text}]}] if text else []
    return value if isinstance(value, list) else []


def genai_parts(message: Any) -> list[Any]:
    """A GenAI message's `parts`."""
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else []


def _part_text(message: Any) -> str | None:
    texts = [
        part["content"]
        for part in genai_parts(message)
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("content"), str)
    ]
    return "".join(texts) if texts else None


def output_text(messages: list[Any]) -> str | None:
    # Each output message is one choice; the first is the one an agent goes on with.
    return _part_text(messages[0]) if messages else None


def first_user_text(messages: list[Any]) -> str | None:
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user":
            text = _part_text(message)
            if text is not None:
                return text
    return None


def requested_calls(messages: list[Any]) -> list[ToolCall]:
    return [
        openai_call(part)  # `{type: tool_call, id, name, arguments}`: a flat call
        for part in (genai_parts(messages[0]) if messages else ())
        if isinstance(part, dict) and part.get("type") == "tool_call"
    ]


# Google ADK records a model call's whole request and reply as JSON text on the span, in the
# Gemini content format (`contents: [{role, parts: [{text | function_call |
# function_response}]}]`; the reply `{content: {role, parts}}` or `{candidates: [{content}]}`).
ADK_REQUEST = "gcp.vertex.agent.llm_request"
ADK_RESPONSE = "gcp.vertex.agent.llm_response"


def adk_parts(span: Span, key: str) -> list[Any]:
    """The parts of ADK's recorded reply (`ADK_RESPONSE`) of a model span."""
    payload = json_or_text(span.attributes.get(key))
    if not isinstance(payload, dict):
        return []
    content = payload.get("content")
    if content is None:
        candidates = payload.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        content = first.get("content") if isinstance(first, dict) else None
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def adk_text(parts: list[Any]) -> str | None:
    """The text of Gemini content parts, joined."""
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "".join(texts) if texts else None


def adk_calls(parts: list[Any]) -> list[ToolCall]:
    """The `function_call` parts of Gemini content, as calls."""
    asked = [part.get("function_call") if isinstance(part, dict) else None for part in parts]
    return [openai_call(call) for call in asked if isinstance(call, dict)]  # `{name, args, id}`


def adk_contents(span: Span) -> list[Any]:
    """The `contents` of ADK's recorded request of a model span."""
    request = json_or_text(span.attributes.get(ADK_REQUEST))
    contents = request.get("contents") if isinstance(request, dict) else None
    return contents if isinstance(contents, list) else []


def adk_question(span: Span) -> str | None:
    """The first user text of ADK's recorded request."""
    for content in adk_contents(span):
        if isinstance(content, dict) and content.get("role") == "user":
            parts = content.get("parts")
            text = adk_text(parts if isinstance(parts, list) else [])
            if text is not None:
                return text
    return None
