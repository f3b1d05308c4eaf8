"""Writing report files: safe names, atomic writes, never outside the reports directory.

Example:
    >>> names = ReportNames()
    >>> names.allocate("../../x"), names.allocate("a/b"), names.allocate("a_b")
    ('x', 'a_b', 'a_b-2')
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from assay._text import escape_surrogates, path_text

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_NAME = 120
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(10)),
    *(f"lpt{i}" for i in range(10)),
}


class ReportNames:
    """Hands out unique, sanitised file stems for per-run reports.

    Uniqueness is case-insensitive, so reports survive a copy to a case-insensitive disk.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()
        """Every stem handed out, in lower case."""

    def allocate(self, wanted: str | None) -> str:
        """A fresh safe stem for `wanted` (a run or scenario id)."""
        # An id from a file name that is not UTF-8 is named as it is shown (`\xff` -> `xff`).
        shown = escape_surrogates(wanted or "")
        stem = _UNSAFE.sub("_", shown).strip("._-")[:_MAX_NAME] or "run"
        if stem.lower() in _RESERVED:
            stem = f"run-{stem}"
        candidate, counter = stem, 1
        while candidate.lower() in self._taken:
            counter += 1
            candidate = f"{stem}-{counter}"
        self._taken.add(candidate.lower())
        return candidate

    def reserve(self, stem: str) -> None:
        """Mark `stem` as taken (a report an earlier evaluation wrote, which is kept)."""
        self._taken.add(stem.lower())


def inside(directory: Path | str, name: str) -> str:
    """The path of `name` in `directory`, refusing any name that would land elsewhere."""
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ValueError(f"refusing to write {name!r} outside {directory}")
    return os.path.join(directory, name)  # noqa: PTH118


_TEMPORARY_PREFIX = ".assay-"
_temporaries = itertools.count()


def write_temporary(directory: Path | str, data: bytes) -> str:
    """Write `data` to a new hidden file in `directory` (to be renamed into place later).

    Names carry the process id, so worker processes can write side by side.
    """
    name = f"{_TEMPORARY_PREFIX}{os.getpid()}-{next(_temporaries)}.tmp"
    path = os.path.join(directory, name)  # noqa: PTH118
    file = open(path, "xb")  # noqa: PTH123, SIM115 - "x": never over an existing file
    try:
        with file:
            file.write(data)
    except BaseException:  # a full disk, say: leave no half-written temporary behind
        with contextlib.suppress(OSError):
            os.unlink(path)  # noqa: PTH108
        raise
    return path


_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


def not_regular(path: Path | str) -> str | None:
    """What stands at `path` when it is not a regular file (`a FIFO`, `a symbolic link`...),
    or None when it is one or nothing is there.

    Every file assay writes is renamed into place: onto a FIFO or a device that would put a
    regular file in its place (it once replaced `/dev/full`), and onto a symbolic link it
    would replace the link rather than write where it points. Whatever names an output
    checks it with this, and `write_atomic` refuses such a target in any case.

    Raises:
        OSError: `path` cannot be looked at (a parent that is not a directory, say).

    Example:
        >>> not_regular("/dev/null"), not_regular("no/such/file")
        ('a character device', None)
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


def clashes_with_reports(path: Path | str, reports_dir: Path | str) -> bool:
    """Whether `path` lies in `reports_dir` under a name its own files could have (a report,
    `results.jsonl`, `_aggregate.json`, the marker or a temporary): an output written there
    would replace one of them, or be replaced by the next evaluation.

    Example:
        >>> clashes_with_reports("reports/results.jsonl", "reports")
        True
        >>> clashes_with_reports("reports/page.html", "reports")
        False
    """
    target = Path(path)
    if not (target.name.endswith((".json", ".jsonl")) or target.name.startswith(".assay")):
        return False
    # Compared by resolved path: `reports/../reports` and a link to it are the same folder.
    return os.path.realpath(target.parent) == os.path.realpath(reports_dir)


def refused_output(
    target: Path | str, reports_dir: Path | str | None = None, *, what: str
) -> str | None:
    """Why the output file `target` (`what` it is to hold, for the message) cannot be
    written, or None: checked before anything runs, so that a bad path is said at once rather
    than after the whole evaluation.

    The file is written by renaming a new file onto `target` (`write_atomic`): onto a FIFO or
    a device that would put a regular file in its place, and onto a symbolic link it would
    replace the link rather than write where it points; such a target is refused, as is a
    directory, a missing parent directory (unless it is `reports_dir`, which the evaluation
    creates), and a name inside `reports_dir` that one of its reports could have (`*.json`,
    `*.jsonl`, the marker).

    Example:
        >>> refused_output("/dev/null", what="the HTML report")
        'cannot write the HTML report to /dev/null: it is a character device, not a regular file'
        >>> refused_output("reports/results.jsonl", "reports", what="JUnit XML")
        'cannot write JUnit XML to reports/results.jsonl: a report of reports has that name'
        >>> refused_output("reports/page.html", "reports", what="the HTML report") is None
        True
    """
    path = Path(target)
    shown = f"cannot write {what} to {path_text(path)}"
    if reports_dir is not None and clashes_with_reports(path, reports_dir):
        return f"{shown}: a report of {path_text(reports_dir)} has that name"
    try:
        kind = not_regular(path)
    except OSError as error:
        return f"{shown}: {error.strerror or error}"
    if kind is not None:
        return f"{shown}: it is {kind}, not a regular file"
    parent = path.parent
    if parent.is_dir() or (reports_dir is not None and _same_directory(parent, reports_dir)):
        return None
    return f"{shown}: no such directory {path_text(parent)}"


def _same_directory(one: Path, other: Path | str) -> bool:
    # Compared by resolved path: `reports/../reports` and a link to it are the same folder.
    return os.path.realpath(one) == os.path.realpath(other)


def write_atomic(path: Path | str, data: bytes) -> None:
    """Write `data` to `path` via a temporary file and a rename, so readers never see half.

    Raises:
        OSError: `path` is not a regular file (see `not_regular`); nothing is written.
    """
    target = os.fspath(path)
    kind = not_regular(target)
    if kind is not None:
        raise OSError(errno.EEXIST, f"{kind}, not a regular file: refusing to replace it", target)
    temporary = write_temporary(os.path.dirname(target), data)  # noqa: PTH120
    try:
        os.replace(temporary, target)  # noqa: PTH105
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # noqa: PTH108
        raise


def remove_temporaries(directory: Path | str) -> list[str]:
    """Remove temporary files an interrupted evaluation left in `directory`, and return the
    names of its entries that are not regular files (directories, symbolic links, FIFOs,
    devices): names a report must never be renamed onto.

    Example:
        >>> import tempfile
        >>> folder = tempfile.mkdtemp()
        >>> os.mkdir(os.path.join(folder, "11.json"))
        >>> _ = write_temporary(folder, b"left by a killed evaluation")
        >>> remove_temporaries(folder), os.listdir(folder)
        (['11.json'], ['11.json'])
    """
    irregular: list[str] = []
    # os.scandir, not Path.iterdir: a re-run lists a directory of many thousand reports, and a
    # Path per entry costs more than the listing. is_file(follow_symlinks=False) is told from
    # the listing itself on the usual file systems, so the check costs no call per entry.
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(_TEMPORARY_PREFIX) and entry.name.endswith(".tmp"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)  # noqa: PTH108
            elif not entry.is_file(follow_symlinks=False):
                irregular.append(entry.name)
    return irregular


def write_lines(descriptor: int, data: bytes | bytearray, size: int) -> int:
    """Append `data`, whole lines, to the file open at `descriptor`, which holds `size` bytes
    of whole lines; return the new size.

    Every byte is written, over as many calls as it takes. When a write fails (a full disk),
    the file is cut back to its last whole line before the error goes on: a reader never
    meets half a line, and the next write starts a line.

    Example:
        >>> import tempfile
        >>> descriptor, path = tempfile.mkstemp()
        >>> write_lines(descriptor, b'{"a":1}\\n', 0)
        8
        >>> os.close(descriptor); os.remove(path)
    """
    done = 0
    try:
        # Released on the way out, even with an error in flight: a bytearray that is still
        # viewed cannot be cleared by its owner.
        with memoryview(data) as view:
            while done < len(view):
                done += os.write(descriptor, view[done:])
    except BaseException:
        size += data.rfind(b"\n", 0, done) + 1  # whole lines written before the error
        with contextlib.suppress(OSError):
            os.ftruncate(descriptor, size)
            os.lseek(descriptor, size, os.SEEK_SET)
        raise
    return size + done


def open_for_writing(path: str, *, append: bool = False) -> int:
    """A descriptor for writing `path` (`results.jsonl`, `runs.jsonl`), which must be a
    regular file if it exists (it is created if not); with `append`, every write goes to its
    end.

    O_NOFOLLOW: a results.jsonl that is a symbolic link is refused (ELOOP), never followed to
    truncate a file outside the reports directory. O_NONBLOCK: a FIFO so named would hold the
    open until some process read it; this way it fails (ENXIO) or opens, and is refused.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    if append:
        flags |= os.O_APPEND
    try:
        descriptor = os.open(path, flags, 0o666)
    except OSError as error:
        if os.path.islink(path):  # noqa: PTH114
            raise OSError(error.errno, "refusing to write through a symbolic link", path) from None
        if error.errno in (errno.ENXIO, errno.EISDIR):
            raise OSError(error.errno, "not a regular file, refusing to write it", path) from None
        raise
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise OSError(errno.EINVAL, "not a regular file, refusing to write it", path)
    return descriptor


def whole_object_lines(data: bytes) -> Iterator[tuple[dict[str, Any], bytes]]:
    """Each line of `data` that is a whole JSON object, with its raw bytes (newline kept); a
    last line without its newline (cut short by a kill) and lines that are not objects are
    left out.

    Example:
        >>> [value for value, _ in whole_object_lines(b'{"a": 1}\\n[2]\\n{"b": 3}\\n{"c"')]
        [{'a': 1}, {'b': 3}]
    """
    for raw in data[: data.rfind(b"\n") + 1].splitlines(keepends=True):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value, raw


def read_regular(path: str | Path, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file at `path`, never through a symbolic link.

    Raises:
        OSError: `path` is missing, unreadable, a link, not a regular file (a FIFO would
            block the read forever: it is refused instead), or larger than `max_bytes`.

    Example:
        >>> read_regular("/dev/null")
        Traceback (most recent call last):
        ...
        OSError: [Errno 22] not a regular file: '/dev/null'
    """
    # O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(path, flags)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        if max_bytes is not None and status.st_size > max_bytes:
            raise OSError(errno.EFBIG, f"larger than {max_bytes:,} bytes", os.fspath(path))
        chunks = []
        while chunk := os.read(descriptor, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    return b"".join(chunks)
