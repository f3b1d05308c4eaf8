"""Low-level file-descriptor helpers shared by the report writer, the worker pool, the
summary printer and the CLI: whole writes, length-prefixed messages over a pipe, and flushing
the standard streams before a fork or a quick exit."""

from __future__ import annotations

import os
import struct
import sys

_LENGTH = struct.Struct("<Q")
"""A message is its length, then its bytes."""


def write_all(descriptor: int, data: bytes) -> None:
    """Write all of `data`: a write may take only part of it (a pipe, a signal).

    Example:
        >>> read_end, write_end = os.pipe()
        >>> write_all(write_end, b"abc"); os.close(write_end)
        >>> os.read(read_end, 10)
        b'abc'
    """
    written = os.write(descriptor, data)
    if written < len(data):  # usually the first write takes it all
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(descriptor, view) :]


def message(data: bytes) -> bytes:
    """`data` framed as one message, to be written with `write_all` and read by `read_message`.

    Example:
        >>> read_end, write_end = os.pipe()
        >>> write_all(write_end, message(b"abc") + message(b"")); os.close(write_end)
        >>> read_message(read_end), read_message(read_end), read_message(read_end)
        (b'abc', b'', None)
    """
    return _LENGTH.pack(len(data)) + data


def read_message(descriptor: int) -> bytes | None:
    """The next whole message, or None where the stream ends before one."""
    header = _read_exactly(descriptor, _LENGTH.size)
    if header is None:
        return None
    (size,) = _LENGTH.unpack(header)
    return _read_exactly(descriptor, size)


def _read_exactly(descriptor: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    missing = size
    while missing:
        chunk = os.read(descriptor, missing)
        if not chunk:
            return None
        chunks.append(chunk)
        missing -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def flush_standard_streams() -> None:
    """Flush stdout and stderr, where the process has them (either is None when the process
    started with that descriptor closed)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
