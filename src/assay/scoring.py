"""The one scoring step: criteria built once into scorers, and every run scored into a
`CaseResult` the same way, whichever way it came in (a saved run, a live run, a benchmark task).

`Scoring` takes the criteria (what is checked: an `EvalConfig`'s, or those the command-line flags
give, without loading the file models) and, beside them, settings that say how to call
a model but not what to check (a judge's server, cache and budget). It is the only place that
builds scorers and `CaseResult`s:
- a run whose agent failed (`Trajectory.error_kind`: an error, a timeout, an infrastructure
  failure) is never scored: its result is that error;
- otherwise each criterion's scorer checks the run, and the score is named after the criterion;
  a scorer that raises gives a `scorer_error`, one that cannot be built an `unknown_scorer`;
- checks that drive the agent (a simulated user, a repeated call) are run by the live runner,
  which hands their verdicts in; a saved run whose report does not hold them gets
  `needs_agent`;
- several criteria are combined by `combine_scores` with the criteria's weights, one criterion
  is the run's score.

Example:
    >>> import asyncio
    >>> from assay.records import Case, Step, ToolCall, Trajectory
    >>> from assay.schema.evalconfig import CriterionConfig, EvalConfig
    >>> scoring = Scoring.of(EvalConfig(criteria={
    ...     "tools": CriterionConfig.tool_name_match(),
    ...     "short": CriterionConfig.scorer("max_turns", limit=3, weight=0.5)}))
    >>> run = Trajectory(answer="ok", steps=[Step(0, tool_calls=[ToolCall("search")])])
    >>> result = asyncio.run(scoring.score_case(Case(id="q", expected_tools=["search"]), run))
    >>> result.score.passed, [part.scorer for part in result.scores]
    (True, ['tools', 'short'])
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.models.pricing import estimate_cost_usd
from assay.records import Case, Trajectory
from assay.results import (
    RUN_FAILURES,
    CaseResult,
    ErrorKind,
    OpsMetrics,
    Score,
    combine_scores,
)
from assay.source_verdicts import source_passed
from assay.transcript import transcript_of

if TYPE_CHECKING:
    from assay.schema.evalconfig import EvalConfig
from assay.scorers.registry import (
    AsyncScorer,
    Scorer,
    UnknownScorerError,
    create_scorer,
    is_async_scorer,
    scorer_spec,
)

if TYPE_CHECKING:
    from assay.schema.evalconfig import EvalConfig

__all__ = ["Criterion", "Scoring", "criteria_of", "ops_metrics", "verdict_of"]


@dataclass(frozen=True, slots=True)
class Criterion:
    """One check as the scoring step runs it: its name (the key of its verdict), the registered
    scorer, its own options (the scorer's options by name and the settings fill in the rest), its
    weight, and what kind of check it is."""

    name: str
    scorer: str
    options: Mapping[str, Any] = field(default_factory=dict)
    weight: float = 1.0
    kind: str = "scorer"
    """`scorer`, or a check that drives the agent (`simulation`, `idempotency`)."""


class Scoring:
    """Scores runs against cases with one set of criteria.

    Args:
        criteria: The criteria every run is checked on; none: each case is checked by the
            scorer it names (a scenario's `scoring_method`), else `scorer_default`.
        scorer_default: The scorer of a case that names none, when no criteria are given.
        scorer_options: Options by scorer name for every criterion using that scorer (the
            `-S` and judge flags); a criterion's own options win.
        settings: Options by scorer name given at the call (the judge and `-S` flags), which
            win over `scorer_options`; their `client_options` (server, cache, budget, limits)
            say how to call a model, not what to check, and are never recorded.
        kept_verdicts: Verdicts of the checks that drive the agent, by run id and criterion
            name, kept from a report being re-scored (a saved run cannot drive the agent).
        kept_failures: Runs a report being re-scored recorded as failed, by run id: they stay
            that failure, whatever their saved form says.
        verdicts_given: Each run comes with its verdicts (`score_case(verdicts=...)`, a
            benchmark's evaluators): no criterion is needed.
    """

    def __init__(
        self,
        criteria: Iterable[Criterion] = (),
        *,
        scorer_default: str | None = None,
        scorer_options: Mapping[str, Mapping[str, Any]] | None = None,
        settings: Mapping[str, Mapping[str, Any]] | None = None,
        kept_verdicts: Mapping[str, Mapping[str, Score]] | None = None,
        kept_failures: Mapping[str, Score] | None = None,
        verdicts_given: bool = False,
    ) -> None:
        self.scorer_default = scorer_default
        self._kept = kept_verdicts or {}
        self._failures = kept_failures or {}
        # What a setting says about the check itself (the judge's model, its samples) is part
        # of what is checked, and recorded; only how the model is called is not.
        # Given at the call (the command's flags), a setting wins over the config's options.
        self.scorer_options = {name: dict(o) for name, o in (scorer_options or {}).items()}
        self._settings: dict[str, dict[str, Any]] = {}
        for name, chosen in (settings or {}).items():
            for option, value in chosen.items():
                kept = self._settings if option == "client_options" else self.scorer_options
                kept.setdefault(name, {})[option] = value
        self._fixed = tuple(criteria)
        if not self._fixed and not scorer_default and not verdicts_given:
            raise ValueError("nothing to check: give criteria or a scorer_default")
        self._options = {c.name: self._options_of(c.scorer, c.options) for c in self._fixed}
        self._by_scorer: dict[str, Criterion] = {}
        self._built: dict[str, Scorer | str] = {}
        """Scorer by criterion name; a text when it cannot be built (said on every run)."""
        self._used: dict[str, Criterion] = {}
        """The criteria that checked a run, in the order first used."""
        self._weights = {c.name: c.weight for c in self._fixed}

    @classmethod
    def of(
        cls, config: EvalConfig, settings: Mapping[str, Mapping[str, Any]] | None = None
    ) -> Scoring:
        """The scoring of an `EvalConfig` (a file's, or the API's).

        Example:
            >>> from assay.schema.evalconfig import CriterionConfig, EvalConfig
            >>> scoring = Scoring.of(EvalConfig(criteria={"t": CriterionConfig.trajectory()}))
            >>> [(c.name, c.scorer) for c in scoring.criteria]
            [('t', 'trajectory')]
        """
        return cls(
            criteria_of(config),
            scorer_default=config.scorer_default,
            scorer_options=config.scorer_options,
            settings=settings,
        )

    def document(self) -> dict[str, Any]:
        """What is checked, as the JSON of an `EvalConfig` (`_config.json`, which `--config`
        reads back); the settings of model calls are not part of it.

        Example:
            >>> Scoring(scorer_default="static_json").document()
            {'scorer_default': 'static_json'}
        """
        document: dict[str, Any] = {}
        if self._fixed:
            document["criteria"] = {
                c.name: {
                    **({} if c.kind == "scorer" else {"kind": c.kind}),
                    **({"scorer_name": c.scorer} if c.kind == "scorer" else {}),
                    "options": dict(c.options),
                    "weight": c.weight,
                }
                for c in self._fixed
            }
        if self.scorer_default:
            document["scorer_default"] = self.scorer_default
        if self.scorer_options:
            document["scorer_options"] = self.scorer_options
        return document

    def _options_of(self, scorer: str, own: Mapping[str, Any]) -> dict[str, Any]:
        return {**self._settings.get(scorer, {}), **self.scorer_options.get(scorer, {}), **own}

    def _own(self, scorer: str) -> Criterion:
        """The criterion of a case checked by its own scorer (no criteria configured)."""
        found = self._by_scorer.get(scorer)
        if found is None:
            found = self._by_scorer[scorer] = Criterion(scorer, scorer, {})
            self._options[scorer] = self._options_of(scorer, {})
        return found

    def criteria_for(self, case: Case) -> tuple[Criterion, ...]:
        """The criteria a case is checked on: the configured ones, else its own scorer."""
        if self._fixed:
            return self._fixed
        return (self._own(case.scoring_method or self.scorer_default or ""),)

    @property
    def criteria(self) -> tuple[Criterion, ...]:
        """The configured criteria (empty when each case is checked by its own scorer)."""
        return self._fixed

    def check(self) -> None:
        """Build every configured scorer now (or the default one), so that a typo or a bad
        option is said before any run is read or made.

        Raises:
            UnknownScorerError: no such scorer, or it cannot be built; the message names the
                criterion.
        """
        wanted = self._fixed or (self._own(self.scorer_default or ""),)
        for criterion in wanted:
            if criterion.kind == "scorer":
                self.scorer(criterion)

    def scorer(self, criterion: Criterion) -> Scorer:
        """The criterion's scorer, built on first use.

        Raises:
            UnknownScorerError: it cannot be built.
        """
        built = self._built.get(criterion.name)
        if built is None:
            try:
                built = create_scorer(criterion.scorer, **self._options[criterion.name])
            except UnknownScorerError as exc:
                built = str(exc)
            except Exception as exc:  # bad options, a judge without its model or server
                where = (
                    f"scorer {criterion.scorer!r}"
                    if criterion.name == criterion.scorer
                    else f"criterion {criterion.name!r} (scorer {criterion.scorer!r})"
                )
                built = f"cannot use {where}: {exc}"
            self._built[criterion.name] = built
        if isinstance(built, str):
            raise UnknownScorerError(built)
        return built

    def uses_models(self) -> bool:
        """Whether a criterion's scorer asks a model (as its registration declares)."""
        names = {c.scorer for c in self._fixed if c.kind == "scorer"} | set(self.scorer_options)
        if self.scorer_default:
            names.add(self.scorer_default)
        return any(is_async_scorer(name) for name in names | set(self._by_scorer))

    async def score_case(
        self,
        case: Case,
        run: Trajectory,
        *,
        driven: Mapping[str, Score] | None = None,
        verdicts: Sequence[Score] | None = None,
    ) -> CaseResult:
        """Score one run against its case.

        Args:
            case: The ground truth.
            run: What the agent did.
            driven: Verdicts of the checks that drive the agent, by criterion name (the live
                runner's simulation and idempotency checks, or the verdicts a report kept).
            verdicts: Verdicts given with the run (a benchmark's evaluators), each a part of
                the combined verdict beside the configured criteria; given, a case is never
                checked by its own scorer.
        """
        if run.error_kind in RUN_FAILURES:
            kind = ErrorKind(run.error_kind)
            return self.result(case, run, Score.error("agent", run.error or kind, {"reason": kind}))
        failed = self._failures.get(run.run_id or "")
        if failed is not None:
            return self.result(case, run, failed)
        criteria = self.criteria if verdicts is not None else self.criteria_for(case)
        parts = [await self._check(c, case, run, driven) for c in criteria]
        parts += verdicts or []
        if not parts:
            reason = "nothing to check: no criterion and no evaluator gave a verdict"
            return self.result(case, run, Score.unscored("none", reason, {"reason": "no_verdict"}))
        if len(parts) == 1:
            return self.result(case, run, parts[0])
        return self.result(case, run, combine_scores(parts, self._weights), parts)

    async def _check(
        self,
        criterion: Criterion,
        case: Case,
        run: Trajectory,
        driven: Mapping[str, Score] | None,
    ) -> Score:
        if criterion.kind != "scorer":
            found = (driven or self._kept.get(run.run_id or "", {})).get(criterion.name)
            if found is None:
                return Score.error(
                    criterion.name,
                    f"the {criterion.kind} check drives the agent: it cannot be made from a "
                    "saved run, and this run's report holds no verdict of it",
                    {"reason": ErrorKind.NEEDS_AGENT},
                )
            return _named(found, criterion.name)
        try:
            scorer = self.scorer(criterion)
        except UnknownScorerError as exc:
            return Score.error(criterion.name, str(exc), {"reason": ErrorKind.UNKNOWN_SCORER})
        self._used.setdefault(criterion.name, criterion)
        try:
            if is_async_scorer(criterion.scorer):
                judged: AsyncScorer = scorer  # type: ignore[assignment]  # declared so
                score: Score = await judged.score_async(case, run)
            else:
                score = scorer(case, run)
        except Exception as exc:  # a scorer bug is this criterion's, never the run's
            return Score.error(
                criterion.name,
                f"scorer raised {type(exc).__name__}: {exc}"[:500],
                {"reason": ErrorKind.SCORER_ERROR},
            )
        return _named(score, criterion.name)

    def result(
        self, case: Case, run: Trajectory, score: Score, parts: list[Score] | None = None
    ) -> CaseResult:
        """The `CaseResult` of a run with its verdict (`parts`: each criterion's, when
        several), and the run's transcript."""
        transcript, left_out = transcript_of(run)
        return CaseResult(
            scenario_id=case.id,
            run_id=run.run_id,
            runner=run.runner,
            model=run.model,
            question=run.question if run.question is not None else case.question,
            answer=run.answer,
            score=score,
            ops=ops_metrics(run),
            scenario_type=case.type,
            source=run.source,
            scores=parts or [],
            expected_answer=case.expected_answer,
            notes=list(run.notes),
            source_passed=source_passed(run.source_verdicts),
            repeat=run.repeat,
            transcript=transcript,
            transcript_left_out=left_out,
        )

    def note_used(self, names: Iterable[str]) -> None:
        """Count criteria as used by name (for results scored in a worker process)."""
        for name in names:
            if name in self._used:
                continue
            if self._fixed:
                criterion = next((c for c in self._fixed if c.name == name), None)
            else:  # a case's own scorer, which the worker built
                criterion = self._own(name)
            if criterion is not None and not isinstance(self._built.get(name), str):
                self._used[name] = criterion

    def specs(self) -> list[dict[str, Any]]:
        """What each scorer that checked a run ran with, in the order first used, options
        JSON-ready and secrets redacted."""
        found: list[dict[str, Any]] = []
        for criterion in self._used.values():
            try:
                found.append(dict(scorer_spec(criterion.scorer, self._options[criterion.name])))
            except (UnknownScorerError, TypeError):
                continue
        return found

    async def aclose(self) -> None:
        """Close the model clients of the scorers that ask a model."""
        for built in self._built.values():
            close = getattr(built, "aclose", None)
            if close is not None:
                await close()


def criteria_of(config: EvalConfig) -> tuple[Criterion, ...]:
    """The criteria of an `EvalConfig`, as the scoring step runs them."""
    return tuple(
        Criterion(name, c.scorer_name or name, dict(c.options), c.weight, c.kind)
        for name, c in config.criteria.items()
    )


def _named(score: Score, name: str) -> Score:
    return score if score.scorer == name else dataclasses.replace(score, scorer=name)


def ops_metrics(run: Trajectory) -> OpsMetrics:
    """Operational figures of a run: turns, tool calls, tokens, duration and estimated cost.

    Example:
        >>> from assay.records import Step, ToolCall
        >>> ops = ops_metrics(Trajectory(steps=[Step(0, tool_calls=[ToolCall("escalate_x")])]))
        >>> ops.tool_call_count, ops.escalated
        (1, True)
    """
    names = run.tool_names()
    tokens_in, tokens_out = run.usage.input_tokens, run.usage.output_tokens
    unique = sorted({name for name in names if name})
    return OpsMetrics(
        turn_count=run.step_count(),
        tool_call_count=len(names),
        unique_tools=unique,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        duration_ms=run.duration_ms,
        est_cost_usd=(
            None  # a cost from counts never recorded would be a guess
            if tokens_in is None or tokens_out is None
            else estimate_cost_usd(run.model, tokens_in, tokens_out)
        ),
        context_overflow=run.error is not None and _CONTEXT_OVERFLOW.search(run.error) is not None,
        escalated=any(name.lower().startswith("escalate") for name in unique),
    )


_CONTEXT_OVERFLOW = re.compile(
    r"context[ _-]?(?:length|window)|maximum context|too many tokens|prompt is too long",
    re.IGNORECASE,
)
"""How providers word a request that did not fit the model's context window."""


SCORE_KEYS = ("score", "accuracy")
PASSED_KEYS = ("passed", "success", "task_completed")


def verdict_of(name: str, metrics: Any) -> Score:
    """The verdict of an evaluator's metrics (`assay.benchmark.Evaluator`), named `name`;
    the metrics are the score's details. A number under `score` or `accuracy` (0..1) is the
    score; a boolean under `passed`, `success` or `task_completed` says pass or fail (a
    score alone passes at 1; a boolean alone scores 1 or 0); other metrics are kept and the
    run is unscored (`no_verdict`).

    Example:
        >>> verdict_of("e", {"success": False}).passed
        False
        >>> verdict_of("e", {"precision": 0.8}).details["reason"]
        'no_verdict'
    """
    if not isinstance(metrics, dict):
        return Score.error(
            name,
            f"the evaluator returned {type(metrics).__name__}, not a dict of metrics",
            {"reason": "scorer_error"},
        )
    value = next((metrics[k] for k in SCORE_KEYS if _is_number(metrics.get(k))), None)
    flag = next((metrics[k] for k in PASSED_KEYS if isinstance(metrics.get(k), bool)), None)
    details = {**metrics}
    if value is not None and not 0.0 <= float(value) <= 1.0:
        return Score.unscored(
            name, f"score {value} is outside 0..1", {**details, "reason": "no_verdict"}
        )
    if value is None and flag is None:
        keys = ", ".join(sorted(map(str, metrics))) or "none"
        return Score.unscored(
            name,
            f"no score or pass/fail among the metrics ({keys}); they are kept",
            {**details, "reason": "no_verdict"},
        )
    score = float(value) if value is not None else (1.0 if flag else 0.0)
    passed = bool(flag) if flag is not None else score >= 1.0
    return Score.scored(name, score, passed=passed, rationale=_rationale(metrics), details=details)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _rationale(metrics: dict[str, Any]) -> str:
    shown = [f"{k}={v}" for k, v in metrics.items() if isinstance(v, bool | int | float)]
    return ", ".join(shown[:6])
