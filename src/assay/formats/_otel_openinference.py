"""OpenInference spans (Arize Phoenix's instrumentors) as the OTel trace builder reads them.

A span is OpenInference's when it has `openinference.span.kind`. Per kind (upper case in the
convention; read in any case):

- `LLM`, a model call: model from `llm.response.model_name`, else `llm.model_name`, else
  `llm.request.model_name`; tokens from `llm.token_count.prompt` / `completion`; the messages
  flattened into `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*` (`role`,
  `content` or `contents.K.message_content.text`, `tool_calls.M.tool_call.id` /
  `.function.name` / `.function.arguments`, and a tool message's `tool_call_id`, whose
  content is that call's result). Without messages, the legacy completions API's
  `llm.prompts.N.prompt.text` and `llm.choices.N.completion.text` (the first of each) are
  the question and the reply; without either, a plain-text `output.value` is the reply.
- `TOOL`, a tool call: `tool.name` (else the span name), arguments from `input.value` (the
  call's input, JSON or text; else `tool.parameters`), result from `output.value` (JSON
  parsed), id from `tool_call.id` (else `tool.id`).
- `AGENT`: named by `agent.name`, else `graph.node.name` / `graph.node.id`, else the span
  name; its `input.value` / `output.value` may stand for the question and answer.
- `CHAIN`: structure; a root chain's input and output may stand for the question and answer.
- Any other kind (`RETRIEVER`, `EMBEDDING`, `RERANKER`, `GUARDRAIL`, `EVALUATOR`, `PROMPT`,
  `UNKNOWN`, ...): not read; the run notes how many spans of each such kind it had.

Example:
    >>> reading = read({"openinference.span.kind": "TOOL", "tool.name": "get_sensor",
    ...     "input.value": '{"asset": "CH-12"}', "output.value": "41.5 C"}, "span")
    >>> reading.role, reading.tool.name, reading.tool.args, reading.tool.result
    ('tool', 'get_sensor', {'asset': 'CH-12'}, '41.5 C')
    >>> read({"openinference.span.kind": "RETRIEVER"}, "span").role is None
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from assay.formats._common import count, id_text, tool_args
from assay.formats._otel_convention import (
    Reading,
    Role,
    json_or_text,
    nested,
    text_of,
    value_text,
)
from assay.records import ToolCall, Usage

__all__ = ["KIND", "read"]

KIND = "openinference.span.kind"
"""The attribute that makes a span OpenInference's."""

_ROLES: dict[str, Role] = {"LLM": "model", "TOOL": "tool", "AGENT": "agent", "CHAIN": "chain"}
_JSON = "application/json"


def read(attributes: Mapping[str, Any], name: str) -> Reading | None:
    """The span as OpenInference describes it; None when it is not an OpenInference span."""
    kind = attributes.get(KIND)
    if not isinstance(kind, str) or not kind:
        return None
    role = _ROLES.get(kind.upper())
    reading = Reading(role=role, kind=kind)
    if role == "model":
        _model_call(attributes, reading)
    elif role == "tool":
        reading.tool = _tool_call(attributes, name)
    elif role in ("agent", "chain"):
        reading.inputs = attributes.get("input.value")
        reading.outputs = attributes.get("output.value")
        reading.read_text = value_text
        if role == "agent":
            reading.agent = _agent_name(attributes) or name or None
    return reading


def _model_call(attributes: Mapping[str, Any], reading: Reading) -> None:
    reading.model = (
        text_of(attributes.get("llm.response.model_name"))
        or text_of(attributes.get("llm.model_name"))
        or text_of(attributes.get("llm.request.model_name"))
    )
    reading.usage = Usage(
        count(attributes.get("llm.token_count.prompt")),
        count(attributes.get("llm.token_count.completion")),
    )
    reading.agent = text_of(attributes.get("agent.name"))
    reading.read_request = partial(_request, attributes)
    outputs = _messages(nested(attributes, "llm.output_messages"))
    if outputs:  # the first message is the choice an agent goes on with
        reading.text = _content(outputs[0])
        reading.calls = _calls(outputs[0])
    elif (choice := _indexed_text(attributes, "llm.choices", "completion")) is not None:
        reading.text = choice
    elif not _is_json(attributes, "output"):
        reading.text = value_text(attributes.get("output.value"))


def _request(attributes: Mapping[str, Any], reading: Reading) -> None:
    """A model call's question and the tool results its input messages carry."""
    inputs = _messages(nested(attributes, "llm.input_messages"))
    for message in inputs:
        if message.get("role") == "user":
            reading.question = _content(message)
            if reading.question is not None:
                break
    for message in inputs:
        call_id = id_text(message.get("tool_call_id"))
        if message.get("role") == "tool" and call_id is not None:
            reading.responses.setdefault(call_id, json_or_text(_content(message)))
    if reading.question is None:  # the legacy completions API: prompts, not messages
        reading.question = _indexed_text(attributes, "llm.prompts", "prompt")


def _indexed_text(attributes: Mapping[str, Any], prefix: str, part: str) -> str | None:
    """The first text of a completions-API list (`llm.prompts.0.prompt.text`,
    `llm.choices.0.completion.text`), recorded flat or whole."""
    items = nested(attributes, prefix)
    first = items[0] if isinstance(items, list) and items else None
    inner = first.get(part) if isinstance(first, dict) else None
    found = inner.get("text") if isinstance(inner, dict) else None
    return found if isinstance(found, str) and found else None


def _tool_call(attributes: Mapping[str, Any], name: str) -> ToolCall:
    arguments = attributes.get("input.value")
    if not isinstance(arguments, str) or not arguments:
        arguments = attributes.get("tool.parameters")
    result = attributes.get("output.value")
    return ToolCall(
        name=text_of(attributes.get("tool.name"))
        or text_of(attributes.get("tool_call.function.name"))
        or name,
        args=tool_args(arguments),
        call_id=id_text(attributes.get("tool_call.id")) or id_text(attributes.get("tool.id")),
        result=json_or_text(result) if _is_json(attributes, "output") else result,
    )


def _agent_name(attributes: Mapping[str, Any]) -> str | None:
    for key in ("agent.name", "graph.node.name", "graph.node.id"):
        found = text_of(attributes.get(key))
        if found is not None:
            return found
    return None


def _is_json(attributes: Mapping[str, Any], which: str) -> bool:
    return attributes.get(f"{which}.mime_type") == _JSON


def _messages(value: Any) -> list[dict[str, Any]]:
    """Messages as flattened (`[{"message": {...}}]`) or recorded whole (`[{role, ...}]`)."""
    found = []
    for item in value if isinstance(value, list) else ():
        message = item.get("message", item) if isinstance(item, dict) else None
        if isinstance(message, dict):
            found.append(message)
    return found


def _content(message: dict[str, Any]) -> str | None:
    content = text_of(message.get("content"))
    if content is not None:
        return content
    contents = message.get("contents")
    texts = []
    for item in contents if isinstance(contents, list) else ():
        part = item.get("message_content", item) if isinstance(item, dict) else None
        if isinstance(part, dict) and part.get("type", "text") == "text":
            text = part.get("text")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts) or None


def _calls(message: dict[str, Any]) -> list[ToolCall]:
    calls = []
    requested = message.get("tool_calls")
    for item in requested if isinstance(requested, list) else ():
        call = item.get("tool_call", item) if isinstance(item, dict) else None
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        calls.append(
            ToolCall(
                name=text_of(function.get("name")) or "",
                args=tool_args(function.get("arguments")),
                call_id=id_text(call.get("id")),
            )
        )
    return calls
