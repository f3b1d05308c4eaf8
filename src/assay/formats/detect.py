"""Trajectory files in any supported format: tell the format, then read the runs.

Formats, by the name `assay convert --from` uses:

- `openai`: OpenAI chat-completions messages (`assay.formats.openai_chat`);
- `langchain`: LangChain / LangGraph messages (`assay.formats.langchain`);
- `adk`: Google ADK eval sets, `.evalset.json` / `.test.json` (`assay.formats.adk`);
- `maseval`: MASEval benchmark reports (`assay.formats.maseval`);
- `otel`: OpenTelemetry GenAI spans as OTLP JSON (`assay.formats.otel`);
- `assetopsbench`: saved AssetOpsBench runs, assay's own run shape
  (`assay.formats.assetopsbench`).

A `.json` file holds one conversation (a list of messages, or an object with `messages`) or
many (a list of such objects, or a list of message lists); a `.jsonl` (or `.ndjson`) file holds
one per line. The format is told from the content (ADK also from the file name); a file whose
format cannot be told is reported, not guessed at.

Example:
    >>> detect_format("agent.evalset.json")
    'adk'
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from assay._jsonable import json_type
from assay.formats.adk import trajectories_from_adk
from assay.formats.assetopsbench import (
    ReadProblem,
    jsonl_run_lines,
    parse_json,
    read_bytes,
    read_run_file,
    run_from_line,
)
from assay.formats.langchain import trajectory_from_langchain_messages
from assay.formats.maseval import trajectories_from_maseval
from assay.formats.openai_chat import trajectory_from_openai_messages
from assay.formats.otel import trajectories_from_otlp
from assay.records import Trajectory

__all__ = ["FORMATS", "detect_format", "read_trajectories"]

FORMATS = ("openai", "langchain", "adk", "maseval", "otel", "assetopsbench")
"""The format names `read_trajectories` accepts (besides `auto`)."""

_ADK_NAMES = (".evalset.json", ".test.json")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")
_RUN_FIELDS = ("run_id", "scenario_id", "answer", "trajectory")
_LANGCHAIN_TYPES = frozenset({"human", "ai", "tool", "system", "function", "chat"})
_SPAN_FIELDS = ("traceId", "trace_id", "spanId", "span_id")

# Enough messages to see a tool call or a LangChain marker; the rest only cost time.
_MESSAGES_LOOKED_AT = 50


def detect_format(path: str | Path) -> str | None:
    """The format of a trajectory file, told from its name and content; None when unknown.

    `.evalset.json` and `.test.json` files are ADK eval sets. Otherwise the content decides:
    the whole document of a JSON file, the first non-blank line of a JSONL file. A file that
    cannot be read or parsed has no format.

    Args:
        path: The file.

    Returns:
        One of `FORMATS`, or None.

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "chat.json"
        >>> _ = path.write_text('[{"role": "user", "content": "hi"}]')
        >>> detect_format(path)
        'openai'
    """
    if _adk_name(path):
        return "adk"
    if _is_jsonl(path):
        for item in jsonl_run_lines(path):
            if isinstance(item, ReadProblem):
                return None
            value, reason = parse_json(item[0])
            return None if reason is not None else classify(value)
        return None
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return None
    value, reason = parse_json(data)
    return None if reason is not None else classify(value)


def read_trajectories(path: str | Path, fmt: str = "auto") -> Iterator[Trajectory | ReadProblem]:
    """Every run in a trajectory file, one at a time, never raising.

    A run without an id of its own gets one from the file name and its place in the file
    (`chat`, `chat#2` for the third item of a JSON list, `chats:3` for line 3 of a JSONL file),
    so that runs stay apart in reports. Anything unusable (an unreadable file, invalid JSON, a
    conversation with no message, a format that cannot be told) is a `ReadProblem`, and
    reading goes on.

    Args:
        path: The file.
        fmt: One of `FORMATS`, or `auto` to tell it from the file.

    Yields:
        A `Trajectory` per run and a `ReadProblem` per unusable part, in file order.

    Example:
        >>> [item.reason for item in read_trajectories("no/such/file.json")]
        ['cannot read file: No such file or directory']
    """
    source = str(path)
    if fmt != "auto" and fmt not in FORMATS:
        yield ReadProblem(source, f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
        return
    if fmt == "assetopsbench":
        yield from read_run_file(path)
        return
    if _is_jsonl(path):
        yield from _read_jsonl(path, fmt)
        return
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        yield data
        return
    if not data or data.isspace():
        yield ReadProblem(source, "empty file")
        return
    value, reason = parse_json(data)
    if reason is not None:
        yield ReadProblem(source, reason)
        return
    if fmt == "auto":
        found = "adk" if _adk_name(path) else classify(value)
        if found is None:
            yield ReadProblem(source, _unknown(value))
            return
        fmt = found
    if fmt == "assetopsbench":
        yield from read_run_file(path)
    elif fmt in ("openai", "langchain"):
        for conversation, item_source in _conversations(value, source):
            yield _conversation(conversation, fmt, item_source)
    else:
        yield from _named(_document(value, fmt, source))


def classify(value: Any) -> str | None:
    """The format a parsed JSON document (or JSONL line) is in, or None.

    Shared with the command line; not re-exported.

    Example:
        >>> classify({"messages": [{"type": "human", "content": "hi"}]})
        'langchain'
    """
    if isinstance(value, dict):
        return _classify_object(value)
    if not isinstance(value, list) or not value:
        return None
    first = next((item for item in value if isinstance(item, dict | list)), None)
    if isinstance(first, list):
        return _classify_messages(first)  # a list of conversations, each a message list
    if not isinstance(first, dict):
        return None
    if any(key in first for key in _SPAN_FIELDS) or "resourceSpans" in first:
        return "otel"
    if "query" in first and ("reference" in first or "expected_tool_use" in first):
        return "adk"
    if ("eval_id" in first or "evalId" in first) and "conversation" in first:
        return "adk"
    if isinstance(first.get("data"), list) and "name" in first:
        entries = first["data"]
        if entries and isinstance(entries[0], dict) and "query" in entries[0]:
            return "adk"
    if isinstance(first.get("traces"), dict):
        return "maseval"
    if isinstance(first.get("messages"), list):
        return _classify_messages(first["messages"])
    messages = _classify_messages(value)
    if messages is not None:
        return messages
    if any(key in first for key in _RUN_FIELDS):
        return "assetopsbench"
    return None


def _classify_object(value: dict[str, Any]) -> str | None:
    if "resourceSpans" in value or "resource_spans" in value:
        return "otel"
    if "eval_cases" in value or "evalCases" in value:
        return "adk"
    traces = value.get("traces")
    if isinstance(traces, dict) and ("task_id" in value or "agents" in traces):
        return "maseval"
    agents = value.get("agents")
    if isinstance(agents, dict) and any(
        isinstance(agent, dict) and "messages" in agent for agent in agents.values()
    ):
        return "maseval"
    if "trajectory" in value:
        return "assetopsbench"
    messages = value.get("messages")
    request = value.get("request")
    if messages is None and isinstance(request, dict):
        messages = request.get("messages")
    if isinstance(messages, list):
        return _classify_messages(messages)
    if any(key in value for key in _SPAN_FIELDS) or ("context" in value and "name" in value):
        return "otel"
    if any(key in value for key in _RUN_FIELDS):
        return "assetopsbench"
    return None


def _classify_messages(messages: list[Any]) -> str | None:
    verdict = None
    for message in messages[:_MESSAGES_LOOKED_AT]:
        if not isinstance(message, dict):
            continue
        if message.get("type") == "constructor" and "lc" in message:
            return "langchain"
        kind = message.get("type")
        if isinstance(kind, str) and kind.lower() in _LANGCHAIN_TYPES and "role" not in message:
            return "langchain"
        if "role" in message:
            calls = message.get("tool_calls")
            if isinstance(calls, list) and any(
                isinstance(call, dict) and "args" in call and "function" not in call
                for call in calls
            ):
                return "langchain"
            verdict = "openai"
    return verdict


# --- reading -------------------------------------------------------------------------------


def _read_jsonl(path: str | Path, fmt: str) -> Iterator[Trajectory | ReadProblem]:
    # Spans of one trace may be exported in several batches (lines): OTLP lines are gathered
    # and converted together at the end; every other format is converted line by line.
    exports: list[Any] = []
    for item in jsonl_run_lines(path):
        if isinstance(item, ReadProblem):
            yield item
            continue
        line, source = item
        value, reason = parse_json(line)
        if reason is not None:
            yield ReadProblem(source, reason)
            continue
        if fmt == "auto":
            found = classify(value)
            if found is None:
                yield ReadProblem(source, _unknown(value))
                continue
            # The first line that can be told decides for the file: one run shape a file.
            fmt = found
        if fmt == "otel":
            exports.append(value)
        elif fmt == "assetopsbench":
            yield run_from_line(line, source)
        elif fmt in ("openai", "langchain"):
            yield _conversation(value, fmt, source)
        else:
            yield from _named(_document(value, fmt, source))
    if exports:
        yield from _named(trajectories_from_otlp(exports, str(path)))


def _document(value: Any, fmt: str, source: str) -> list[Trajectory | ReadProblem]:
    if fmt == "adk":
        return list(trajectories_from_adk(value, source))
    if fmt == "otel":
        return list(trajectories_from_otlp(value, source))
    return list(trajectories_from_maseval(value, source))


def _conversations(value: Any, source: str) -> Iterator[tuple[Any, str]]:
    if isinstance(value, list) and value and all(_is_conversation(item) for item in value):
        for index, item in enumerate(value):
            yield item, f"{source}#{index}"
    else:
        yield value, source


def _is_conversation(item: Any) -> bool:
    return isinstance(item, list) or (isinstance(item, dict) and "messages" in item)


def _conversation(value: Any, fmt: str, source: str) -> Trajectory | ReadProblem:
    if fmt == "openai":
        run = trajectory_from_openai_messages(value, source=source)
    else:
        run = trajectory_from_langchain_messages(value, source=source)
    if not run.messages and not run.steps:
        return ReadProblem(source, f"no chat messages found (got {json_type(value)})")
    return _with_run_id(run)


def _named(items: list[Trajectory | ReadProblem]) -> Iterator[Trajectory | ReadProblem]:
    for item in items:
        yield item if isinstance(item, ReadProblem) else _with_run_id(item)


def _with_run_id(run: Trajectory) -> Trajectory:
    if run.run_id is None:
        run.run_id = _source_id(run.source)
    return run


def _source_id(source: str) -> str:
    """`dir/chat.json#2` -> `chat#2`; `dir/chats.jsonl:3` -> `chats:3`."""
    name = os.path.basename(source)  # noqa: PTH119
    stem, sep, place = name, "", ""
    for marker in ("#", ":"):
        head, found, tail = name.rpartition(marker)
        if found and tail.isdigit():
            stem, sep, place = head, marker, tail
            break
    for suffix in (*_ADK_NAMES, *_JSONL_SUFFIXES, ".json"):
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return f"{stem}{sep}{place}"


def _unknown(value: Any) -> str:
    return (
        f"cannot tell the format of this {json_type(value)} (use --from to name it: "
        f"{', '.join(FORMATS)})"
    )


def _adk_name(path: str | Path) -> bool:
    return os.fspath(path).lower().endswith(_ADK_NAMES)


def _is_jsonl(path: str | Path) -> bool:
    return os.fspath(path).lower().endswith(_JSONL_SUFFIXES)
