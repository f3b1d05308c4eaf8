"""Seeds derived per task and repetition from one global seed, so that a benchmark's random
choices (a simulated user's, an environment's) are reproducible and each repetition gets its
own.

Example:
    >>> task = SeedGenerator(7).for_task("t1")
    >>> task.for_repetition(0).derive_seed("user") == task.for_repetition(0).derive_seed("user")
    True
    >>> task.for_repetition(0).derive_seed("user") != task.for_repetition(1).derive_seed("user")
    True
    >>> SeedGenerator(None).for_task("t1").derive_seed("user") is None
    True
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

__all__ = ["SeedGenerator"]


@dataclass(frozen=True, slots=True)
class SeedGenerator:
    """Derives named seeds: the same global seed, task, repetition and name always give the
    same 31-bit seed; no global seed gives None (random as the component likes)."""

    global_seed: int | None = None
    task_id: str | None = None
    repetition: int | None = None
    path: tuple[str, ...] = field(default=())
    log: dict[str, int | None] = field(default_factory=dict, compare=False)
    """Every seed derived, by its full name."""

    def for_task(self, task_id: str) -> SeedGenerator:
        """The seeds of one task."""
        return replace(self, task_id=task_id, repetition=None, path=(), log={})

    def for_repetition(self, index: int) -> SeedGenerator:
        """The seeds of one repetition of the task."""
        return replace(self, repetition=index, log=self.log)

    def child(self, name: str) -> SeedGenerator:
        """The seeds of a part (`child("user").derive_seed("sampling")`)."""
        return replace(self, path=(*self.path, name), log=self.log)

    def derive_seed(self, name: str, *, per_repetition: bool = True) -> int | None:
        """The seed named `name` (the same in every repetition when not `per_repetition`)."""
        if self.global_seed is None:
            return None
        full = "/".join((*self.path, name))
        parts = [str(self.global_seed), str(self.task_id)]
        if per_repetition:
            parts.append(str(self.repetition))
        parts.append(full)
        digest = hashlib.sha256(":".join(parts).encode()).digest()
        seed = int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
        self.log[full] = seed
        return seed
