"""An ordered parallel map over forked worker processes, with no helper threads.

`multiprocessing.Pool` was the first tool for this, and it cost more than the work it shared
out on short tasks: importing it takes some 15 ms, it keeps three threads in the parent (one
of which wakes up on every result a worker writes), and a worker that dies leaves `Pool`
waiting for ever. Here the parent does all of its side in one loop over a selector: it writes
tasks without blocking, reads results as they come and hands them out in task order; a worker
that dies is an error, raised where the results are read.

Example:
    >>> def square_all(numbers: list[int]) -> list[int]:
    ...     return [n * n for n in numbers]
    >>> with ForkPool(square_all, processes=2) as pool:
    ...     list(pool.map([[1, 2], [3], [4, 5]], in_flight=4))
    [[1, 4], [9], [16, 25]]
"""

from __future__ import annotations

import contextlib
import os
import pickle
import selectors
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Generic, TypeVar

from assay._io import message, read_message, write_all

T = TypeVar("T")
R = TypeVar("R")

_PIPE_BYTES = 1 << 20
"""Pipe capacity asked for where the system allows it (Linux): a worker can then put a whole
batch of results down and go on to its next task while the parent is busy."""

_TASKS_PER_WORKER = 2
"""Tasks a worker holds at once: the one it is doing and the next, so it never waits for the
parent between tasks."""


class WorkerLostError(RuntimeError):
    """A worker process ended while it still had tasks (killed, or out of memory)."""


class ForkPool(Generic[T, R]):
    """`processes` forked copies of this process, each applying `work` to the tasks it gets.

    Forking is what makes this cheap: workers inherit everything `work` needs (indexes,
    caches, configuration) instead of receiving it. Tasks and results are pickled. Call
    `map` once; leaving the `with` block stops the workers (killing them if the parent
    is leaving on an exception).
    """

    def __init__(self, work: Callable[[T], R], processes: int) -> None:
        if processes < 1:
            raise ValueError("processes must be at least 1")
        self._workers: list[_Worker] = []
        try:
            for _ in range(processes):
                self._workers.append(self._start(work))
        except BaseException:
            self._stop(kill=True)
            raise

    def __enter__(self) -> ForkPool[T, R]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._stop(kill=exc_type is not None)

    def map(self, tasks: Iterable[T], *, in_flight: int) -> Iterator[R]:
        """`work(task)` for each task, in task order, with at most `in_flight` tasks out.

        "Out" counts tasks sent and results not yet handed on, so memory stays bounded
        however far one slow task holds the others up. An exception raised by `work` is
        raised here, at that task's place in the order.

        Raises:
            WorkerLostError: a worker ended before it answered.
        """
        source = iter(tasks)
        sent = handed = 0
        finished: dict[int, tuple[bool, Any]] = {}
        with selectors.DefaultSelector() as selector:
            for worker in self._workers:
                selector.register(worker.results, selectors.EVENT_READ, worker)

            def fill() -> bool:
                """Send tasks while workers and the in-flight budget have room; False once
                there are no more tasks."""
                nonlocal sent
                while sent - handed < in_flight:
                    worker = min(self._workers, key=_load)
                    if len(worker.pending) >= _TASKS_PER_WORKER:
                        return True
                    task = next(source, _END)
                    if task is _END:
                        # Workers may leave as soon as they have answered: their exit then
                        # overlaps the handing on of the last results.
                        for idle in self._workers:
                            idle.end_tasks(selector)
                        return False
                    worker.send(_frame(task), sent, selector)
                    sent += 1
                return True

            more = fill()
            while more or handed < sent:
                while handed in finished:
                    ok, value = finished.pop(handed)
                    handed += 1
                    if not ok:
                        raise value
                    # Workers get their next tasks before this result is handed on.
                    more = more and fill()
                    yield value
                more = more and fill()
                if not more and handed == sent:
                    return
                for key, _ in selector.select():
                    worker = key.data
                    if key.fd == worker.tasks:
                        worker.flush(selector)
                    else:
                        number, reply = worker.receive(selector)
                        finished[number] = reply

    def _start(self, work: Callable[[T], R]) -> _Worker:
        task_read, task_write = os.pipe()
        result_read, result_write = os.pipe()
        _widen(result_write)
        pid = os.fork()
        if pid == 0:  # the worker: serve, then leave without running the parent's exit code
            status = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                os.close(task_write)
                os.close(result_read)
                for sibling in self._workers:
                    sibling.close_descriptors()
                _serve(work, task_read, result_write)
                status = 0
            finally:
                os._exit(status)
        os.close(task_read)
        os.close(result_write)
        os.set_blocking(task_write, False)
        return _Worker(pid, task_write, result_read)

    def _stop(self, *, kill: bool) -> None:
        for worker in self._workers:
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(worker.pid, signal.SIGKILL)
            worker.close_descriptors()  # a worker reads the end of its tasks and exits
        for worker in self._workers:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(worker.pid, 0)
        self._workers = []


_END = object()


@dataclass(eq=False)
class _Worker:
    pid: int
    tasks: int
    """The write end of the worker's task pipe (non-blocking)."""
    results: int
    """The read end of the worker's result pipe."""
    pending: deque[int] = field(default_factory=deque)
    """Numbers of the tasks it holds, oldest first (it answers in that order)."""
    unsent: bytes = b""
    """Task bytes the pipe had no room for yet."""
    watched: bool = False
    """Whether the selector is watching the task pipe for room."""
    ending: bool = False
    """No more tasks: close the task pipe once everything unsent is written."""

    def send(self, message: bytes, number: int, selector: selectors.BaseSelector) -> None:
        self.pending.append(number)
        if self.unsent:  # the pipe is full: the selector says when it has room
            self.unsent += message
        else:
            self.unsent = message
            self.flush(selector)

    def flush(self, selector: selectors.BaseSelector) -> None:
        """Write what the task pipe takes now; watch it for room while anything is left."""
        try:
            written = os.write(self.tasks, self.unsent)
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise WorkerLostError(f"worker process {self.pid} ended unexpectedly") from None
        self.unsent = self.unsent[written:]
        if self.unsent and not self.watched:
            selector.register(self.tasks, selectors.EVENT_WRITE, self)
            self.watched = True
        elif self.watched and not self.unsent:
            selector.unregister(self.tasks)
            self.watched = False
        if self.ending and not self.unsent:
            self._close_tasks()

    def end_tasks(self, selector: selectors.BaseSelector) -> None:
        """Send no more tasks: the worker ends after the ones it has."""
        self.ending = True
        if not self.unsent:
            self._close_tasks()
        self._stop_listening_if_done(selector)

    def _stop_listening_if_done(self, selector: selectors.BaseSelector) -> None:
        # A worker that answered its last task ends; the end of its result pipe is not news.
        if self.ending and not self.pending:
            selector.unregister(self.results)

    def _close_tasks(self) -> None:
        if self.tasks >= 0:
            os.close(self.tasks)
            self.tasks = -1

    def receive(self, selector: selectors.BaseSelector) -> tuple[int, tuple[bool, Any]]:
        """The next answer: (its task number, (ok, result or exception))."""
        message = read_message(self.results)
        if message is None:
            raise WorkerLostError(f"worker process {self.pid} ended unexpectedly")
        reply: tuple[bool, Any] = pickle.loads(message)
        number = self.pending.popleft()
        self._stop_listening_if_done(selector)
        return number, reply

    def close_descriptors(self) -> None:
        # Closed ones are -1: a closed descriptor's number may belong to another file by now.
        for name in ("tasks", "results"):
            descriptor = getattr(self, name)
            if descriptor >= 0:
                with contextlib.suppress(OSError):
                    os.close(descriptor)
                setattr(self, name, -1)


def _load(worker: _Worker) -> int:
    return len(worker.pending)


def _serve(work: Callable[[Any], Any], tasks: int, results: int) -> None:
    """The worker's loop: read a task, do it, write the answer, until the tasks end."""
    while (message := read_message(tasks)) is not None:
        try:
            reply: tuple[bool, Any] = (True, work(pickle.loads(message)))
            data = _frame(reply)
        except Exception as exc:  # the parent raises it at the task's place
            data = _frame((False, _portable(exc)))
        write_all(results, data)


def _frame(value: object) -> bytes:
    """`value` pickled, as one message."""
    return message(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))


def _portable(exc: Exception) -> Exception:
    """`exc` if it survives pickling, else a RuntimeError that names it."""
    try:
        pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


def _widen(descriptor: int) -> None:
    """Ask for a larger pipe buffer where the platform has the call; the default is fine too."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: no fork either, so no workers
        return
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if set_size is not None:
        with contextlib.suppress(OSError):
            fcntl.fcntl(descriptor, set_size, _PIPE_BYTES)
