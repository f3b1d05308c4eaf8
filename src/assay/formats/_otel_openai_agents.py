"""The OpenAI Agents SDK's trace export, turned into the flat spans `assay.formats.otel` reads.

`agents.tracing` exports a trace as `{"object": "trace", "id", "workflow_name", "group_id",
"metadata"}` and each span as `{"object": "trace.span", "id", "trace_id", "parent_id",
"started_at", "ended_at" (ISO times), "span_data": {"type", ...}, "error"}`; its backend
exporter posts `{"data": [trace, span, ...]}`. Per `span_data.type`:

- `generation` (a Chat Completions call): a model call; `model`, `usage` (`input_tokens` /
  `output_tokens`), and `input` / `output` as OpenAI chat messages (text, `tool_calls`, tool
  results in `tool` messages).
- `response` (a Responses API call): a model call; the export carries only the response id
  and `usage`, so such a step has no text or requested calls of its own.
- `function`: a tool call; `name`, `input` (the arguments as JSON text), `output`.
- `agent`: an agent, whose `name` is the node of the model calls under it.
- any other type (`handoff`, `guardrail`, `custom`, `mcp_tools`, `transcription`, `speech`,
  ...): noted in the run, one line per type (a custom span by its name: `custom turn`).

The trace objects themselves carry no run content (their `workflow_name`, `group_id` and
`metadata` are not read); nor are a model call's `model_config`, or a tool's `mcp_data`. A
span's `error` (`{"message", "data"}`) is its failure, as an OTLP span's status says one.

Example:
    >>> span = {"object": "trace.span", "id": "span_1", "trace_id": "trace_1",
    ...         "started_at": "2025-01-01T00:00:00+00:00",
    ...         "span_data": {"type": "function", "name": "add", "input": '{"a": 1}',
    ...                       "output": "2"}}
    >>> flat = spans([span])[0]
    >>> flat["attributes"]["gen_ai.tool.name"], flat["start_time"]
    ('add', '2025-01-01T00:00:00+00:00')
"""

from __future__ import annotations

from typing import Any, TypeGuard

from assay.formats._otel_exports import FOREIGN_KIND, MAX_ITEMS, chat_messages
from assay.formats._otel_status import failed_status

__all__ = ["is_export", "is_item", "spans"]

_OBJECTS = frozenset({"trace", "trace.span"})


def is_item(value: Any) -> bool:
    """Whether a value is one exported trace or span of the SDK."""
    kind = value.get("object") if isinstance(value, dict) else None
    return isinstance(kind, str) and kind in _OBJECTS


def is_export(data: Any) -> TypeGuard[list[Any]]:
    """Whether a `data` list is the SDK exporter's payload (traces and spans)."""
    return isinstance(data, list) and bool(data) and is_item(data[0])


def spans(items: list[Any]) -> list[dict[str, Any]]:
    """The `trace.span` objects among `items`, as flat spans in the console exporter's shape
    (ISO `start_time` / `end_time`, `parent_id`, plain attributes)."""
    out = []
    for item in items[:MAX_ITEMS]:
        if isinstance(item, dict) and item.get("object") == "trace.span":
            out.append(_span(item))
    return out


def _span(raw: dict[str, Any]) -> dict[str, Any]:
    data = raw.get("span_data")
    data = data if isinstance(data, dict) else {}
    kind = data.get("type")
    kind = kind if isinstance(kind, str) and kind else "unknown"
    name = data.get("name")
    return {
        "trace_id": raw.get("trace_id"),
        "span_id": raw.get("id"),
        "parent_id": raw.get("parent_id"),
        "name": name if isinstance(name, str) else kind,
        "start_time": raw.get("started_at"),
        "end_time": raw.get("ended_at"),
        "attributes": _attributes(kind, data),
        **({"status": failed_status(_error_message(raw["error"]))} if raw.get("error") else {}),
    }


def _error_message(error: Any) -> Any:
    """The SDK's span error, `{"message", "data"}`: its message."""
    return error.get("message") if isinstance(error, dict) else error


def _attributes(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    if kind in ("generation", "response"):
        usage = data.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        found: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.usage.input_tokens": usage.get("input_tokens", usage.get("prompt_tokens")),
            "gen_ai.usage.output_tokens": usage.get(
                "output_tokens", usage.get("completion_tokens")
            ),
        }
        if isinstance(data.get("model"), str):
            found["gen_ai.request.model"] = data["model"]
        if kind == "generation":
            found["gen_ai.input.messages"] = chat_messages(data.get("input"))
            found["gen_ai.output.messages"] = chat_messages(data.get("output"))
        return found
    if kind == "function":
        return {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": data.get("name"),
            "gen_ai.tool.call.arguments": data.get("input"),
            "gen_ai.tool.call.result": data.get("output"),
        }
    if kind == "agent":
        return {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": data.get("name")}
    name = data.get("name")
    if kind == "custom" and isinstance(name, str) and name:
        kind = f"custom {name[:64]}"
    return {FOREIGN_KIND: kind}
