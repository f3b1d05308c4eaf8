"""Size and depth limits that keep hostile input from taking assay down: what one file, one
line of a file and one answer may take, and how deep a value may nest.

The input size limits can be changed per evaluation (`InputLimits`, `--max-file-size`,
`--max-line-size`); the readers ask `input_limits()` for the ones in force.

Example:
    >>> from assay.limits import MAX_DEPTH
    >>> MAX_DEPTH, format_size(MAX_FILE_BYTES), parse_size("2G") == 2 * 2**30
    (64, '256 MB', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

MAX_FILE_BYTES = 256 * 2**20
"""Largest file read whole: a JSON run file, a scenario file, a file of JSON lines whose reader
takes its lines together (`--max-file-size`). Parsed, a file takes several times its size; a
larger one is unreadable with its reason, and the evaluation goes on."""

MAX_LINE_BYTES = 64 * 2**20
"""Longest line of a JSON-lines run file (`--max-line-size`). Such files are read line by
line, so their own size is not capped; a longer line is that line's problem, and the lines
after it are read."""


@dataclass(frozen=True, slots=True)
class InputLimits:
    """How much of its input an evaluation reads at most (see `using_input_limits`)."""

    max_file_bytes: int = MAX_FILE_BYTES
    """Largest file read whole, in bytes (`MAX_FILE_BYTES`)."""

    max_line_bytes: int = MAX_LINE_BYTES
    """Longest line of a JSON-lines run file, in bytes, without its newline
    (`MAX_LINE_BYTES`)."""


_DEFAULT_LIMITS = InputLimits()
_in_force: ContextVar[InputLimits | None] = ContextVar("assay_input_limits", default=None)
# A context variable rather than a module global: two evaluations in one process (threads,
# tasks) each read with their own limits, and worker processes inherit them when forked.


def input_limits() -> InputLimits:
    """The input limits in force (the defaults unless `using_input_limits` says otherwise).

    Example:
        >>> input_limits().max_line_bytes == MAX_LINE_BYTES
        True
    """
    return _in_force.get() or _DEFAULT_LIMITS


@contextmanager
def using_input_limits(limits: InputLimits) -> Iterator[InputLimits]:
    """Read with `limits` inside the `with` block (in this thread or task, and the tasks and
    processes it starts).

    Example:
        >>> with using_input_limits(InputLimits(max_file_bytes=1024)):
        ...     input_limits().max_file_bytes
        1024
        >>> input_limits().max_file_bytes == MAX_FILE_BYTES
        True
    """
    token = _in_force.set(limits)
    try:
        yield limits
    finally:
        _in_force.reset(token)


_UNITS = (("GB", 2**30), ("MB", 2**20), ("KB", 2**10))
_SIZE = re.compile(r"\s*([0-9]+)\s*([kmg]?)(?:i?b)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """A size as a user writes it: bytes, or a number with `K`, `M` or `G` (powers of 1024;
    `MB`, `MiB` are read as `M`).

    Raises:
        ValueError: not such a size, or not positive.

    Example:
        >>> parse_size("512M"), parse_size("64 MB"), parse_size("1000")
        (536870912, 67108864, 1000)
    """
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (expected bytes, or a number with K, M or G)")
    number, unit = int(match.group(1)), match.group(2).upper()
    size = number * dict((name[0], factor) for name, factor in _UNITS).get(unit, 1)
    if size < 1:
        raise ValueError(f"a size must be at least 1 byte, got {text!r}")
    return size


def format_size(size: int) -> str:
    """A size in bytes as a reason shows it: whole units when exact, else one decimal, else
    (when one decimal would read as whole units: a size just past a limit) in bytes.

    Example:
        >>> format_size(2 * 2**30), format_size(3 * 2**20 + 2**19), format_size(900)
        ('2 GB', '3.5 MB', '900 bytes')
        >>> format_size(2**30 + 1)
        '1,073,741,825 bytes'
    """
    for name, factor in _UNITS:
        if size >= factor:
            if size % factor == 0:
                return f"{size // factor} {name}"
            shown = f"{size / factor:.1f}"
            if not shown.endswith(".0"):
                return f"{shown} {name}"
            break
    return f"{size:,} bytes"


def is_out_of_memory(error: BaseException) -> bool:
    """Whether `error` says an allocation failed: a MemoryError, or the SystemError orjson
    raises instead when one happens while it parses (the MemoryError is its cause).

    Example:
        >>> is_out_of_memory(MemoryError()), is_out_of_memory(ValueError())
        (True, False)
    """
    if isinstance(error, MemoryError):
        return True
    return isinstance(error, SystemError) and isinstance(
        error.__cause__ or error.__context__, MemoryError
    )


MAX_ANSWER_CHARS = 1_000_000
"""Longest answer text that is parsed at all; longer text is rejected with a reason."""

MAX_REPLY_CHARS = 1_000_000
"""Longest reply a live agent may give in one turn (`assay run --max-reply-size`); a longer
one makes its run an `agent_error`, and is not kept."""

MAX_TOOL_RESULT_CHARS = 10_000_000
"""Longest result (as JSON text) of one of a live agent's tool calls (`assay run
--max-tool-result-size`); a longer one makes its run an `agent_error`, and is not kept."""

MAX_DEPTH = 64
"""Deepest nesting of brackets (or of a parsed value) that is accepted."""

MAX_PARSE_ATTEMPTS = 200
"""Most candidate spans tried when looking for the last structure in noisy text."""

MAX_TOKEN_COUNT = 10**12
"""Largest token count taken as one: no model call or run uses a trillion tokens, and a
larger figure (`1e300`, `2**64 - 1`) is a broken record. Read as unknown instead, it can never
overflow a 64-bit sum in a report or the judge cache, even added up over millions of runs."""

JUDGE_CALL_TIMEOUT_S = 180.0
"""Seconds one judge call may take in all, retries and waits included, unless told otherwise
(`--judge-call-timeout`): three slow attempts of a minute, or a few `Retry-After` waits."""

ALIGNMENT_BUDGET = 500_000
"""Most work units one answer's optimal list alignments may spend, at every level of nesting
together (`static_json`'s option `alignment_budget`).

Aligning two lists by content scores every differing gold item against every differing model
item, and each of those pairs aligns the lists inside it the same way, so nested lists
multiply: a 100x100 grid of numbers, shuffled, took over ten minutes. A unit is about one
comparison of two numbers (a couple of microseconds): a pair of items scored costs one unit
plus one per key it yields, and longer strings and the assignment itself cost in proportion
to their work (`assay.answers._budget`). Past the budget the remaining lists are paired
greedily by shared values (then by position), and the score's notes say where it ran out.
Half a million units is about a second of work, and more than realistic answers need: a
hundred records of ten keys in another order, a tenth of their values wrong, take 0.23
million (half of them wrong, 0.47 million); three hundred records, a hundredth of the values
wrong, 35,000. Fifty such records that each hold two short lists in another order take 1.3
million: past the budget they are paired greedily, by their ids, and score as the optimum."""
