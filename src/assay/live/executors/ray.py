"""`RayExecutor`: the agents' side of every unit on the workers of a Ray cluster.

Each worker is a Ray actor that builds the runner's agent side once (`UnitRunner.recipe`:
the agent loaded from its spec, or unpickled) and runs the units the driver sends it on its
own asyncio loop, up to `concurrency` at a time, under the same deadlines as a local run.
What a unit's agent side gives (`UnitRunner.execute`: the captured run, the verdicts of the
checks that drive the agent) travels back pickled; the driver scores it (`finish`: the
judges, their cache, budget and rate limits stay in one process) and hands it to the one
writer.

Faults:
- a worker that dies (its process killed, its node lost) loses no unit: the units it had in
  flight run again on a worker started in its place, at most `max_reruns` times each, after
  which the unit is an `infrastructure_error`; none is scored twice;
- a worker whose event loop is held past a unit's longest possible run
  (`UnitRunner.longest_unit_s`, plus `grace_s`) is killed: that unit is a `timeout`, the
  others it had run again;
- a cluster that goes away (no worker can be started and none is left) ends the run with
  `ExecutorError`; what finished is saved, and `--resume` finishes the rest;
- cancelling the run (Ctrl-C, SIGTERM) kills the workers.

Example (a local cluster is started when none runs, which takes a few seconds; the suite
runs this in `tests/live/executors/test_ray.py`, not here):
    >>> from assay.live.api import AgentEvaluator  # doctest: +SKIP
    >>> from assay.schema.evalset import EvalCase  # doctest: +SKIP
    >>> evaluator = AgentEvaluator("json:dumps", executor=RayExecutor(workers=1))  # doctest: +SKIP
    >>> case = EvalCase(eval_id="a", user_query="hi", expected_response="hi")  # doctest: +SKIP
    >>> evaluator.evaluate_sync([case]).cases[0].passed  # doctest: +SKIP
    True
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import os
import socket
import sys
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from assay._text import text_of
from assay.live._loop import UNIT_NAME, LoopWatch
from assay.live.executors._base import Executor, ExecutorError, mark_remote_worker
from assay.results import ErrorKind

if TYPE_CHECKING:
    from assay.live.runner import UnitRunner

U = TypeVar("U")
Outcome = TypeVar("Outcome")

__all__ = ["RayExecutor", "ray_missing"]

_log = logging.getLogger("assay.live.executors.ray")

BATCH = 16
"""Most units sent to a worker in one call (see `_Run.batch`)."""

START_WORKER_TIMEOUT_S = 120.0
"""Longest wait for a worker to start (its runtime environment set up, the agent loaded)."""

_JUDGE_POLL_S = 0.1
"""How often a stuck worker's watch is asked again which unit held its loop."""

_HELD_S = 0.25
"""A worker's loop without a heartbeat this long is held (its heartbeat is every 50 ms)."""

_WATCH_SLACK_S = 1.0
"""How long past the timeout the watch, a thread of a busy worker, may take to name a unit."""


def ray_missing() -> str | None:
    """What to install when Ray is not installed; None when it is."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return "the Ray executor needs Ray: pip install 'ray>=2.9' (the assay[ray] extra)"
    return None


class RayExecutor(Executor):
    """Runs the units' agent side on the workers of a Ray cluster.

    Args:
        address: The cluster (`ray start --head` prints it, e.g. `127.0.0.1:6379`, or
            `ray://host:10001`). None: the cluster this machine runs if there is one
            (`RAY_ADDRESS`, or the last `ray start`), else a local one started for the run
            and stopped after it.
        workers: How many workers (actors); None: as many as the cluster's free CPUs allow
            at `num_cpus` each (GPUs too when `num_gpus` is set).
        num_cpus: CPUs each worker reserves.
        num_gpus: GPUs each worker reserves.
        max_reruns: How many times a unit runs again after its worker died.
        grace_s: Added to a unit's longest possible run before its worker counts as stuck.
        runtime_env: Ray's runtime environment for the workers (`pip`, `env_vars`, ...),
            merged with what the agent needs (its file's folder, the driver's import path).

    Raises:
        ExecutorError: Ray is not installed (the message says what to install).
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        num_cpus: float = 1.0,
        num_gpus: float = 0.0,
        max_reruns: int = 2,
        grace_s: float = 10.0,
        runtime_env: Mapping[str, Any] | None = None,
    ) -> None:
        missing = ray_missing()
        if missing is not None:
            raise ExecutorError(missing)
        if workers is not None and workers < 1:
            raise ValueError("workers must be at least 1")
        if num_cpus < 0 or num_gpus < 0 or max_reruns < 0:
            raise ValueError("num_cpus, num_gpus and max_reruns must not be negative")
        self.address = address
        self.workers = workers
        self.num_cpus = num_cpus
        self.num_gpus = num_gpus
        self.max_reruns = max_reruns
        self.grace_s = grace_s
        self.runtime_env = dict(runtime_env or {})
        self.stats = _Stats()
        """What happened in the last run: workers started and lost, units run again."""
        self.pids: list[int] = []
        """The process ids of the workers alive now (for tests and operators)."""
        self.shipped = False
        """Whether the agent's folder was shipped to the workers (a node elsewhere)."""
        self._owned = False

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.stats.address,
            "workers": self.stats.workers,
            "num_cpus": self.num_cpus,
            "num_gpus": self.num_gpus,
            "workers_lost": self.stats.workers_lost,
            "units_rerun": self.stats.units_rerun,
            "units_lost": self.stats.units_lost,
        }

    async def run(
        self,
        runner: UnitRunner[U, Any, Outcome],
        units: Sequence[U],
        done: Callable[[int, Outcome], Awaitable[None]],
    ) -> None:
        if not units:
            return
        self.stats = _Stats()
        run = _Run(self, runner, units, done)
        self.shipped = False
        owned = self._owned = await asyncio.to_thread(self._connect, run.code_dir)
        try:
            await run.go()
        finally:
            await asyncio.shield(asyncio.to_thread(run.stop, owned))

    # Connecting.

    def _connect(self, code_dir: str | None) -> bool:
        """Connect to the cluster (or start a local one); whether this run did, and so
        disconnects after it. When the cluster has a node on another machine, the folder of
        the agent's code is shipped to the workers as their working directory (Ray takes a
        local folder only when connecting, so that means connecting again); workers on this
        machine read it where it is, and start sooner without a runtime environment."""
        import ray

        if ray.is_initialized():
            self.stats.address = _address_of(ray)
            return False
        job_env = dict(self.runtime_env)
        self._init(job_env)
        if code_dir is not None and "working_dir" not in job_env and not _all_here(ray):
            ray.shutdown()
            job_env.update(working_dir=code_dir, excludes=list(_EXCLUDED))
            self._init(job_env)
            self.shipped = True
        self.stats.address = _address_of(ray)
        return True

    def _init(self, job_env: dict[str, Any]) -> None:
        import ray

        try:
            ray.init(
                address=self.address,
                runtime_env=job_env or None,
                namespace="assay",
                log_to_driver=False,
                logging_level=logging.ERROR,
                include_dashboard=False,
                configure_logging=True,
            )
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = self.address or "this machine"
            raise ExecutorError(
                f"cannot connect to the Ray cluster at {where}: {text_of(exc)} (is it running, "
                "and at this address? A cluster with token authentication needs "
                "RAY_AUTH_MODE=token and its token here too)"
            ) from exc

    def _count(self) -> int:
        import ray

        if self.workers is not None:
            return self.workers
        cluster: Any = ray
        free: dict[str, float] = cluster.available_resources()
        fits = [free.get("CPU", 0.0) / self.num_cpus] if self.num_cpus > 0 else []
        if self.num_gpus > 0:
            fits.append(free.get("GPU", 0.0) / self.num_gpus)
        count = int(min(fits)) if fits else 1
        if count < 1:
            raise ExecutorError(
                f"the Ray cluster has no room for a worker of {self.num_cpus:g} CPUs and "
                f"{self.num_gpus:g} GPUs (free: {dict(free)}); lower --ray-num-cpus or "
                "--ray-num-gpus, or free the cluster"
            )
        return count

    def _actor_options(self, concurrency: int) -> dict[str, Any]:
        """Each worker's options: its resources (and the runtime environment asked for, when
        this run did not connect and so could not give it to the job)."""
        options: dict[str, Any] = {
            "num_cpus": self.num_cpus,
            "num_gpus": self.num_gpus,
            "max_concurrency": concurrency + 2,  # the units, and the calls that check it
            "max_restarts": 0,  # a dead worker is replaced by the driver, its units re-sent
        }
        if self.runtime_env and not self._owned:
            options["runtime_env"] = dict(self.runtime_env)
        return options


_EXCLUDED = (".git", ".venv", "venv", "node_modules", "__pycache__", "*.pyc")
"""Never shipped with an agent's folder (large, and not the agent's code)."""


@dataclass(slots=True)
class _Stats:
    address: str | None = None
    workers: int = 0
    workers_lost: int = 0
    units_rerun: int = 0
    units_lost: int = 0


@dataclass(eq=False, slots=True)
class _Worker:
    """One actor and what the driver knows of it."""

    actor: Any
    pid: int
    alive: bool = True
    judged: asyncio.Future[set[str]] | None = None
    """Which units held its loop, once it was found stuck."""


def _packed(runner: UnitRunner[Any, Any, Any]) -> tuple[bytes, str | None]:
    """The runner's recipe, pickled for the workers, and the folder of code they need."""
    from ray import cloudpickle

    from assay.live.loading import file_modules

    pickler: Any = cloudpickle
    recipe = runner.recipe()
    for module in file_modules():  # not importable by name on a worker: sent whole
        pickler.register_pickle_by_value(module)
    try:
        return _dumps(recipe.build), recipe.code_dir
    except Exception as exc:
        raise ExecutorError(
            f"the agent cannot be sent to Ray workers ({type(exc).__name__}: "
            f"{text_of(exc)}); name it as module:attribute or path/to/file.py:attribute"
        ) from exc


def _dumps(value: Any) -> bytes:
    from ray import cloudpickle

    pickler: Any = cloudpickle
    return bytes(pickler.dumps(value))


def _loads(blob: bytes) -> Any:
    from ray import cloudpickle

    pickler: Any = cloudpickle
    return pickler.loads(blob)


class _Unsendable:
    """What a worker sends back when a unit's part cannot be pickled."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Host:
    """The actor's class: the runner's agent side, built once, running units as sent, its
    loop watched (`blocked` answers from a loop of its own while this one is held)."""

    def __init__(self, recipe: bytes, paths: list[str], folder: str | None) -> None:
        logging.getLogger("assay").setLevel(logging.WARNING)
        mark_remote_worker()
        for path in reversed(paths):
            if path not in sys.path and Path(path).is_dir():
                sys.path.insert(0, path)
        if folder is not None and Path(folder).is_dir():
            os.chdir(folder)
        self.problem: str | None = None
        """Why the runner could not be built here (the agent does not load)."""
        try:
            self.runner = _loads(recipe)()
        except Exception as exc:  # said to the driver by `ready`, which stops the run
            self.problem = f"{type(exc).__name__}: {text_of(exc)}"[:2000]
        self.watch: LoopWatch | None = None

    def ready(self) -> tuple[int, str | None]:
        """This worker's process id, and why it cannot run units (None: it can)."""
        return os.getpid(), self.problem

    async def execute(self, units: list[Any]) -> list[bytes]:
        """Run the units at once; each one's part, pickled, in their order."""
        if self.watch is None:
            self.watch = LoopWatch(asyncio.get_running_loop(), self.runner.settings.timeout_s)
            self.watch.start()
        return list(await asyncio.gather(*(self._one(unit) for unit in units)))

    async def _one(self, unit: Any) -> bytes:
        UNIT_NAME.set(getattr(unit, "run_id", None))  # in this unit's task only
        part = await self.runner.execute(unit)
        try:
            return _dumps(part)
        except Exception as exc:
            reason = (
                "what the run produced cannot be sent back from the Ray worker "
                f"({type(exc).__name__}: {text_of(exc)}); return plain data from the agent "
                "and its tools, or run it locally"
            )
            return _dumps(_Unsendable(reason[:1000]))

    async def blocked(self) -> tuple[list[str], float]:
        """The units whose agent held this worker's loop past their timeout, and how long
        the loop has been held now (about 0 when it runs)."""
        if self.watch is None:
            return [], 0.0
        return list(self.watch.blockers), self.watch.held_for()


@functools.cache
def _actor_class() -> Any:
    """`_Host` as a Ray actor class, with `blocked` in a concurrency group of its own (its
    own event loop, free while the units' loop is held)."""
    import ray

    method: Any = ray.method
    remote: Any = ray.remote

    class Host(_Host):
        blocked = method(concurrency_group="watch")(_Host.blocked)

    return remote(concurrency_groups={"watch": 1})(Host)


class _Run:
    """One run of units on the cluster: the workers, the queue, the slots."""

    def __init__(
        self,
        executor: RayExecutor,
        runner: UnitRunner[Any, Any, Any],
        units: Sequence[Any],
        done: Callable[[int, Any], Awaitable[None]],
    ) -> None:
        self.executor = executor
        self.runner = runner
        self.units = units
        self.done = done
        self.queue: deque[int] = deque(range(len(units)))
        self.reruns: dict[int, int] = {}
        self.started: set[int] = set()
        self.unfinished = len(units)
        self.changed = asyncio.Condition()
        self.workers: list[_Worker] = []
        self.group: asyncio.TaskGroup | None = None
        longest = runner.longest_unit_s()
        self.deadline_s = None if longest is None else longest + executor.grace_s
        self.blob, self.code_dir = _packed(runner)
        self.batch = max(1, min(BATCH, runner.settings.concurrency // 8))
        """Units per call to a worker: one at low concurrency; at high concurrency a few,
        so that each call's fixed cost (a fraction of a millisecond of the driver's CPU) is
        shared (bench/README.md, the ledger)."""

    async def go(self) -> None:
        self.options = self.executor._actor_options(self.runner.settings.concurrency)
        # Workers on this machine import what the driver imports, from where it does, and
        # run a file's agent in its folder, as shipped workers do.
        self.setup = (_user_paths(), None if self.executor.shipped else self.code_dir)
        count = await asyncio.to_thread(self.executor._count)
        first = await asyncio.gather(*(self._start() for _ in range(count)),
                                     return_exceptions=True)
        failures = [f for f in first if isinstance(f, BaseException)]
        if failures and len(failures) == count:
            raise failures[0]
        try:
            async with asyncio.TaskGroup() as group:
                self.group = group
                for worker in first:
                    if isinstance(worker, _Worker):
                        self._serve(worker)
        except BaseExceptionGroup as failed:
            raise failed.exceptions[0] from failed  # as the local executor says it

    def _serve(self, worker: _Worker) -> None:
        assert self.group is not None
        self.workers.append(worker)
        self.executor.pids = [w.pid for w in self.workers if w.alive]
        self.executor.stats.workers = sum(w.alive for w in self.workers)
        for _ in range(math.ceil(self.runner.settings.concurrency / self.batch)):
            self.group.create_task(self._slot(worker))

    async def _start(self) -> _Worker:
        """A new worker, ready (its agent loaded)."""
        import ray

        actor = _actor_class().options(**self.options).remote(self.blob, *self.setup)
        try:
            pid, problem = await asyncio.wait_for(
                _awaited(actor.ready.remote()), START_WORKER_TIMEOUT_S
            )
        except TimeoutError:
            ray.kill(actor)
            raise ExecutorError(
                f"a Ray worker did not start within {START_WORKER_TIMEOUT_S:g} s (no room on "
                "the cluster, or its runtime environment cannot be set up)"
            ) from None
        except ray.exceptions.RayError as exc:
            raise ExecutorError(f"a Ray worker did not start: {_cause(exc)}") from exc
        if problem is not None:
            ray.kill(actor)
            raise ExecutorError(f"a Ray worker cannot run the agent: {problem}")
        return _Worker(actor, pid)

    async def _take(self, worker: _Worker) -> list[int]:
        """The next units for a slot of `worker` (up to a batch); none when none are left
        (or the worker died)."""
        async with self.changed:
            await self.changed.wait_for(
                lambda: bool(self.queue) or self.unfinished == 0 or not worker.alive
            )
            if not worker.alive:
                return []
            count = min(self.batch, len(self.queue))
            return [self.queue.popleft() for _ in range(count)]

    async def _slot(self, worker: _Worker) -> None:
        while batch := await self._take(worker):
            units = [self.units[index] for index in batch]
            for index, unit in zip(batch, units, strict=True):
                if index not in self.started:
                    self.started.add(index)
                    self.runner.starting(unit)
            try:
                blobs = await self._call(worker, units)
            except _WorkerLostError as lost:
                parts = [await self._lost(worker, index, lost) for index in batch]
            else:
                parts = [self._part(unit, blob) for unit, blob in zip(units, blobs, strict=True)]
            await asyncio.gather(*(
                self._finish(index, part) for index, part in zip(batch, parts, strict=True)
                if part is not None
            ))

    def _part(self, unit: Any, blob: bytes) -> Any:
        loaded = _loads(blob)
        if isinstance(loaded, _Unsendable):
            return self.runner.lost(unit, ErrorKind.AGENT_ERROR, loaded.reason)
        return loaded

    async def _finish(self, index: int, part: Any) -> None:
        outcome = await self.runner.finish(self.units[index], part)
        await self.done(index, outcome)
        async with self.changed:
            self.unfinished -= 1
            self.changed.notify_all()

    async def _call(self, worker: _Worker, units: list[Any]) -> list[bytes]:
        """The units' parts, from `worker`; `_WorkerLostError` when the worker died or was
        stuck."""
        import ray

        ref = worker.actor.execute.remote(units)
        try:
            found: list[bytes] = await asyncio.wait_for(_awaited(ref), self.deadline_s)
        except TimeoutError:
            raise _WorkerLostError(stuck=True) from None
        except ray.exceptions.RayTaskError as exc:
            raised: Any = exc
            raise raised.as_instanceof_cause() from None  # the runner itself raised
        except ray.exceptions.RayError as exc:
            raise _WorkerLostError(reason=_cause(exc)) from None
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                ray.cancel(ref)
            raise
        return found

    async def _lost(self, worker: _Worker, index: int, lost: _WorkerLostError) -> Any:
        """The unit's part when its worker failed it (None: it runs again elsewhere). A
        worker past a unit's deadline is asked which units held its loop, then killed: those
        units timed out, the others it had run again. A dead worker is replaced."""
        unit = self.units[index]
        stats = self.executor.stats
        if lost.stuck and worker.judged is None:
            worker.judged = asyncio.ensure_future(self._judge(worker))
        blockers = None if worker.judged is None else await worker.judged
        if worker.alive:  # died on its own
            self._bury(worker)
        if blockers is not None and (
            getattr(unit, "run_id", None) in blockers or (lost.stuck and not blockers)
        ):
            stats.units_lost += 1
            return self.runner.lost(
                unit,
                ErrorKind.TIMEOUT,
                f"timed out: held its Ray worker's event loop past the run's timeout (no "
                f"answer within {self.deadline_s:g} s); the worker was replaced",
            )
        self.reruns[index] = tries = self.reruns.get(index, 0) + 1
        if tries > self.executor.max_reruns:
            stats.units_lost += 1
            return self.runner.lost(
                unit,
                ErrorKind.INFRASTRUCTURE_ERROR,
                f"infrastructure error: its Ray worker died {tries} times while running it "
                f"(last: {lost.reason or 'stopped by another unit that held its loop'})"[:1000],
            )
        stats.units_rerun += 1
        async with self.changed:
            self.queue.appendleft(index)
            self.changed.notify_all()
        return None

    async def _judge(self, worker: _Worker) -> set[str]:
        """Which units held a stuck worker's loop (its watch says, from a loop of its own);
        then the worker is killed and replaced. The watch names a unit once its hold passes
        the timeout, which may be after the deadline here when the unit started late on a
        busy worker: it is asked again for as long as a unit's deadline, and after that while
        the loop is held but not yet past the timeout (up to the timeout more)."""
        import ray

        deadline = self.deadline_s or 0.0
        limit = self.runner.settings.timeout_s or 0.0
        waited = 0.0
        while True:
            try:
                found, held = await asyncio.wait_for(
                    _awaited(worker.actor.blocked.remote()), 10.0
                )
            except (TimeoutError, ray.exceptions.RayError):
                found = []
                break
            # A hold not yet past the timeout (and the watch's slack) is a unit that started
            # late on a busy worker, still to be named: waited for, up to its timeout more.
            counting = _HELD_S < held <= limit + _WATCH_SLACK_S and waited < deadline + limit
            if found or (waited >= deadline and not counting):
                break
            await asyncio.sleep(_JUDGE_POLL_S)
            waited += _JUDGE_POLL_S
        if worker.alive:
            self._bury(worker)
        with contextlib.suppress(Exception):
            ray.kill(worker.actor)
        return {str(name) for name in found}

    def _bury(self, worker: _Worker) -> None:
        """Count a worker as lost and start one in its place."""
        worker.alive = False
        self.executor.stats.workers_lost += 1
        self.executor.pids = [w.pid for w in self.workers if w.alive]
        assert self.group is not None
        self.group.create_task(self._replace())

    async def _replace(self) -> None:
        """A worker in place of a dead one; when none can be started and none is left, the
        cluster is gone and the run ends (at once when its head no longer answers: Ray ends
        a driver that has lost it for a minute, and the aggregate must be written first)."""
        try:
            if not await asyncio.to_thread(_answers, self.executor.stats.address):
                raise ExecutorError(f"its head at {self.executor.stats.address} does not answer")
            worker = await self._start()
        except ExecutorError as exc:
            alive = [w for w in self.workers if w.alive]
            self.executor.pids = [w.pid for w in alive]
            self.executor.stats.workers = len(alive)
            if alive:
                _log.warning("a Ray worker could not be replaced: %s", exc)
                return
            left = self.unfinished
            raise ExecutorError(
                f"the Ray cluster went away: no worker is left and none can be started "
                f"({exc}); {left} units did not finish (run again with --resume)",
                before_run=False,
            ) from exc
        self._serve(worker)
        async with self.changed:
            self.changed.notify_all()

    def stop(self, owned: bool) -> None:
        """Kill the workers; disconnect when this run connected."""
        import ray

        for worker in self.workers:
            with contextlib.suppress(Exception):
                ray.kill(worker.actor)
        self.executor.pids = []
        if owned:
            with contextlib.suppress(Exception):
                ray.shutdown()


class _WorkerLostError(Exception):
    """A unit's worker died (or was stuck past the unit's deadline)."""

    def __init__(self, reason: str = "", *, stuck: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stuck = stuck


async def _awaited(ref: Any) -> Any:
    return await ref


def _cause(exc: BaseException) -> str:
    """The first line of a Ray error, which names what happened."""
    text = text_of(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:500]


def _answers(address: str | None, timeout_s: float = 3.0) -> bool:
    """Whether the cluster's head (its GCS, `host:port`) accepts a connection; True when the
    address is not known."""
    host, _, port = (address or "").rpartition(":")
    if not host or not port.isdigit():
        return True
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return True
    except OSError:
        return False


def _all_here(ray: Any) -> bool:
    """Whether every node of the cluster runs on this machine (an address this machine can
    bind to is its own)."""
    for node in ray.nodes():
        address = str(node.get("NodeManagerAddress") or "")
        try:
            with socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET) as probe:
                probe.bind((address, 0))
        except OSError:
            return False
    return True


def _address_of(ray: Any) -> str | None:
    try:
        return str(ray.get_runtime_context().gcs_address)
    except Exception:
        return None


def _user_paths() -> list[str]:
    """The driver's import path without the interpreter's own folders: where the user's
    modules are found (the current directory, a test's folder), so that workers on this
    machine import them as the driver does."""
    prefixes = {str(Path(p).resolve()) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}}
    found = [str(Path.cwd())]
    for entry in sys.path:
        if not entry:
            continue
        resolved = str(Path(entry).resolve())
        if any(resolved.startswith(prefix) for prefix in prefixes):
            continue
        if Path(resolved).is_dir():
            found.append(resolved)
    return found
