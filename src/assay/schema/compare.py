"""The shape of `assay compare --json FILE`: two evaluations compared, scorer by scorer.

Example:
    >>> schema = Comparison.model_json_schema()
    >>> sorted(schema["$defs"]["ScorerComparison"]["properties"])[:4]
    ['changes', 'ci', 'fail_to_pass', 'improved']
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["regressed", "improved", "mixed", "no significant change"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class Side(_Record):
    """One of the two reports directories."""

    directory: str
    schema_version: int | None
    """The aggregate's `schema_version`."""
    assay_version: str | None
    """The version of assay that wrote it."""
    generated_at: str | None
    results: int = Field(ge=0)
    """Lines of its `results.jsonl` that are results."""


class RunVerdict(_Record):
    """One run's verdict from one scorer, on one side."""

    status: str
    """`scored`, `unscored` or `error`."""
    passed: bool | None
    score: float | None = Field(ge=0.0, le=1.0)
    rationale: str
    """The scorer's rationale, cut to 500 characters."""


class Change(_Record):
    """A run whose verdict changed."""

    run_id: str
    """The run's id, or its report's file name without `.json` when it has none."""
    has_run_id: bool
    """False when `run_id` is the report's file name."""
    scenario_id: str
    repeat: int | None
    """The repeat of a run repeated live; null otherwise."""
    outcome: Literal["regressed", "improved"]
    base: RunVerdict
    new: RunVerdict


class ScorerComparison(_Record):
    """One scorer's (or the combined verdict's, `a+b`) verdicts, compared."""

    verdict: Verdict
    """`regressed` when a significant test points down: McNemar's p < alpha with more
    pass->fail than fail->pass flips, or the interval entirely below 0; `improved` likewise
    upwards; `mixed` when both."""
    significant: bool
    """McNemar's p < alpha, or the interval excludes 0."""
    n_base: int = Field(ge=0)
    """Runs this scorer gave a verdict (or none) in BASE."""
    n_new: int = Field(ge=0)
    n_paired: int = Field(ge=0)
    """Runs scored on both sides: the runs the statistics use."""
    n_scenarios: int = Field(ge=0)
    """Scenarios of the paired runs (flipped whole by the score test)."""
    pass_to_fail: int = Field(ge=0)
    fail_to_pass: int = Field(ge=0)
    pass_rate_base: float | None
    """Over the paired runs."""
    pass_rate_new: float | None
    mean_score_base: float | None
    mean_score_new: float | None
    p_value: float = Field(ge=0.0, le=1.0)
    """McNemar's exact test (two-sided) on the pass/fail flips; 1 when there are none."""
    mean_delta: float | None
    """Mean of NEW minus BASE score over the paired runs; null when none."""
    ci: list[float] | None = Field(min_length=2, max_length=2)
    """Confidence interval of `mean_delta` at 1 - alpha: the shifts a sign-flip test
    (flipping whole scenarios) does not reject; within [-1, 1]; null when fewer than two
    scenarios have paired runs."""
    score_p_value: float | None = Field(ge=0.0, le=1.0)
    """The sign-flip test's two-sided p-value of a mean difference of 0; null as `ci`."""
    score_test_exact: bool | None
    """True when every pattern of flipped scenarios was enumerated (2**scenarios at most
    `resamples`), False when `resamples` patterns were drawn with `seed`."""
    regressed: list[str]
    """Run ids: passed then failed, or a lower score with the same pass/fail."""
    improved: list[str]
    unchanged: list[str]
    unscored: list[str]
    """Runs in both, not scored on at least one side: never counted as a change."""
    only_in_base: list[str]
    only_in_new: list[str]
    changes: list[Change]
    """The regressed and improved runs, with both verdicts."""


class Problem(_Record):
    """A result that could not be compared."""

    side: Literal["base", "new"]
    reason: str


class RepeatFigures(_Record):
    """One side's repeated live runs, from its aggregate's `repeats` section."""

    n: int = Field(ge=1)
    """The smallest repetition count of any case."""
    n_max: int = Field(ge=1)
    cases: int = Field(ge=0)
    pass_at_1: float | None = Field(ge=0.0, le=1.0)
    """Mean over cases of their pass@1."""
    pass_at_n: float | None = Field(ge=0.0, le=1.0)
    """Mean over cases of their pass@n, n being `n`."""
    pass_hat_n: float | None = Field(ge=0.0, le=1.0)
    """Mean over cases of their pass^n."""
    mean_score: float | None = Field(ge=0.0, le=1.0)
    flaky: int = Field(ge=0)
    """How many cases are flaky (passed on some repetitions, not on others)."""
    flaky_cases: list[str]
    """Their ids, sorted."""


class RepeatsComparison(_Record):
    """Each side's repeated live runs (null for a side without)."""

    base: RepeatFigures | None
    new: RepeatFigures | None
    newly_flaky: list[str]
    """Cases flaky in NEW that were not in BASE (empty unless both sides have repeats)."""
    no_longer_flaky: list[str]
    """Cases flaky in BASE that are not in NEW."""


class Comparison(_Record):
    """`assay compare BASE NEW --json FILE`."""

    base: Side
    new: Side
    warnings: list[str]
    """Settings that differ: schema version, scorers present, scorer options."""
    verdict: Verdict
    """`regressed` when any scorer regressed (or is mixed), else `improved` when any
    improved, else `no significant change`."""
    matched_by: Literal["scenario_id+run_id", "scenario_id+repeat"] = "scenario_id+run_id"
    """How runs were paired: by scenario and repeat when both sides are repeated live runs
    (the k-th repetition of a case with the k-th), else by scenario and run id."""
    repeats: RepeatsComparison | None = None
    """pass@1, pass^n and flaky cases of each side, when either side repeated its runs."""
    alpha: float = Field(gt=0.0, lt=1.0)
    seed: int
    resamples: int = Field(ge=1)
    scorers: dict[str, ScorerComparison]
    problems: list[Problem]
