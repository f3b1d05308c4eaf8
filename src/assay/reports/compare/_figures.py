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
