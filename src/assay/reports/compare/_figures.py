"""How the figures of a comparison read, shared by its console table and its Markdown."""

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
