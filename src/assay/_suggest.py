"""A "did you mean" for a name that is not one: a command, a flag, a scorer, a choice.

One rule everywhere: the closest known names by `difflib`'s ratio (at least 0.6), compared
without case, so that `IN_ORDER` finds `in_order` and `static_jsn` finds `static_json`.

Example:
    >>> did_you_mean("evalute", ["evaluate", "run", "compare"])
    "; did you mean 'evaluate'?"
    >>> did_you_mean("zzz", ["evaluate"])
    ''
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(word: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """The known names nearest to `word`, nearest first (none when nothing is near)."""
    names = list(dict.fromkeys(known))
    by_folded: dict[str, str] = {}
    for name in names:
        by_folded.setdefault(name.casefold(), name)
    found = difflib.get_close_matches(word.casefold(), list(by_folded), n=limit, cutoff=0.6)
    return [by_folded[name] for name in found]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` (the nearest name) to end a message with, or `''`."""
    found = closest(word, known, limit=1)
    return f"; did you mean {found[0]!r}?" if found else ""
