"""The options every judge takes, declared once (`JudgeOptions`), in a module light enough for
the command line to read its flags from.

Example:
    >>> JudgeOptions(model="openai/gpt-4.1-mini", num_samples=3).num_samples
    3
    >>> [f.metadata["flag"] for f in fields(JudgeOptions) if "flag" in f.metadata][:2]
    ['--judge-model', '--judge-samples']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

__all__ = ["DEFAULT_CONTENT_BUDGET", "Aggregation", "JudgeOptions", "fields"]

Aggregation = Literal["mean", "majority"]

DEFAULT_CONTENT_BUDGET = 12_000
"""Characters of one untrusted block shown to the judge before it is cut with a marker."""


@dataclass(frozen=True, kw_only=True)
class JudgeOptions:
    """The options every judge takes, declared once for all of them (`register_scorer(...,
    options=JudgeOptions)`): `assay scorers` and `-S judge.option=value` read them from here,
    and a field's `flag` metadata makes it a judge flag of `evaluate`, `run` and `rescore`.
    """

    model: str | None = field(
        default=None,
        metadata={
            "flag": "--judge-model",
            "metavar": "PROVIDER/MODEL",
            "help": "the judge model, e.g. openai/gpt-4.1-mini or litellm_proxy/Azure/gpt-5-mini; "
            "base URL and key from OPENAI_BASE_URL / OPENAI_API_KEY, LITELLM_BASE_URL / "
            "LITELLM_API_KEY, or <PROVIDER>_BASE_URL / <PROVIDER>_API_KEY",
        },
    )
    """The judge model, `provider/model` (required: no judge picks one itself)."""

    num_samples: int = field(
        default=1,
        metadata={
            "flag": "--judge-samples",
            "metavar": "N",
            "help": "ask each question N times, in parallel (default 1)",
        },
    )
    """How many times each question is asked (in parallel)."""

    aggregation: Aggregation = field(
        default="mean",
        metadata={
            "flag": "--judge-aggregation",
            "help": "combine samples by mean score, or by majority of passes (a tie fails; "
            "default mean)",
        },
    )
    """How samples combine: `mean` score, or `majority` of passes."""

    threshold: float | None = field(
        default=None,
        metadata={
            "flag": "--judge-threshold",
            "metavar": "SCORE",
            "help": "the score (0..1) every judge passes a run at (default: each judge's own)",
        },
    )
    """A score to pass at; None: the judge's own verdict."""

    allow_self_judge: bool = field(
        default=False,
        metadata={
            "flag": "--allow-self-judge",
            "help": "let the judge model score runs its own model produced",
        },
    )
    """Let the judge score runs its own model produced."""

    content_budget: int = field(
        default=DEFAULT_CONTENT_BUDGET,
        metadata={
            "flag": "--judge-content-budget",
            "metavar": "CHARS",
            "help": f"characters of each block of run content shown to the judge (default "
            f"{DEFAULT_CONTENT_BUDGET:,})",
        },
    )
    """Characters of each block of run content shown to the judge."""

    client_factory: Callable[[], Any] | None = None
    """Makes the model client, an `assay.models.types.ModelClient` (default: from the model
    name, the environment and the cache settings; see `assay.scorers._judge_client`)."""

    client_options: Mapping[str, Any] | None = None
    """Settings of the default client: `base_url`, `api_key`, `cache_dir`, `cache`
    (`read_write`, `replay`, `refresh` or `off`), `timeout_s` (one attempt),
    `call_timeout_s` (one call, retries and waits included), `max_retries`,
    `max_concurrency`, `budget` (the judge flags that set them are the client's own)."""
