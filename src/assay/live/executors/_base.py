"""The executor protocol: run units, hand outcomes back as they end, stop when cancelled."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from assay.live.runner import UnitRunner

U = TypeVar("U")
Outcome = TypeVar("Outcome")

__all__ = ["Executor", "ExecutorError", "mark_remote_worker", "on_remote_worker"]

_remote_worker = False


def mark_remote_worker() -> None:
    """Say that this process is a worker of a remote executor (a Ray actor's), for code that
    must then leave work to the driver (a benchmark's model-judged evaluators)."""
    global _remote_worker
    _remote_worker = True


def on_remote_worker() -> bool:
    """Whether this process is a worker of a remote executor.

    Example:
        >>> on_remote_worker()
        False
    """
    return _remote_worker


class ExecutorError(Exception):
    """The executor cannot run the units (no cluster to connect to, workers that cannot load
    the agent, a cluster that went away); the message says why.

    Attributes:
        before_run: True when no unit ran (the setup failed: the input or the cluster is
            unusable); False when the run was cut short.
    """

    def __init__(self, message: str, *, before_run: bool = True) -> None:
        super().__init__(message)
        self.before_run = before_run


class Executor(ABC):
    """Where a runner's units run. `run` runs each unit once: its agent side
    (`runner.execute`) wherever the executor runs work, its scoring (`runner.finish`) on this
    process, and awaits `done(index, outcome)` as each ends.

    Cancelling `run` stops the units in flight; the ones handed to `done` are the finished
    ones, and no unit is handed to it twice.
    """

    name: str = ""

    @abstractmethod
    async def run(
        self,
        runner: UnitRunner[U, Any, Outcome],
        units: Sequence[U],
        done: Callable[[int, Outcome], Awaitable[None]],
    ) -> None:
        """Run every unit of `units`; `done` with its index and outcome as each ends."""

    def describe(self) -> dict[str, Any]:
        """What the reports record of the executor (`options.live.executor`)."""
        return {"name": self.name}
