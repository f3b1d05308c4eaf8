"""Executors: where the units of a live run are run.

The runner (`assay.live.runner.UnitRunner`) hands its units to an executor, which runs each
unit's agent side (`execute`) somewhere and its scoring (`finish`) here, on the driver,
handing each outcome back as it ends:
- `LocalExecutor` (the default) runs everything in this process on asyncio;
- `RayExecutor` runs the agent side on the workers of a Ray cluster (`pip install ray`, the
  `ray` extra), for agents that need more than one machine.

Example:
    >>> executor_of("local").describe()
    {'name': 'local'}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.live.executors._base import Executor, ExecutorError, on_remote_worker
from assay.live.executors.local import LocalExecutor

if TYPE_CHECKING:
    from assay.live.executors.ray import RayExecutor

__all__ = [
    "EXECUTORS",
    "Executor",
    "ExecutorError",
    "LocalExecutor",
    "RayExecutor",
    "executor_of",
    "on_remote_worker",
]

EXECUTORS = ("local", "ray")
"""The executors by name (`--executor`)."""


def executor_of(executor: Executor | str | None, **options: Any) -> Executor:
    """The executor `executor` names (`"local"`, `"ray"`), or `executor` itself; `options`
    go to the named one's constructor.

    Raises:
        ValueError: no executor of that name.
        ExecutorError: `"ray"` without Ray installed (the message says what to install).
    """
    if executor is None or executor == "local":
        return LocalExecutor()
    if isinstance(executor, Executor):
        return executor
    if executor == "ray":
        from assay.live.executors.ray import RayExecutor

        return RayExecutor(**options)
    raise ValueError(f"no executor named {executor!r}; choose one of {', '.join(EXECUTORS)}")


def __getattr__(name: str) -> Any:
    if name == "RayExecutor":  # imported on use: Ray is an optional dependency
        from assay.live.executors.ray import RayExecutor

        return RayExecutor
    raise AttributeError(name)
