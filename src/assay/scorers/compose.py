"""`composite`: several registered scorers on one run, combined into one score.

Parts are scorers from the registry, each with its options. A part that does not apply to a
case (`Score.does_not_apply`) is left out of the combination (never counted as 0) and named in
the rationale. A part that should have given a verdict and did not (a judge that failed) leaves
the composite unscored as *partially scored* (`details["reason"] == "partially_scored"`) unless
the other parts decide it alone: a failed part under `all`, a passed part under `any`. The
composite is unscored when no part could score. Every part's score is in `details["parts"]`,
under its label.

Modes (values combine like fuzzy logic: AND is the minimum, OR the maximum):

- `all`: passes when every scored part passed; the value is the lowest part value. A failed
  part fails the composite even if another part errored; with no failure, an errored part
  makes the composite an error (a pass cannot be claimed).
- `any`: passes when a scored part passed; the value is the highest part value. With no
  pass, an errored part makes the composite an error.
- `weighted`: the weighted mean of the part values, passing at `threshold`; any errored
  part makes the composite an error.

Example:
    >>> from assay.records import Case, Step, SuccessCriteria, ToolCall, Trajectory
    >>> scorer = composite(scorers=["max_turns", "response_contains", "escalation"])
    >>> case = Case(id="s", success_criteria=SuccessCriteria(max_turns=3,
    ...                                                      response_contains=["done"]))
    >>> score = scorer(case, Trajectory(answer="All done.", steps=[Step(index=0)]))
    >>> score.passed, score.details["passed_parts"]
    (True, 2)
    >>> score.details["parts"]["escalation"]["status"]
    'unscored'
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.records import Case, Trajectory
from assay.results import NOT_APPLICABLE, PARTIALLY_SCORED, ErrorKind, Score, ScoreStatus
from assay.scorers._runs import check_fraction, listing
from assay.scorers.registry import Scorer, create_scorer, register_scorer

__all__ = ["Mode", "Part", "PartSpec", "build_parts", "combine", "composite", "run_part"]

Mode = Literal["all", "any", "weighted"]
MODES: tuple[Mode, ...] = ("all", "any", "weighted")

PartSpec = str | Mapping[str, Any] | tuple[str, Mapping[str, Any]]
"""A part: a scorer name; `(name, options)`; or a mapping with `scorer` (the name), and
optionally `options`, `weight` (default 1) and `label` (default: the name, numbered when two
parts share it)."""

_TOLERANCE = 1e-9  # so that a weighted mean of exactly-threshold values is not lost to rounding
_RATIONALE_CLIP = 160


@dataclass(frozen=True, slots=True)
class Part:
    """One scorer inside a combination."""

    label: str
    """Name of the part in details and rationales."""

    scorer_name: str
    """Registered name of the scorer."""

    scorer: Scorer
    """The built scorer."""

    weight: float = 1.0
    """Weight in `weighted` mode."""


# In no group of its own: its parts are scorers of any group, the combination is what it adds.
@register_scorer("composite", group="other")
def composite(
    *,
    scorers: Sequence[PartSpec],
    mode: Mode = "all",
    threshold: float = 1.0,
) -> Scorer:
    """Combines other scorers' verdicts on the run: all must pass, any may, or a weighted mean.

    Args:
        scorers: The parts (see `PartSpec`), built from the registry with their options.
        mode: `all`, `any` or `weighted` (see the module documentation).
        threshold: The weighted mean needed to pass, in `weighted` mode.

    Raises:
        ValueError: a part or option is malformed.
        UnknownScorerError: a part names no registered scorer.

    Example:
        >>> from assay.records import Case, SuccessCriteria, Trajectory
        >>> scorer = composite(scorers=[{"scorer": "response_contains", "weight": 3},
        ...                             ("response_not_contains", {"phrases": ["sorry"]})],
        ...                    mode="weighted", threshold=0.7)
        >>> case = Case(id="s", success_criteria=SuccessCriteria(response_contains=["done"]))
        >>> score = scorer(case, Trajectory(answer="Sorry, done."))
        >>> score.value, score.passed
        (0.75, True)
    """
    check_mode(mode)
    check_fraction("threshold", threshold)
    parts = build_parts(scorers)

    def score(case: Case, run: Trajectory) -> Score:
        return combine(
            "composite", mode, [(part, run_part(part, case, run)) for part in parts], threshold
        )

    return score


def check_mode(mode: str) -> None:
    """Raise ValueError unless `mode` is a combination mode."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


def build_parts(specs: Iterable[PartSpec], *, option: str = "scorers") -> list[Part]:
    """Build the parts from their specs (see `PartSpec`); raises on a malformed spec."""
    if isinstance(specs, str | bytes | Mapping):
        raise ValueError(f"{option} must be a list of scorers, got {specs!r}")
    parts: list[Part] = []
    seen: dict[str, int] = {}
    for spec in specs:
        name, options, weight, label = _parse_spec(spec, option)
        count = seen.get(label, 0) + 1
        seen[label] = count
        if count > 1:
            label = f"{label}#{count}"
        parts.append(Part(label, name, create_scorer(name, **options), weight))
    if not parts:
        raise ValueError(f"{option} must name at least one scorer")
    return parts


def relabel(parts: Iterable[Part], prefix: str) -> list[Part]:
    """The parts with `prefix` before each label."""
    return [dataclasses.replace(part, label=prefix + part.label) for part in parts]


def _parse_spec(spec: Any, option: str) -> tuple[str, dict[str, Any], float, str]:
    options: Any = {}
    weight: Any = 1.0
    label: Any = None
    if isinstance(spec, str):
        name: Any = spec
    elif isinstance(spec, tuple) and len(spec) == 2:
        name, options = spec
    elif isinstance(spec, Mapping):
        unknown = set(spec) - {"scorer", "options", "weight", "label"}
        if unknown:
            raise ValueError(f"{option}: unknown keys {sorted(unknown)} in {spec!r}")
        name = spec.get("scorer")
        options = spec.get("options", {})
        weight = spec.get("weight", 1.0)
        label = spec.get("label")
    else:
        raise ValueError(f"{option}: expected a scorer name or mapping, got {spec!r}")
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"{option}: scorer name missing or empty in {spec!r}")
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ValueError(f"{option}: options of {name!r} must be a mapping, got {options!r}")
    if (
        isinstance(weight, bool)
        or not isinstance(weight, int | float)
        or not math.isfinite(weight)
        or weight < 0
    ):
        raise ValueError(f"{option}: weight of {name!r} must be a number >= 0, got {weight!r}")
    if label is not None and (not isinstance(label, str) or not label.strip()):
        raise ValueError(f"{option}: label of {name!r} must be non-empty text, got {label!r}")
    return name.strip(), dict(options), float(weight), (label or name).strip()


def run_part(part: Part, case: Case, run: Trajectory) -> Score:
    """The part's score; a part that raises or returns no Score is an error, not a crash."""
    try:
        result = part.scorer(case, run)
    except Exception as exc:  # one part's bug must not lose the other parts' scores
        reason = f"scorer raised {type(exc).__name__}: {exc}"[:500]
        return Score.error(part.scorer_name, reason, {"reason": ErrorKind.SCORER_ERROR})
    if not isinstance(result, Score):
        reason = f"scorer returned {type(result).__name__}, not a Score"
        return Score.error(part.scorer_name, reason, {"reason": ErrorKind.SCORER_ERROR})
    return result


def combine(
    name: str, mode: Mode, results: Sequence[tuple[Part, Score]], threshold: float = 1.0
) -> Score:
    """One score from the parts' scores (see the module documentation for the modes).

    Args:
        name: The combined score's scorer name.
        mode: `all`, `any` or `weighted`.
        results: Each part with its score.
        threshold: The weighted mean needed to pass, in `weighted` mode.
    """
    scored = [(part, score) for part, score in results if score.status is ScoreStatus.SCORED]
    errored = [(part, score) for part, score in results if score.status is ScoreStatus.ERROR]
    unscored = [(part, score) for part, score in results if score.status is ScoreStatus.UNSCORED]
    details: dict[str, Any] = {
        "mode": mode,
        "scored_parts": len(scored),
        "passed_parts": sum(bool(score.passed) for _, score in scored),
        "parts": {
            part.label: {**score.to_report(), "weight": part.weight} for part, score in results
        },
    }
    if mode == "weighted":
        details["threshold"] = threshold
    failed = [(part, score) for part, score in scored if not score.passed]
    passed = [(part, score) for part, score in scored if score.passed]
    values = [_value(score) for _, score in scored]
    tail = _not_scored(unscored)

    if mode == "all" and failed:
        rationale = "failed: " + _named(failed) + _errors_note(errored) + tail
        return Score.scored(name, min(values), passed=False, rationale=rationale, details=details)
    if mode == "any" and passed:
        rationale = "passed: " + _named(passed) + tail
        return Score.scored(name, max(values), passed=True, rationale=rationale, details=details)
    if errored:
        rationale = "part errored: " + _named(errored) + tail
        return Score.error(name, rationale, {**details, "reason": "part_error"})
    if not scored:
        reason = "no part could be scored" + (": " + _named(unscored) if unscored else "")
        all_na = all(s.does_not_apply() for _, s in unscored)
        return Score.unscored(
            name, reason, {**details, "reason": NOT_APPLICABLE if all_na else "no_part_scored"}
        )
    # A part that should have given a verdict and did not (a judge that failed, say) could
    # have changed the outcome: the composite is neither passed nor failed, and its value is
    # not computed from the parts that happened to score.
    missing = [(part, score) for part, score in unscored if not score.does_not_apply()]
    if missing:
        rationale = "no verdict from " + _named(missing) + "; scored: " + _named(scored)
        return Score.unscored(name, rationale, {**details, "reason": PARTIALLY_SCORED})
    if mode == "all":
        rationale = f"all {len(scored)} scored parts passed" + tail
        return Score.scored(name, min(values), passed=True, rationale=rationale, details=details)
    if mode == "any":
        rationale = "no part passed: " + _named(failed) + tail
        return Score.scored(name, max(values), passed=False, rationale=rationale, details=details)

    total_weight = sum(part.weight for part, _ in scored)
    if total_weight <= 0:
        return Score.unscored(
            name, "every scored part has weight 0", {**details, "reason": "no_weight"}
        )
    value = sum(part.weight * v for (part, _), v in zip(scored, values, strict=True))
    value = min(1.0, max(0.0, value / total_weight))
    ok = value >= threshold - _TOLERANCE
    shown = ", ".join(
        f"{part.label} {v:.2f} x{part.weight:g}"
        for (part, _), v in zip(scored, values, strict=True)
    )
    rationale = f"weighted score {value:.2f} (threshold {threshold:g}): {shown}" + tail
    return Score.scored(name, value, passed=ok, rationale=rationale, details=details)


def _value(score: Score) -> float:
    value = score.value
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 1.0 if score.passed else 0.0  # a part that gave no usable value: its verdict
    return min(1.0, max(0.0, float(value)))


def _named(results: Sequence[tuple[Part, Score]]) -> str:
    return listing(
        f"{part.label} ({_clip(score.rationale)})" if score.rationale else part.label
        for part, score in results
    )


def _not_scored(unscored: Sequence[tuple[Part, Score]]) -> str:
    return "; not scored: " + _named(unscored) if unscored else ""


def _errors_note(errored: Sequence[tuple[Part, Score]]) -> str:
    return "; errored: " + _named(errored) if errored else ""


def _clip(text: str) -> str:
    return text if len(text) <= _RATIONALE_CLIP else text[: _RATIONALE_CLIP - 3] + "..."
