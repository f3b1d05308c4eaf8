"""The runner: every (case, repetition) run on the agent, captured, scored, handed on.

One engine serves `AgentEvaluator`, `assay run` and the benchmark lifecycle. For each unit of
work it
1. runs the agent in a task whose context holds a capture of its own (`capture_context`), so
   concurrent cases never mix their steps;
2. sends the case's user turns in order in one conversation, under the case's timeout, which
   cancels the agent when it runs out;
3. retries the whole unit on an infrastructure error (a connection that failed, a model that
   answered 429 or 5xx), never on a wrong answer;
4. turns the capture into a `Trajectory`, runs the checks that need the agent (a simulated
   user, a repeated idempotent call), and hands both to the one scoring step
   (`assay.scoring.Scoring`), which scores it exactly as a saved run is scored;
5. hands the unit's outcome on as soon as it is done (the writer saves it at once).

A unit whose agent failed is not scored: the run records the kind (`Trajectory.error_kind`:
`agent_error`, `timeout`, `infrastructure_error`) and its score is that error; a scorer that
raised gives a `scorer_error` for its criterion. None of them is ever a number.

Example:
    >>> import asyncio
    >>> from assay.schema.evalset import EvalCase
    >>> from assay.live.criteria import EvalConfig, CriterionConfig
    >>> config = EvalConfig(criteria={"says_hi": CriterionConfig.response_match()})
    >>> engine = Engine(lambda messages: "hi there", config)
    >>> outcome = asyncio.run(engine.run_unit(Unit(EvalCase(eval_id="a", user_query="?",
    ...                                                     expected_response="hi"), 1, "a")))
    >>> outcome.result.score.passed, outcome.run.answer
    (True, 'hi there')
"""

from __future__ import annotations

import asyncio
import functools
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from assay._jsonable import dumps_lenient
from assay._text import text_of
from assay.formats.scenarios import case_of
from assay.limits import MAX_REPLY_CHARS, MAX_TOOL_RESULT_CHARS
from assay.live._loop import AGENT_TASKS, UNIT_NAME, LoopBlockedError, stalled_seconds
from assay.live._threads import in_thread
from assay.live.agents import Agent, as_agent
from assay.live.capture import (
    TrajectoryCollector,
    capture_advice,
    capture_context,
    outside_calls,
)
from assay.live.criteria import EvalConfig
from assay.live.executors import Executor, LocalExecutor
from assay.records import Case, Message, Step, Trajectory
from assay.results import CaseResult, ErrorKind, Score
from assay.schema.evalset import EvalCase
from assay.scoring import Criterion, Scoring, criteria_of

__all__ = [
    "Engine",
    "Performance",
    "Recipe",
    "RunKey",
    "RunSettings",
    "Unit",
    "UnitOutcome",
    "UnitRunner",
    "key_of",
    "units_of",
]

T = TypeVar("T")
U = TypeVar("U")
Part = TypeVar("Part")
Outcome = TypeVar("Outcome")

AGENT_ERROR = ErrorKind.AGENT_ERROR
TIMEOUT = ErrorKind.TIMEOUT
INFRASTRUCTURE_ERROR = ErrorKind.INFRASTRUCTURE_ERROR


@dataclass(frozen=True, slots=True)
class RunSettings:
    """How the units are run."""

    concurrency: int = 1
    """Units in flight at once."""

    timeout_s: float | None = None
    """Seconds one unit (all of its turns) may take; None: no limit."""

    retries: int = 2
    """Extra attempts of a unit after an infrastructure error (never after a wrong answer)."""

    retry_wait_s: float = 1.0
    """Wait before the first retry; doubled for each further one."""

    judge_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Options per registered scorer name given to the criteria that use it (the CLI's judge
    flags: model, client options, cache, budget); a criterion's own options win."""

    max_reply_chars: int = MAX_REPLY_CHARS
    """Longest reply of one turn; past it the run is an `agent_error` and the reply is not
    kept."""

    max_tool_result_chars: int = MAX_TOOL_RESULT_CHARS
    """Longest tool result, as JSON text; past it the run is an `agent_error` and the result
    is not kept."""

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.max_reply_chars < 1 or self.max_tool_result_chars < 1:
            raise ValueError("the caps on replies and tool results must be at least 1")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ValueError("timeout must be a positive number of seconds")
        if self.retries < 0:
            raise ValueError("retries must not be negative")


@dataclass(frozen=True, slots=True)
class Unit:
    """One run to make: a case and which repetition of it."""

    case: EvalCase
    repeat: int
    """1-based index of the repetition."""
    run_id: str
    """`eval_id` when each case runs once, `eval_id#repeat` when cases are repeated."""
    of: int = 1
    """How many times each case runs."""

    @property
    def key(self) -> RunKey:
        """What names this run in the reports: the case's id and, when cases are repeated,
        the repetition (a case id may itself hold `#`, so never the joined `run_id`)."""
        return (self.case.eval_id, self.repeat if self.of > 1 else None)


RunKey = tuple[str, int | None]
"""A run's case id and repetition (None when each case runs once), as its `results.jsonl`
line records them (`scenario_id`, `repeat`)."""


def key_of(line: Mapping[str, Any]) -> RunKey | None:
    """The `RunKey` of a `results.jsonl` or `runs.jsonl` line; None for a line without one.

    Example:
        >>> key_of({"scenario_id": "a#1"}), key_of({"scenario_id": "a", "repeat": 1})
        (('a#1', None), ('a', 1))
    """
    case, repeat = line.get("scenario_id"), line.get("repeat")
    if not isinstance(case, str) or not (repeat is None or type(repeat) is int):
        return None
    return (case, repeat)


def units_of(cases: Iterable[EvalCase], repeat: int = 1) -> list[Unit]:
    """Every (case, repetition) in canonical order: case by case, repetitions in order.

    Example:
        >>> [u.run_id for u in units_of([EvalCase(eval_id="a", user_query="?")], 2)]
        ['a#1', 'a#2']
    """
    if repeat < 1:
        raise ValueError("repeat must be at least 1")
    return [
        Unit(case, k, case.eval_id if repeat == 1 else f"{case.eval_id}#{k}", repeat)
        for case in cases
        for k in range(1, repeat + 1)
    ]


@dataclass(slots=True)
class UnitOutcome:
    """What one unit gave: the captured run, its scored result, and the capture itself."""

    unit: Unit
    run: Trajectory
    result: CaseResult
    collector: TrajectoryCollector
    error_kind: ErrorKind | None = None
    """`agent_error`, `timeout` or `infrastructure_error` when the agent's run failed."""
    attempts: int = 1
    """How many times the unit was run (more than one after infrastructure errors)."""


@dataclass(frozen=True, slots=True)
class Recipe:
    """What builds a runner's agent side on a worker of a remote executor: `build()` there
    gives a runner whose `execute` runs units (it must pickle)."""

    build: Callable[[], UnitRunner[Any, Any, Any]]
    code_dir: str | None = None
    """A folder of the user's code that workers need (an agent's `file.py`'s): shipped to
    them as their working directory."""


@dataclass(slots=True)
class Performance:
    """The agent's side of one unit (`Engine.execute`): what the agent did, the verdicts of
    the checks that drive it, and how its run ended. Plain data, so that it travels back
    from a worker of a remote executor as the local runner has it."""

    run: Trajectory
    collector: TrajectoryCollector
    error_kind: ErrorKind | None = None
    attempts: int = 1
    driven: dict[str, Score] = field(default_factory=dict)
    """Verdicts of the criteria that drive the agent (simulation, idempotency, evaluator)."""
    uncaptured: bool = False
    """The case expects tool calls or nodes and nothing at all was captured."""


class UnitRunner(ABC, Generic[U, Part, Outcome]):
    """What every way of running units of work shares: `concurrency` units at a time, each
    agent call under a deadline that really ends it, and the tasks left behind kept apart.
    `Engine` runs the cases of an eval set on an agent; the benchmark lifecycle
    (`assay.benchmark`) runs task repetitions.

    A unit runs in two parts, so that an executor can run the first where the agents are:
    `execute` runs the agent's side (the conversation and its capture; a `Part` that can be
    pickled), on this process or on a worker of a cluster; `finish` runs here, the driver,
    and scores it (the judges, their cache and budget, stay in one place). The executor
    (`assay.live.executors`) decides where `execute` runs; the default runs everything in
    this process.
    """

    def __init__(
        self, settings: RunSettings | None = None, executor: Executor | None = None
    ) -> None:
        self.settings = settings or RunSettings()
        self.executor: Executor = executor if executor is not None else LocalExecutor()
        """Where units run (`LocalExecutor` unless told)."""
        self._left: set[asyncio.Task[Any]] = set()
        """Agents' tasks left behind past their deadline, or when interrupted."""

    @abstractmethod
    async def execute(self, unit: U) -> Part:
        """The agent's side of one unit, wherever the executor runs it."""

    @abstractmethod
    async def finish(self, unit: U, part: Part) -> Outcome:
        """The driver's side of one unit: its outcome, scored."""

    def starting(self, unit: U) -> None:
        """Called on the driver as a unit is handed to the executor (before `execute`)."""

    @abstractmethod
    def lost(self, unit: U, kind: ErrorKind, reason: str) -> Part:
        """The part of a unit that no worker could run to its end (its worker died too often,
        or held its event loop past the unit's deadline): an error of `kind`, never a
        score."""

    @abstractmethod
    def recipe(self) -> Recipe:
        """What builds this runner's agent side on a worker of a remote executor (pickled
        and sent there)."""

    def longest_unit_s(self) -> float | None:
        """The longest one unit's `execute` may take when everything in it keeps to its
        deadlines (None: no limit): past it, a remote executor takes the worker as stuck."""
        return None

    async def run_unit(self, unit: U) -> Outcome:
        """Run one unit here, both parts; its outcome."""
        self.starting(unit)
        return await self.finish(unit, await self.execute(unit))

    async def run_all(
        self,
        units: Iterable[U],
        on_done: Callable[[Outcome], Awaitable[None] | None] | None = None,
    ) -> list[Outcome]:
        """Run every unit on the executor; `on_done` gets each outcome as it ends (in the
        order they end). Returns the outcomes in the order of `units`.

        Cancelling (Ctrl-C) stops the units in flight; the outcomes already handed to
        `on_done` are the ones that finished.
        """
        pending = list(units)
        outcomes: dict[int, Outcome] = {}

        async def record(index: int, outcome: Outcome) -> None:
            outcomes[index] = outcome
            if on_done is not None:
                done = on_done(outcome)
                if done is not None:
                    await done

        await self.executor.run(self, pending, record)
        return [outcomes[i] for i in range(len(pending))]

    async def _bounded(
        self,
        work: Coroutine[Any, Any, T],
        collector: TrajectoryCollector,
        timeout_s: float | Literal["settings"] | None = "settings",
    ) -> Ended[T]:
        """Run the agent's `work` as a task of its own, until it ends or its deadline passes.

        A run past its deadline timed out, whatever it does next: its task is cancelled and
        left behind, never waited for (an agent that catches the cancellation and answers
        later has still timed out). Whatever the agent raises is its failure, handed back,
        never raised here: an exception, and a `CancelledError`, `KeyboardInterrupt`,
        `SystemExit` or other `BaseException` of its own. Only the cancellation of this
        coroutine (an interrupted evaluation) propagates, after leaving the task behind.
        What the agent does is recorded into `collector`; the deadline is `timeout_s` from
        now (by default the settings' timeout).
        """
        loop = asyncio.get_running_loop()
        task = loop.create_task(_contained(work), context=capture_context(collector),
                                name=UNIT_NAME.get())
        AGENT_TASKS.add(task)
        left = self.settings.timeout_s if timeout_s == "settings" else timeout_s
        stalled = stalled_seconds()
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=left)
                if done:
                    return task.result()
                # Time the loop was held by another agent is not this one's: it gets it back.
                left, stalled = stalled_seconds() - stalled, stalled_seconds()
                if left <= 0.001:
                    self._leave(task)
                    return Ended(timed_out=True)
        except asyncio.CancelledError:
            self._leave(task)
            raise

    def _leave(self, task: asyncio.Task[Any]) -> None:
        """Cancel an agent's task and stop waiting for it; what it does afterwards is
        ignored, and it is kept referenced until it ends."""
        task.cancel()
        self._left.add(task)
        task.add_done_callback(self._left.discard)



class Engine(UnitRunner[Unit, Performance, UnitOutcome]):
    """Runs units of an eval set on one agent with one set of criteria.

    Args:
        graph: The agent (anything `as_agent` takes).
        config: The criteria.
        settings: How units are run.
        collector: A collector the user wired into the agent (see `user_collector`).
        executor: Where units run (default: this process).
        spec: How a worker of a remote executor loads the agent (`module:attribute` or
            `path/to/file.py:attribute`); None: the agent object itself is pickled to it.
        scored: False on a worker of a remote executor: the agent's side only (no scorer is
            built; the driver scores).
    """

    def __init__(
        self,
        graph: Any,
        config: EvalConfig,
        settings: RunSettings | None = None,
        *,
        collector: TrajectoryCollector | None = None,
        executor: Executor | None = None,
        spec: str | None = None,
        scored: bool = True,
    ) -> None:
        self.graph = graph
        self.spec = spec
        self.agent: Agent = as_agent(graph)
        self.agent_name: str = self.agent.name
        """The agent's name in the reports (`runner`)."""
        super().__init__(settings, executor)
        self.config = config
        self.user_collector = collector
        """A collector the user wired into the agent: after each unit it holds that unit's
        record (as the seed's API shows it), while every unit records into its own."""
        self.driven = tuple(c for c in criteria_of(config) if c.kind != "scorer")
        """The criteria that drive the agent (run with the agent, wherever it runs)."""
        self.scoring = Scoring.of(config, settings=self.settings.judge_options)
        """The one scoring step, with these criteria (checked now: a typo or a judge without
        its model fails before any agent runs)."""
        if scored:
            self.scoring.check()
        self._clients: dict[str, Any] = {}
        self._records: dict[str, tuple[EvalCase, Case]] = {}
        self._closers: list[Any] = []
        self.outside_calls_at_start = outside_calls()
        """Tool calls made outside any case's context before this engine ran (the warning
        counts the ones since)."""
        self.uncaptured: list[str] = []
        """Runs whose case expects tool calls or nodes while nothing at all was captured
        from the agent: the capture is probably not wired (see `capture_warning`)."""

    async def aclose(self) -> None:
        """Close the model clients of the criteria (and of assay's own agent) that asked a
        model."""
        await self.scoring.aclose()
        for owner in [*self._closers, self.agent]:
            close = getattr(owner, "aclose", None)
            if close is not None:
                await close()

    # Running.

    async def execute(self, unit: Unit) -> Performance:
        """Run one case once: converse, capture, and run the checks that drive the agent."""
        case = unit.case
        record = self._case_record(case)
        attempts = 0
        while True:
            attempts += 1
            collector = TrajectoryCollector()
            started = time.perf_counter()
            conversation, replies, error_kind, error = await self._converse(case, collector)
            duration_ms = (time.perf_counter() - started) * 1000.0
            if error_kind != INFRASTRUCTURE_ERROR or attempts > self.settings.retries:
                break
            await asyncio.sleep(self.settings.retry_wait_s * 2 ** (attempts - 1))
        run = self._trajectory(unit, record, collector, conversation, replies, duration_ms, error)
        oversize = _drop_oversize(run.steps, self.settings.max_reply_chars,
                                  self.settings.max_tool_result_chars)
        if oversize is not None and error_kind is None:
            error_kind, run.error = AGENT_ERROR, f"{_KIND_TEXT[AGENT_ERROR]}: {oversize}"
        run.error_kind = error_kind
        driven = {}
        if error_kind is None:
            for criterion in self.driven:
                driven[criterion.name] = await self._drive(criterion, case, run)
        uncaptured = error_kind is None and collector.empty and _expects_steps(case)
        return Performance(run, collector, error_kind, attempts, driven, uncaptured)

    async def finish(self, unit: Unit, part: Performance) -> UnitOutcome:
        """Score what the agent did, through the one scoring step."""
        if part.uncaptured:
            self.uncaptured.append(unit.run_id)
        record = self._case_record(unit.case)
        result = await self.scoring.score_case(record, part.run, driven=part.driven)
        if self.user_collector is not None:
            self.user_collector.reset()
            self.user_collector.extend(part.collector)
        return UnitOutcome(unit, part.run, result, part.collector, part.error_kind,
                           part.attempts)

    def lost(self, unit: Unit, kind: ErrorKind, reason: str) -> Performance:
        record = self._case_record(unit.case)
        collector = TrajectoryCollector()
        run = self._trajectory(unit, record, collector, [], [], 0.0, reason)
        run.error_kind = kind
        return Performance(run, collector, kind, attempts=0)

    def recipe(self) -> Recipe:
        from assay.live.loading import file_spec

        source: str | _Pickled = self.spec or _Pickled(self.graph)
        code_dir = None
        if isinstance(source, str) and (found := file_spec(source)) is not None:
            # The file's folder becomes the worker's working directory.
            path, attribute = found
            code_dir, source = str(path.resolve().parent), f"{path.name}:{attribute}"
        build = functools.partial(
            _engine_on_worker, source, self.config, self.settings, self.agent_name
        )
        return Recipe(build, code_dir)

    def longest_unit_s(self) -> float | None:
        limit = self.settings.timeout_s
        if limit is None:
            return None
        tries = self.settings.retries + 1
        waits = sum(self.settings.retry_wait_s * 2.0**k for k in range(self.settings.retries))
        # Each try of the conversation, then each driven check (retried the same way).
        return (limit * tries + waits) * (1 + len(self.driven))

    def _case_record(self, case: EvalCase) -> Case:
        """The `Case` scorers read, made once per eval case (its repetitions share it; no
        scorer changes a case)."""
        found = self._records.get(case.eval_id)
        if found is None or found[0] is not case:
            found = (case, case_of(case, f"eval case {case.eval_id}")[0])
            self._records[case.eval_id] = found
        return found[1]

    async def _converse(
        self, case: EvalCase, collector: TrajectoryCollector
    ) -> tuple[list[dict[str, Any]], list[str | None], ErrorKind | None, str | None]:
        """Send the case's turns in order; the conversation, each turn's reply, and the kind
        and text of the error that ended it, if one did."""
        conversation: list[dict[str, Any]] = []
        replies: list[str | None] = []
        config = dict(case.config or {})

        async def talk() -> None:
            for turn, message in enumerate(case.user_messages()):
                collector.turn = turn
                conversation.append({"role": "user", "content": message})
                reply = await self.agent.respond(conversation, config)
                if reply.content is None:
                    replies.append(None)
                    raise NoReplyError(_no_reply(turn, reply.data))
                if len(reply.content) > self.settings.max_reply_chars:
                    replies.append(None)  # not kept: nothing huge is scored or written
                    raise OversizeError(
                        f"a reply of {len(reply.content):,} characters in turn {turn + 1}, "
                        f"over the cap of {self.settings.max_reply_chars:,} (max reply size)"
                    )
                replies.append(reply.content)
                conversation.append({"role": "assistant", "content": reply.content})

        ended = await self._bounded(talk(), collector)
        if ended.timed_out:
            # What the agent did until its deadline; it may go on in the background.
            limit = self.settings.timeout_s
            return (
                list(conversation),
                list(replies),
                TIMEOUT,
                f"timed out after {limit:g} s; agent cancelled",
            )
        if isinstance(ended.failure, LoopBlockedError):
            return conversation, replies, TIMEOUT, f"timed out: {text_of(ended.failure)}"
        if ended.failure is not None:
            # The conversation does not keep a reply past the cap.
            kind = failure_kind(ended.failure)
            text = f"{_KIND_TEXT[kind]}: {describe(ended.failure)}"[:1000]
            return conversation, replies, kind, text
        return conversation, replies, None, None

    def _trajectory(
        self,
        unit: Unit,
        record: Case,
        collector: TrajectoryCollector,
        conversation: list[dict[str, Any]],
        replies: list[str | None],
        duration_ms: float,
        error: str | None,
    ) -> Trajectory:
        steps = collector.to_steps()
        for turn, reply in enumerate(replies):
            # The reply of each turn is the text of that turn's last step (scorers that check
            # turn by turn read it there when the conversation is not kept, as in runs.jsonl).
            last = next((s for s in reversed(steps) if s.turn == turn), None)
            if reply is not None and (last is None or last.text != reply or last.tool_calls):
                steps.append(Step(len(steps), text=reply, turn=turn))
        steps.sort(key=lambda s: (s.turn if s.turn is not None else -1))
        for index, step in enumerate(steps):
            step.index = index
        models = [c.model for c in collector.model_calls if c.model]
        return Trajectory(
            run_id=unit.run_id,
            scenario_id=unit.case.eval_id,
            runner=self.agent_name,
            model=models[0] if models else None,
            question=record.question,
            answer=replies[-1] if replies and len(replies) == unit.case.turn_count else None,
            steps=steps,
            messages=[Message(m["role"], m["content"]) for m in conversation],
            usage=collector.usage(),
            duration_ms=round(duration_ms, 3),
            source=f"assay run: {unit.run_id}",
            error=error,
            repeat=unit.repeat if unit.of > 1 else None,
        )

    async def _drive(self, criterion: Criterion, case: EvalCase, run: Trajectory) -> Score:
        """The verdict of a check that needs the live run (it drives the agent, or runs code
        on what it did), named after its criterion; a check that raised is its
        `scorer_error`, never the run's."""
        try:
            if criterion.kind == "simulation":
                score = await self._simulate(criterion, case)
            elif criterion.kind == "evaluator":
                score = await self._evaluate_with(criterion, case, run)
            else:
                score = await self._idempotency(criterion, case)
        except Exception as exc:
            score = Score.error(
                criterion.name,
                f"criterion raised {type(exc).__name__}: {exc}"[:500],
                {"reason": ErrorKind.SCORER_ERROR},
            )
        return score

    async def _evaluate_with(self, criterion: Criterion, case: EvalCase, run: Trajectory) -> Score:
        """A benchmark evaluator's verdict on the run (`CriterionConfig.evaluator`), made in a
        thread under the run's timeout (an evaluator is the user's code)."""
        from assay.live.checks.evaluator import evaluator_verdict

        work = in_thread(evaluator_verdict, criterion.name, criterion.options, case, run)
        ended = await self._bounded(work, TrajectoryCollector())
        if ended.timed_out:
            return Score.error(criterion.name, "the evaluator ran past the run's timeout",
                               {"reason": ErrorKind.SCORER_ERROR})
        if ended.failure is not None:
            return Score.error(
                criterion.name,
                f"evaluator raised {describe(ended.failure)}"[:500],
                {"reason": ErrorKind.SCORER_ERROR},
            )
        assert ended.value is not None
        return ended.value

    async def _simulate(self, criterion: Criterion, case: EvalCase) -> Score:
        """A simulated user with the criterion's persona talks to the agent (opening with the
        case's first message), then a judge says which goals were met."""
        from assay.live.checks.simulation import SimulationSpec, run_simulation

        options = criterion.options
        spec = SimulationSpec(
            persona=str(options["persona"]),
            max_turns=int(options.get("max_turns", 5)),
            goals=tuple(options.get("goals") or ()),
            model=options.get("model"),
            first_message=case.user_messages()[0],
        )
        model, client = self._model_client("simulation", options.get("model"))

        async def simulate() -> Score:
            score, outcome = await run_simulation(
                self.agent, spec, client=client, model=model, config=case.config or {}
            )
            score.details.setdefault("simulation", outcome.details())
            return score

        return await self._driving("simulation", simulate)

    async def _idempotency(self, criterion: Criterion, case: EvalCase) -> Score:
        """The case's messages sent twice under one idempotency key (a capture of its own)."""
        from assay.live.checks.idempotency import check_idempotency

        conversation = [{"role": "user", "content": text} for text in case.user_messages()]
        return await self._driving(
            "idempotency",
            lambda: check_idempotency(self.agent, conversation, case.config or {}),
        )

    async def _driving(
        self, check: str, attempt: Callable[[], Coroutine[Any, Any, Score]]
    ) -> Score:
        """Run a check that drives the agent itself: in a capture of its own, within the
        run's timeout, again after an infrastructure error (as a run is), and with the agent's
        failure its error, never a score."""
        tries = 0
        while True:
            tries += 1

            ended = await self._bounded(attempt(), TrajectoryCollector())
            if ended.timed_out or isinstance(ended.failure, LoopBlockedError):
                limit = self.settings.timeout_s
                return Score.error(check, f"{check} ran past {limit:g} s", {"reason": TIMEOUT})
            if ended.failure is None:
                assert ended.value is not None
                return ended.value
            retry = tries <= self.settings.retries
            if retry and failure_kind(ended.failure) is INFRASTRUCTURE_ERROR:
                await asyncio.sleep(self.settings.retry_wait_s * 2 ** (tries - 1))
                continue
            return _failed(check, ended.failure)

    def _model_client(self, purpose: str, model: str | None) -> tuple[str, Any]:
        """The model and a client for a criterion that talks to a model itself (the simulated
        user): the judge flags' client settings, one client per model for the evaluation."""
        from assay.scorers._judge_client import default_client_factory

        settings = self.settings.judge_options
        shared = settings.get(purpose) or settings.get("llm_judge") or {}
        chosen = model or shared.get("model")
        if not chosen:
            raise ValueError(
                f"the {purpose} check needs a model: give --judge-model, or model=... "
                "in its criterion"
            )
        client = self._clients.get(chosen)
        if client is None:
            client_options = dict(shared.get("client_options") or {})
            client = default_client_factory(chosen, **client_options)()
            self._clients[chosen] = client
            self._closers.append(client)
        return chosen, client


def _failed(check: str, exc: BaseException) -> Score:
    """The error of a check that drives the agent itself, when the agent (or its model
    server) failed during it."""
    kind = failure_kind(exc)
    return Score.error(check, f"{_KIND_TEXT[kind]}: {describe(exc)}"[:500], {"reason": kind})


@dataclass(slots=True)
class Ended(Generic[T]):
    """How an agent's work ended: with its value, its failure, or past its deadline."""

    value: T | None = None
    failure: BaseException | None = None
    timed_out: bool = False


async def _contained(work: Coroutine[Any, Any, T]) -> Ended[T]:
    """`work`, with whatever it raises handed back as its failure; only a cancellation
    requested from outside (the deadline, an interruption) propagates."""
    try:
        return Ended(value=await work)
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        cancelled = task is not None and task.cancelling() > 0
        del task  # the traceback re-raised below would keep the task, and its case, alive
        if cancelled:
            raise
        return Ended(failure=exc)  # the agent raised it itself: its failure, like any other
    except GeneratorExit as exc:
        if not _loop_running():
            raise  # a task left behind, closed with its loop: not the agent's doing
        return Ended(failure=exc)
    except BaseException as exc:  # KeyboardInterrupt, SystemExit, its own subclasses
        return Ended(failure=exc)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class NoReplyError(Exception):
    """The agent ended a turn without a reply."""


class OversizeError(Exception):
    """The agent gave a reply longer than the cap."""


def _drop_oversize(steps: list[Step], max_text: int, max_result: int) -> str | None:
    """Replace what is past the caps in a run's steps (a model's text, a tool's result) by
    a note, and say what was; None when nothing was."""
    found: str | None = None
    for step in steps:
        if step.text is not None and len(step.text) > max_text:
            note = f"a model text of {len(step.text):,} characters, over the cap of {max_text:,}"
            step.text, found = f"<{note}: not kept>", found or note
        for call in step.tool_calls:
            size = _json_size(call.result)
            if size > max_result:
                note = (
                    f"a result of tool {call.name!r} of {size:,} characters as JSON, over the "
                    f"cap of {max_result:,} (max tool result size)"
                )
                call.result, found = f"<{note}: not kept>", found or note
    return found


def _json_size(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value)
    return len(dumps_lenient(value))


def _no_reply(turn: int, data: Mapping[str, Any] | None) -> str:
    """Why a turn has no reply, in the agent's own words when it gave some (a `ToolAgent`
    that stopped at its `max_steps` says so in `stop_reason` and `error`)."""
    said = [
        f"{key}: {text_of(data[key])}"
        for key in ("stop_reason", "error")
        if data is not None and data.get(key) is not None
    ]
    return f"no reply in turn {turn + 1}" + (f" ({'; '.join(said)})" if said else "")


def failure_kind(exc: BaseException) -> ErrorKind:
    """`infrastructure_error` for a failure worth a retry (`is_infrastructure_error`), else
    `agent_error`."""
    return INFRASTRUCTURE_ERROR if is_infrastructure_error(exc) else AGENT_ERROR


def describe(exc: BaseException) -> str:
    """`Type: message` of an agent's failure, even when its `__str__` raises.

    Example:
        >>> class Odd(Exception):
        ...     def __str__(self) -> str:
        ...         raise RuntimeError("no")
        >>> describe(Odd()), describe(KeyError("k"))
        ('Odd: Odd()', "KeyError: 'k'")
    """
    return f"{type(exc).__name__}: {text_of(exc)}"


def _expects_steps(case: EvalCase) -> bool:
    return bool(case.expected_tools or case.expected_trajectory)


def capture_warning(run_ids: list[str], since: int = 0) -> str | None:
    """What to say when runs expected tool calls or nodes but nothing was captured.

    Example:
        >>> capture_warning(["a", "b"])[:47]
        '2 runs expect tool calls or nodes, but nothing '
    """
    if not run_ids:
        return None
    shown = ", ".join(run_ids[:5]) + (f" and {len(run_ids) - 5} more" if len(run_ids) > 5 else "")
    return (
        f"{len(run_ids)} runs expect tool calls or nodes, but nothing was captured from the "
        f"agent (no node, model or tool call): {capture_advice(since)} Runs: {shown}"
    )


_KIND_TEXT = {AGENT_ERROR: "agent error", INFRASTRUCTURE_ERROR: "infrastructure error"}


def is_infrastructure_error(exc: BaseException) -> bool:
    """Whether `exc` is the infrastructure's fault, worth a retry: a connection that failed or
    timed out at the transport, a model that answered 429 or 5xx (assay's model errors, and
    httpx's and the OpenAI SDK's, recognised by name so neither is imported for this).

    Example:
        >>> is_infrastructure_error(ConnectionResetError()), is_infrastructure_error(KeyError())
        (True, False)
    """
    from assay.models.types import ModelHTTPError, ModelRateLimited, ModelTimeout

    if isinstance(exc, ModelRateLimited | ModelTimeout | ConnectionError):
        return True
    if isinstance(exc, ModelHTTPError):
        return exc.status is None or exc.status == 429 or exc.status >= 500
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"ConnectError", "ReadTimeout", "ConnectTimeout", "RemoteProtocolError",
                "APIConnectionError", "RateLimitError", "InternalServerError",
                "APITimeoutError", "ServiceUnavailableError"}:
        return True
    status = getattr(getattr(exc, "response", None), "status_code", None)
    server_side = isinstance(status, int) and (status == 429 or status >= 500)
    return server_side and "HTTPStatusError" in names



@dataclass(frozen=True, slots=True)
class _Pickled:
    """An agent object sent to workers as it is (pickled), for want of a spec to load it."""

    agent: Any


def _engine_on_worker(
    source: str | _Pickled, config: EvalConfig, settings: RunSettings, name: str
) -> Engine:
    """The agent's side of an `Engine`, on a worker of a remote executor: the agent loaded
    from its spec (or unpickled), no scorer built."""
    from assay.live.loading import load_agent

    graph = load_agent(source) if isinstance(source, str) else source.agent
    engine = Engine(graph, config, settings, spec=source if isinstance(source, str) else None,
                    scored=False)
    engine.agent_name = name
    return engine
