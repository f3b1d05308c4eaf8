"""`compare_reports`: two reports directories compared, as `assay compare` shows them.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from assay.offline import EvaluateOptions, evaluate
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> for name, answer in (("base", "7"), ("new", "8")):
    ...     (root / name).mkdir()
    ...     _ = (root / name / "1.json").write_text(f'{{"scenario_id": "1", "answer": "{answer}"}}')
    ...     _ = evaluate(EvaluateOptions(root / name, (root / "gt",), root / f"out-{name}"))
    >>> result = compare_reports(root / "out-base", root / "out-new")
    >>> result["scorers"]["static_json"]["regressed"], result["warnings"]
    (['1'], [])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.reports.compare.diff import (
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    compare_lines,
    setting_warnings,
)
from assay.reports.load import LoadedReports, load_reports

__all__ = ["compare_loaded", "compare_reports", "repeats_comparison"]


def compare_reports(
    base: Path | str,
    new: Path | str,
    *,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """Compare the reports directory `new` with `base` (see `compare_lines` for the rules).

    Returns:
        The comparison as `assay schema compare` describes it: each side's directory and
        versions, `warnings` on settings that differ (schema version, scorers, their options),
        `problems` (lines that are not results, runs that cannot be compared), and the figures
        per scorer.

    Raises:
        assay.reports.load.ReportsError: either directory cannot be read as a reports
            directory.
    """
    return compare_loaded(
        load_reports(base), load_reports(new), alpha=alpha, resamples=resamples, seed=seed
    )


def compare_loaded(
    before: LoadedReports,
    after: LoadedReports,
    *,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """`compare_reports` of two directories already loaded (so that a page showing the
    comparison reads the same files the figures came from)."""
    result = compare_lines(
        before.results, after.results, alpha=alpha, resamples=resamples, seed=seed
    )
    problems = [
        {"side": side, "reason": f"results.jsonl line {problem.line}: {problem.reason}"}
        for side, loaded in (("base", before), ("new", after))
        for problem in loaded.problems
    ]
    problems += [
        {"side": side, "reason": f"results.jsonl line {loaded.lines.cut_line} is cut short"}
        for side, loaded in (("base", before), ("new", after))
        if loaded.lines.cut_line is not None
    ]
    repeats = repeats_comparison(before.aggregate, after.aggregate)
    return {
        "base": _side(before),
        "new": _side(after),
        "warnings": setting_warnings(before.aggregate, after.aggregate),
        **result,
        **({} if repeats is None else {"repeats": repeats}),
        "problems": problems + result["problems"],
    }


def repeats_comparison(base: dict[str, Any], new: dict[str, Any]) -> dict[str, Any] | None:
    """Each side's repeated live runs from two aggregates (`assay schema compare`'s
    `RepeatsComparison`); None when neither side repeated its runs.

    Example:
        >>> section = {"n": 3, "n_max": 3, "cases": [{}, {}], "pass_at_k": {"1": 0.5, "3": 1.0},
        ...            "pass_hat_k": {"1": 0.5, "3": 0.0}, "mean_score": 0.5, "flaky": ["a"]}
        >>> figures = repeats_comparison({}, {"repeats": section})
        >>> figures["base"], figures["new"]["pass_at_1"], figures["new"]["flaky"]
        (None, 0.5, 1)
    """
    sides = [_repeat_figures(aggregate.get("repeats")) for aggregate in (base, new)]
    if sides[0] is None and sides[1] is None:
        return None
    before = set(sides[0]["flaky_cases"]) if sides[0] is not None else set()
    after = set(sides[1]["flaky_cases"]) if sides[1] is not None else set()
    both = sides[0] is not None and sides[1] is not None
    return {
        "base": sides[0],
        "new": sides[1],
        "newly_flaky": sorted(after - before) if both else [],
        "no_longer_flaky": sorted(before - after) if both else [],
    }


def _repeat_figures(section: Any) -> dict[str, Any] | None:
    if not isinstance(section, dict):
        return None
    n = section.get("n")
    at, hat = section.get("pass_at_k") or {}, section.get("pass_hat_k") or {}
    flaky = [case for case in section.get("flaky") or [] if isinstance(case, str)]
    return {
        "n": n,
        "n_max": section.get("n_max", n),
        "cases": len(section.get("cases") or []),
        "pass_at_1": at.get("1"),
        "pass_at_n": at.get(str(n)),
        "pass_hat_n": hat.get(str(n)),
        "mean_score": section.get("mean_score"),
        "flaky": len(flaky),
        "flaky_cases": sorted(flaky),
    }


def _side(loaded: LoadedReports) -> dict[str, Any]:
    return {
        "directory": str(loaded.directory),
        "schema_version": loaded.aggregate.get("schema_version"),
        "assay_version": loaded.aggregate.get("assay_version"),
        "generated_at": loaded.aggregate.get("generated_at"),
        "results": len(loaded.results),
    }
