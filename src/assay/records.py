"""The records every input format converts into: runs, their steps, and scenarios.

These are plain slotted dataclasses rather than pydantic models on purpose: the offline
pipeline builds one `Trajectory` per saved run, thousands per evaluation, and pydantic's
import alone costs more than reading all of those files (see bench/README.md). Validation of
messy input happens once, at the edge, in `assay.formats`, where a bad field becomes a recorded
problem instead of an exception.

Example:
    >>> call = ToolCall(name="get_sensor", args={"asset": "CH-12"})
    >>> step = Step(index=0, tool_calls=[call], usage=Usage(input_tokens=120, output_tokens=8))
    >>> run = Trajectory(run_id="r1", scenario_id="11", answer="{'count': 3}", steps=[step])
    >>> run.tool_names()
    ['get_sensor']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any


@dataclass(slots=True)
class Usage:
    """Token usage of one model call, one step or a whole run."""

    input_tokens: int = 0
    """Prompt tokens."""

    output_tokens: int = 0
    """Completion tokens (reasoning tokens included when the source reports them)."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )


@dataclass(slots=True)
class ToolCall:
    """One call an agent made to a tool."""

    name: str
    """Tool name as the agent called it."""

    args: dict[str, Any] | str | None = None
    """Arguments: a dict when they parsed, the raw string when they did not, None if absent."""

    call_id: str | None = None
    """Provider's id for the call, used to pair a call with its result."""

    result: Any = None
    """What the tool returned, as recorded by the run (any JSON value)."""

    def matches(self, actual: ToolCall | Mapping[str, Any], *, args: str = "superset") -> bool:
        """Whether `actual` is this expected call: same name, and the arguments given here
        compare as `args` says (by default every argument given here must be present and
        equal; arguments not given are ignored; no arguments at all match any).

        Example:
            >>> expected = ToolCall("get_weather", {"location": "Paris"})
            >>> expected.matches({"name": "get_weather",
            ...                   "args": {"location": "Paris", "units": "celsius"}})
            True
            >>> expected.matches(ToolCall("get_weather", {"location": "Rome"}))
            False
        """
        from assay.trajectory.check import check_trajectory

        return check_trajectory([self], [actual], mode="strict", args=args).passed


@dataclass(slots=True)
class Message:
    """One chat message (system, user, assistant or tool)."""

    role: str
    """`system`, `user`, `assistant` or `tool`."""

    content: str | None = None
    """Text content; None when the message carried only tool calls."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    """Tool calls an assistant message made."""

    tool_call_id: str | None = None
    """For a tool message: the id of the call it answers."""


@dataclass(slots=True)
class Step:
    """One agent turn: what the model said and the tool calls it made together."""

    index: int
    """Position of the step in the run, from 0."""

    text: str | None = None
    """What the model wrote in this turn, if recorded."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    """Calls made in this turn; calls in one step may have run in parallel."""

    usage: Usage = field(default_factory=Usage)
    """Tokens this turn used."""

    duration_ms: float | None = None
    """Wall time of the turn, if recorded."""

    node: str | None = None
    """The agent or graph node that took this step (multi-agent and graph runs), if known."""


@dataclass(slots=True)
class Trajectory:
    """One saved agent run: who ran what, the final answer and the steps that led to it."""

    run_id: str | None = None
    """The run's own id."""

    scenario_id: str | None = None
    """The scenario the run answers, as the run recorded it (joined later, loosely)."""

    runner: str | None = None
    """Agent or harness that produced the run."""

    model: str | None = None
    """Model that drove the agent, as `provider/model`."""

    question: str | None = None
    """The question the agent was asked."""

    answer: Any = None
    """Final answer as recorded: normally a string; anything else means "no answer"."""

    steps: list[Step] = field(default_factory=list)
    """Ordered turns."""

    messages: list[Message] = field(default_factory=list)
    """Raw conversation, for formats that record one."""

    usage: Usage = field(default_factory=Usage)
    """Token totals: the sum of the steps, or the run's own totals when only those exist."""

    duration_ms: float | None = None
    """Wall time of the run, if recorded."""

    source: str = ""
    """Where the run was read from (`path` or `path:line`), for messages and reports."""

    error: str | None = None
    """Why the run failed, when its harness recorded a failure (an exception, a context
    overflow); None for a run that records none."""

    _deferred: _DeferredSteps | None = field(default=None, init=False, repr=False, compare=False)
    """How to build `steps` on first use, for a reader that deferred them (`defer_steps`)."""

    def tool_calls(self) -> list[ToolCall]:
        """All tool calls in order, across steps."""
        return [call for step in self.steps for call in step.tool_calls]

    def tool_names(self) -> list[str]:
        """Names of all tool calls in order (known without building deferred steps)."""
        if self._deferred is not None:
            return list(self._deferred.tool_names)
        return [call.name for step in self.steps for call in step.tool_calls]

    def step_count(self) -> int:
        """How many steps the run has (known without building deferred steps)."""
        if self._deferred is not None:
            return self._deferred.step_count
        return len(self.steps)

    def defer_steps(
        self, build: Callable[[], list[Step]], *, step_count: int, tool_names: list[str]
    ) -> None:
        """Build `steps` only when something reads them; for readers.

        Many evaluations read only a run's answer and its figures (tool names, step count,
        usage), and building every step and tool call of thousands of runs is then most of
        the cost of reading them. `build` must return what `steps` would have held, with
        `step_count` steps and these tool names; everything else (equality, `replace`,
        pickling) sees the built steps.

        Example:
            >>> run = Trajectory(run_id="r1")
            >>> run.defer_steps(lambda: [Step(index=0, tool_calls=[ToolCall("a")])],
            ...                 step_count=1, tool_names=["a"])
            >>> run.tool_names(), run.step_count(), run.steps[0].tool_calls[0].name
            (['a'], 1, 'a')
        """
        self._deferred = _DeferredSteps(build, step_count, tool_names)
        del self.steps  # an empty slot: reading it reaches __getattr__, which builds

    if not TYPE_CHECKING:  # hidden from type checkers, which would accept any name otherwise

        def __getattr__(self, name: str) -> Any:
            # Only reached when a slot is empty, i.e. for the steps of `defer_steps`.
            deferred = self._deferred if name == "steps" else None
            if deferred is None:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            self.steps = deferred.build()
            self._deferred = None
            return self.steps


@dataclass(slots=True)
class _DeferredSteps:
    build: Callable[[], list[Step]]
    step_count: int
    tool_names: list[str]


@dataclass(slots=True)
class CaseTurn:
    """One turn of a multi-turn scenario: what the user asks then, and what answers it.

    Example:
        >>> case = Case(id="4", expected_answer="1000045", turns=[
        ...     CaseTurn("Which work order waits for approval?", "1000045")])
        >>> case.turns[-1].expected_answer == case.expected_answer
        True
    """

    question: str | None = None
    """The user's message of this turn, if recorded."""

    expected_answer: Any = None
    """Ground truth of this turn, as written; None when the turn has none."""

    characteristic_form: str | None = None
    """What a right answer to this turn looks like, for judges, if recorded."""


@dataclass(slots=True)
class Case:
    """A scenario with its ground truth."""

    id: str
    """Scenario id, as written in the ground truth (join keys are normalised separately)."""

    question: str | None = None
    """The question text."""

    expected_answer: Any = None
    """Ground truth as written: text (JSON, Python literal, number or prose) or a JSON value."""

    characteristic_form: str | None = None
    """Description of what a right answer looks like, for judges."""

    type: str | None = None
    """Scenario type, used for breakdowns in reports."""

    category: str | None = None
    """Scenario category."""

    scoring_method: str | None = None
    """Scorer this scenario asks for; overrides the run's default scorer."""

    answer_rules: dict[str, Any] | None = None
    """Per-key comparison rules for structured answers (see `assay.answers.rules`)."""

    expected_tools: list[str] | None = None
    """Tool names the run must call (order and arguments not checked)."""

    expected_trajectory: Any = None
    """The expected steps, in any form `assay.check_trajectory` accepts (tool names, calls,
    one nested list per step of parallel calls, messages)."""

    source: str = ""
    """Where the scenario was read from."""

    metadata: dict[str, Any] = field(default_factory=dict)
    """Any other fields the scenario carried."""

    turns: list[CaseTurn] | None = None
    """The turns of a multi-turn scenario, in order; None for a single question. The case's
    `expected_answer` (and `characteristic_form`, when the last turn has one) is the last
    turn's: a run's final answer answers the last turn."""
