"""Normalisation of leaf values, and the similarity of two leaves.

Two leaves are *exact* when their normal forms are equal, and nothing weaker:

- numbers, and strings that spell a plain number, compare by value to 6 decimal places
  (14, 14.0, "14" and "14.0" are equal); booleans are not numbers;
- other strings are stripped, inner whitespace collapsed and case-folded;
- the strings true/false and none/null equal the boolean or null;
- empty dicts and empty lists are values of their own.

`%`, thousands separators and units are left alone (a per-key rule can ask otherwise).

Example:
    >>> normal_form("14.0") == normal_form(14)
    True
    >>> normal_form(" Pumps  and FANS ") == normal_form("pumps and fans")
    True
    >>> normal_form(True) == normal_form(1)
    False
    >>> similarity(48, 27), similarity(100, 103), similarity("CH-12", "CH-21") < 1.0
    (0.0, 0.7, True)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

NormalForm = tuple[Any, ...]
"""A hashable token: (`num`, float) | (`str`, text) | (`bool`, b) | (`null`,) | (`dict`,) | …"""

_NUMERIC = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NULL: NormalForm = ("null",)
_DIFFLIB_CHARS = 400
_NEARLY_EXACT = 0.99
_CACHED_CHARS = 200


def normal_form(value: Any) -> NormalForm:
    """The token two leaves share exactly when they count as equal."""
    if value is None:
        return _NULL
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return _text_form(value) if len(value) <= _CACHED_CHARS else _text_form.__wrapped__(value)
    if isinstance(value, dict):
        return ("dict",) if not value else ("repr", repr(value))
    if isinstance(value, list | tuple):
        return ("list",) if not value else ("repr", repr(value))
    return ("repr", repr(value))


@lru_cache(maxsize=512)
def _text_form(value: str) -> NormalForm:
    # Cached: list alignment compares every gold item with every model item, so the same
    # strings are normalised many times over.
    text = " ".join(value.split()).casefold()
    if text in ("true", "false"):
        return ("bool", text == "true")
    if text in ("none", "null"):
        return _NULL
    if len(text) <= 300 and _NUMERIC.fullmatch(text):
        return _number(float(text) if any(c in text for c in ".eE") else int(text))
    return ("str", text)


@lru_cache(maxsize=512)
def _number(value: int | float) -> NormalForm:
    try:
        as_float = float(value)
    except OverflowError:  # an int too large for a float still compares exactly as an int
        return ("bigint", int(value))
    if not math.isfinite(as_float):
        return ("str", str(value).casefold())
    rounded = round(as_float, 6)
    return ("num", rounded + 0.0)  # + 0.0 folds -0.0 into 0.0


def similarity(gold: Any, model: Any) -> float:
    """Similarity of two leaves in 0..1; 1.0 exactly when they are equal after normalisation.

    Numbers earn 0.9 / 0.7 / 0.5 within 1% / 5% / 10% relative error of the gold value (0 when
    the gold value is 0 and the model's is not); strings earn their difflib ratio, kept below
    1.0 when they differ; an empty value against a non-empty one, and values of different
    kinds, earn 0.
    """
    return similarity_of_forms(normal_form(gold), normal_form(model))


def similarity_of_forms(gold: NormalForm, model: NormalForm) -> float:
    """`similarity` for leaves already normalised."""
    if gold == model:
        return 1.0
    if gold[0] == "num" and model[0] == "num":
        return numeric_similarity(gold[1], model[1])
    if gold[0] == "str" and model[0] == "str":
        return text_similarity(gold[1], model[1])
    return 0.0


def numeric_similarity(gold: float, model: float) -> float:
    """Tiered closeness of two numbers, relative to the gold value."""
    if gold == model:
        return 1.0
    if gold == 0:
        return 0.0
    error = abs(gold - model) / abs(gold)
    if error < 0.01:
        return 0.9
    if error < 0.05:
        return 0.7
    if error < 0.10:
        return 0.5
    return 0.0


def text_similarity(gold: str, model: str) -> float:
    """Similarity of two different normalised strings: never 1.0, 0 when either is empty.

    Short strings (the usual leaf: a name, an id) get difflib's ratio. difflib is quadratic at
    best and much worse on repetitive text, so longer strings get the Dice coefficient of
    their character bigrams instead, which is linear.
    """
    if not gold or not model:
        return 0.0
    if len(gold) + len(model) <= _DIFFLIB_CHARS:
        ratio = SequenceMatcher(None, gold, model, autojunk=False).ratio()
    else:
        ratio = _bigram_dice(gold, model)
    return min(ratio, _NEARLY_EXACT)


def text_similarity_cost(gold: str, model: str) -> int:
    """What `text_similarity` of two differing strings costs, counted in comparisons of two
    numbers (a couple of microseconds each), as an upper bound: difflib's time grows with
    the product of the lengths (fully on repetitive text), the bigrams' with their sum.

    Example:
        >>> text_similarity_cost("pump north", "pump south")
        8
        >>> text_similarity_cost("a" * 150, "b" * 150), text_similarity_cost("a" * 5000, "b" * 5000)
        (941, 1250)
    """
    if len(gold) + len(model) <= _DIFFLIB_CHARS:
        return 4 + len(gold) * len(model) // 24
    return (len(gold) + len(model)) // 8


def _bigram_dice(first: str, second: str) -> float:
    left = Counter(first[i : i + 2] for i in range(len(first) - 1))
    right = Counter(second[i : i + 2] for i in range(len(second) - 1))
    total = sum(left.values()) + sum(right.values())
    if total == 0:
        return 0.0
    return 2 * sum((left & right).values()) / total
