"""What a live agent did, recorded as it happens: node entries, model calls, tool calls.

A `TrajectoryCollector` holds the record of one case. The runner gives every case its own
collector through a context variable (`capturing`), so code that records (the `tool`
decorator, the LangChain callback handler, the built-in tool agent) finds the collector of the
case it runs for with `current_collector()`: fifty cases running at once never mix their steps,
because asyncio copies the context into every task, and the runner into the thread of a sync
agent. A thread the agent starts itself does not inherit the context: see `tool` for what
becomes of the calls made in it.

The collector's own view is the seed's: `trajectory` (node entries and tool calls in the order
they started), `tool_calls` and `node_visits`. `to_steps` turns it into the steps of an
`assay.records.Trajectory`, which is what every scorer reads.

Example:
    >>> collector = TrajectoryCollector()
    >>> with capturing(collector):
    ...     collector.enter_node("agent")
    ...     _ = record_tool_call("get_weather", {"city": "Paris"}, result="sunny")
    ...     _ = collector.record_model_call("It is sunny.")
    >>> [(step.type.value, step.name) for step in collector.trajectory]
    [('node', 'agent'), ('tool', 'get_weather')]
    >>> [(step.node, [c.name for c in step.tool_calls], step.text) for step in collector.to_steps()]
    [('agent', ['get_weather'], None), ('agent', [], 'It is sunny.')]
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar, overload

from assay.records import Step, ToolCall, Usage
from assay.trajectory.spec import StepType, TrajectoryStep

__all__ = [
    "ModelCall",
    "TrajectoryCollector",
    "call_in_flight",
    "capture_advice",
    "capture_context",
    "capturing",
    "current_collector",
    "outside_calls",
    "record_tool_call",
    "tool",
]


@dataclass(slots=True)
class ModelCall:
    """One call of a model the agent made: what it wrote, the calls it asked for, its usage."""

    text: str | None = None
    """What the model wrote, if anything."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    """The tool calls the model asked for (their results are attached when the tools run)."""

    usage: Usage = field(default_factory=Usage)
    """Tokens the call used, as the model reported them."""

    model: str | None = None
    """The model's name, as the agent's client reported it."""

    node: str | None = None
    """The node the call was made in, if the agent has nodes."""

    turn: int | None = None
    """The conversation turn (from 0) the call belongs to."""

    duration_ms: float | None = None
    """Wall time of the call, if measured."""


@dataclass(slots=True)
class _ToolEvent:
    """A tool call as the collector keeps it: the seed's step and where it happened."""

    step: TrajectoryStep
    node: str | None
    turn: int | None
    error: str | None = None


class TrajectoryCollector:
    """Records node entries, tool calls and model calls during one agent run.

    The runner makes one per case and repetition; a collector passed to `AgentEvaluator`
    is the one the seed's API wires into a graph (`make_trajectory_callback(collector)`), and
    its record is copied into each case's own capture.

    Example:
        >>> collector = TrajectoryCollector()
        >>> call = collector.start_tool("search", {"q": "AI"})
        >>> collector.finish_tool(call, result=["a", "b"])
        >>> collector.tool_calls[0].result, collector.node_visits
        (['a', 'b'], [])
    """

    def __init__(self) -> None:
        self._events: list[_ToolEvent | ModelCall | str] = []
        """Everything in order: tool events, model calls and node names (node entries)."""
        self.node: str | None = None
        """The node the agent is in now (set by `enter_node`), given to what is recorded."""
        self.turn: int | None = None
        """The conversation turn being run (set by the runner), given to what is recorded."""

    # The seed's view.

    @property
    def trajectory(self) -> list[TrajectoryStep]:
        """Node entries and tool calls, in the order they started."""
        return [
            TrajectoryStep.node(event) if isinstance(event, str) else event.step
            for event in self._events
            if not isinstance(event, ModelCall)
        ]

    @property
    def tool_calls(self) -> list[ToolCall]:
        """Every tool call, in the order they started, each with its result once it ended."""
        return [
            event.step.call
            for event in self._events
            if isinstance(event, _ToolEvent) and event.step.call is not None
        ]

    @property
    def node_visits(self) -> list[str]:
        """The nodes entered, in order (a node entered twice is listed twice)."""
        return [event for event in self._events if isinstance(event, str)]

    @property
    def model_calls(self) -> list[ModelCall]:
        """Every model call, in order."""
        return [event for event in self._events if isinstance(event, ModelCall)]

    @property
    def empty(self) -> bool:
        """Whether nothing at all was recorded (a capture that is not wired looks like this)."""
        return not self._events

    def recorded_in_turn(self, turn: int | None) -> bool:
        """Whether a tool call or a model call was recorded in conversation turn `turn`."""
        return any(
            not isinstance(event, str) and event.turn == turn for event in self._events
        )

    def reset(self) -> None:
        """Forget everything recorded (the collector can then record another run)."""
        self._events.clear()
        self.node = None
        self.turn = None

    # Recording.

    def enter_node(self, name: str) -> None:
        """Record that the agent entered node `name`; what follows happens in it."""
        self._events.append(name)
        self.node = name

    def start_tool(
        self, name: str, args: dict[str, Any] | str | None = None, *, call_id: str | None = None
    ) -> ToolCall:
        """Record the start of a tool call and return the call, to be finished later."""
        call = ToolCall(name, args, call_id)
        step = TrajectoryStep(StepType.TOOL, name, call)
        self._events.append(_ToolEvent(step, self.node, self.turn))
        return call

    def finish_tool(self, call: ToolCall, result: Any = None, *, error: str | None = None) -> None:
        """Attach the result of `call` (or the error it raised)."""
        call.result = result if error is None else {"error": error}
        if error is not None:
            for event in reversed(self._events):
                if isinstance(event, _ToolEvent) and event.step.call is call:
                    event.error = error
                    break

    def record_model_call(
        self,
        text: str | None = None,
        tool_calls: Sequence[ToolCall] = (),
        *,
        usage: Usage | None = None,
        model: str | None = None,
        duration_ms: float | None = None,
    ) -> ModelCall:
        """Record one model call: its text, the tool calls it asked for, its usage."""
        call = ModelCall(
            text, list(tool_calls), usage or Usage(), model, self.node, self.turn, duration_ms
        )
        self._events.append(call)
        return call

    def extend(self, other: TrajectoryCollector) -> None:
        """Append what `other` recorded (a collector the user wired in, copied per case)."""
        self._events.extend(other._events)

    # The records every scorer reads.

    def to_steps(self) -> list[Step]:
        """The run's steps, in the order things happened.

        A model call is one step (its text, its usage, the calls it asked for); a tool call
        that a model call asked for (same call id, or else the first unfinished call of that
        name) fills that call in, arguments and result; any other tool call (a plain Python
        agent calling a decorated tool) is a step of its own. A node entry is a step of its
        own only when nothing else is recorded in that node before the next node entry, so
        that every visit shows in the steps' `node`s without doubling the steps of the nodes
        that did something.
        """
        steps: list[Step] = []
        requested: list[tuple[ToolCall, Step]] = []
        entered: tuple[str, int | None] | None = None  # a node entry not yet shown by a step

        def add(step: Step) -> Step:
            step.index = len(steps)
            steps.append(step)
            return step

        for event in self._events:
            if isinstance(event, str):
                if entered is not None:
                    add(Step(0, node=entered[0], turn=entered[1]))
                entered = (event, self.turn if not steps else steps[-1].turn)
                continue
            if isinstance(event, ModelCall):
                calls = [ToolCall(c.name, c.args, c.call_id, c.result) for c in event.tool_calls]
                step = add(
                    Step(
                        0,
                        text=event.text,
                        tool_calls=calls,
                        usage=event.usage,
                        duration_ms=event.duration_ms,
                        node=event.node,
                        turn=event.turn,
                    )
                )
                requested.extend((call, step) for call in calls)
                entered = None
                continue
            call = event.step.call
            assert call is not None
            match = _requested_call(requested, call)
            if match is not None:
                asked, _ = match
                requested.remove(match)
                if call.args is not None:
                    asked.args = call.args
                asked.result = call.result
                if asked.call_id is None:
                    asked.call_id = call.call_id
                if entered is not None and entered[0] == event.node:
                    # The node that ran the tools (a LangGraph tool node): its visit still shows.
                    add(Step(0, node=entered[0], turn=event.turn))
                    entered = None
                continue
            add(
                Step(
                    0,
                    tool_calls=[ToolCall(call.name, call.args, call.call_id, call.result)],
                    node=event.node,
                    turn=event.turn,
                )
            )
            entered = None
        if entered is not None:
            add(Step(0, node=entered[0], turn=entered[1]))
        return steps

    def usage(self) -> Usage:
        """The tokens of every model call, added up (None counts where none were recorded)."""
        total = Usage()
        for call in self.model_calls:
            total = total + call.usage
        return total


def _requested_call(
    requested: list[tuple[ToolCall, Step]], call: ToolCall
) -> tuple[ToolCall, Step] | None:
    """The asked-for call that `call` carries out: the one with its id, else the first one
    of its name not carried out yet."""
    if call.call_id is not None:
        for item in requested:
            if item[0].call_id == call.call_id:
                return item
    for item in requested:
        if item[0].name == call.name and (item[0].call_id is None or call.call_id is None):
            return item
    return None


_current: contextvars.ContextVar[TrajectoryCollector | None] = contextvars.ContextVar(
    "assay_collector", default=None
)


def current_collector() -> TrajectoryCollector | None:
    """The collector of the case running in this context, or None outside a live run.

    Example:
        >>> current_collector() is None
        True
    """
    return _current.get()


def capture_context(collector: TrajectoryCollector) -> contextvars.Context:
    """A copy of the current context in which `collector` records: the context to run a
    case's agent task in. Nothing has to be reset when the task ends (unlike `capturing`),
    so an agent's task left behind past its deadline may end in any way, anywhere.

    Example:
        >>> collector = TrajectoryCollector()
        >>> capture_context(collector).run(current_collector) is collector
        True
    """
    context = contextvars.copy_context()
    context.run(_current.set, collector)
    # The case is in flight for as long as anything can still run in this context (its task,
    # left behind past its deadline included): until the context is no more.
    with _flight_lock:
        _live_contexts()
        _contexts.append((weakref.ref(context), collector))
    return context


@contextmanager
def capturing(collector: TrajectoryCollector) -> Iterator[TrajectoryCollector]:
    """Record into `collector` whatever runs in this context until the block ends."""
    token = _current.set(collector)
    try:
        with _held(collector):
            yield collector
    finally:
        _current.reset(token)


# Which cases are in flight, for a tool call made where no case's context is (a thread the
# agent started): with one case in flight it is that case's; with several it could be any.

_flight_lock = threading.RLock()
"""Re-entrant: the garbage collector may close a `capturing` block left suspended (a task
destroyed pending) in the middle of this module's own work, in the thread doing it."""
_holds: dict[int, tuple[TrajectoryCollector, int]] = {}
"""Collectors held in flight explicitly, by identity, each with how many hold it: a
`capturing` block, the thread of a sync agent while it runs (`call_in_flight`)."""
_contexts: list[tuple[weakref.ref[contextvars.Context], TrajectoryCollector]] = []
"""The contexts `capture_context` made, each with its collector: in flight while it lives.
(Weak references, looked at when asked, rather than callbacks: a callback could run in the
middle of this module's own work, in any thread, when the garbage collector frees a context.)"""
_outside_calls = 0
"""Tool calls made outside any case's context while several cases were in flight, in this
process, ever: an evaluation counts its own from where it started (`outside_calls`)."""


def outside_calls() -> int:
    """How many tool calls this process has seen made outside any case's context while
    several cases were in flight (an evaluation takes the count when it starts, and gives
    `capture_advice` what it was then).

    Example:
        >>> outside_calls() >= 0
        True
    """
    with _flight_lock:
        return _outside_calls


def _live_contexts() -> list[TrajectoryCollector]:
    """The collectors of the contexts still alive, the others forgotten (under the lock)."""
    _contexts[:] = [(ref, collector) for ref, collector in _contexts if ref() is not None]
    return [collector for _, collector in _contexts]


def _in_flight() -> list[TrajectoryCollector]:
    """The collectors of the cases in flight, each once (under the lock)."""
    found = {id(collector): collector for collector, _ in tuple(_holds.values())}
    found.update((id(collector), collector) for collector in _live_contexts())
    return list(found.values())


@contextmanager
def _held(collector: TrajectoryCollector) -> Iterator[None]:
    """`collector` counted among the cases in flight until the block ends."""
    key = id(collector)
    with _flight_lock:
        _, holders = _holds.get(key, (collector, 0))
        _holds[key] = (collector, holders + 1)
    try:
        yield
    finally:
        with _flight_lock:
            _, holders = _holds.pop(key, (collector, 0))
            if holders > 1:
                _holds[key] = (collector, holders - 1)


def call_in_flight(function: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`function(*args, **kwargs)`, with the case of this context kept in flight until it
    returns, even if the case has ended meanwhile.

    The thread of a sync agent runs this way: abandoned at its timeout, it still counts, so
    that a call from a thread it started is never given to the next case.

    Example:
        >>> with capturing(TrajectoryCollector()):
        ...     call_in_flight(sum, [1, 2])
        3
    """
    collector = _current.get()
    if collector is None:
        return function(*args, **kwargs)
    with _held(collector):
        return function(*args, **kwargs)


def _recording_into() -> TrajectoryCollector | None:
    """The collector a tool call made here is recorded into: the context's; else (a thread the
    agent started, which did not inherit the context) the one case in flight, if only one is.
    None outside a live run, and when several cases are in flight (a sync agent left running
    past its timeout counts until it returns): the call is then counted (`capture_advice`),
    never given to a case that may not have made it."""
    collector = _current.get()
    if collector is not None:
        return collector
    global _outside_calls
    with _flight_lock:
        cases = _in_flight()
        if len(cases) > 1:
            _outside_calls += 1
    return cases[0] if len(cases) == 1 else None


def capture_advice(since: int = 0) -> str:
    """What to tell the user whose runs expected tool calls but captured nothing: how many
    tool calls were made outside any case's context since `since` (the `outside_calls` an
    evaluation took when it started), if any were, else how to wire the capture.

    Example:
        >>> capture_advice(since=outside_calls())[:55]
        'is the capture wired? Decorate the tools with @assay.ev'
    """
    outside = outside_calls() - since
    if outside:
        return (
            f"{outside} @tool calls ran outside the case's context, in threads the agent "
            "started (a thread does not inherit it), while more than one case was in flight "
            "(run at once, or left running past its timeout): start those threads with "
            "assay.evaluation.ContextThreadPoolExecutor or assay.evaluation.propagate(fn), or "
            "run each in contextvars.copy_context().run."
        )
    return (
        "is the capture wired? Decorate the tools with @assay.evaluation.tool, pass "
        "make_trajectory_callback(...) to the graph, or return the turn's messages with the "
        "reply."
    )


def record_tool_call(
    name: str,
    args: dict[str, Any] | str | None = None,
    *,
    result: Any = None,
    call_id: str | None = None,
    error: str | None = None,
) -> ToolCall | None:
    """Record a finished tool call into the current case's collector (None outside a run).

    For agents that call tools without the `tool` decorator: call this after each tool call.
    A call made in a thread the agent started is recorded as `tool` says.
    """
    collector = _recording_into()
    if collector is None:
        return None
    call = collector.start_tool(name, args, call_id=call_id)
    collector.finish_tool(call, result, error=error)
    return call


F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


@overload
def tool(function: F, /) -> F: ...
@overload
def tool(*, name: str | None = None) -> Callable[[F], F]: ...
def tool(function: F | None = None, /, *, name: str | None = None) -> F | Callable[[F], F]:
    """Record every call of a plain Python tool (sync or async) into the trajectory of the
    case that is running; outside a live run the tool runs as it is.

    Arguments are recorded by parameter name (positional ones too); the return value is the
    result; an exception is recorded as the call's error and raised again.

    The case is found through a context variable, which asyncio tasks and the thread of a sync
    agent inherit, but a thread the agent starts itself (a `ThreadPoolExecutor`,
    `loop.run_in_executor`, a `threading.Thread`) does not. A call made in such a thread is
    recorded into the one case in flight when only one is (`--concurrency 1`, the default).
    When several are (a sync agent left running past its timeout counts until it returns), it
    could be any of theirs, so it is recorded into none, and the warning
    about runs that captured nothing says how many such calls there were. To have every call
    recorded at any concurrency, start those threads with the case's context:
    `ContextThreadPoolExecutor` in place of `ThreadPoolExecutor`, `propagate(fn)` in place of
    `fn` as a thread's target, or `contextvars.copy_context().run(fn, ...)`. (A thread an
    agent leaves running after its reply is not told apart from the next case's.)

    Example:
        >>> @tool
        ... def add(a: int, b: int) -> int:
        ...     return a + b
        >>> collector = TrajectoryCollector()
        >>> with capturing(collector):
        ...     add(2, b=3)
        5
        >>> collector.tool_calls
        [ToolCall(name='add', args={'a': 2, 'b': 3}, call_id=None, result=5)]
    """

    def decorate(wrapped: F) -> F:
        tool_name = name or wrapped.__name__
        signature = inspect.signature(wrapped)

        def arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # the call itself will fail and say why
                return {"args": list(args), **kwargs}
            return dict(bound.arguments)

        if inspect.iscoroutinefunction(wrapped):

            @functools.wraps(wrapped)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                collector = _recording_into()
                if collector is None:
                    return await wrapped(*args, **kwargs)
                call = collector.start_tool(tool_name, arguments(args, kwargs))
                try:
                    result = await wrapped(*args, **kwargs)
                except BaseException as exc:
                    collector.finish_tool(call, error=_error_text(exc))
                    raise
                collector.finish_tool(call, result)
                return result

            run_async.__assay_tool__ = tool_name  # type: ignore[attr-defined]
            return run_async  # type: ignore[return-value]

        @functools.wraps(wrapped)
        def run(*args: Any, **kwargs: Any) -> Any:
            collector = _recording_into()
            if collector is None:
                return wrapped(*args, **kwargs)
            call = collector.start_tool(tool_name, arguments(args, kwargs))
            try:
                result = wrapped(*args, **kwargs)
            except BaseException as exc:
                collector.finish_tool(call, error=_error_text(exc))
                raise
            collector.finish_tool(call, result)
            return result

        # Lets the built-in tool agent find the name and run the function undecorated.
        run.__assay_tool__ = tool_name  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    if function is not None:
        return decorate(function)
    return decorate


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]

