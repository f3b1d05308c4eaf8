"""Regular expressions that users write (an eval set's expected `regex` response), searched
within a bounded time.

A pattern from a case is untrusted input: Python's `re` backtracks, and a pattern such as
`(a|aa)+$` takes time that grows exponentially with the text it fails to match, without a
bound and without a way to stop it. Such patterns are searched with the `regex` package
instead, which accepts the same syntax, answers many of them at once (`^(a+)+$`), and stops a
search that runs past `PATTERN_TIMEOUT`. Every pattern taken from a case, a config or a
scenario is searched with `search` here and nowhere else.

The `regex` package is imported the first time a pattern is compiled, not when assay starts.

Example:
    >>> search(r"order #\\d+", "Your ORDER #4521 shipped", ignore_case=True)
    True
    >>> search(r"(a|aa)+$", "a" * 40 + "!", ignore_case=False, timeout=0.05)
    Traceback (most recent call last):
    ...
    assay._patterns.PatternTimeout: pattern took longer than 0.05 s
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported on first use: most evaluations never compile a pattern
    import regex

__all__ = ["PATTERN_TIMEOUT", "PatternError", "PatternTimeout", "search"]

PATTERN_TIMEOUT = 1.0
"""Seconds one user pattern may spend searching one text. An ordinary pattern searches the
longest reply a scorer reads in milliseconds; only catastrophic backtracking comes near."""


class PatternError(ValueError):
    """A pattern that does not compile; the message says why."""


class PatternTimeout(Exception):  # noqa: N818 (it is the event, as TimeoutError is)
    """A search still running at its time bound."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"pattern took longer than {seconds:g} s")
        self.seconds = seconds
        """The bound the search reached."""


def search(pattern: str, text: str, *, ignore_case: bool, timeout: float | None = None) -> bool:
    """Whether `pattern` (Python's regular expression syntax) matches somewhere in `text`.

    Args:
        pattern: The pattern, as the user wrote it.
        text: The text to search.
        ignore_case: Match letters in either case.
        timeout: Seconds the search may take; None: `PATTERN_TIMEOUT`.

    Raises:
        PatternError: the pattern does not compile.
        PatternTimeout: the search was still running after `timeout` seconds.

    Example:
        >>> search(r"^\\d+$", "total: 42", ignore_case=False)
        False
        >>> search("(unclosed", "x", ignore_case=False)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay._patterns.PatternError: missing )...
    """
    seconds = PATTERN_TIMEOUT if timeout is None else timeout
    compiled = _compiled(pattern, ignore_case)
    try:
        return compiled.search(text, timeout=seconds) is not None
    except TimeoutError:
        raise PatternTimeout(seconds) from None


@lru_cache(maxsize=256)
def _compiled(pattern: str, ignore_case: bool) -> regex.Pattern[str]:
    # Many runs of one case share its pattern: compile it once.
    import regex

    try:
        return regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
    except regex.error as exc:
        raise PatternError(str(exc)) from None
