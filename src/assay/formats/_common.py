"""What every reader in `assay.formats` shares: file access, JSON parsing, ids, arguments.

One private module on purpose: a reader imports its helpers from here, never from another
reader, so that each format stays one module that can change on its own.

Example:
    >>> parse_json(b'{"a": 1}'), parse_json(b"[1")[1]
    (({'a': 1}, None), 'invalid JSON: unexpected end of data at line 1 column 3')
    >>> id_text(11), tool_args('{"site": "MAIN"}'), count("12")
    ('11', {'site': 'MAIN'}, 12)
"""

from __future__ import annotations

import errno
import functools
import io
import math
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from assay._jsonable import json_type, json_type_phrase
from assay._text import escape_surrogates, path_text
from assay.limits import MAX_TOKEN_COUNT, format_size, input_limits, is_out_of_memory
from assay.records import Trajectory


@dataclass(slots=True)
class ReadProblem:
    """An input that could not be read, and why."""

    source: str
    """`path`, `path:LINE` (a `.jsonl` line, from 1) or `path#INDEX` (an item of a JSON list,
    from 0)."""

    reason: str
    """One line saying what is wrong, e.g. `invalid JSON: unexpected end of data at line 1
    column 4`."""

    def __post_init__(self) -> None:
        # A source is a path, and a file name need not be UTF-8: shown by the one rule of
        # `assay._text`, so that a problem can always be written, whether its maker passed
        # a path or its text.
        self.source = escape_surrogates(self.source)
        self.reason = escape_surrogates(self.reason)  # it may quote a path, or a name


INPUT_SUFFIXES = (".json", ".jsonl", ".ndjson", ".eval", ".traj")
"""The file names a directory walk takes as input (in any case)."""
LINE_SUFFIXES = (".jsonl", ".ndjson")
"""Files of one JSON value per line; every other input is one JSON document."""
PLAIN = (str, bytes, bytearray, int, float, bool, list, tuple, set, frozenset)
"""Values that are data, never message objects: reading attributes off them means nothing."""

_UTF8_BOM = b"\xef\xbb\xbf"

# Token counts arrive as text now and then ("12"); anything longer than this is not a count,
# and refusing it early keeps int() away from pathological strings.
_MAX_COUNT_TEXT = 32

_READ_CHUNK = 1 << 20

_LINE_BUFFER = 1 << 16
"""The read buffer of a file read line by line: larger than the default 8 KB, which costs a
refill every few lines of the usual run."""


def is_lines_file(path: str | Path) -> bool:
    """Whether `path` names a file of JSON lines (`.jsonl` or `.ndjson`, in any case).

    Example:
        >>> is_lines_file("runs.JSONL"), is_lines_file("runs.json")
        (True, False)
    """
    return os.fspath(path).lower().endswith(LINE_SUFFIXES)


# --- files ---------------------------------------------------------------------------------


def walk_inputs(path: Path, exclude: Sequence[Path] = ()) -> Iterator[str | ReadProblem]:
    """The input files under `path`, as strings, and a problem for each directory not read.

    A file is yielded as is (reading it reports what is wrong with it). A directory is walked
    recursively for `INPUT_SUFFIXES`, skipping hidden entries and the `exclude` directories,
    in a stable sorted order. A problem is yielded, never silence, for a directory that cannot
    be listed, a directory with no input at all, a symbolic link to a directory (not followed:
    a link can loop, or lead anywhere on the disk; a link to a file is read as the file), and
    an assay reports directory (one holding `REPORTS_MARKER`, or, as reports written before
    the marker existed, both `_aggregate.json` and `results.jsonl`): reports are not runs.

    Example:
        >>> list(walk_inputs(Path("runs/11.json")))
        ['runs/11.json']
    """
    if not path.is_dir():
        yield str(path)
        return
    errors: list[OSError] = []
    skipped: list[ReadProblem] = []
    found_any = False
    # Directories never read as input, such as the reports directory when it sits inside the
    # runs directory: its reports must not come back as runs.
    excluded = {os.path.realpath(p) for p in exclude}
    # os.walk rather than Path.rglob: it lets directories be pruned before descending, does
    # not follow directory symlinks (no loops), and reports unlistable directories.
    # Files are yielded directory by directory (each sorted, directories visited in sorted
    # order) so that the order is stable without holding every path of a large tree at once.
    for dirpath, dirnames, filenames in os.walk(path, onerror=errors.append):
        reports = _reports_directory(filenames)
        if reports is not None:
            # Its subdirectories are not runs either: a reports directory holds none of its own.
            dirnames.clear()
            skipped.append(ReadProblem(dirpath, reports))
            continue
        kept = []
        for name in sorted(dirnames):
            if name.startswith("."):
                continue
            child = os.path.join(dirpath, name)  # noqa: PTH118
            if excluded and os.path.realpath(child) in excluded:
                continue
            # os.walk lists a link to a directory among the directories and does not enter it.
            if os.path.islink(child):  # noqa: PTH114
                skipped.append(ReadProblem(child, _LINKED_DIRECTORY))
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            lowered = name.lower()
            if lowered.endswith(INPUT_SUFFIXES):
                found_any = True
                yield os.path.join(dirpath, name)  # noqa: PTH118
    if not found_any and not errors and not skipped:
        # An empty directory is almost always a wrong path; say so instead of reading nothing.
        yield ReadProblem(str(path), "no .json, .jsonl, .ndjson, .eval or .traj files in directory")
    yield from skipped
    for error in errors:
        yield ReadProblem(
            error.filename or str(path), f"cannot list directory: {os_reason(error)}"
        )


REPORTS_MARKER = ".assay_reports"
"""The file every assay reports directory holds (written by `assay.reports.store`).
Not `.assay-...`: that prefix names the temporaries an evaluation leaves only when killed."""

_LINKED_DIRECTORY = "symbolic link to a directory, not followed"
_REPORTS_SKIPPED = "an assay reports directory (it holds {}), not read as runs"


def _reports_directory(filenames: list[str]) -> str | None:
    """Why a directory holding `filenames` is an assay reports directory, or None."""
    if REPORTS_MARKER in filenames:
        return _REPORTS_SKIPPED.format(REPORTS_MARKER)
    # Reports written before the marker existed: these two names together are assay's own.
    if "_aggregate.json" in filenames and "results.jsonl" in filenames:
        return _REPORTS_SKIPPED.format("_aggregate.json and results.jsonl")
    return None


def read_bytes(path: str | Path) -> bytes | ReadProblem:
    """The bytes of `path` without a UTF-8 byte-order mark, or why they cannot be read.

    A file larger than the limit in force (`assay.limits.input_limits`) is not read at all:
    its size is taken from the open file, and no more than the limit and one byte is read
    should it grow meanwhile.

    Example:
        >>> from assay.limits import InputLimits, using_input_limits
        >>> import tempfile
        >>> path = tempfile.mkstemp(suffix=".json")[1]
        >>> os.truncate(path, 3 * 2**20)
        >>> with using_input_limits(InputLimits(max_file_bytes=2**20)):
        ...     read_bytes(path).reason
        'file is 3 MB; the limit is 1 MB (--max-file-size)'
        >>> os.remove(path)
    """
    try:
        data = _read_whole(path, input_limits().max_file_bytes)
    except OSError as error:
        return ReadProblem(str(path), f"cannot read file: {os_reason(error)}")
    except _TooLargeError as error:
        return ReadProblem(str(path), str(error))
    except MemoryError:
        # One allocation too many for this file: what was read is freed as the error unwinds,
        # and the next input is read as usual (see `parse_json`).
        return ReadProblem(str(path), _NO_MEMORY)
    # Editors on some systems write a BOM; orjson refuses it, and it carries no meaning.
    return data[3:] if data.startswith(_UTF8_BOM) else data


def load_json(path: str | Path) -> tuple[Any, ReadProblem | None]:
    """The JSON document in the file at `path`, or `(None, problem)` when it cannot be read,
    is empty or is not JSON.

    Example:
        >>> load_json("no/such/file.json")[1].reason
        'cannot read file: No such file or directory'
    """
    source = str(path)
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return None, data
    if not data or data.isspace():
        return None, ReadProblem(source, "empty file")
    value, reason = parse_json(data)
    if reason is not None and reason.startswith("invalid JSON"):
        # JSON documents written one after another (as OpenTelemetry's console exporter
        # writes spans into a file) are read as the list of them.
        from assay.formats._otel_concatenated import split_concatenated

        documents = split_concatenated(bytes(data))
        if documents is not None:
            return documents, None
    if reason is not None:
        return None, ReadProblem(source, reason)
    return value, None


def parse_json(data: bytes | memoryview) -> tuple[Any, str | None]:
    """`(value, None)` for a JSON document, `(None, reason)` when it is not one.

    Running out of memory while parsing is a reason too: the failed allocation was for this
    document, whose partial value is freed as the error unwinds, so the input is unreadable
    and the next one is read as usual. (Were memory exhausted by something held elsewhere,
    every following input would say so in turn: never a score, never a silent skip.)

    Example:
        >>> parse_json(b'{"id": "\\\\ud800"}')[1]
        'invalid JSON: no low surrogate in string at line 1 column 9'
    """
    try:
        return orjson.loads(data), None
    except (MemoryError, SystemError) as error:
        if not is_out_of_memory(error):
            raise
        return None, _NO_MEMORY
    except orjson.JSONDecodeError as error:
        # Only on the failure path: tell "not text at all" apart from "text, but not JSON",
        # which orjson reports with the same exception and a less helpful message.
        try:
            bytes(data).decode("utf-8")
        except UnicodeDecodeError as bad:
            return None, f"not UTF-8: undecodable byte at offset {bad.start}"
        return None, f"invalid JSON: {error.msg} at line {error.lineno} column {error.colno}"


def jsonl_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """`(line number from 1, line)` for each non-blank line of a JSONL file.
    """
    for number, line in enumerate(data.split(b"\n"), start=1):
        if line and not line.isspace():
            yield number, line



def jsonl_run_lines(
    path: str | Path, *, whole: bool = False
) -> Iterator[tuple[bytes, str] | ReadProblem]:
    """The non-blank lines of a `.jsonl` run file as `(line, source)`, not yet parsed.

    Read line by line, never whole: a JSONL file can hold any number of runs. A file that
    cannot be read (or stops being readable part-way), or holds no line at all, gives a
    problem. Each line becomes a run with `run_from_line`; the pipeline hands lines to its
    workers in batches this way.

    A line longer than the limit in force (`assay.limits.input_limits`) is a problem of its
    own, skipped in pieces without being held, and the lines after it are read. With `whole`
    (for a reader that holds every line at once) the file's size is capped as a file read
    whole is (`read_bytes`).

    Example:
        >>> import tempfile
        >>> path = tempfile.mkstemp(suffix=".jsonl")[1]
        >>> _ = open(path, "wb").write(b'{"run_id": "a"}\\n\\n[1]\\n')
        >>> [source.rsplit(":", 1)[1] for _, source in jsonl_run_lines(path)]
        ['1', '3']
        >>> os.remove(path)
    """
    label = path_text(path)
    limits = input_limits()
    try:
        descriptor, size = open_regular(path)
    except OSError as error:
        yield ReadProblem(label, f"cannot read file: {os_reason(error)}")
        return
    if whole and size > limits.max_file_bytes:
        os.close(descriptor)
        yield ReadProblem(label, _too_large(size, limits.max_file_bytes))
        return
    longest = limits.max_line_bytes
    empty = True
    total = 0
    with io.BufferedReader(io.FileIO(descriptor, "rb"), _LINE_BUFFER) as handle:
        number = 0
        try:
            # readline with a bound: an endless line is never read whole.
            lines = iter(functools.partial(handle.readline, longest + 1), b"")
            for number, line in enumerate(lines, start=1):
                if len(line) > longest and line[-1:] != b"\n":
                    del line  # up to the limit: not kept while the rest is skipped
                    empty = False
                    length = _skip_line(handle, longest + 1)
                    total += length
                    yield ReadProblem(f"{label}:{number}", _line_too_long(length, longest))
                    continue
                if whole:
                    total += len(line)
                    if total > limits.max_file_bytes:
                        yield ReadProblem(label, _grew(limits.max_file_bytes))
                        return
                if number == 1 and line.startswith(_UTF8_BOM):
                    line = line[len(_UTF8_BOM) :]
                if not line or line.isspace():
                    continue
                empty = False
                yield line, f"{label}:{number}"
        except OSError as error:
            yield ReadProblem(f"{label}:{number + 1}", f"cannot read file: {os_reason(error)}")
            return
    if empty:
        yield ReadProblem(label, "empty file")


def _skip_line(handle: io.BufferedReader[io.FileIO], length: int) -> int:
    """Read past the rest of a line whose first `length` bytes were read; the line's length
    (without its newline). Read in pieces into one buffer: nothing of the line is kept."""
    piece = bytearray(_READ_CHUNK)
    while size := handle.readinto(piece):
        end = piece.find(b"\n", 0, size)
        if end >= 0:
            handle.seek(end + 1 - size, os.SEEK_CUR)  # back to where the next line starts
            return length + end
        length += size
    return length


def os_reason(error: OSError) -> str:
    """An OS error as a short reason (`No such file or directory`)."""
    return error.strerror or str(error) or type(error).__name__



def open_regular(path: str | Path) -> tuple[int, int]:
    """A descriptor for `path` and its size, if it is a regular file; OSError otherwise.

    A FIFO or a device named like a run file (`x.json -> /dev/zero`) would block or never end;
    O_NONBLOCK keeps the open itself from waiting on a FIFO, and regular files ignore it.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "not a regular file")
    return descriptor, status.st_size


class _TooLargeError(Exception):
    """A file past the size limit; the message is the problem's reason."""


_NO_MEMORY = "not enough memory to read it (--max-file-size and --max-line-size bound what is read)"


def _too_large(size: int, limit: int) -> str:
    return f"file is {format_size(size)}; the limit is {format_size(limit)} (--max-file-size)"


def _grew(limit: int) -> str:
    return f"file grew past the limit of {format_size(limit)} while read (--max-file-size)"


def _line_too_long(size: int, limit: int) -> str:
    return f"line is {format_size(size)}; the limit is {format_size(limit)} (--max-line-size)"


def _read_whole(path: str | Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    Raises:
        OSError: it cannot be read, or is no regular file.
        _TooLargeError: it is (or grew while read to be) larger than `limit`.
    """
    # os.open/os.read rather than open(): no buffered file object for a file read in one go,
    # about three times faster on the small files runs and ground truth come in.
    descriptor, size = open_regular(path)
    try:
        if size > limit:
            raise _TooLargeError(_too_large(size, limit))
        # One byte more than the size, in one call: a short read is the end of a regular
        # file, so the file is read without joining pieces (a copy of it all), and one that
        # grew meanwhile is still read whole, in pieces, up to one byte past the limit. The
        # size is at most the limit here, so no more is allocated than the limit allows.
        wanted = size + 1
        first = os.read(descriptor, wanted)
        if len(first) < wanted:
            return first
        chunks = [first]
        total = len(first)
        while total <= limit and (
            chunk := os.read(descriptor, min(_READ_CHUNK, limit + 1 - total))
        ):
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise _TooLargeError(_grew(limit))
    finally:
        os.close(descriptor)
    return b"".join(chunks)


# --- values --------------------------------------------------------------------------------


class UnusableId(str):
    """The text of an id field whose value cannot be an id: refused with
    `unusable_id_reason`, never joined (`scenario_key` gives None)."""

    __slots__ = ()


class MistypedId(UnusableId):
    """A run's own id field holding what is no id (an object, an array, a boolean): its text
    says what it held (`an object`). See `record_id`."""

    __slots__ = ()


class InexactId(UnusableId):
    """The text of an id that was a number too large to be read exactly: refused, never used.

    JSON numbers are read as 64-bit integers, or else as floating point, which keeps about 16
    significant digits: `123456789012345678901234567890` arrives as `1.2345678901234568e+29`,
    and two different ids can arrive as one. `id_text` gives such an id as this type, which
    `scenario_key` never joins and the readers refuse with `inexact_id_reason`.
    """

    __slots__ = ()


_EXACT_FLOAT = 2.0**53
"""Every integer below this is a float exactly; past it, an id's digits may have been lost."""


def id_text(value: Any) -> str | None:
    """An id as written; numbers become their text (11 -> \"11\"); the join normalises later.

    A number too large to have been read exactly (a float of 2**53 or more, which is what an
    integer past 64 bits becomes) is an `InexactId`: its digits are not the ones written.

    Example:
        >>> id_text(123456789012345678901234567890), id_text(11.5), id_text(True)
        ('123456789012345678901234567890', '11.5', None)
        >>> isinstance(id_text(1.2345678901234568e29), InexactId)
        True
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if abs(value) >= _EXACT_FLOAT:
            return InexactId(repr(value))
        return repr(value)
    return None


def record_id(value: Any) -> str | None:
    """A run's own id (`run_id`, `scenario_id`) as `id_text` reads it, but a value that is
    no id is not dropped in silence: it is a `MistypedId`, and the run is refused with the
    reason rather than named after something else.

    Example:
        >>> record_id(11), record_id(None), record_id({"id": 1})
        ('11', None, 'an object')
        >>> isinstance(record_id([1]), MistypedId)
        True
    """
    text = id_text(value)
    if text is None and value is not None:
        return MistypedId(json_type_phrase(value))
    return text


def unusable_id_reason(field: str, value: UnusableId) -> str:
    """Why an `UnusableId` read from `field` is refused.

    Example:
        >>> unusable_id_reason("run_id", MistypedId("an object"))
        'run_id is an object, not text or a number'
    """
    if isinstance(value, InexactId):
        return inexact_id_reason(field, value)
    return f"{field} is {value}, not text or a number"


def inexact_id_reason(field: str, value: str) -> str:
    """Why an `InexactId` read from `field` is refused.

    Example:
        >>> inexact_id_reason("run_id", "1.2345678901234568e+29")[:51]
        'run_id 1.2345678901234568e+29 is a number too large'
    """
    return (
        f"{field} {value} is a number too large to be read exactly (a JSON reader keeps "
        "about 16 of its digits); write the id as a string"
    )



def count(value: Any) -> int | None:
    """A token count as recorded: a non-negative int from a number or numeric text; None for
    a count that is absent or is not one (a count never recorded is unknown, not 0), and for
    one past `MAX_TOKEN_COUNT` (a broken record, which could overflow a report's totals).

    Example:
        >>> count(12), count("12"), count(1.0), count(None), count("many"), count(-3)
        (12, 12, 1, None, None, None)
        >>> count(1e300), count(2**64 - 1)
        (None, None)
    """
    number = _whole_count(value)
    return number if number is not None and number <= MAX_TOKEN_COUNT else None


def _whole_count(value: Any) -> int | None:
    if type(value) is int:  # the usual case, first (bool is not `int` by this test)
        return value if value >= 0 else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value) if value >= 0 else None
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value >= 0 else None
    if isinstance(value, str) and len(value) <= _MAX_COUNT_TEXT:
        try:
            number = int(value)
        except ValueError:
            try:
                real = float(value)
            except ValueError:
                return None
            return int(real) if math.isfinite(real) and real >= 0 else None
        return number if number >= 0 else None
    return None


def tool_args(value: Any) -> dict[str, Any] | str | None:
    """Tool-call arguments: a dict when they are (JSON text of) an object, else their text.

    Never raises: malformed JSON and JSON that is not an object are kept as the raw string, and
    other values become their JSON text (or, failing that, a plain description).

    Example:
        >>> tool_args('{"site": "MAIN"}'), tool_args("{site"), tool_args([1, 2])
        ({'site': 'MAIN'}, '{site', '[1,2]')
    """
    if value is None or isinstance(value, dict):
        return value
    if isinstance(value, bytes | bytearray):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            parsed = orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
        return parsed if isinstance(parsed, dict) else value
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:  # not JSON (an SDK object, a huge int) or nested past orjson's limit
        return safe_text(value)


def safe_text(value: Any) -> str:
    """`str(value)`, or the type's name when even that fails (hostile `__str__`, deep nesting).
    """
    try:
        return str(value)
    except Exception:  # RecursionError included: str() of a very deep structure
        return f"<{type(value).__name__}>"


# --- shapes ----------------------------------------------------------------------------------

_LANGCHAIN_TYPES = frozenset({"human", "ai", "tool", "system", "function", "chat"})

# Enough messages to see a tool call or a LangChain marker; the rest only cost time.
_MESSAGES_LOOKED_AT = 50

_KEYS_SHOWN = 6


def first_item(value: Any) -> Any:
    """The first object or list in a JSON list (what a list's shape is told by), else None.

    Example:
        >>> first_item([1, {"a": 1}, [2]]), first_item({"a": 1})
        ({'a': 1}, None)
    """
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                return item
    return None


def chat_flavour(messages: Any) -> str | None:
    """`"langchain"`, `"openai"` or None: which kind of chat messages a list holds.

    LangChain messages have a `type` (`human`, `ai`, ...) and no `role`, or come serialised
    (`{"lc": 1, "type": "constructor"}`), or carry tool calls with `args`; OpenAI messages
    have a `role`. Only the first messages are looked at.

    Example:
        >>> chat_flavour([{"type": "human", "content": "hi"}]), chat_flavour([{"role": "user"}])
        ('langchain', 'openai')
    """
    if not isinstance(messages, list):
        return None
    verdict = None
    for message in messages[:_MESSAGES_LOOKED_AT]:
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "constructor" and "lc" in message:
            return "langchain"
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


def chat_shape(value: Any) -> str | None:
    """Which kind of chat a parsed file (or line) holds: `chat_flavour` of its messages.

    A conversation is a message list, or an object with `messages` (or `request.messages`); a
    file may hold one, or a list of them.

    Example:
        >>> chat_shape({"messages": [{"role": "user", "content": "hi"}]})
        'openai'
        >>> chat_shape([[{"type": "ai", "content": "hi"}]]), chat_shape({"run_id": 1})
        ('langchain', None)
    """
    if isinstance(value, dict):
        messages = value.get("messages")
        request = value.get("request")
        if messages is None and isinstance(request, dict):
            messages = request.get("messages")
        return chat_flavour(messages)
    first = first_item(value)
    if isinstance(first, list):  # a list of conversations, each a message list
        return chat_flavour(first)
    if isinstance(first, dict):
        if isinstance(first.get("messages"), list):
            return chat_flavour(first["messages"])
        return chat_flavour(value)
    return None


def conversations(value: Any, source: str) -> Iterator[tuple[Any, str]]:
    """The conversations in a parsed chat file, each with its source (`path#INDEX` for the
    items of a list of conversations).

    Example:
        >>> [where for _, where in conversations([[], {"messages": []}], "chats.json")]
        ['chats.json#0', 'chats.json#1']
    """
    if isinstance(value, list) and value and all(_is_conversation(item) for item in value):
        for index, item in enumerate(value):
            yield item, f"{source}#{index}"
    else:
        yield value, source


def _is_conversation(item: Any) -> bool:
    return isinstance(item, list) or (isinstance(item, dict) and "messages" in item)


def describe(value: Any) -> str:
    """A JSON value's shape in a few words, for a problem's reason.

    Example:
        >>> describe({"trajectory": [], "history": [], "info": {}})
        'an object with keys trajectory, history, info'
        >>> describe([{"a": 1}]), describe([]), describe("x")
        ('a list of objects with keys a', 'an empty list', 'a string')
    """
    if isinstance(value, dict):
        if not value:
            return "an empty object"
        keys = [str(key) for key in list(value)[: _KEYS_SHOWN + 1]]
        shown = ", ".join(keys[:_KEYS_SHOWN]) + (", ..." if len(keys) > _KEYS_SHOWN else "")
        return f"an object with keys {shown}"
    if isinstance(value, list):
        if not value:
            return "an empty list"
        first = first_item(value)
        if isinstance(first, dict):
            return "a list of " + describe(first)[3:].replace("object ", "objects ", 1)
        if isinstance(first, list):
            return "a list of lists"
        return f"a list of {json_type(value[0])}s"
    name = json_type(value)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


# --- run names -------------------------------------------------------------------------------

_NAME_SUFFIXES = (".evalset.json", ".test.json", ".jsonl", ".ndjson", ".json")


def named(items: Iterator[Trajectory | ReadProblem] | list[Trajectory | ReadProblem]) -> (
    Iterator[Trajectory | ReadProblem]
):
    """`items`, each run without an id of its own named after its source (see `source_id`)."""
    for item in items:
        if isinstance(item, Trajectory) and item.run_id is None:
            item.run_id = source_id(item.source)
        yield item


def source_id(source: str) -> str:
    """A run id from where a run was read: the file's stem and its place in the file.

    Runs of formats that record no id of their own stay apart in reports this way.

    Example:
        >>> source_id("dir/chat.json#2"), source_id("dir/chats.jsonl:3"), source_id("a.json")
        ('chat#2', 'chats:3', 'a')
    """
    name = os.path.basename(source)  # noqa: PTH119
    stem, sep, place = name, "", ""
    for marker in ("#", ":"):
        head, found, tail = name.rpartition(marker)
        if found and tail.isdigit():
            stem, sep, place = head, marker, tail
            break
    for suffix in _NAME_SUFFIXES:
        if stem.lower().endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return f"{stem}{sep}{place}"
