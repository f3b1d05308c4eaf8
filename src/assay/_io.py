"""Low-level file-descriptor helpers shared by the report writer and the worker pool."""

from __future__ import annotations

import os


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
