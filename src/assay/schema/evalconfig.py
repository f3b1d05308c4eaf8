"""The criteria of a live evaluation as a file holds them (`assay run --config`,
`assay schema evalconfig`).

A `CriterionConfig` names a check and its options; `EvalConfig` maps criterion names to them.
Every criterion but two is a registered scorer with options (`CriterionConfig.scorer(name,
**options)` reaches any of them, the catalog's and third parties' too), so a live run is scored
exactly as a saved one would be. The two others need the agent itself, not only its run:
`simulation` (a simulated user talks to the agent) and `idempotency` (the case is sent twice
with one idempotency key).

Both round-trip through JSON (`EvalConfig.from_file`, `to_file`).

Example:
    >>> config = EvalConfig(criteria={
    ...     "tools": CriterionConfig.tool_name_match(threshold=1.0),
    ...     "path": CriterionConfig.trajectory(match_type=MatchType.ANY_ORDER, check_args=False),
    ... })
    >>> [(c.scorer_name, c.options) for c in config.criteria.values()][1]
    ('trajectory', {'mode': 'ANY_ORDER', 'args': 'ignore'})
    >>> EvalConfig.model_validate_json(config.model_dump_json()) == config
    True
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from assay.records import MatchType, Rubric

__all__ = ["DEFAULT_JUDGE_MODEL", "CriterionConfig", "EvalConfig", "judge_model"]

Kind = Literal["scorer", "simulation", "idempotency", "evaluator"]

EVALUATOR_CLASSES: dict[str, Any] = {}
"""The evaluator classes `CriterionConfig.evaluator` was given in this process, by their
`module:qualname` (what the config records): a class defined where it cannot be imported
again (in a function, a notebook) is found here."""

DEFAULT_JUDGE_MODEL = "openai/gpt-4.1-mini"
"""The model the `llm_judge`, `rubric`, `safety` and `simulation` factories name when they are
given none: the environment variable `ASSAY_JUDGE_MODEL` replaces it, and `model=` replaces
both. The factories write it into the criterion, so the config says which model it calls; a
criterion read from a file names its model itself (or takes `--judge-model`): the scoring step
never picks one."""


def judge_model() -> str:
    """The judge model in force: `ASSAY_JUDGE_MODEL` when set, else `DEFAULT_JUDGE_MODEL`.

    Example:
        >>> import os
        >>> judge_model() == (os.environ.get("ASSAY_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL)
        True
    """
    return os.environ.get("ASSAY_JUDGE_MODEL") or DEFAULT_JUDGE_MODEL


class CriterionConfig(BaseModel):
    """One check of a live run. Build it with the factory methods."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Kind = "scorer"
    """`scorer` (a registered scorer), `simulation`, `idempotency` or `evaluator` (a
    benchmark `Evaluator` class run on the captured run)."""

    scorer_name: str | None = None
    """For `kind="scorer"`: the registered scorer's name."""

    options: dict[str, Any] = Field(default_factory=dict)
    """The scorer's options (as `-S name.option=value` gives them), or the simulation's
    `persona`, `max_turns`, `goals`, `model`."""

    weight: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    """Weight of the criterion in the case's score and the report's `overall_score`."""

    @field_validator("scorer_name")
    @classmethod
    def _named(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("a scorer name must not be empty")
        return value

    # The seed's factories.

    @classmethod
    def tool_name_match(cls, threshold: float = 1.0, *, weight: float = 1.0) -> CriterionConfig:
        """The tools called match `expected_tools`: `threshold` is the fraction of expected
        tools that must be called (1.0: all)."""
        return cls.scorer("tool_name_match", weight=weight, threshold=threshold)

    @classmethod
    def trajectory(
        cls,
        threshold: float = 1.0,
        match_type: MatchType | str = MatchType.IN_ORDER,
        check_args: bool = True,
        *,
        weight: float = 1.0,
    ) -> CriterionConfig:
        """Node and tool steps against `expected_trajectory`: tool calls in `match_type` order
        (arguments given in the expectation must be equal when `check_args`), and the node
        steps in order (`node_order`). `match_type` is a `MatchType` or any spelling of one
        ADK accepts (`"in order"`, `"ANY-ORDER"`, see `MatchType.parse`).

        Raises:
            ValueError: `match_type` names no match type.

        Example:
            >>> CriterionConfig.trajectory(match_type=" any-order ").options["mode"]
            'ANY_ORDER'
        """
        options: dict[str, Any] = {
            "mode": MatchType.parse(match_type).value,
            "args": "superset" if check_args else "ignore",
        }
        if threshold < 1.0:
            options["threshold"] = threshold
        return cls(scorer_name="trajectory", options=options, weight=weight)

    @classmethod
    def node_order(
        cls, match_type: MatchType | str = MatchType.IN_ORDER, *, weight: float = 1.0
    ) -> CriterionConfig:
        """Only the order of the nodes entered, against the node steps of
        `expected_trajectory`, in `match_type` (a `MatchType` or any spelling of one ADK
        accepts, see `MatchType.parse`).

        Raises:
            ValueError: `match_type` names no match type.

        Example:
            >>> CriterionConfig.node_order("in order").options
            {'mode': 'IN_ORDER'}
        """
        return cls.scorer("node_order", weight=weight, mode=MatchType.parse(match_type).value)

    @classmethod
    def response_match(
        cls,
        mode: Literal["contains", "exact", "regex", "rouge"] = "contains",
        threshold: float | None = None,
        *,
        weight: float = 1.0,
    ) -> CriterionConfig:
        """The response against `expected_response` (each turn's, in a multi-turn case):
        substring, exact text, a regular expression, or ROUGE-1 F1 at `threshold` (English
        words stemmed as in ADK's `response_match_score`)."""
        options: dict[str, Any] = {"mode": mode}
        if threshold is not None:
            options["threshold"] = threshold
        return cls.scorer("response_match", weight=weight, **options)

    @classmethod
    def llm_judge(
        cls, prompt: str | None = None, model: str | None = None, *, weight: float = 1.0
    ) -> CriterionConfig:
        """A model judges the response: against `prompt` when given (the criterion, in your
        words), else against the expected response."""
        options: dict[str, Any] = {}
        if prompt is not None:
            options["prompt"] = prompt
        options["model"] = model or judge_model()
        return cls.scorer("llm_judge", weight=weight, **options)

    @classmethod
    def rubric(
        cls,
        rubrics: Sequence[Rubric],
        model: str | None = None,
        *,
        threshold: float | None = None,
        weight: float = 1.0,
    ) -> CriterionConfig:
        """A model judges each rubric; rubric weights combine them (a case's own `rubrics`
        replace these)."""
        options: dict[str, Any] = {
            "rubrics": [
                {"rubric_id": r.rubric_id, "content": r.content, "weight": r.weight}
                for r in rubrics
            ]
        }
        options["model"] = model or judge_model()
        if threshold is not None:
            options["threshold"] = threshold
        return cls.scorer("rubric", weight=weight, **options)

    @classmethod
    def safety(cls, model: str | None = None, *, weight: float = 1.0) -> CriterionConfig:
        """A model flags harmful, toxic or policy-violating content in the response."""
        return cls(scorer_name="safety", options={"model": model or judge_model()}, weight=weight)

    @classmethod
    def simulation(
        cls,
        persona: str,
        max_turns: int = 5,
        goals: Iterable[str] = (),
        model: str | None = None,
        *,
        weight: float = 1.0,
    ) -> CriterionConfig:
        """A simulated user with `persona` talks to the agent for up to `max_turns` turns (or
        until it is satisfied); a judge then says which `goals` the agent met."""
        if max_turns < 1:
            raise ValueError("max_turns must be at least 1")
        options: dict[str, Any] = {"persona": persona, "max_turns": max_turns,
                                   "goals": list(goals), "model": model or judge_model()}
        return cls(kind="simulation", options=options, weight=weight)

    @classmethod
    def evaluator(cls, evaluator: type, *, weight: float = 1.0, **options: Any) -> CriterionConfig:
        """A benchmark evaluator (`assay.benchmark.Evaluator` subclass) as a live criterion:
        built with the case as its task (`evaluation_data`: the case's own, and its expected
        fields) and `options`, it reads the run's traces (`tools` with each tool's
        invocations, `agents` with the conversation) and final answer; its metrics give the
        verdict (`Evaluator.verdict`). It needs the run made live: a saved run keeps the
        verdict its report holds."""
        path = f"{evaluator.__module__}:{evaluator.__qualname__}"
        EVALUATOR_CLASSES[path] = evaluator
        recorded: dict[str, Any] = {"evaluator": path}
        if options:
            recorded["options"] = options
        return cls(kind="evaluator", options=recorded, weight=weight)

    @classmethod
    def idempotency(
        cls, *, status: str = "already_processed", weight: float = 1.0
    ) -> CriterionConfig:
        """The case is sent twice with one idempotency key: the second reply must say it was
        `status` with the same data (the catalog's idempotency evaluator, live)."""
        return cls(kind="idempotency", options={"status": status}, weight=weight)

    @classmethod
    def scorer(
        cls, name: str, *, weight: float = 1.0, threshold: float | None = None, **options: Any
    ) -> CriterionConfig:
        """Any registered scorer (built-in, catalog or plugin) with its options.

        Example:
            >>> CriterionConfig.scorer("max_turns", limit=5).options
            {'limit': 5}
        """
        if threshold is not None:
            options["threshold"] = threshold
        return cls(scorer_name=name, options=options, weight=weight)


class EvalConfig(BaseModel):
    """What an evaluation checks: criteria by name, as `assay run --config`, `assay evaluate
    --config` and `assay rescore --config` read it, and as every reports directory records it
    (`_config.json`).

    With `criteria`, every run is checked on each of them. Without, each case is checked by
    the scorer its ground truth names (a scenario's `scoring_method`), else `scorer_default`:
    the way `assay evaluate` scores scenarios when no `--scorer` is given.

    Example:
        >>> EvalConfig(scorer_default="static_json").criteria
        {}
        >>> EvalConfig(criteria={})
        Traceback (most recent call last):
        ...
        pydantic_core._pydantic_core.ValidationError: 1 validation error for EvalConfig
          Value error, an evaluation needs at least one criterion, or a scorer_default ...
    """

    model_config = ConfigDict(extra="forbid")

    criteria: dict[str, CriterionConfig] = Field(default_factory=dict)
    """Criterion name to criterion; the names are the keys of every case's
    `criteria_results`."""

    scorer_default: str | None = None
    """Without `criteria`: the scorer of a case that names none of its own."""

    scorer_options: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Options by registered scorer name, for every criterion that uses that scorer (and for a
    case's own scorer); a criterion's own options win (`-S name.option=value`, the judge
    flags)."""

    @field_validator("criteria")
    @classmethod
    def _named(cls, value: dict[str, CriterionConfig]) -> dict[str, CriterionConfig]:
        for name in value:
            if not name.strip() or "+" in name:
                raise ValueError(f"criterion name {name!r}: must be non-empty, without '+'")
        if value and not math.fsum(c.weight for c in value.values()) > 0:
            raise ValueError("the criteria's weights sum to 0")
        return value

    @model_validator(mode="after")
    def _some(self) -> EvalConfig:
        if not self.criteria and not self.scorer_default:
            raise ValueError("an evaluation needs at least one criterion, or a scorer_default")
        return self

    @classmethod
    def default(cls) -> EvalConfig:
        """Tool match and trajectory, as the seed's default.

        Example:
            >>> list(EvalConfig.default().criteria)
            ['tool_match', 'trajectory']
        """
        return cls(
            criteria={
                "tool_match": CriterionConfig.tool_name_match(),
                "trajectory": CriterionConfig.trajectory(),
            }
        )

    @classmethod
    def from_file(cls, path: str | Path) -> EvalConfig:
        """Read a config file (JSON).

        Raises:
            ValueError: the file is not a valid config (pydantic's message names the field).
            OSError: it cannot be read.
        """
        return cls.model_validate_json(Path(path).read_bytes())

    def to_file(self, path: str | Path) -> None:
        """Write the config as JSON."""
        Path(path).write_text(self.model_dump_json(indent=2, exclude_defaults=True) + "\n")

    def weights(self) -> dict[str, float]:
        """Criterion name to weight."""
        return {name: c.weight for name, c in self.criteria.items()}
