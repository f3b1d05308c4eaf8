"""Tasks: what one benchmark run is about, and how to run it.

Example:
    >>> task = Task("Move 10 to savings", id="t1", evaluation_data={"savings": 110})
    >>> task.protocol.timeout_seconds is None, tasks_of([{"query": "q", "id": "t2"}])[0].id
    (True, 't2')
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

__all__ = ["SequentialTaskQueue", "Task", "TaskProtocol", "TaskQueue", "load_tasks", "tasks_of"]


@dataclass(slots=True)
class TaskProtocol:
    """How a task is run."""

    timeout_seconds: float | None = None
    """Seconds one repetition of the task may take, setup to evaluation; past it the agent is
    interrupted and the repetition is a `task_timeout` (None: the benchmark's timeout)."""
    max_retries: int = 0
    """Extra attempts of a repetition that failed for a reason that is not the agent's (an
    environment or user error, an infrastructure error); a wrong answer is never retried."""
    timeout_action: str = "skip"
    """What a timeout does: `skip` records it (the only action so far)."""
    priority: int = 0
    tags: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The protocol as JSON-ready data."""
        return asdict(self)


@dataclass(slots=True)
class Task:
    """One task of a benchmark: the query, the data each component is set up with, and the
    ground truth its evaluators read."""

    query: str
    id: str = field(default_factory=lambda: str(uuid.uuid4()))
    environment_data: dict[str, Any] = field(default_factory=dict)
    user_data: dict[str, Any] = field(default_factory=dict)
    evaluation_data: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    protocol: TaskProtocol = field(default_factory=TaskProtocol)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """A task from its JSON shape (`query`, and optionally `id`, the four data dicts and
        `protocol`); `question`, `prompt` or `text` stand for `query`.

        Raises:
            ValueError: no query, or a field of the wrong type.
        """
        query = next(
            (data[key] for key in ("query", "question", "prompt", "text") if key in data), None
        )
        if not isinstance(query, str):
            raise ValueError("a task needs a `query` that is text")
        values: dict[str, Any] = {"query": query}
        if "id" in data:
            values["id"] = str(data["id"])
        for key in ("environment_data", "user_data", "evaluation_data", "metadata"):
            value = data.get(key) or {}
            if not isinstance(value, Mapping):
                raise ValueError(f"a task's `{key}` must be an object")
            values[key] = dict(value)
        protocol = data.get("protocol") or {}
        if not isinstance(protocol, Mapping):
            raise ValueError("a task's `protocol` must be an object")
        try:
            values["protocol"] = TaskProtocol(**protocol)
        except TypeError as exc:
            raise ValueError(f"a task's `protocol`: {exc}") from None
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """The task as JSON-ready data (what `from_dict` reads)."""
        return {
            "query": self.query,
            "id": self.id,
            "environment_data": self.environment_data,
            "user_data": self.user_data,
            "evaluation_data": self.evaluation_data,
            "metadata": self.metadata,
            "protocol": self.protocol.to_dict(),
        }


def tasks_of(items: Task | Iterable[Task | Mapping[str, Any]]) -> list[Task]:
    """Tasks from tasks or their dicts (ids, user data and protocols kept).

    Raises:
        ValueError: a dict that is not a task, or two tasks with one id.
    """
    found = [items] if isinstance(items, Task) else [
        item if isinstance(item, Task) else Task.from_dict(item) for item in items
    ]
    seen: set[str] = set()
    for task in found:
        if task.id in seen:
            raise ValueError(f"two tasks have the id {task.id!r}; ids must be unique")
        seen.add(task.id)
    return found


def load_tasks(path: str | Path) -> list[Task]:
    """The tasks of a JSON file (a list, or an object with a `data` or `tasks` list) or a
    JSON-lines file (one task per line).

    Raises:
        ValueError: the file is not tasks (the first problem, with its line).
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        items = []
        for number, line in enumerate(data.splitlines(), start=1):
            if line.strip():
                try:
                    items.append(orjson.loads(line))
                except orjson.JSONDecodeError as exc:
                    raise ValueError(f"{path}: line {number}: invalid JSON: {exc}") from None
        parsed = items
    if isinstance(parsed, Mapping):
        parsed = parsed.get("data", parsed.get("tasks", [parsed]))
    if not isinstance(parsed, list) or not all(isinstance(i, Mapping) for i in parsed):
        raise ValueError(f"{path}: not a list of tasks")
    return tasks_of(parsed)


class TaskQueue(list[Task]):
    """Tasks in order, as MASEval names them (`SequentialTaskQueue` too), so that code built
    on its queue runs here.

    Example:
        >>> [t.id for t in TaskQueue.from_list([{"query": "q", "id": "a"}])]
        ['a']
    """

    @classmethod
    def from_list(cls, items: Iterable[Task | Mapping[str, Any]]) -> TaskQueue:
        """The tasks of `items` (tasks, or their dicts)."""
        return cls(tasks_of(items))

    @classmethod
    def from_json_file(cls, path: str | Path, *, limit: int | None = None) -> TaskQueue:
        """The tasks of a JSON or JSON-lines file (`load_tasks`), the first `limit` only when
        given."""
        tasks = load_tasks(path)
        return cls(tasks if limit is None else tasks[:limit])


SequentialTaskQueue = TaskQueue

