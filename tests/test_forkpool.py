"""The forked worker pool: order, errors, dead workers, messages larger than a pipe."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from assay._forkpool import ForkPool, WorkerLostError

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _pids_and_values(values: list[int]) -> tuple[int, list[int]]:
    return os.getpid(), [value * 10 for value in values]


def test_results_come_back_in_task_order_from_several_processes() -> None:
    tasks = [[i, i + 1] for i in range(0, 200, 2)]
    with ForkPool(_pids_and_values, processes=3) as pool:
        results = list(pool.map(tasks, in_flight=6))
    assert [values for _, values in results] == [[i * 10, (i + 1) * 10] for i in range(0, 200, 2)]
    pids = {pid for pid, _ in results}
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 3


def _slow_first(task: int) -> int:
    if task == 0:
        # The first task finishes last: later results must wait for it, in order.
        import time

        time.sleep(0.2)
    return task


def test_a_slow_task_holds_back_later_results_but_not_their_order() -> None:
    with ForkPool(_slow_first, processes=2) as pool:
        assert list(pool.map(range(20), in_flight=4)) == list(range(20))


def _echo(task: bytes) -> bytes:
    return task * 3


def test_tasks_and_results_larger_than_a_pipe_do_not_deadlock() -> None:
    # Several megabytes each way, with more tasks out than a pipe can hold.
    tasks = [bytes([i]) * (700_000 + i) for i in range(12)]
    with ForkPool(_echo, processes=2) as pool:
        results = list(pool.map(tasks, in_flight=4))
    assert results == [task * 3 for task in tasks]


def _fail_on_three(task: int) -> int:
    if task == 3:
        raise ValueError("task three is bad")
    return task


def test_an_exception_in_a_worker_is_raised_at_its_task() -> None:
    seen: list[int] = []
    with (
        ForkPool(_fail_on_three, processes=2) as pool,
        pytest.raises(ValueError, match="task three is bad"),
    ):
        for result in pool.map(range(10), in_flight=4):
            seen.append(result)
    assert seen == [0, 1, 2]


class _UnpicklableError(Exception):
    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("cannot pickle this")


def _raise_unpicklable(task: int) -> int:
    raise _UnpicklableError(f"odd failure on {task}")


def test_an_exception_that_cannot_travel_arrives_as_a_runtime_error_naming_it() -> None:
    with (
        ForkPool(_raise_unpicklable, processes=2) as pool,
        pytest.raises(RuntimeError, match="_UnpicklableError: odd failure on 0"),
    ):
        list(pool.map(range(3), in_flight=2))


def _die_on_five(task: int) -> int:
    if task == 5:
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def test_a_worker_that_dies_is_an_error_not_a_hang() -> None:
    seen: list[int] = []
    with (
        ForkPool(_die_on_five, processes=2) as pool,
        pytest.raises(WorkerLostError, match="ended unexpectedly"),
    ):
        for result in pool.map(range(10), in_flight=4):
            seen.append(result)
    assert seen == list(range(len(seen)))
    assert len(seen) <= 5


def test_stopping_early_stops_the_workers() -> None:
    with ForkPool(_echo, processes=2) as pool:
        pids = [worker.pid for worker in pool._workers]
        results = pool.map([b"x"] * 100, in_flight=4)
        assert next(results) == b"xxx"
        results.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped by the pool


def test_leaving_on_an_exception_kills_busy_workers() -> None:
    with pytest.raises(KeyboardInterrupt), ForkPool(_slow_first, processes=2) as pool:
        pids = [worker.pid for worker in pool._workers]
        results = pool.map(range(4), in_flight=4)
        next(results)
        raise KeyboardInterrupt
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_no_tasks_gives_no_results() -> None:
    with ForkPool(_echo, processes=2) as pool:
        assert list(pool.map([], in_flight=4)) == []


def test_at_least_one_process() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        ForkPool(_echo, processes=0)


def test_workers_do_not_write_the_parents_buffered_output(
    capfd: pytest.CaptureFixture[str],
) -> None:
    sys.stdout.write("written once")  # still in the parent's buffer when the workers fork
    with ForkPool(_echo, processes=2) as pool:
        assert list(pool.map([b"a"], in_flight=2)) == [b"aaa"]
    sys.stdout.flush()
    assert capfd.readouterr().out.count("written once") == 1
