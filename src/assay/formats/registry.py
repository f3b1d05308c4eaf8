"""Readers of trajectory files: each format registers itself, and every command reads through here.

A reader is a name, a `sniff` and a `read`:

- `sniff(name, value)` takes a cheap look at a file: its name (lower case, no directory) and
  its parsed JSON (the whole document of a `.json` file, the first usable line of a `.jsonl` /
  `.ndjson` file), and says whether the reader claims it. It must not raise.
- `read(value, source)` turns that parsed JSON into runs and problems. A reader of lines is
  handed one line at a time (`source` is `path:LINE`); a reader registered with
  `lines="together"` (spans of one trace may sit on several lines) gets the list of every
  line's value at once.

Each format is one module of `assay.formats` that calls `register_reader` when imported. The
built-in modules are imported when first needed, in the order of `BUILTIN_MODULES` (a test keeps
that tuple equal to the modules that register); a file goes to the first reader that claims it,
readers registered from outside assay being asked first. A file no reader claims, or in which
its reader finds nothing, is a `ReadProblem` saying what the file looked like: nothing is
guessed. JSON with no object in it (a number, a list of strings) is no run of any format, and
no reader is asked about it.

`assay evaluate` and `assay convert` read with `input_pieces` and `read_piece`: a `.json` file is
one piece, read where the piece is read (in a worker process, say), and a file of lines is split
here, one piece per line, so that one run at a time is in memory and a big file is shared out
line by line.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "11.json"
    >>> _ = path.write_text('{"run_id": "r1", "scenario_id": 11, "answer": "3"}')
    >>> [(run.run_id, run.answer) for run in read_file(path)]
    [('r1', '3')]
    >>> _ = path.write_text('{"steps": [], "info": {}}')
    >>> (problem,) = read_file(path)
    >>> problem.reason[:52]
    'not a run file any reader knows: an object with keys'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from importlib import import_module
from pathlib import Path
from typing import Any, Literal, NamedTuple

from assay._text import path_text
from assay.formats._common import (
    REPORTS_MARKER,
    ReadProblem,
    UnusableId,
    describe,
    first_item,
    is_lines_file,
    jsonl_run_lines,
    load_json,
    parse_json,
    unusable_id_reason,
    walk_inputs,
)
from assay.records import Trajectory

__all__ = [
    "BUILTIN_MODULES",
    "REPORTS_MARKER",
    "ReadProblem",
    "Reader",
    "UnknownReaderError",
    "detect_reader",
    "get_reader",
    "input_pieces",
    "read_file",
    "read_piece",
    "reader_names",
    "register_reader",
    "unregister_reader",
    "walk_inputs",
]

Sniff = Callable[[str, Any], bool]
"""`(file name in lower case, parsed JSON) -> whether the reader claims the file`."""
Read = Callable[[Any, str], Iterable[Trajectory | ReadProblem]]
"""`(parsed JSON, source) -> the runs and problems in it`."""

BUILTIN_MODULES = (
    # The usual input first: assay's own run shape is what `assay evaluate` mostly reads, and
    # a file it claims needs no other reader imported.
    "assay.formats.assetopsbench",
    "assay.formats.track1",
    "assay.formats.adk",
    "assay.formats.adk_results",
    "assay.formats.maseval",
    "assay.formats.inspect_log",
    "assay.formats.taubench",
    "assay.formats.swe_agent",
    "assay.formats.langsmith",
    "assay.formats.langgraph_updates",
    "assay.formats.otel",
    "assay.formats.openai_chat",
    "assay.formats.langchain",
)
"""The modules of the built-in readers, in the order their readers are asked."""

UNPACKERS = {
    ".eval": ("assay.formats.inspect_log", "load_eval_archive"),
    ".evalset_result.json": ("assay.formats.adk_results", "load_evalset_result"),
}
"""Run files that are not read as plain JSON, by suffix: the module and function that turn
one into the JSON value its reader reads (an Inspect AI `.eval` log, a zip of JSON members;
a Google ADK eval result, JSON written inside a JSON string)."""

class Reader(NamedTuple):
    """One registered format (a named tuple: cheaper to define at start-up than a dataclass)."""

    name: str
    """What `--from` calls it."""
    sniff: Sniff
    """Whether the reader claims a file (see the module notes)."""
    read: Read
    """The runs and problems in a file's parsed JSON (or one line's)."""
    lines: Literal["each", "together"]
    """How a file of JSON lines is read: line by line, or all lines at once."""
    description: str
    """One line saying what the format is."""
    module: str
    """The module its `sniff` is defined in (which decides where it is asked)."""


class UnknownReaderError(ValueError):
    """A reader name no reader is registered under."""


_builtin: dict[str, list[Reader]] = {}  # by module of BUILTIN_MODULES
_external: list[Reader] = []  # registered from anywhere else, asked first
_by_name: dict[str, Reader] = {}
_loaded = 0  # how many of BUILTIN_MODULES are imported


def register_reader(
    name: str,
    sniff: Sniff,
    read: Read,
    *,
    lines: Literal["each", "together"] = "each",
    description: str = "",
) -> None:
    """Make a format readable by every command (`assay evaluate`, `assay convert`).

    A reader belongs to the module its `sniff` is defined in: the readers of
    `BUILTIN_MODULES` are asked in that order, after the readers of any other module.

    Args:
        name: The name `--from` takes; unique.
        sniff: `(file name, parsed JSON) -> bool`: whether the reader claims a file.
        read: `(parsed JSON, source) -> runs and problems`; never raising on bad data.
        lines: `each` (default): a `.jsonl` file is read line by line; `together`: its lines'
            values are read at once, as a list.
        description: One line saying what the format is.

    Raises:
        ValueError: the name is taken.

    Example:
        >>> register_reader("doc-example", lambda name, value: False, lambda value, source: [])
        >>> "doc-example" in reader_names()
        True
        >>> unregister_reader("doc-example")
    """
    if name in _by_name:
        raise ValueError(f"a reader named {name!r} is already registered")
    module = getattr(sniff, "__module__", None) or ""
    reader = Reader(name, sniff, read, lines, description, module)
    _by_name[name] = reader
    if module in BUILTIN_MODULES:
        _builtin.setdefault(module, []).append(reader)
    else:
        _external.append(reader)


def unregister_reader(name: str) -> None:
    """Forget the reader `name` (one registered from outside assay; for tests and plugins).

    Raises:
        UnknownReaderError: no such reader, or a built-in one.
    """
    reader = _by_name.get(name)
    if reader is None or reader not in _external:
        raise UnknownReaderError(f"no reader {name!r} registered from outside assay")
    _external.remove(reader)
    del _by_name[name]


def _load_through(index: int) -> None:
    """Import the built-in reader modules up to `BUILTIN_MODULES[index]`."""
    global _loaded
    while _loaded <= index:
        module = BUILTIN_MODULES[_loaded]
        import_module(module)
        _loaded += 1


def _load_all() -> None:
    _load_through(len(BUILTIN_MODULES) - 1)


def _in_order() -> list[Reader]:
    return [r for module in BUILTIN_MODULES for r in _builtin.get(module, ())] + _external


def reader_names() -> list[str]:
    """Every reader's name: the built-in ones in the order they are asked, then the others.

    Example:
        >>> reader_names()[:3]
        ['assetopsbench', 'track1', 'adk']
    """
    _load_all()
    return [reader.name for reader in _in_order()]


def get_reader(name: str) -> Reader:
    """The reader registered under `name`.

    Raises:
        UnknownReaderError: no such reader (the message lists the names there are).

    Example:
        >>> get_reader("otel").lines
        'together'
    """
    reader = _by_name.get(name)
    if reader is None:
        _load_all()
        reader = _by_name.get(name)
    if reader is None:
        raise UnknownReaderError(
            f"unknown format {name!r} (expected one of {', '.join(reader_names())})"
        )
    return reader


def _claimant(name: str, value: Any) -> Reader | None:
    """The first reader that claims a file, importing built-in modules only as needed."""
    if not _external:
        # The usual file, asked first without the general loop: this runs once per file.
        for reader in _builtin.get(BUILTIN_MODULES[0], ()):
            if reader.sniff(name, value):
                return reader
    if not _holds_objects(value):
        return None  # see _unknown: no reader is asked (nor imported) for such a value
    for reader in _external:
        if reader.sniff(name, value):
            return reader
    for index, module in enumerate(BUILTIN_MODULES):
        if index >= _loaded:
            _load_through(index)
        for reader in _builtin.get(module, ()):
            if reader.sniff(name, value):
                return reader
    return None


def detect_reader(path: str | Path) -> str | None:
    """The name of the reader that claims a file, or None (unreadable, or claimed by none).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "chat.json"
        >>> _ = path.write_text('[{"role": "user", "content": "hi"}]')
        >>> detect_reader(path)
        'openai'
    """
    name = _file_name(path)
    if is_lines_file(path):
        for item in jsonl_run_lines(path):
            if isinstance(item, ReadProblem):
                return None
            value, reason = parse_json(item[0])
            return None if reason is not None else _name_of(_claimant(name, value))
        return None
    value, problem = _load(path)
    return None if problem is not None else _name_of(_claimant(name, value))


def _name_of(reader: Reader | None) -> str | None:
    return None if reader is None else reader.name


# --- reading -------------------------------------------------------------------------------


class FilePiece(NamedTuple):
    """A whole file for a named reader, read where the piece is read."""

    path: str
    fmt: str | None = None
    """The reader to use; None: the one that claims the file."""
    skip: int = 0
    """Lines of a lines file already reported on while splitting it (not read again)."""


class LinePiece(NamedTuple):
    """One line of a lines file, for the reader that reads the file."""

    reader: str
    line: bytes
    source: str


# Pieces are tuples: the cheapest objects to build, and to pickle for a worker process.
InputPiece = str | FilePiece | LinePiece | ReadProblem
"""A piece of reading work: a file's path (a JSON document, for the reader that claims it), a
file for a named reader, one line, or a problem met while splitting a file (kept so that it
keeps its place in the order)."""


def input_pieces(path: str | Path, fmt: str | None = None) -> Iterator[InputPiece]:
    """A file as pieces of reading work, for `read_piece`, in file order.

    A JSON document is one piece, not opened here. A file of lines is read here line by line:
    the first line a reader claims decides the reader for the file (lines before it that
    cannot be read are problems), and each line is then a piece of its own, unless the reader
    reads the lines together (one piece for the rest of the file).

    Args:
        path: The file.
        fmt: A reader's name, to use it without asking which reader claims the file.

    Raises:
        UnknownReaderError: `fmt` names no reader.

    Example:
        >>> list(input_pieces("runs/11.json")), list(input_pieces("runs/11.json", "track1"))
        (['runs/11.json'], [FilePiece(path='runs/11.json', fmt='track1', skip=0)])
    """
    source = os.fspath(path)
    reader = get_reader(fmt) if fmt is not None else None
    if not is_lines_file(source) or (reader is not None and reader.lines == "together"):
        # The usual piece, a path, costs the least to hand to a worker process.
        yield source if fmt is None else FilePiece(source, fmt)
        return
    name = _file_name(source)
    number = 0
    for item in jsonl_run_lines(source):
        number += 1
        if isinstance(item, ReadProblem):
            yield item
            continue
        line, line_source = item
        if reader is None:
            value, reason = parse_json(line)
            if reason is not None:
                yield ReadProblem(line_source, reason)
                continue
            reader = _claimant(name, value)
            if reader is None:
                yield ReadProblem(line_source, _unknown("a run any reader knows", value))
                continue
            if reader.lines == "together":
                yield FilePiece(source, reader.name, skip=_line_number(line_source) - 1)
                return
        yield LinePiece(reader.name, line, line_source)


def read_piece(piece: InputPiece) -> Iterator[Trajectory | ReadProblem]:
    """The runs and problems of one piece of `input_pieces`, never raising on bad input.

    Example:
        >>> [item.reason for item in read_piece(FilePiece("no/such/file.json"))]
        ['cannot read file: No such file or directory']
    """
    if isinstance(piece, str):
        return _read_document(piece, None)
    if isinstance(piece, ReadProblem):
        return iter((piece,))
    if isinstance(piece, LinePiece):
        return _read_line(piece)
    if is_lines_file(piece.path):
        # Only a reader of lines together gets here (see input_pieces).
        assert piece.fmt is not None
        return _read_lines_together(get_reader(piece.fmt), piece.path, piece.skip)
    return _read_document(piece.path, piece.fmt)


def read_file(path: str | Path, fmt: str | None = None) -> Iterator[Trajectory | ReadProblem]:
    """Every run in a file, one at a time, and a problem for each unusable part.

    Args:
        path: The file.
        fmt: A reader's name to use; None: the reader that claims the file.

    Yields:
        A `Trajectory` per run and a `ReadProblem` per unusable part, in file order.

    Raises:
        UnknownReaderError: `fmt` names no reader.
    """
    for piece in input_pieces(path, fmt):
        yield from read_piece(piece)


def _read_line(piece: LinePiece) -> Iterator[Trajectory | ReadProblem]:
    value, reason = parse_json(piece.line)
    if reason is not None:
        yield ReadProblem(piece.source, reason)
        return
    reader = get_reader(piece.reader)
    yield from _found(reader, reader.read(value, piece.source), piece.source)


def _load(path: str | Path) -> tuple[Any, ReadProblem | None]:
    """The JSON value of a run file: parsed, or unpacked (`UNPACKERS`)."""
    lowered = os.fspath(path).lower()
    for suffix, (module, function) in UNPACKERS.items():
        if lowered.endswith(suffix):
            loaded: tuple[Any, ReadProblem | None] = getattr(import_module(module), function)(path)
            return loaded
    return load_json(path)


def _read_document(path: str, fmt: str | None) -> Iterator[Trajectory | ReadProblem]:
    value, problem = _load(path)
    if problem is not None:
        yield _named_by_suffix(problem)
        return
    source = path_text(path)  # what the runs are said to come from (their file name as text)
    if fmt is not None:
        reader: Reader | None = get_reader(fmt)
    else:
        reader = _claimant(_file_name(source), value)
    if reader is None:
        yield ReadProblem(source, _unknown("a run file any reader knows", value))
        return
    yield from _found(reader, reader.read(value, source), source)


_FORMAT_SUFFIXES = (
    (".traj", "a SWE-agent trajectory (.traj)"),
    (".evalset.json", "a Google ADK eval set"),
    (".evalset_result.json", "an ADK eval set result"),
)
"""File names that say their format: a file of one that cannot be parsed says which it is."""


def _named_by_suffix(problem: ReadProblem) -> ReadProblem:
    """`problem` (an empty or unparsable file) naming the format its file's name says, if
    it says one.

    Example:
        >>> _named_by_suffix(ReadProblem("a/b.traj", "empty file")).reason
        'a SWE-agent trajectory (.traj): empty file'
    """
    lowered = problem.source.lower()
    for suffix, what in _FORMAT_SUFFIXES:
        if lowered.endswith(suffix) and not problem.reason.startswith(what):
            return ReadProblem(problem.source, f"{what}: {problem.reason}")
    return problem


def _read_lines_together(
    reader: Reader, path: str, skip: int
) -> Iterator[Trajectory | ReadProblem]:
    values: list[Any] = []
    for item in jsonl_run_lines(path, whole=True):
        if isinstance(item, ReadProblem):
            yield item
            continue
        line, source = item
        if _line_number(source) <= skip:
            continue
        value, reason = parse_json(line)
        if reason is not None:
            yield ReadProblem(source, reason)
        else:
            values.append(value)
    if values:
        source = path_text(path)
        yield from _found(reader, reader.read(values, source), source)


def _found(
    reader: Reader, items: Iterable[Trajectory | ReadProblem], source: str
) -> Iterator[Trajectory | ReadProblem]:
    """The reader's items, and a problem when it found nothing.

    A run whose id cannot be used (a number too large to be read exactly, an object where an
    id belongs) is refused here, for every reader: it could otherwise stand for another run,
    or be named after something else in silence (see `UnusableId`).
    """
    empty = True
    for item in items:
        empty = False
        if isinstance(item, Trajectory):
            for field, value in (("run_id", item.run_id), ("scenario_id", item.scenario_id)):
                if isinstance(value, UnusableId):
                    item = ReadProblem(item.source, unusable_id_reason(field, value))
                    break
        yield item
    if empty:
        yield ReadProblem(source, f"the {reader.name} reader found no run in it")


def _holds_objects(value: Any) -> bool:
    """Whether a value is an object, or a list with an object or list in it: every run of every
    format is an object, so nothing else is one, whichever reader is asked."""
    return isinstance(value, dict) or first_item(value) is not None


_TELLING_KEYS: dict[str, frozenset[str]] = {
    "assetopsbench": frozenset({"run_id", "scenario_id", "answer", "trajectory", "runner"}),
    "adk": frozenset({"eval_set_id", "eval_cases", "conversation", "eval_id"}),
    "adk-results": frozenset({"eval_set_result_id", "eval_case_results", "eval_set_id"}),
    "adk-session": frozenset({"app_name", "user_id", "events", "last_update_time"}),
    "maseval": frozenset({"task_id", "repeat_idx", "status", "traces"}),
    "inspect": frozenset({"version", "status", "eval", "samples", "plan", "results"}),
    "taubench": frozenset({"task_id", "reward", "info", "traj", "trial"}),
    "tau2": frozenset({"simulations", "tasks", "info", "timestamp"}),
    "swe-agent": frozenset({"trajectory", "history", "info", "environment", "replay_config"}),
    "langsmith": frozenset({"run_type", "trace_id", "inputs", "outputs", "parent_run_id"}),
    "otel": frozenset({"resourceSpans", "scopeSpans", "spans", "traceId", "spanId"}),
    "openai": frozenset({"messages", "role", "content", "tool_calls", "choices"}),
}
"""Keys that tell a format, for a file no reader claims: the formats it resembles."""


def _resembles(keys: Any) -> list[str]:
    """The formats whose telling keys an object shares two or more of, the closest first,
    each with the keys shared (`swe-agent (trajectory, info)`)."""
    found = []
    for name, telling in _TELLING_KEYS.items():
        shared = [key for key in keys if key in telling]
        if len(shared) >= 2:
            found.append((-len(shared), name, shared))
    return [f"{name} ({', '.join(shared)})" for _, name, shared in sorted(found)[:3]]


def _unknown(what: str, value: Any) -> str:
    text = f"not {what}: {describe(value)}"
    if not _holds_objects(value):
        return f"{text}, with no object in it"
    item = value if isinstance(value, dict) else first_item(value)
    close = _resembles(item.keys()) if isinstance(item, dict) else []
    if close:
        text += f"; it resembles {'; '.join(close)}"
    return f"{text} (name the format with --from: {', '.join(reader_names())})"


def _file_name(path: str | Path) -> str:
    return os.fspath(path).rpartition(os.sep)[2].lower()


def _line_number(source: str) -> int:
    return int(source.rpartition(":")[2])



# assay's own run shape is what is read most: its reader is loaded with the registry, so that
# worker processes forked later inherit it rather than each importing it again.
_load_through(0)
