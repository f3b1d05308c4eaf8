"""OpenLLMetry spans (Traceloop's instrumentors and SDK) as the OTel trace builder reads them.

A span is OpenLLMetry's when it has `traceloop.span.kind`, `llm.request.type`, or indexed
`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes. What it is:

- A model call (`llm.request.type` `chat` or `completion`, or prompt / completion attributes
  without a kind): model from `gen_ai.response.model`, else `gen_ai.request.model`; tokens
  from `gen_ai.usage.prompt_tokens` / `completion_tokens` (or `input_tokens` /
  `output_tokens`); the question from the first `gen_ai.prompt.N` with `role` user
  (`content`: text, or JSON text of content parts); the reply from `gen_ai.completion.0`:
  `content`, and `tool_calls.M.id` / `.name` / `.arguments` (or an older `function_call`).
  A `gen_ai.prompt.N` with `role` tool carries the result of the call its `tool_call_id`
  names.
- `traceloop.span.kind` `tool`: a tool call named by `traceloop.entity.name` (else the span
  name less its `.tool`), arguments from `traceloop.entity.input` (the SDK's JSON
  `{"args": [...], "kwargs": {...}}`: the keyword arguments, or a lone object argument, else
  the whole input), result from `traceloop.entity.output` (JSON parsed).
- `agent`: named by `traceloop.entity.name`; `workflow` and `task`: structure. Their entity
  input and output may stand for the question and answer.
- Other kinds (`unknown`), and `llm.request.type` `embedding` / `rerank` / `unknown`: not
  read; the run notes how many spans of each such kind it had.

Example:
    >>> reading = read({"llm.request.type": "chat", "gen_ai.request.model": "gpt-4o",
    ...     "gen_ai.usage.prompt_tokens": 12, "gen_ai.prompt.0.role": "user",
    ...     "gen_ai.prompt.0.content": "Is CH-12 hot?",
    ...     "gen_ai.completion.0.tool_calls.0.name": "get_sensor",
    ...     "gen_ai.completion.0.tool_calls.0.arguments": '{"asset": "CH-12"}'}, "openai.chat")
    >>> reading.role, reading.model, reading.usage.input_tokens, reading.question_text()
    ('model', 'gpt-4o', 12, 'Is CH-12 hot?')
    >>> [(call.name, call.args) for call in reading.calls]
    [('get_sensor', {'asset': 'CH-12'})]
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
    object_text,
    text_of,
    value_text,
)
from assay.records import ToolCall, Usage

__all__ = ["KIND", "REQUEST_TYPE", "read"]

KIND = "traceloop.span.kind"
REQUEST_TYPE = "llm.request.type"

_ROLES: dict[str, Role] = {"tool": "tool", "agent": "agent", "workflow": "chain", "task": "chain"}
_MODEL_REQUESTS = frozenset({"chat", "completion"})
_PROMPT = "gen_ai.prompt"
_COMPLETION = "gen_ai.completion"
_IN_KEYS = ("gen_ai.usage.prompt_tokens", "gen_ai.usage.input_tokens")
_OUT_KEYS = ("gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens")


def read(attributes: Mapping[str, Any], name: str) -> Reading | None:
    """The span as OpenLLMetry describes it; None when it is not an OpenLLMetry span."""
    kind = attributes.get(KIND)
    if isinstance(kind, str) and kind:
        role = _ROLES.get(kind.lower())
        reading = Reading(role=role, kind=kind)
        entity = text_of(attributes.get("traceloop.entity.name")) or _entity_of(name, kind)
        if role == "tool":
            reading.tool = ToolCall(
                name=entity or "",
                args=_entity_args(attributes.get("traceloop.entity.input")),
                result=json_or_text(attributes.get("traceloop.entity.output")),
            )
        elif role in ("agent", "chain"):
            reading.inputs = attributes.get("traceloop.entity.input")
            reading.outputs = attributes.get("traceloop.entity.output")
            reading.read_text = _entity_text
            if role == "agent":
                reading.agent = entity
        return reading
    request = attributes.get(REQUEST_TYPE)
    if isinstance(request, str) and request:
        if request.lower() not in _MODEL_REQUESTS:
            return Reading(role=None, kind=request)
        return model_call(attributes, request)
    if has_messages(attributes):
        return model_call(attributes, "chat")
    return None


def has_messages(attributes: Mapping[str, Any]) -> bool:
    """Whether the span records its messages as indexed prompt / completion attributes."""
    return any(key.startswith(("gen_ai.prompt.", "gen_ai.completion.")) for key in attributes)


def model_call(attributes: Mapping[str, Any], kind: str = "chat") -> Reading:
    """A model call span read as OpenLLMetry records one."""
    reading = Reading(role="model", kind=kind)
    reading.model = text_of(attributes.get("gen_ai.response.model")) or text_of(
        attributes.get("gen_ai.request.model")
    )
    tokens_in = next((attributes[k] for k in _IN_KEYS if attributes.get(k) is not None), None)
    tokens_out = next((attributes[k] for k in _OUT_KEYS if attributes.get(k) is not None), None)
    reading.usage = Usage(count(tokens_in), count(tokens_out))
    reading.read_request = partial(_request, attributes)
    completions = _messages(nested(attributes, _COMPLETION))
    if completions:  # the first completion is the choice an agent goes on with
        reading.text = _content(completions[0].get("content"))
        reading.calls = _calls(completions[0])
    return reading


def _request(attributes: Mapping[str, Any], reading: Reading) -> None:
    """A model call's question and the tool results its prompt messages carry."""
    prompts = _messages(nested(attributes, _PROMPT))
    for message in prompts:
        if message.get("role") == "user":
            reading.question = _content(message.get("content"))
            if reading.question is not None:
                break
    for message in prompts:
        call_id = id_text(message.get("tool_call_id"))
        if message.get("role") == "tool" and call_id is not None:
            reading.responses.setdefault(call_id, json_or_text(message.get("content")))


def _entity_of(name: str, kind: str) -> str | None:
    suffix = f".{kind}"
    entity = name[: -len(suffix)] if name.endswith(suffix) else name
    return entity or None


def _messages(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _content(value: Any) -> str | None:
    """A message's content: text, or (JSON text of) a list of content parts."""
    parts = json_or_text(value) if isinstance(value, str) and value[:1] == "[" else value
    if isinstance(parts, list):
        texts = [
            part["text"]
            for part in parts
            if isinstance(part, dict)
            and part.get("type", "text") == "text"
            and isinstance(part.get("text"), str)
        ]
        return "".join(texts) or None
    return text_of(parts)


def _calls(message: dict[str, Any]) -> list[ToolCall]:
    requested = message.get("tool_calls")
    items = [c for c in requested if isinstance(c, dict)] if isinstance(requested, list) else []
    function_call = message.get("function_call")
    if not items and isinstance(function_call, dict):
        items = [function_call]
    return [
        ToolCall(
            name=text_of(item.get("name")) or "",
            args=tool_args(item.get("arguments")),
            call_id=id_text(item.get("id")),
        )
        for item in items
    ]


def _entity_args(value: Any) -> dict[str, Any] | str | None:
    """A tool's arguments from the SDK's entity input (`{"args": [...], "kwargs": {...}}`)."""
    parsed = json_or_text(value)
    if isinstance(parsed, dict) and set(parsed) <= {"args", "kwargs"}:
        args, kwargs = parsed.get("args"), parsed.get("kwargs")
        if not args and isinstance(kwargs, dict):
            return kwargs
        if not kwargs and isinstance(args, list) and len(args) == 1 and isinstance(args[0], dict):
            return args[0]
    return tool_args(value)


def _entity_text(value: Any) -> str | None:
    """The text an entity's input or output stands for: a lone text argument, text output."""
    parsed = json_or_text(value)
    if isinstance(parsed, dict) and set(parsed) <= {"args", "kwargs"} and parsed:
        args, kwargs = parsed.get("args"), parsed.get("kwargs")
        texts = [a for a in args if isinstance(a, str)] if isinstance(args, list) else []
        if isinstance(kwargs, dict):
            texts += [v for v in kwargs.values() if isinstance(v, str)]
        return texts[0] if len(texts) == 1 else None
    return value_text(value) if isinstance(value, str) else object_text(value)
