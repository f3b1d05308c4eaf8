"""LangGraph `stream_mode="updates"` chunks: one `Trajectory` per stream.

A file holds a list (or JSON lines) of the chunks `graph.stream(inputs, stream_mode="updates")`
yields, `{NODE: {"messages": [...], ...}}`, with messages dumped as dicts or in `dumpd` form;
also the `(namespace, chunk)` pairs of `subgraphs=True`, the `(mode, chunk)` pairs of several
stream modes, `version="v2"` parts (`{"type": "updates", "ns", "data"}`) and the LangGraph SDK's
`{"event": "updates", "data"}`. The whole list is one run: each node's AI messages are steps
with `node` the node's name, tool messages the results of the calls with their
`tool_call_id`; a message seen before (by `id`: a subgraph's node repeats its messages) is read
once. The graph's input is not in its updates: `question` is the first human message a node
wrote, if any. Messages are read as the `langsmith` reader reads them (`message_item`).

Not kept: a graph's state besides its messages, and the chunks of other stream modes.

Example:
    >>> chunks = [
    ...     {"agent": {"messages": [{"type": "ai", "id": "m1", "content": "",
    ...         "tool_calls": [{"name": "status", "args": {"asset": "P-7"}, "id": "c1"}]}]}},
    ...     {"tools": {"messages": [{"type": "tool", "id": "m2", "tool_call_id": "c1",
    ...         "content": "running"}]}},
    ...     {"agent": {"messages": [{"type": "ai", "id": "m3",
    ...         "content": "Yes, P-7 is running."}]}}]
    >>> _sniff_updates("updates.json", chunks)
    True
    >>> (run,) = _read_updates(chunks, "updates.json")
    >>> [(step.node, step.text) for step in run.steps], run.answer
    ([('agent', ''), ('agent', 'Yes, P-7 is running.')], 'Yes, P-7 is running.')
    >>> [(c.name, c.args, c.result) for c in run.tool_calls()]
    [('status', {'asset': 'P-7'}, 'running')]
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.formats._common import ReadProblem, id_text, named
from assay.formats.langsmith import as_dict, described, message_id, message_item
from assay.formats.openai_chat import ChatItem, chat_trajectory
from assay.formats.registry import register_reader
from assay.records import Trajectory

__all__: list[str] = []

_MODES = frozenset({"values", "updates", "messages", "custom", "checkpoints", "tasks", "debug"})
_SNIFFED_CHUNKS = 20


def _update_data(item: Any) -> tuple[bool, dict[str, Any] | None, str | None]:
    """`(is a chunk, its node updates or None when of another stream mode, a run id)`."""
    if isinstance(item, dict):
        kind = item.get("type")
        if isinstance(kind, str) and kind in _MODES and "data" in item and "ns" in item:
            data = item.get("data")  # a `version="v2"` stream part
            ok = isinstance(data, dict)
            return ok, data if ok and kind == "updates" else None, None
        event = item.get("event")
        if isinstance(event, str) and "data" in item and len(item) <= 3:  # the LangGraph SDK
            data = item.get("data")
            if event == "metadata":
                return True, None, id_text(as_dict(data).get("run_id"))
            wanted = (event == "updates" or event.startswith("updates|")) and isinstance(data, dict)
            return True, data if wanted else None, None
        return _is_chunk(item), item, None
    if isinstance(item, list) and len(item) in (2, 3):
        *head, data = item  # [namespace, chunk], [mode, chunk] or [namespace, mode, chunk]
        if not (
            (len(head) == 1 and isinstance(head[0], list | str))
            or (len(head) == 2 and isinstance(head[0], list) and isinstance(head[1], str))
        ):
            return False, None, None
        mode = next((part for part in head if isinstance(part, str)), "updates")
        if mode not in _MODES:
            return False, None, None
        if mode != "updates":
            return True, None, None
        if isinstance(data, dict) and _is_chunk(data):
            return True, data, None
    return False, None, None


def _is_chunk(value: dict[str, Any]) -> bool:
    """Whether an object is `{node: update or None or [updates]}`."""
    if "messages" in value or "request" in value:
        return False
    for key, update in value.items():
        if key.startswith("__"):  # __interrupt__, __metadata__
            continue
        if update is None or isinstance(update, dict):
            continue
        if isinstance(update, list) and all(isinstance(u, dict) or u is None for u in update):
            continue
        return False
    return True


def _has_messages(data: dict[str, Any]) -> bool:
    for key, update in data.items():
        if key.startswith("__"):
            continue
        for part in update if isinstance(update, list) else [update]:
            messages = as_dict(part).get("messages")
            first = messages[0] if isinstance(messages, list) and messages else messages
            if isinstance(first, dict) and (message_item(first) is not None):
                return True
    return False


def _sniff_updates(name: str, value: Any) -> bool:
    chunks = value if isinstance(value, list) else [value]
    if isinstance(value, list) and len(value) in (2, 3) and _update_data(value)[0]:
        chunks = [value]  # one line of `(namespace, chunk)`
    seen_messages = False
    for chunk in chunks[:_SNIFFED_CHUNKS]:
        ok, data, _ = _update_data(chunk)
        if not ok:
            return False
        if data is not None and _has_messages(data):
            seen_messages = True
    return seen_messages


def _read_updates(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    if isinstance(value, dict) or (isinstance(value, list) and _update_data(value)[0]):
        chunks: list[Any] = [value]  # one chunk (or one `(namespace, chunk)` pair)
    elif isinstance(value, list):
        chunks = value
    else:
        yield ReadProblem(source, f"not LangGraph updates: {described(value)}")
        return
    items: list[ChatItem] = []
    seen: set[str] = set()
    nodes: list[str] = []
    run_id: str | None = None
    for index, chunk in enumerate(chunks):
        ok, data, said_id = _update_data(chunk)
        if not ok:
            yield ReadProblem(
                f"{source}#{index}", f"not a LangGraph update chunk: {described(chunk)}"
            )
            continue
        if run_id is None:
            run_id = said_id
        for node, update in (data or {}).items():
            if node.startswith("__"):
                continue
            if node not in nodes:
                nodes.append(node)
            for part in update if isinstance(update, list) else [update]:
                messages = as_dict(part).get("messages")
                for message in messages if isinstance(messages, list) else [messages]:
                    ident = message_id(message)
                    if ident is not None:
                        if ident in seen:
                            continue
                        seen.add(ident)
                    item = message_item(message)
                    if item is None:
                        continue
                    if item.role == "assistant":
                        item.node = node
                    items.append(item)
    if not items:
        shown = f" (nodes: {', '.join(nodes[:10])})" if nodes else ""
        yield ReadProblem(source, f"LangGraph updates with no messages in them{shown}")
        return
    yield from named([chat_trajectory(items, run_id=run_id, source=source)])


register_reader(
    "langgraph-updates",
    _sniff_updates,
    _read_updates,
    lines="together",
    description='LangGraph stream_mode="updates" chunks ({node: {"messages": [...]}}): one '
    "run, each node's messages as its steps",
)
