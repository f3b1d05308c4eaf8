"""Scenario ids as join keys.

Runs and ground truth spell the same scenario in many ways: `11`, `11.0`, `"011"`,
`"scenario_11"`, `"Scenario-11"`. The join between them must not depend on which spelling a
harness happened to write, so both sides go through `scenario_key` and only the key is compared.
The ids shown in reports stay as written; the key is for matching only.
"""

from __future__ import annotations

import math
import re
import unicodedata

from assay.formats._common import UnusableId

__all__ = ["scenario_key"]

# A plain decimal number in ASCII digits. `\d` would also accept other scripts' digits, which
# would then be keyed differently from the same id written with ASCII digits; exponent forms
# ("1e3") are deliberately left as text: nobody numbers scenarios that way on purpose.
_DECIMAL = re.compile(r"([+-]?)([0-9]+)(?:\.([0-9]*))?")

_EXACT_FLOAT = 2.0**53
_PREFIXES = ("scenario_", "scenario-")
_PREFIX_LEN = len("scenario_")


def scenario_key(value: object) -> str | None:
    """The normalised join key of a scenario id, or None when the id is unusable.

    Numbers and numeric strings become their canonical decimal text (no leading zeros, no
    trailing `.0`); other strings are stripped and lose a leading `scenario_` / `scenario-`
    prefix (in any case) but otherwise keep their spelling. None, booleans, empty strings,
    NaN, infinities, floats of 2**53 or more (their digits may not be those written), an
    `InexactId` and non-id types give None. Never raises, and a key is its own key.

    Args:
        value: The id as found in a run or a ground-truth file (any JSON value).

    Returns:
        The key, or None when `value` cannot identify a scenario.

    Example:
        >>> [scenario_key(v) for v in ("scenario_11", "Scenario-11", " 011 ", 11, 11.0, "11.0")]
        ['11', '11', '11', '11', '11', '11']
        >>> scenario_key("scenario_pump_a"), scenario_key(11.5)
        ('pump_a', '11.5')
        >>> scenario_key(None), scenario_key(""), scenario_key(True), scenario_key(float("nan"))
        (None, None, None, None)
        >>> scenario_key(10**30), scenario_key(1e30)
        ('1000000000000000000000000000000', None)
        >>> scenario_key("caf\u00e9") == scenario_key("cafe\u0301")
        True
    """
    # bool is an int subclass; True is not scenario 1.
    if value is None or isinstance(value, bool | UnusableId):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        # Past 2**53 a float's digits may not be the ones written: two ids could become one.
        if not math.isfinite(value) or abs(value) >= _EXACT_FLOAT:
            return None
        if value.is_integer():
            return str(int(value))
        # repr is the shortest text that round-trips, so "11.5" stays "11.5".
        return _key_from_text(repr(value))
    if isinstance(value, str):
        return _key_from_text(value)
    return None


def _key_from_text(text: str) -> str | None:
    if not text.isascii():
        # One id written in two Unicode spellings ("é" as one character or as "e" and an
        # accent, as macOS writes file names) is one id.
        text = unicodedata.normalize("NFC", text)
    text = text.strip()
    # A loop, not a single strip, so that the result never starts with a prefix again
    # ("scenario_scenario_1"); otherwise the key would not be its own key.
    while text[:_PREFIX_LEN].lower() in _PREFIXES:
        text = text[_PREFIX_LEN:].strip()
    if not text:
        return None
    match = _DECIMAL.fullmatch(text)
    if match is None:
        return text
    sign, whole, fraction = match.groups()
    # String surgery rather than int()/float(): exact for any length, and int() refuses very
    # long digit strings.
    whole = whole.lstrip("0") or "0"
    fraction = (fraction or "").rstrip("0")
    number = f"{whole}.{fraction}" if fraction else whole
    if sign == "-" and number != "0":
        return "-" + number
    return number
