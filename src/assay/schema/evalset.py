"""Eval sets: the labelled cases a live agent is run over (`assay run`, `assay.evaluation`).

An `EvalCase` is one conversation to have with the agent, single-turn (`user_query`) or
multi-turn (`turns` of user message and expected response), with what the run must show:
the expected response, the tools it must call, the steps it must take. Other fields (the
evaluator catalog's `should_escalate`, `sensitive_tool`, `success_criteria`, `rubrics`, ...)
are kept and read as a scenario's are, so every registered scorer can check a live run.

Files are JSON (one case, a list of cases, or `{"cases": [...]}`) or JSON Lines (one case per
line); `assay schema evalset` prints the JSON Schema of a case file. Google ADK eval sets are
read by `assay.live.evalset.load_eval_set`.

Example:
    >>> case = EvalCase.single_turn("weather-paris-001", "What is the weather in Paris?",
    ...                             expected_response="sunny", expected_tools=["get_weather"])
    >>> case.user_messages(), case.expected_responses()
    (['What is the weather in Paris?'], ['sunny'])
    >>> EvalCase.model_validate_json(case.model_dump_json()) == case
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from assay.records import Rubric, StepType, ToolCall, TrajectoryStep

__all__ = ["EvalCase", "EvalSetFile", "expected_step"]

_Id = Annotated[str, StringConstraints(min_length=1, max_length=1000), Field(pattern=r"\S")]


def expected_step(value: Any) -> Any:
    """One expected step as written in a file, read into a `TrajectoryStep`: a tool name
    (`"search"`), a call (`{"name": "search", "args": {...}}`), a node (`{"node": "PLAN"}`),
    or the step's own shape (`{"type": "tool", "name": ..., "call": {...}}`).

    Example:
        >>> expected_step("search").name, expected_step({"node": "PLAN"}).type.value
        ('search', 'node')
        >>> expected_step({"tool": "f", "args": {"x": 1}}).call.args
        {'x': 1}
    """
    if isinstance(value, TrajectoryStep):
        return value
    if isinstance(value, str):
        return TrajectoryStep.tool(value)
    if isinstance(value, ToolCall):
        return TrajectoryStep.tool(value)
    if not isinstance(value, dict):
        raise ValueError("a step is a tool name, a call object or a node object")
    if "node" in value and isinstance(value["node"], str):
        return TrajectoryStep.node(value["node"])
    kind = value.get("type")
    if kind in (StepType.NODE, StepType.NODE.value) and isinstance(value.get("name"), str):
        return TrajectoryStep.node(value["name"])
    nested = value.get("call")
    source: dict[str, Any] = nested if isinstance(nested, dict) else value
    name = source.get("name", source.get("tool"))
    if not isinstance(name, str) or not name:
        raise ValueError("a tool step needs a tool name (`name`)")
    args = source.get("args", source.get("arguments"))
    if args is not None and not isinstance(args, dict | str):
        raise ValueError("a tool step's `args` must be an object")
    call_id = source.get("call_id")
    return TrajectoryStep.tool(ToolCall(name, args, call_id if isinstance(call_id, str) else None))


def _turn(value: Any) -> Any:
    """A turn as written: `[user, expected]`, `{"user": ..., "expected": ...}` or a bare
    user message (no expectation)."""
    if isinstance(value, str):
        return (value, None)
    if isinstance(value, dict):
        user = value.get("user", value.get("user_query"))
        expected = value.get("expected", value.get("expected_response"))
        return (user, expected)
    if isinstance(value, list | tuple) and len(value) == 1:
        return (value[0], None)
    return value


def _rubric(value: Any) -> Any:
    if isinstance(value, dict) and "rubric_id" not in value and "id" in value:
        value = {**value, "rubric_id": value["id"]}
        value.pop("id")
    return value


class EvalCase(BaseModel):
    """One labelled case: what to say to the agent, and what its run must show.

    Fields not named here (the evaluator catalog's criteria, say) are kept and read as a
    scenario file's are.
    """

    model_config = ConfigDict(extra="allow", frozen=False, arbitrary_types_allowed=False)

    eval_id: _Id
    """Unique id of the case (the run's `scenario_id` in reports)."""

    user_query: str | None = None
    """The user's message of a single-turn case."""

    expected_response: Any = None
    """The expected response of a single-turn case: the text the `response_match` check looks
    for (substring by default), or a structured value for `static_json`."""

    expected_tools: list[Annotated[str, StringConstraints(min_length=1)]] | None = None
    """Tool names that must appear in the run. None (the default): nothing expected. An empty
    list without an `expected_trajectory` means "this case calls no tools" to a trajectory
    criterion with match type `EXACT` (any call fails it); to other match types, and to
    `tool_name_match`, it checks nothing, as None does."""

    expected_trajectory: (
        list[Annotated[TrajectoryStep, BeforeValidator(expected_step)]] | None
    ) = None
    """The ordered node and tool steps the run must take. None (the default): nothing
    expected. An empty list means "this case calls no tools" to a trajectory criterion with
    match type `EXACT` (as in ADK: any call fails it); to other match types it checks nothing,
    as None does."""

    turns: list[Annotated[tuple[str, Any], BeforeValidator(_turn)]] | None = None
    """A multi-turn case: `(user message, expected response or None)` per turn, in order."""

    config: dict[str, Any] | None = None
    """Runtime configuration merged into the agent's invocation (`ainvoke(config=...)`)."""

    rubrics: list[Annotated[Rubric, BeforeValidator(_rubric)]] | None = None
    """The case's own rubrics for the `rubric` criterion."""

    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else about the case, kept in reports."""

    @model_validator(mode="after")
    def _one_conversation(self) -> EvalCase:
        if self.turns is None and self.user_query is None:
            raise ValueError("a case needs `user_query` or `turns`")
        if self.turns is not None and self.user_query is not None:
            raise ValueError("a case has `user_query` or `turns`, not both")
        if self.turns is not None and not self.turns:
            raise ValueError("`turns` must not be empty")
        if self.turns is not None and self.expected_response is not None:
            raise ValueError("a multi-turn case puts its expected responses in `turns`")
        return self

    @classmethod
    def single_turn(
        cls,
        eval_id: str,
        user_query: str,
        expected_response: Any = None,
        expected_tools: Sequence[str] | None = None,
        expected_trajectory: Sequence[TrajectoryStep] | None = None,
        config: dict[str, Any] | None = None,
        **fields: Any,
    ) -> EvalCase:
        """A case of one user message.

        Example:
            >>> EvalCase.single_turn("c1", "Hi", expected_response="Hello").turn_count
            1
        """
        return cls(
            eval_id=eval_id,
            user_query=user_query,
            expected_response=expected_response,
            expected_tools=None if expected_tools is None else list(expected_tools),
            expected_trajectory=None if expected_trajectory is None else list(expected_trajectory),
            config=config,
            **fields,
        )

    @property
    def turn_count(self) -> int:
        """How many user messages the case sends."""
        return 1 if self.turns is None else len(self.turns)

    def user_messages(self) -> list[str]:
        """The user's messages, in order."""
        if self.turns is None:
            assert self.user_query is not None
            return [self.user_query]
        return [user for user, _ in self.turns]

    def expected_responses(self) -> list[Any]:
        """The expected response of each turn (None where a turn expects nothing)."""
        if self.turns is None:
            return [self.expected_response]
        return [expected for _, expected in self.turns]

    def extra_fields(self) -> dict[str, Any]:
        """The fields not named by the model (catalog criteria and the like), as written."""
        return dict(self.model_extra or {})


class EvalSetFile(BaseModel):
    """An eval-set file, `{"cases": [...]}` (`assay schema evalset`)."""

    model_config = ConfigDict(extra="forbid")

    cases: list[EvalCase]
    """The cases, in order (a JSON file may also be a bare list, a JSON Lines file one case per
    line)."""


