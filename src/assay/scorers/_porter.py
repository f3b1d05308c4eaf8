"""The Porter stemmer, as Google ADK's ROUGE applies it to English words.

ADK's `response_match_score` is the `rouge-score` package's ROUGE-1 with `use_stemmer=True`,
which stems each word longer than 3 characters with NLTK's `PorterStemmer()` in its default
mode (`NLTK_EXTENSIONS`). This is that stemmer, written for assay so that the core does not
depend on NLTK: M. F. Porter, "An algorithm for suffix stripping", Program 14.3 (1980),
130-137, with the departures NLTK's default mode makes from the paper:

- a few irregular forms are mapped directly (`dying` to `die`, `skies` to `sky`, `news`,
  `proceed`, ...), and words of one or two letters are left as they are;
- step 1a maps a four-letter `-ies` word to `-ie` (`dies` to `die`), step 1b an `-ied` word to
  `-ie` (four letters) or `-i` (`spied` to `spi`);
- step 1b's *o condition also holds for a two-letter stem vowel-consonant;
- step 1c turns a final `y` into `i` only after a consonant that is not the first letter
  (`happy` to `happi`, `enjoy` kept, `cry` to `cri`);
- step 2 uses `bli` for the paper's `abli`, strips `alli` to `al` before the other rules and
  runs again, and adds `fulli` to `ful` and `logi` to `log` (with the `l` counted in the stem).

The input is a lower-case word; `stem` is meant for ASCII letters and digits (digits count as
consonants), but takes any text without raising.

Example:
    >>> [stem(word) for word in ["caresses", "ponies", "running", "relational", "happy"]]
    ['caress', 'poni', 'run', 'relat', 'happi']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise

__all__ = ["stem"]

_VOWELS = frozenset("aeiou")

_IRREGULAR = {
    "skies": "sky",
    "sky": "sky",
    "dying": "die",
    "lying": "lie",
    "tying": "tie",
    "news": "news",
    "innings": "inning",
    "inning": "inning",
    "outings": "outing",
    "outing": "outing",
    "cannings": "canning",
    "canning": "canning",
    "howe": "howe",
    "proceed": "proceed",
    "exceed": "exceed",
    "succeed": "succeed",
}
"""Words NLTK's default mode maps directly, without the steps."""

_Condition = Callable[[str], bool] | None
_Rule = tuple[str, str, _Condition]


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The Porter stem of a lower-case `word`, as NLTK's default `PorterStemmer` gives it.

    Example:
        >>> [stem(w) for w in ["conditional", "generalization", "dies", "spied", "sky"]]
        ['condit', 'gener', 'die', 'spi', 'sky']
    """
    irregular = _IRREGULAR.get(word)
    if irregular is not None:
        return irregular
    if len(word) <= 2:
        return word
    for step in _STEPS:
        word = step(word)
    return word


# --- the measure and the conditions of the paper ---------------------------------------------


def _consonants(word: str) -> list[bool]:
    """Whether each letter is a consonant: not a vowel, and a `y` only at the start or after a
    vowel (so a run of `y`s alternates)."""
    flags: list[bool] = []
    for index, letter in enumerate(word):
        if letter in _VOWELS:
            flags.append(False)
        elif letter == "y":
            flags.append(index == 0 or not flags[index - 1])
        else:
            flags.append(True)
    return flags


def _measure(stem: str) -> int:
    """m: how many vowel-consonant sequences the stem has, in the form [C](VC){m}[V]."""
    flags = _consonants(stem)
    return sum(1 for before, after in pairwise(flags) if not before and after)


def _positive(stem: str) -> bool:
    return _measure(stem) > 0


def _above_one(stem: str) -> bool:
    return _measure(stem) > 1


def _has_vowel(stem: str) -> bool:
    """*v*: the stem contains a vowel."""
    return not all(_consonants(stem))


def _double_consonant(word: str) -> bool:
    """*d: the word ends with two of one consonant."""
    return len(word) >= 2 and word[-1] == word[-2] and _consonants(word)[-1]


def _ends_cvc(word: str) -> bool:
    """*o: the word ends consonant-vowel-consonant, the last not w, x or y (or, as NLTK has it,
    is two letters vowel-consonant)."""
    flags = _consonants(word)
    if len(word) >= 3:
        return flags[-3] and not flags[-2] and flags[-1] and word[-1] not in "wxy"
    return len(word) == 2 and not flags[0] and flags[1]


def _first_rule(word: str, rules: Sequence[_Rule]) -> str:
    """The first rule whose suffix ends the word decides: its replacement when its condition
    holds for the stem, else the word unchanged (later rules are not tried)."""
    for suffix, replacement, condition in rules:
        if word.endswith(suffix):
            base = word[: len(word) - len(suffix)]
            if condition is None or condition(base):
                return base + replacement
            return word
    return word


# --- the steps -------------------------------------------------------------------------------


def _step1a(word: str) -> str:
    if word.endswith("ies") and len(word) == 4:
        return word[:-1]  # dies -> die
    return _first_rule(word, [("sses", "ss", None), ("ies", "i", None), ("ss", "ss", None),
                              ("s", "", None)])  # fmt: skip


def _step1b(word: str) -> str:
    if word.endswith("ied"):
        return word[:-1] if len(word) == 4 else word[:-2]  # died -> die, spied -> spi
    if word.endswith("eed"):
        base = word[:-3]
        return base + "ee" if _positive(base) else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            base = word[: -len(suffix)]
            break
    else:
        return word
    if base.endswith(("at", "bl", "iz")):
        return base + "e"  # conflat(ed) -> conflate
    if _double_consonant(base):
        return base if base[-1] in "lsz" else base[:-1]  # hopp(ing) -> hop, fall(ing) kept
    if _measure(base) == 1 and _ends_cvc(base):
        return base + "e"  # fil(ing) -> file
    return base


def _step1c(word: str) -> str:
    if word.endswith("y") and len(word) > 2 and _consonants(word)[-2]:
        return word[:-1] + "i"
    return word


_STEP2: list[_Rule] = [
    ("ational", "ate", _positive),
    ("tional", "tion", _positive),
    ("enci", "ence", _positive),
    ("anci", "ance", _positive),
    ("izer", "ize", _positive),
    ("bli", "ble", _positive),
    ("alli", "al", _positive),
    ("entli", "ent", _positive),
    ("eli", "e", _positive),
    ("ousli", "ous", _positive),
    ("ization", "ize", _positive),
    ("ation", "ate", _positive),
    ("ator", "ate", _positive),
    ("alism", "al", _positive),
    ("iveness", "ive", _positive),
    ("fulness", "ful", _positive),
    ("ousness", "ous", _positive),
    ("aliti", "al", _positive),
    ("iviti", "ive", _positive),
    ("biliti", "ble", _positive),
    ("fulli", "ful", _positive),
    # The `l` of `logi` counts in the stem, so that `geo-`, `theo-` stems qualify.
    ("logi", "log", lambda base: _positive(base + "l")),
]


def _step2(word: str) -> str:
    if word.endswith("alli") and _positive(word[:-4]):
        return _step2(word[:-2])  # radicalli -> radical, then the other rules
    return _first_rule(word, _STEP2)


_STEP3: list[_Rule] = [
    ("icate", "ic", _positive),
    ("ative", "", _positive),
    ("alize", "al", _positive),
    ("iciti", "ic", _positive),
    ("ical", "ic", _positive),
    ("ful", "", _positive),
    ("ness", "", _positive),
]

_STEP4: list[_Rule] = [
    ("al", "", _above_one),
    ("ance", "", _above_one),
    ("ence", "", _above_one),
    ("er", "", _above_one),
    ("ic", "", _above_one),
    ("able", "", _above_one),
    ("ible", "", _above_one),
    ("ant", "", _above_one),
    ("ement", "", _above_one),
    ("ment", "", _above_one),
    ("ent", "", _above_one),
    ("ion", "", lambda base: _above_one(base) and base.endswith(("s", "t"))),
    ("ou", "", _above_one),
    ("ism", "", _above_one),
    ("ate", "", _above_one),
    ("iti", "", _above_one),
    ("ous", "", _above_one),
    ("ive", "", _above_one),
    ("ize", "", _above_one),
]


def _step3(word: str) -> str:
    return _first_rule(word, _STEP3)


def _step4(word: str) -> str:
    return _first_rule(word, _STEP4)


def _step5a(word: str) -> str:
    if word.endswith("e"):
        base = word[:-1]
        measure = _measure(base)
        if measure > 1 or (measure == 1 and not _ends_cvc(base)):
            return base
    return word


def _step5b(word: str) -> str:
    if word.endswith("ll") and _measure(word[:-1]) > 1:
        return word[:-1]
    return word


_STEPS = (_step1a, _step1b, _step1c, _step2, _step3, _step4, _step5a, _step5b)
