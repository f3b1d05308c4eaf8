"""A comparison as one self-contained HTML page (`assay compare BASE NEW --html FILE`): the
verdict, each scorer's figures and the warnings first, then every paired run with what
happened to it, filterable by change kind and searchable, and each run's answer and rationale
on both sides.

The page is built as the single-directory HTML report is (`assay.reports.html.shell`): data
as escaped JSON, shown by a script that sets only `textContent`, under a policy that allows no
network access and no script but its own.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from assay.offline import EvaluateOptions, evaluate
    >>> from assay.reports.load import load_reports
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> for name, answer in (("base", "7"), ("new", "8")):
    ...     (root / name).mkdir()
    ...     _ = (root / name / "1.json").write_text(f'{{"scenario_id": "1", "answer": "{answer}"}}')
    ...     _ = evaluate(EvaluateOptions(root / name, (root / "gt",), root / f"out-{name}"))
    >>> data = compare_page_data(load_reports(root / "out-base"), load_reports(root / "out-new"))
    >>> data["verdict"], [(run["i"], run["k"]) for run in data["runs"]]
    ('no significant change', [('1', {'static_json': 'regressed'})])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.reports.compare._figures import (
    flaky_changes,
    interval,
    number,
    p_value,
    rate,
    repeats_rows,
    signed,
    verdict_title,
)
from assay.reports.compare.diff import (
    CHANGE_KINDS,
    DEFAULT_ALPHA,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Pair,
    change_kind,
    pair_lines,
)
from assay.reports.compare.reports import compare_loaded
from assay.reports.html.shell import asset, html_page, text
from assay.reports.load import LoadedReports

__all__ = ["PageLimits", "compare_page_data", "render_compare_html"]


@dataclass(frozen=True, slots=True)
class PageLimits:
    """How much of each run the page carries; a longer string is cut with a visible note."""

    answer: int = 2000
    """Characters of an answer on each side."""

    rationale: int = 1000
    """Characters of a rationale on each side."""

    text: int = 300
    """Characters of an id, a warning, a problem or a status."""


def render_compare_html(
    before: LoadedReports,
    after: LoadedReports,
    *,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    limits: PageLimits | None = None,
    comparison: dict[str, Any] | None = None,
) -> str:
    """The comparison page of two loaded reports directories (BASE, then NEW);
    `comparison`, when given, is `compare_loaded(before, after, ...)` already computed.

    Example:
        >>> import tempfile
        >>> from pathlib import Path
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> from assay.reports.load import load_reports
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
        >>> _ = (root / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
        >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> loaded = load_reports(root / "out")
        >>> page = render_compare_html(loaded, loaded)
        >>> page.startswith("<!DOCTYPE html>"), "default-src 'none'" in page
        (True, True)
    """
    data = compare_page_data(
        before,
        after,
        alpha=alpha,
        resamples=resamples,
        seed=seed,
        limits=limits,
        comparison=comparison,
    )
    style = asset("page.css") + asset("compare.css", "assay.reports.compare")
    script = asset("dom.js") + asset("compare.js", "assay.reports.compare")
    return html_page("assay compare", style, script, data)


def compare_page_data(
    before: LoadedReports,
    after: LoadedReports,
    *,
    alpha: float = DEFAULT_ALPHA,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    limits: PageLimits | None = None,
    comparison: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What the comparison page holds: the comparison's verdict, figures (as shown), warnings
    and problems, and each paired run with its change kind under each scorer and, on each
    side, its answer and verdicts (read from the run's own report, else from its line).

    `comparison`, when given, is `compare_loaded(before, after, ...)` already computed.

    Each run is `{"i": run label, "s": scenario, "p": repeat, "k": {scorer: change kind},
    "b": side or None, "n": side or None}`; a side is `{"a": answer or None, "v": {scorer:
    [status, passed, score, rationale]}, "x": a note when its report could not be read}`.
    """
    chosen = limits if limits is not None else PageLimits()
    result = (
        comparison
        if comparison is not None
        else compare_loaded(before, after, alpha=alpha, resamples=resamples, seed=seed)
    )
    names = list(result["scorers"])
    pairs = pair_lines(before.results, after.results)
    runs = [_run(pair, names, before, after, chosen) for pair in pairs]
    return {
        "verdict": result["verdict"],
        "verdict_title": verdict_title(result["verdict"]),
        "alpha": result["alpha"],
        "resamples": result["resamples"],
        "seed": result["seed"],
        "base": _described(result["base"], chosen),
        "new": _described(result["new"], chosen),
        "warnings": [text(warning, chosen.text) for warning in result["warnings"]],
        "problems": [
            [text(problem.get("side"), 10), text(problem.get("reason"), chosen.text)]
            for problem in result["problems"]
        ],
        "scorers": [_figures(name, result["scorers"][name], chosen) for name in names],
        "combined": _combined(pairs, names),
        "matched_by": result.get("matched_by"),
        "repeats": [[text(value, chosen.text) for value in row] for row in repeats_rows(result)],
        "flaky_changes": [
            [title, [text(case, chosen.text) for case in cases]]
            for title, cases in flaky_changes(result)
        ],
        "kinds": list(CHANGE_KINDS),
        "runs": runs,
    }


def _described(side: dict[str, Any], limits: PageLimits) -> dict[str, Any]:
    return {
        "directory": text(side.get("directory"), limits.text),
        "assay_version": text(side.get("assay_version"), 40),
        "generated_at": text(side.get("generated_at"), 40),
        "results": side.get("results"),
    }


def _figures(name: str, figures: dict[str, Any], limits: PageLimits) -> dict[str, Any]:
    """A scorer's figures, formatted as the console and Markdown show them."""
    return {
        "name": text(name, limits.text),
        "verdict": figures["verdict"],
        "verdict_title": verdict_title(figures["verdict"]),
        "significant": figures["significant"],
        "paired": figures["n_paired"],
        "pass_rate": f"{rate(figures['pass_rate_base'])} → {rate(figures['pass_rate_new'])}",
        "mean_score": f"{number(figures['mean_score_base'])} → "
        f"{number(figures['mean_score_new'])}",
        "mean_change": f"{signed(figures['mean_delta'])} {interval(figures['ci'])}",
        "p_value": p_value(figures["p_value"]),
        "flips": f"{figures['pass_to_fail']} pass→fail, {figures['fail_to_pass']} fail→pass",
        "counts": {kind: len(figures[kind]) for kind in CHANGE_KINDS},
    }


def _combined(pairs: list[Pair], names: list[str]) -> str | None:
    """The scorer of the runs' overall verdict (`a+b` with several scorers): the page's
    first view."""
    for pair in pairs:
        for line in (pair.base, pair.new):
            score = line.get("score") if line is not None else None
            if isinstance(score, dict) and score.get("scorer") in names:
                return str(score["scorer"])
    return names[0] if names else None


def _run(
    pair: Pair,
    names: list[str],
    before: LoadedReports,
    after: LoadedReports,
    limits: PageLimits,
) -> dict[str, Any]:
    kinds = {}
    for name in names:
        kind = change_kind(pair.base, pair.new, name)
        if kind is not None:
            kinds[text(name, limits.text)] = kind
    return {
        "i": text(pair.label, limits.text),
        "s": text(pair.scenario_id, limits.text),
        "p": pair.repeat,
        "k": kinds,
        "b": None if pair.base is None else _side(pair.base, before, limits),
        "n": None if pair.new is None else _side(pair.new, after, limits),
    }


def _side(line: dict[str, Any], loaded: LoadedReports, limits: PageLimits) -> dict[str, Any]:
    report = loaded.run_report(line)
    source = report if report is not None else line
    answer = source.get("answer")
    verdicts: dict[str, list[Any]] = {}
    scores = source.get("scores")
    entries: list[Any] = scores if isinstance(scores, list) else []
    for entry in [source.get("score"), *entries]:
        if not isinstance(entry, dict) or not isinstance(entry.get("scorer"), str):
            continue
        name = text(entry["scorer"], limits.text)
        score = entry.get("score")
        verdicts.setdefault(
            name,
            [
                text(entry.get("status"), limits.text),
                entry.get("passed") if isinstance(entry.get("passed"), bool) else None,
                score
                if isinstance(score, int | float)
                and not isinstance(score, bool)
                and 0.0 <= score <= 1.0
                else None,
                text(entry.get("rationale") or "", limits.rationale),
            ],
        )
    side: dict[str, Any] = {
        "a": None if answer is None else text(answer, limits.answer),
        "v": verdicts,
    }
    if report is None:
        side["x"] = "its report could not be read; shown from results.jsonl"
    return side
