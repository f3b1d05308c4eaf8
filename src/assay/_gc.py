"""Garbage collection for batch work: rarely, since nearly everything dies by refcount.

Kept apart from the pipeline so that the CLI can switch it on before its imports without
importing the pipeline.

Example:
    >>> import gc
    >>> before = gc.get_threshold()
    >>> with rare_collection():
    ...     gc.get_threshold() == BATCH_THRESHOLDS
    True
    >>> gc.get_threshold() == before
    True
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

BATCH_THRESHOLDS = (100_000, 50, 100)
"""Collector thresholds for batch work (the interpreter's default is `(700, 10, 10)`).

Scoring makes and drops many small containers per run, almost all freed by reference
counting; at the default, a pass every 700 new containers spends a few percent of the time
re-scanning the run being scored."""


def collect_rarely() -> None:
    """Use `BATCH_THRESHOLDS` for the rest of the process (a short-lived command)."""
    gc.set_threshold(*BATCH_THRESHOLDS)


@contextmanager
def rare_collection() -> Iterator[None]:
    """Use `BATCH_THRESHOLDS` inside the block, then the caller's thresholds again.

    A caller that collects this rarely already (the CLI, for the whole process) is left
    alone, and then pays for no collection when the block ends.
    """
    thresholds = gc.get_threshold()
    if thresholds[0] >= BATCH_THRESHOLDS[0]:
        yield
        return
    gc.set_threshold(*BATCH_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
