"""`response_match`: the agent's reply holds, equals, matches or resembles the expected response.

The expected response is the case's `expected_answer` (a gold that is not text is compared as
its JSON text); the reply is the run's final response (`final_text`: its answer, else its
last assistant text). Modes:

- `contains` (the default): the expected text appears in the reply;
- `exact`: the reply is the expected text, both stripped and with runs of whitespace made one
  space;
- `regex`: the expected text is a regular expression found somewhere in the reply (a search,
  not a full match), in Python's syntax. A pattern may search a reply for at most
  `PATTERN_TIMEOUT` (1 s): past that bound, as with catastrophic backtracking, the criterion
  is unscored with the reason `pattern_timeout`, never a pass or a fail;
- `rouge`: the ROUGE-1 F1 of the two texts (`rouge1_f1`), passing at `threshold` (default 0.8,
  as Google ADK's `response_match_score`). As in ADK, whose ROUGE is the `rouge-score`
  package's with `use_stemmer=True`, a word of ASCII letters and digits longer than 3
  characters counts by its Porter stem (NLTK's variant, `assay.scorers._porter`): "running"
  and "run" are one word, so "I am running fast" against "I am run fast" scores 1.0, as in
  ADK. Other words (accented letters, other scripts) count as written.

`contains` and `exact` also make runs of whitespace one space, and every mode ignores case
unless `case_sensitive` is set. The first three modes score 1 or 0.

A multi-turn case (`Case.turns`) that expects a reply before its last turn is checked turn by
turn: each turn's expectation against that turn's reply (`turn_replies`: from the run's
conversation, else from its steps' `turn`), a turn without a reply failing. The score is the
fraction of the expected turns that pass (`rouge`: their mean F1); the case passes when every
one does; `details["turns"]` lists them. A turn whose expectation is None or blank text (an
ADK invocation that only called tools) expects nothing.

Example:
    >>> from assay.records import Case, Trajectory
    >>> case = Case(id="capitals-001", expected_answer="Paris")
    >>> response_match()(case, Trajectory(answer="The capital of France is paris.")).passed
    True
    >>> score = response_match(mode="rouge")(case, Trajectory(answer="It is Paris."))
    >>> round(score.value, 2), score.passed
    (0.5, False)
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from assay._patterns import PATTERN_TIMEOUT, PatternError, PatternTimeout, search
from assay.records import Case, Trajectory
from assay.results import Score
from assay.scorers._porter import stem
from assay.scorers._runs import (
    bad_expectation,
    check_fraction,
    final_text,
    not_applicable,
    turn_replies,
)
from assay.scorers.registry import Scorer, register_scorer

__all__ = ["PATTERN_TIMEOUT", "Mode", "response_match", "rouge1_f1"]

NAME = "response_match"

Mode = Literal["contains", "exact", "regex", "rouge"]
MODES: tuple[Mode, ...] = ("contains", "exact", "regex", "rouge")

ROUGE_THRESHOLD = 0.8
"""Default pass mark of the `rouge` mode, as Google ADK's `response_match_score`."""

MAX_REGEX_TEXT = 100_000
"""Characters of a reply a regular expression searches. A reply that long is searched in its
first part only, and `details` says so. This bounds the cost of an ordinary pattern; the time
of a pathological one is bounded by `PATTERN_TIMEOUT` (see `assay._patterns`)."""

_SHOWN = 2000
"""Characters of a reply or an expectation repeated in `details` (the report has the answer)."""

_WORD = re.compile(r"[^\W_]+")
"""A ROUGE token: a run of letters or digits (any script)."""

_SPACE = re.compile(r"\s+")


@register_scorer(NAME, group="answers")
def response_match(
    *, mode: Mode = "contains", threshold: float | None = None, case_sensitive: bool = False
) -> Scorer:
    """Checks the final reply contains, equals, matches (regex) or resembles (ROUGE) the expected
    answer.

    Args:
        mode: `contains`, `exact`, `regex` or `rouge` (see the module documentation).
        threshold: The score a reply (each turn's, in a multi-turn case) needs to pass; None:
            0.8 for `rouge`, 1.0 for the other modes, which score 1 or 0.
        case_sensitive: Compare case as written (by default case is ignored).

    `rouge` stems English words as Google ADK's `response_match_score` does (Porter, words of
    ASCII letters and digits longer than 3 characters; see `rouge1_f1`).

    A `regex` pattern may search a reply for at most `PATTERN_TIMEOUT` (1 s); a pattern still
    searching then (catastrophic backtracking, say) leaves the criterion unscored, with the
    reason `pattern_timeout`: neither a pass nor a fail.

    Raises:
        ValueError: an unknown mode or a threshold outside 0..1.

    Example:
        >>> from assay.records import Case, Trajectory
        >>> case = Case(id="s", expected_answer=r"order #\\d+")
        >>> score = response_match(mode="regex")(case, Trajectory(answer="Order #4521 shipped"))
        >>> score.passed, score.details["mode"]
        (True, 'regex')
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
    if threshold is not None:
        check_fraction("threshold", threshold)
    if not isinstance(case_sensitive, bool):
        raise ValueError(f"case_sensitive must be true or false, got {case_sensitive!r}")
    needed = threshold if threshold is not None else ROUGE_THRESHOLD if mode == "rouge" else 1.0
    matcher = _Matcher(mode, needed, case_sensitive)

    def score(case: Case, run: Trajectory) -> Score:
        turns = case.turns or []
        expected = [_expectation(turn.expected_answer) for turn in turns]
        if len(turns) > 1 and any(text is not None for text in expected[:-1]):
            return _by_turn(matcher, expected, run)
        wanted = _expectation(case.expected_answer)
        if wanted is None:
            return not_applicable(NAME, "case has no expected response")
        reply, where = final_text(run)
        if reply is None:
            return Score.unscored(
                NAME, "run has no final response to compare", {"reason": "no_answer"}
            )
        try:
            verdict = matcher(wanted, reply)
        except PatternError as exc:
            return _bad_pattern(wanted, exc)
        except PatternTimeout as exc:
            return _slow_pattern(matcher, wanted, exc, f"the response ({where})")
        details = {**matcher.options(), "response_from": where, **verdict.details()}
        rationale = verdict.explain(f"response ({where})")
        return Score.scored(
            NAME, verdict.score, passed=verdict.passed, rationale=rationale, details=details
        )

    return score


def rouge1_f1(reference: str, candidate: str, *, case_sensitive: bool = False) -> float:
    """The ROUGE-1 F1 of two texts: the harmonic mean of the precision and recall of their
    shared words, each word counted as often as both texts have it.

    Words are runs of letters or digits (of any script), lower-cased unless `case_sensitive`;
    punctuation and spacing do not count. A word of ASCII letters and digits longer than 3
    characters counts by its Porter stem, as in Google ADK's ROUGE (`rouge-score` with
    `use_stemmer=True`, NLTK's Porter stemmer): "running" and "run" are one word. With
    `case_sensitive`, such a word is stemmed in lower case and keeps the case of the letters
    the stem keeps ("Running" is "Run"). Words in other scripts or with accented letters are
    compared as written. Two texts without words score 1.0 (nothing differs), one without
    words against one with words 0.0. F1 is symmetric: swapping the texts changes nothing.

    Example:
        >>> rouge1_f1("The capital of France is Paris.", "Paris is the capital")
        0.8
        >>> rouge1_f1("sunny", "rainy"), rouge1_f1("...", "!")
        (0.0, 1.0)
        >>> rouge1_f1("I am run fast", "I am running fast")
        1.0
    """
    left, right = _words(reference, case_sensitive), _words(candidate, case_sensitive)
    if not left and not right:
        return 1.0
    shared = sum((Counter(left) & Counter(right)).values())
    # precision = shared / len(right) and recall = shared / len(left), so their harmonic
    # mean is 2 * shared / (len(left) + len(right)).
    return 2 * shared / (len(left) + len(right))


def _words(text: str, case_sensitive: bool) -> list[str]:
    return [_stemmed(word) for word in _WORD.findall(text if case_sensitive else text.casefold())]


def _stemmed(word: str) -> str:
    """The word ROUGE counts: the Porter stem of a word of ASCII letters and digits longer than
    3 characters (the words `rouge-score` stems; it drops every other character, where assay
    keeps words of other scripts whole), else the word itself."""
    if len(word) <= 3 or not word.isascii():
        return word
    lower = word.lower()
    found = stem(lower)
    if lower == word:
        return found
    # Case-sensitive: the stem rewrites an ending only, so keep the case of what it keeps.
    kept = 0
    while kept < len(found) and found[kept] == lower[kept]:
        kept += 1
    return word[:kept] + found[kept:]


def _expectation(value: Any) -> str | None:
    """The expected text: text as written, another gold as its JSON text; None for no
    expectation (None, or blank text)."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return value if value.strip() else None


@dataclass(frozen=True, slots=True)
class _Verdict:
    """One reply held against one expectation."""

    mode: Mode
    expected: str
    actual: str
    score: float
    passed: bool
    threshold: float
    truncated: bool = False

    def details(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "expected": _shown(self.expected),
            "actual": _shown(self.actual),
            "score": self.score,
            "passed": self.passed,
        }
        if self.truncated:
            found["searched_chars"] = MAX_REGEX_TEXT
        return found

    def explain(self, reply: str) -> str:
        expected = repr(_shown(self.expected, 80))
        if self.mode == "rouge":
            verdict = ">=" if self.passed else "<"
            return f"{reply}: ROUGE-1 F1 {self.score:.3g} {verdict} threshold {self.threshold:g}"
        if self.mode == "regex":
            cut = f" (first {MAX_REGEX_TEXT} characters)" if self.truncated else ""
            if self.passed:
                return f"{reply} matches the pattern {expected}"
            return f"no match of the pattern {expected} in {reply}{cut}"
        if self.passed:
            return f"{reply} " + ("contains " if self.mode == "contains" else "is ") + expected
        if self.mode == "contains":
            return f"{reply} lacks {expected}"
        return f"{reply} is not {expected}"


class _Matcher:
    """A mode, its pass mark and its case rule, applied to one expectation and one reply."""

    def __init__(self, mode: Mode, threshold: float, case_sensitive: bool) -> None:
        self.mode = mode
        self.threshold = threshold
        self.case_sensitive = case_sensitive

    def options(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "threshold": self.threshold,
            "case_sensitive": self.case_sensitive,
        }

    def __call__(self, expected: str, actual: str) -> _Verdict:
        """The verdict; raises `PatternError` for a `regex` expectation that does not compile,
        `PatternTimeout` for one that is still searching at its time bound."""
        truncated = False
        if self.mode == "rouge":
            value = rouge1_f1(expected, actual, case_sensitive=self.case_sensitive)
        elif self.mode == "regex":
            truncated = len(actual) > MAX_REGEX_TEXT
            found = search(expected, actual[:MAX_REGEX_TEXT], ignore_case=not self.case_sensitive)
            value = 1.0 if found else 0.0
        else:
            want, got = self._normal(expected), self._normal(actual)
            hit = want in got if self.mode == "contains" else want == got
            value = 1.0 if hit else 0.0
        passed = value >= self.threshold
        return _Verdict(self.mode, expected, actual, value, passed, self.threshold, truncated)

    def _normal(self, text: str) -> str:
        text = _SPACE.sub(" ", text).strip()
        return text if self.case_sensitive else text.casefold()


def _by_turn(matcher: _Matcher, expected: list[str | None], run: Trajectory) -> Score:
    """The verdict of a multi-turn case: each expected turn against that turn's reply."""
    replies, source = turn_replies(run, len(expected))
    if replies is None:
        return Score.unscored(
            NAME,
            f"case expects a reply per turn but {source}",
            {"reason": "no_turns", **matcher.options()},
        )
    records: list[dict[str, Any]] = []
    failed: list[str] = []
    values: list[float] = []
    for number, (wanted, reply) in enumerate(zip(expected, replies, strict=True), start=1):
        if wanted is None:
            continue
        if reply is None:
            records.append(
                {"turn": number, "expected": _shown(wanted), "actual": None, "score": 0.0,
                 "passed": False}
            )  # fmt: skip
            values.append(0.0)
            failed.append(f"turn {number}: no reply")
            continue
        try:
            verdict = matcher(wanted, reply)
        except PatternError as exc:
            return _bad_pattern(wanted, exc, number)
        except PatternTimeout as exc:
            return _slow_pattern(matcher, wanted, exc, f"turn {number}'s reply", number)
        records.append({"turn": number, **verdict.details()})
        values.append(verdict.score)
        if not verdict.passed:
            failed.append(verdict.explain(f"turn {number}"))
    passed_turns = len(values) - len(failed)
    # rouge: the mean F1; the other modes: the share of turns that match.
    value = (sum(values) if matcher.mode == "rouge" else passed_turns) / len(values)
    rationale = f"{passed_turns} of {len(values)} expected turns match"
    if failed:
        rationale += "; " + "; ".join(failed[:3]) + (
            f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        )
    details = {**matcher.options(), "response_from": source, "turns": records}
    return Score.scored(NAME, value, passed=not failed, rationale=rationale, details=details)


def _bad_pattern(pattern: str, exc: PatternError, turn: int | None = None) -> Score:
    where = "expected_answer" if turn is None else f"turns[{turn - 1}].expected_answer"
    return bad_expectation(
        NAME, where, f"{_shown(pattern, 200)!r} is not a regular expression: {exc}"
    )


def _slow_pattern(
    matcher: _Matcher, pattern: str, exc: PatternTimeout, reply: str, turn: int | None = None
) -> Score:
    """Unscored: a pattern that ran past its time bound says nothing about the reply."""
    details: dict[str, Any] = {
        "reason": "pattern_timeout",
        **matcher.options(),
        "expected": _shown(pattern, 200),
        "timeout_s": exc.seconds,
    }
    if turn is not None:
        details["turn"] = turn
    return Score.unscored(
        NAME,
        f"pattern {_shown(pattern, 80)!r} took longer than {exc.seconds:g} s against {reply} "
        "(catastrophic backtracking?)",
        details,
    )


def _shown(text: str, limit: int = _SHOWN) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
