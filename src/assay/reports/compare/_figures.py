"""How the figures of a comparison read, shared by its console table, its Markdown and its
page."""

from __future__ import annotations

from typing import Any

VERDICT_TITLES = {
    "regressed": "REGRESSED",
    "improved": "IMPROVED",
    "mixed": "MIXED (regressed and improved)",
    "no significant change": "no significant change",
}


def verdict_title(verdict: Any) -> str:
    return VERDICT_TITLES.get(verdict, str(verdict))


def rate(value: Any) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.1%}"


def number(value: Any, digits: int = 3) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:.{digits}f}"


def signed(value: Any) -> str:
    return "-" if not isinstance(value, int | float) else f"{value:+.3f}"


def interval(ci: Any) -> str:
    if not isinstance(ci, list) or len(ci) != 2:
        return "-"
    return f"[{signed(ci[0])}, {signed(ci[1])}]"


def p_value(value: Any) -> str:
    if not isinstance(value, int | float):
        return "-"
    return f"{value:.2g}" if value < 0.001 else f"{value:.3f}"


def side(verdict: dict[str, Any]) -> str:
    """A run's verdict on one side: `pass 1.000`, `fail 0.250`, or its status."""
    if verdict.get("status") != "scored":
        return str(verdict.get("status"))
    return f"{'pass' if verdict.get('passed') else 'fail'} {number(verdict.get('score'))}"


def cut(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def repeats_rows(comparison: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The rows (figure, BASE, NEW) that show each side's repeated live runs; none when
    neither side repeated its runs. A side without repetitions shows `-`.

    Example:
        >>> side_figures = {"n": 3, "n_max": 3, "cases": 2, "pass_at_1": 0.5, "pass_at_n": 1.0,
        ...                 "pass_hat_n": 0.0, "mean_score": 0.5, "flaky": 1}
        >>> repeats = {"base": None, "new": side_figures}
        >>> repeats_rows({"repeats": repeats})[2]
        ('pass@1', '-', '50.0%')
    """
    repeats = comparison.get("repeats")
    if not isinstance(repeats, dict):
        return []
    sides = [repeats.get("base"), repeats.get("new")]

    def each(show: Any) -> tuple[str, str]:
        base, new = (show(figures) if isinstance(figures, dict) else "-" for figures in sides)
        return base, new

    def counted(figures: dict[str, Any]) -> str:
        n, n_max = figures.get("n"), figures.get("n_max")
        return str(n) if n == n_max else f"{n} to {n_max}"

    def at_n(key: str, sign: str) -> Any:
        return lambda figures: f"{sign}{figures.get('n')} {rate(figures.get(key))}"

    return [
        ("repetitions per case", *each(counted)),
        ("cases", *each(lambda figures: str(figures.get("cases")))),
        ("pass@1", *each(lambda figures: rate(figures.get("pass_at_1")))),
        ("pass@n", *each(at_n("pass_at_n", "pass@"))),
        ("pass^n", *each(at_n("pass_hat_n", "pass^"))),
        ("mean score", *each(lambda figures: number(figures.get("mean_score")))),
        ("flaky cases", *each(lambda figures: str(figures.get("flaky")))),
    ]


def flaky_changes(comparison: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """(title, case ids) of the cases that became flaky and those that stopped being flaky;
    only those with cases.

    Example:
        >>> flaky_changes({"repeats": {"newly_flaky": ["b"], "no_longer_flaky": []}})
        [('newly flaky', ['b'])]
    """
    repeats = comparison.get("repeats")
    if not isinstance(repeats, dict):
        return []
    return [
        (title, [str(case) for case in repeats.get(key) or []])
        for title, key in (("newly flaky", "newly_flaky"), ("no longer flaky", "no_longer_flaky"))
        if repeats.get(key)
    ]


def counted(n: int, one: str, many: str | None = None) -> str:
    """`n` with its noun: `1 fix`, `3 fixes`, `0 regressions`.

    Example:
        >>> counted(1, "fix", "fixes"), counted(0, "regression")
        ('1 fix', '0 regressions')
    """
    return f"{n} {one if n == 1 else (many or one + 's')}"


def headline_scorer(scorers: dict[str, dict[str, Any]]) -> str | None:
    """The scorer whose figures head a comparison: the combined verdict (`a+b`, the one a
    run passes or fails by) when there are several scorers, else the only one; with several
    and none combined, the one with the most paired runs. None without scorers.

    Example:
        >>> figures = {"n_paired": 7}
        >>> headline_scorer({"a": figures, "a+b": figures, "b": {"n_paired": 3}})
        'a+b'
        >>> headline_scorer({"a": {"n_paired": 2}, "b": {"n_paired": 3}}), headline_scorer({})
        ('b', None)
    """
    combined = [
        name
        for name in scorers
        if "+" in name and all(part in scorers for part in name.split("+"))
    ]
    if combined:
        return max(combined, key=lambda name: name.count("+"))
    if not scorers:
        return None
    return max(scorers, key=lambda name: int(scorers[name].get("n_paired") or 0))


def headline(comparison: dict[str, Any], name: Any = str) -> tuple[str, str]:
    """The two lines that open a comparison: what changed, counted (the pass rates and the
    runs that regressed, were fixed, stayed the same, under `headline_scorer`), then what the
    tests make of it. Regressions are counted first, whatever the verdict: a drop the tests
    cannot tell from chance is still a drop. `name` writes a scorer's name (an escape).

    Example:
        >>> figures = {"n_paired": 7, "n_scenarios": 7, "pass_rate_base": 6 / 7,
        ...            "pass_rate_new": 4 / 7, "regressed": ["a", "b", "c"], "improved": ["d"],
        ...            "unchanged": ["e", "f", "g"], "p_value": 0.625, "verdict":
        ...            "no significant change"}
        >>> for line in headline({"verdict": "no significant change",
        ...                       "scorers": {"s": figures}}):
        ...     print(line)
        pass rate 85.7% → 57.1% (-28.6 pts): 3 regressions, 1 fix, 3 unchanged
        verdict: not significant at this size: p=0.625, 7 paired runs in 7 scenarios
    """
    scorers: dict[str, dict[str, Any]] = comparison.get("scorers") or {}
    chosen = headline_scorer(scorers)
    if chosen is None:
        return "no run has a verdict to compare", "verdict: nothing to compare"
    figures = scorers[chosen]
    before, after = figures.get("pass_rate_base"), figures.get("pass_rate_new")
    if isinstance(before, int | float) and isinstance(after, int | float):
        rates = f"pass rate {rate(before)} → {rate(after)} ({(after - before) * 100:+.1f} pts)"
    else:
        rates = "no run scored on both sides"
    counts = ", ".join(
        [
            counted(len(figures.get("regressed") or []), "regression"),
            counted(len(figures.get("improved") or []), "fix", "fixes"),
            f"{len(figures.get('unchanged') or [])} unchanged",
        ]
    )
    verdict = comparison.get("verdict")
    if verdict in ("regressed", "improved"):
        kinds = ("regressed", "mixed") if verdict == "regressed" else ("improved",)
        names = ", ".join(
            str(name(scorer)) + (" (mixed)" if figures_of["verdict"] == "mixed" else "")
            for scorer, figures_of in scorers.items()
            if figures_of.get("verdict") in kinds
        )
        judged = f"verdict: {verdict_title(verdict)} significantly: {names}"
    elif not any(figures_of.get("regressed") or figures_of.get("improved")
                 for figures_of in scorers.values()):  # fmt: skip
        judged = f"verdict: no change in {counted(figures.get('n_paired') or 0, 'paired run')}"
    else:
        judged = (
            f"verdict: not significant at this size: p={p_value(figures.get('p_value'))}, "
            f"{counted(figures.get('n_paired') or 0, 'paired run')} in "
            f"{counted(figures.get('n_scenarios') or 0, 'scenario')}"
        )
    return f"{rates}: {counts}", judged


def verdict_phrase(figures: dict[str, Any]) -> str:
    """One scorer's verdict, said plainly: significant changes in capitals, else whether
    anything changed at all.

    Example:
        >>> verdict_phrase({"verdict": "no significant change", "regressed": ["a"]})
        'not significant'
        >>> verdict_phrase({"verdict": "regressed"})
        'REGRESSED significantly'
    """
    verdict = figures.get("verdict")
    if verdict == "mixed":
        return "MIXED: regressed and improved significantly"
    if verdict in ("regressed", "improved"):
        return f"{verdict_title(verdict)} significantly"
    if figures.get("regressed") or figures.get("improved"):
        return "not significant"
    return "no change"

