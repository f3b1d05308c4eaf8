"""What one span says, in the words of one semantic convention, as the OTel trace builder needs it.

`assay.formats.otel` owns the span model (ids, parents, times, attributes as plain values);
each convention module other than GenAI's (`_otel_openinference`, `_otel_openllmetry`) reads a
span's attribute map into a `Reading`: what the span is (a model call, a tool call, an agent,
structure, or a kind assay does not read) and what it carries. The helpers here are the ones
both conventions need: attributes flattened into indexed keys (`llm.input_messages.0.message.role`,
`gen_ai.prompt.0.role`) nested back into lists and objects, and text out of JSON-or-text values.

Example:
    >>> flat = {"p.0.role": "user", "p.0.content": "hi", "p.1.role": "assistant", "x": 1}
    >>> nested(flat, "p")
    [{'role': 'user', 'content': 'hi'}, {'role': 'assistant'}]
    >>> value_text('{"output": "42"}'), value_text("plain"), value_text("42"), value_text("[1]")
    ('42', 'plain', '42', None)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson

from assay.records import ToolCall, Usage

__all__ = ["Reading", "Role", "json_or_text", "nested", "object_text", "text_of", "value_text"]

Role = Literal["model", "tool", "agent", "chain"]
"""What a span is to the trace builder: `chain` is structure (a chain, workflow or task span)
whose input and output may stand for the run's question and answer; None is a kind not read."""

# Flattened keys nest no deeper than this, and an index past this many digits is no list
# position anyone wrote: hostile keys stop here rather than build huge structures.
_MAX_KEY_PARTS = 12
_MAX_INDEX_DIGITS = 6

# Keys under which a JSON input or output object carries its text (LangChain's `{"input": ...}`
# / `{"output": ...}`, a chat message's `content`).
_TEXT_KEYS = ("output", "answer", "input", "question", "query", "content", "text", "result")


@dataclass(slots=True)
class Reading:
    """One span as a convention describes it."""

    role: Role | None
    """What the span is to the trace builder (None: a kind assay does not read)."""

    kind: str
    """The convention's own name for the span's kind (`RETRIEVER`, `workflow`), for notes."""

    model: str | None = None
    usage: Usage = field(default_factory=Usage)
    question: str | None = None
    """The first user text of a model call's input, or the input of an agent or chain; read
    it with `question_text()`, which reads a model call's request first."""

    text: str | None = None
    """A model call's reply text, or the output of an agent or chain."""

    calls: list[ToolCall] = field(default_factory=list)
    """The tool calls a model call requested."""

    responses: dict[str, Any] = field(default_factory=dict)
    """Tool results by call id, as a model call's input messages carry them; read them with
    `tool_responses()`, which reads the request first."""

    read_request: Callable[[Reading], None] | None = None
    """How the convention reads a model call's input messages into `question` and
    `responses`, done when the trace first needs either: each call's request repeats the
    conversation so far, so reading them all would cost time quadratic in its length, and a
    trace needs the first call's question and, only when no tool span records a call's result,
    the results the later requests carry."""

    tool: ToolCall | None = None
    """A tool span's call."""

    agent: str | None = None
    """An agent span's name; on a model call, the agent the span itself names."""

    inputs: Any = None
    """An agent's or chain's input as recorded, read into `question` only if the trace needs
    it: a chain's payload (often most of a trace's bytes) is then never parsed for nothing."""

    outputs: Any = None
    """An agent's or chain's output as recorded, read into `text` the same way."""

    read_text: Callable[[Any], str | None] | None = None
    """How the convention reads `inputs` and `outputs` as text."""

    def question_text(self) -> str | None:
        """`question` (a model call's request read if need be), else the text of `inputs`."""
        self._read_request()
        if self.question is None and self.read_text is not None and self.inputs is not None:
            return self.read_text(self.inputs)
        return self.question

    def tool_responses(self) -> dict[str, Any]:
        """`responses`, a model call's request read if need be."""
        self._read_request()
        return self.responses

    def _read_request(self) -> None:
        if self.read_request is not None:
            read, self.read_request = self.read_request, None
            read(self)

    def answer_text(self) -> str | None:
        """`text`, else the text of `outputs`."""
        if self.text is None and self.read_text is not None and self.outputs is not None:
            return self.read_text(self.outputs)
        return self.text


def json_or_text(value: Any) -> Any:
    """JSON text parsed; anything else (and text that is not JSON) as it is."""
    if not isinstance(value, str):
        return value
    try:
        return orjson.loads(value)
    except orjson.JSONDecodeError:
        return value


def text_of(value: Any) -> str | None:
    """Text, or None when the value is not a non-empty string."""
    return value if isinstance(value, str) and value else None


def value_text(value: Any) -> str | None:
    """The text an input or output value stands for: plain text as it is; JSON text of a
    string, or of an object with one of the usual text keys (`output`, `input`, `content`,
    ...), that string; None for other JSON (a raw API payload is not an answer)."""
    if not isinstance(value, str) or not value.strip():
        return None
    text: str = value
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    if isinstance(parsed, dict | list | str):
        return object_text(parsed)
    return text  # a number or a literal: the text as written


def object_text(value: Any) -> str | None:
    """The text a parsed JSON input or output stands for: a string; an object's string under
    one of the usual text keys, looked for also inside LangChain's `inputs` / `outputs`."""
    if isinstance(value, str):
        return value or None
    if not isinstance(value, dict):
        return None
    for key in _TEXT_KEYS:
        found = value.get(key)
        if isinstance(found, str) and found:
            return found
    for wrapper in ("outputs", "inputs"):
        inner = value.get(wrapper)
        if isinstance(inner, dict):
            inner = next((inner[k] for k in _TEXT_KEYS if isinstance(inner.get(k), str)), None)
        if isinstance(inner, str) and inner:
            return inner
    return None


def nested(attributes: Mapping[str, Any], prefix: str) -> Any:
    """The value under `prefix`, rebuilt from flattened keys (`prefix.0.message.role`):
    objects whose keys are all list positions become lists in index order. A value recorded
    whole under `prefix` itself (structured, or JSON text) wins over flattened keys."""
    whole = attributes.get(prefix)
    if whole is not None:
        return json_or_text(whole)
    start = prefix + "."
    cut = len(start)
    root = _Built()
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        parts = key[cut:].split(".", _MAX_KEY_PARTS)
        if len(parts) > _MAX_KEY_PARTS or "" in parts:
            continue
        node = root
        for part in parts[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = _Built()
            elif type(child) is not _Built:
                if not isinstance(child, dict):  # a leaf already sits where an object would
                    break
                child = node[part] = _Built(child)  # an attribute's own object, copied
            node = child
        else:
            node.setdefault(parts[-1], value)
    return _lists(root, 0) if root else None


class _Built(dict[str, Any]):
    """An object `nested` made (one it may add keys to), not an attribute's own."""


def _lists(node: Any, depth: int) -> Any:
    if not isinstance(node, dict) or depth > _MAX_KEY_PARTS:
        return node
    if all(k.isascii() and k.isdigit() and len(k) <= _MAX_INDEX_DIGITS for k in node):
        return [_lists(node[k], depth + 1) for k in sorted(node, key=int)]
    return {k: _lists(v, depth + 1) for k, v in node.items()}
