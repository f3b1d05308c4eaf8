"""A run's transcript: what happened in it, in order, as its per-run report holds it.

The report viewer answers "why did this run fail?" from it: every message with its role and
turn, each tool call with its arguments and result, the usage of each model call, and the
failure. `transcript_of` projects a `Trajectory` onto `TranscriptEntry` records, once, in the
scoring step (`assay.scoring.Scoring.result`), for every way a run comes in:

- a run whose messages record what it did: an entry per message, in order. An assistant
  message's calls carry their name, id and arguments; their result is on the `tool` entry that
  answers the call (`call_id`), or on the call itself when no tool message answers it. A
  message's turn counts the user messages so far (the first user message starts turn 0). When
  the run has as many steps as assistant messages, the k-th step's usage, node and duration go
  on the k-th assistant message; otherwise none do.
- a run recorded as steps: a `user` entry with the question, an `assistant` entry per step
  (text, calls with their results, turn, node, usage, duration), then the answer, when it is
  text the last step did not already say. A run whose messages are its conversation alone (a
  live run's: the user's messages and the agent's replies, while its steps hold the calls and
  the nodes) is read this way too, each user message of the conversation placed before the
  first step of its turn. The messages are read as the record of the run unless the steps hold
  more tool calls than they do, or name nodes without pairing with the assistant messages.
- a run that failed: a last `error` entry, its text the failure after its kind
  (`timeout: ...`).

It is written for every run of an evaluation of 20,000 and more, so it is bounded: at most
`MAX_ENTRIES` entries (the first and the last `MAX_ENTRIES // 2`; the count of those left out is
returned beside them), texts cut at `MAX_TEXT_CHARS` and arguments or results whose JSON runs
past `MAX_VALUE_CHARS` replaced by that JSON text cut, each cut ending with a visible
`… (cut, N chars)`. Whatever an agent put in a call, the entries encode as JSON: a lone
surrogate is written as an escape, a value JSON cannot hold as its `repr`, a value nested
deeper than a report is written as its JSON text. Pure: no I/O.

Example:
    >>> from assay.records import Message, ToolCall, Trajectory
    >>> run = Trajectory(messages=[
    ...     Message("user", "Is pump P-7 running?"),
    ...     Message("assistant", None, [ToolCall("status", {"asset": "P-7"}, "c1")]),
    ...     Message("tool", "running", tool_call_id="c1"),
    ...     Message("assistant", "Yes.")], error="no answer in time", error_kind="timeout")
    >>> entries, left_out = transcript_of(run)
    >>> [(e.role, e.text, e.turn) for e in entries]  # doctest: +NORMALIZE_WHITESPACE
    [('user', 'Is pump P-7 running?', 0), ('assistant', None, 0), ('tool', 'running', 0),
     ('assistant', 'Yes.', 0), ('error', 'timeout: no answer in time', None)]
    >>> entries[1].calls, entries[2].call_id, left_out
    ([TranscriptCall(name='status', id='c1', args={'asset': 'P-7'}, result=None)], 'c1', 0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import msgspec
import orjson

from assay._jsonable import json_type, jsonable, nested_deeper_than
from assay._text import escape_surrogates, text_of
from assay.records import Message, Step, ToolCall, Trajectory
from assay.schema.report import TranscriptCall, TranscriptEntry

__all__ = ["MAX_ENTRIES", "MAX_TEXT_CHARS", "MAX_VALUE_CHARS", "transcript_of"]

MAX_ENTRIES = 400
"""Most entries a transcript keeps: the first and the last half of them."""

MAX_TEXT_CHARS = 8_000
"""Longest text of an entry (and name or id) kept whole; a longer one is cut with a note."""

MAX_VALUE_CHARS = 4_000
"""Longest JSON text of a call's arguments or result kept as the value; a longer one is
replaced by that text cut, with a note."""

_DEPTH = 200
"""Nesting past which a call's arguments or result are written as their JSON text (as deep as
`assay.reports.store` writes a value, below what a JSON parser reads back)."""

_ENCODE = msgspec.json.Encoder().encode


def transcript_of(run: Trajectory) -> tuple[list[TranscriptEntry], int]:
    """The transcript of `run`, and how many of its entries were left out (see the module).

    Never raises, whatever the run holds.

    Example:
        >>> from assay.records import Step, ToolCall, Usage
        >>> run = Trajectory(question="2+2?", answer="4", steps=[
        ...     Step(0, "adding", [ToolCall("add", {"a": 2, "b": 2}, result=4)],
        ...          Usage(10, 3), node="calc", turn=0)])
        >>> entries, _ = transcript_of(run)
        >>> [(e.role, e.text, [(c.name, c.result) for c in e.calls]) for e in entries]
        [('user', '2+2?', []), ('assistant', 'adding', [('add', 4)]), ('assistant', '4', [])]
        >>> entries[1].node, entries[1].tokens_in, entries[1].tokens_out
        ('calc', 10, 3)
    """
    failed = run.error is not None or run.error_kind is not None
    if _messages_record(run):
        keep = _Kept(len(run.messages) + failed)
        entries = _of_messages(run.messages, run.steps, keep)
    else:
        items = _step_items(run)
        keep = _Kept(len(items) + failed)
        entries = [_item_entry(item) for index, item in enumerate(items) if index in keep]
    if failed:
        said, kind = _text(run.error), _text(run.error_kind)
        text = f"{kind}: {said}" if kind and said else kind or said
        entries.append(TranscriptEntry(role="error", text=text))
    return entries, keep.left_out


def _messages_record(run: Trajectory) -> bool:
    """Whether the run's messages are the record of what it did: it has some, they hold as
    many tool calls as its steps, and its steps name no node unless they pair one to one with
    its assistant messages (else the messages are a conversation beside the steps)."""
    if not run.messages:
        return False
    in_messages = sum(len(message.tool_calls) for message in run.messages)
    if sum(len(step.tool_calls) for step in run.steps) > in_messages:
        return False
    if any(step.node is not None for step in run.steps):
        assistants = sum(message.role == "assistant" for message in run.messages)
        return assistants == len(run.steps)
    return True


class _Kept:
    """Which of `total` entries a transcript keeps: all of them up to `MAX_ENTRIES`, else the
    first and the last `MAX_ENTRIES // 2`."""

    __slots__ = ("head", "left_out", "tail")

    def __init__(self, total: int) -> None:
        half = MAX_ENTRIES // 2
        cut = total > MAX_ENTRIES
        self.head = half if cut else total
        """Entries before this index are kept."""
        self.tail = total - half if cut else total
        """Entries from this index on are kept."""
        self.left_out = total - MAX_ENTRIES if cut else 0

    def __contains__(self, index: int) -> bool:
        return index < self.head or index >= self.tail


def _of_messages(
    messages: Sequence[Message], steps: Sequence[Step], keep: _Kept
) -> list[TranscriptEntry]:
    """The entries of a run that records its messages, those `keep` keeps."""
    answered: set[str] = set()
    calls_by_id: dict[str, ToolCall] = {}
    assistants = 0
    for message in messages:
        if message.role == "tool" and isinstance(message.tool_call_id, str):
            answered.add(message.tool_call_id)
        elif message.role == "assistant":
            assistants += 1
        for call in message.tool_calls:
            if isinstance(call.call_id, str):
                calls_by_id.setdefault(call.call_id, call)
    mapped = assistants == len(steps)
    entries: list[TranscriptEntry] = []
    users = 0
    assistant = 0
    for index, message in enumerate(messages):
        role = message.role
        if role == "user":
            users += 1
        step: Step | None = None
        if role == "assistant":
            if mapped:
                step = steps[assistant]
            assistant += 1
        if index not in keep:
            continue
        text = _text(message.content)
        call_id = _label(message.tool_call_id)
        if role == "tool" and text is None and isinstance(message.tool_call_id, str):
            paired = calls_by_id.get(message.tool_call_id)
            if paired is not None:
                text = _text(paired.result)
        calls = [
            # A call's result is on the tool entry that answers it, when one does.
            _call(call, with_result=not _answered(call, answered))
            for call in message.tool_calls
        ]
        entry = TranscriptEntry(
            role=_label(role) or "",
            text=text,
            calls=calls,
            call_id=call_id,
            turn=max(users - 1, 0),
        )
        if step is not None:
            _add_step_figures(entry, step)
        entries.append(entry)
    return entries


_Item = tuple[str, Any, int | None]
"""An entry of a run read as steps, before it is projected: `("user", text, turn)`,
`("step", step, None)` or `("answer", text, turn)`."""


def _step_items(run: Trajectory) -> list[_Item]:
    """The entries of a run read as steps, in order: the user's messages (the question when
    the run records none) at their turns, the steps, the answer the last step did not say."""
    users: list[Any] = [m.content for m in run.messages if m.role == "user"]
    if not users and run.question is not None:
        users = [run.question]
    turned = not run.steps or any(_count(step.turn) is not None for step in run.steps)
    items: list[_Item] = []
    placed = 0  # user messages placed, the turns begun
    turn: int | None = None
    for step in run.steps:
        counted = _count(step.turn)
        if counted is not None:
            turn = counted
        while placed < len(users) and (placed == 0 or (turn is not None and placed <= turn)):
            items.append(("user", users[placed], placed))
            placed += 1
        items.append(("step", step, None))
    # The user's messages after the last step (a turn the agent did not answer), when steps
    # say their turns; else the question alone, before them.
    for rest in users[placed : len(users) if turned else 1]:
        items.append(("user", rest, placed))
        placed += 1
    last = run.steps[-1].text if run.steps else None
    if isinstance(run.answer, str) and run.answer != last:
        items.append(("answer", run.answer, turn if turn is not None else max(placed - 1, 0)))
    return items


def _item_entry(item: _Item) -> TranscriptEntry:
    kind, value, turn = item
    if kind != "step":
        role = "user" if kind == "user" else "assistant"
        return TranscriptEntry(role=role, text=_text(value), turn=turn)
    step: Step = value
    entry = TranscriptEntry(
        role="assistant",
        text=_text(step.text),
        calls=[_call(call, with_result=True) for call in step.tool_calls],
        turn=_count(step.turn),
    )
    _add_step_figures(entry, step)
    return entry


def _answered(call: ToolCall, answered: set[str]) -> bool:
    """Whether a tool message answers `call`."""
    return isinstance(call.call_id, str) and call.call_id in answered


def _add_step_figures(entry: TranscriptEntry, step: Step) -> None:
    """The usage, node and duration of the model call `step` onto `entry`."""
    usage = step.usage
    if usage.input_tokens is not None:
        entry.tokens_in = _count(usage.input_tokens)
    if usage.output_tokens is not None:
        entry.tokens_out = _count(usage.output_tokens)
    if step.node is not None:
        entry.node = _label(step.node)
    duration = step.duration_ms
    if duration is not None:
        entry.duration_ms = _duration(duration)


def _duration(value: Any) -> float | None:
    """A duration as the report holds one (a finite number), else None."""
    if type(value) is float:
        return value if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**300:
        return float(value)
    return None


def _call(call: ToolCall, *, with_result: bool) -> TranscriptCall:
    return TranscriptCall(
        name=_label(call.name) or "",
        id=_label(call.call_id),
        args=_value(call.args),
        result=_value(call.result) if with_result else None,
    )


def _count(value: Any) -> int | None:
    """A count as the report holds one (an int from 0), else None."""
    return value if type(value) is int and value >= 0 else None


def _cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note of its length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (cut, {len(text)} chars)"


def _text(value: Any) -> str | None:
    """A text of an entry: cut, lone surrogates as escapes; what is not text as its JSON."""
    if value is None:
        return None
    if type(value) is str and len(value) <= MAX_TEXT_CHARS and value.isascii():
        return value  # the usual text, as it is
    if type(value) is not str:
        value = str.__str__(value) if isinstance(value, str) else _json_text(value)
    if len(value) > MAX_TEXT_CHARS:
        return escape_surrogates(_cut(value, MAX_TEXT_CHARS))
    return escape_surrogates(value)


_label = _text
"""A role, name, id or node: text as `_text` gives it."""


def _value(value: Any) -> Any:
    """A call's arguments or result as the report holds them: as recorded when its JSON is
    short; else that JSON text, cut (text: the text itself, cut at `MAX_VALUE_CHARS`)."""
    if value is None:
        return None
    if isinstance(value, str):
        return escape_surrogates(_cut(str.__str__(value), MAX_VALUE_CHARS))
    try:
        # orjson refuses what JSON cannot hold exactly: an int past 64 bits, a lone surrogate,
        # a key that is not text, nesting past its limit, an odd object.
        data = orjson.dumps(value)
    except Exception:
        try:
            data = orjson.dumps(jsonable(value))
        except Exception:
            return escape_surrogates(_cut(_repr(value), MAX_VALUE_CHARS))
        value = orjson.loads(data)
    if len(data) > MAX_VALUE_CHARS:
        text = data.decode()
        if len(text) > MAX_VALUE_CHARS:
            return _cut(text, MAX_VALUE_CHARS)
    if (
        len(data) > 2 * _DEPTH
        and data.count(b"[") + data.count(b"{") > _DEPTH
        and nested_deeper_than(value, _DEPTH)
    ):
        return data.decode()  # short enough, but nested deeper than a report may be
    try:
        _ENCODE(value)  # what the report's writer takes (a subclass of str, it does not)
    except Exception:
        return orjson.loads(data)
    return value


def _json_text(value: Any) -> str:
    """`value` as compact JSON text, or its `repr` when JSON cannot hold it."""
    try:
        return orjson.dumps(value).decode()
    except Exception:
        try:
            return orjson.dumps(jsonable(value)).decode()
        except Exception:
            return _repr(value)


def _repr(value: Any) -> str:
    try:
        return repr(value)
    except RecursionError:
        return f"<{json_type(value)} nested too deeply to show>"
    except Exception:
        return text_of(value)
