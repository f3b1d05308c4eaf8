"""`LocalExecutor`: every unit in this process, `concurrency` at a time on asyncio."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from assay.live.executors._base import Executor

if TYPE_CHECKING:
    from assay.live.runner import UnitRunner

U = TypeVar("U")
Outcome = TypeVar("Outcome")

__all__ = ["LocalExecutor"]


class LocalExecutor(Executor):
    """Runs the units in this process: `runner.settings.concurrency` of them at a time, each
    one's both parts in turn.

    Example:
        >>> LocalExecutor().describe()
        {'name': 'local'}
    """

    name = "local"

    async def run(
        self,
        runner: UnitRunner[U, Any, Outcome],
        units: Sequence[U],
        done: Callable[[int, Outcome], Awaitable[None]],
    ) -> None:
        queue = iter(enumerate(units))

        async def worker() -> None:
            for index, unit in queue:  # shared iterator: each unit is taken once
                await done(index, await runner.run_unit(unit))

        count = min(runner.settings.concurrency, len(units)) or 1
        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(count):
                    group.create_task(worker())
        except BaseExceptionGroup as failed:
            # A unit's failure is recorded, not raised: what ends up here failed for every
            # unit (a full disk under the writer); say it as itself, not as a group.
            raise failed.exceptions[0] from failed
