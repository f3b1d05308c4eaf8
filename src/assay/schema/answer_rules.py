"""Per-key comparison rules, read from `groundtruth_eval.json` or a scenario's `groundtruth_eval`,
checked once when the scenario is read (`Case.answer_rules` holds them checked).

A rules object looks like this (every part optional):

    {
      "list_order": "content",            # or "position": how lists are aligned by default
      "case_insensitive_keys": false,
      "keys": {
        "answer.total_kwh":  {"abs_tol": 0.5},
        "answer.rate":       {"rel_tol": 0.02},
        "answer.last_seen":  {"time_tol_s": 300},
        "answer.share":      {"lenient_number": true},        # "12.5 %", "1,234 kWh" -> numbers
        "answer.ranking":    {"list": "ordered"},             # order is the answer
        "answer.orders":     {"list": "match_on", "fields": ["wo_id"], "distinct": true},
        "answer.pumps":      {"contains_distinct": 3}         # any 3 distinct gold items
      }
    }

Key paths are written as the flattened keys are (`answer.a[0].b`); `[*]` matches any index, and
the leading `answer` may be left out (`"rate"` means `answer.rate`).

Example:
    >>> rules = parse_rules({"keys": {"items[*].kwh": {"abs_tol": 0.5}}})
    >>> rules.for_path("answer.items[3].kwh").abs_tol
    0.5
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

ListMode = Literal["content", "position", "match_on"]

_INDEX = re.compile(r"\[\d+\]")
_RULE_FIELDS = {
    "abs_tol",
    "rel_tol",
    "time_tol_s",
    "lenient_number",
    "list",
    "fields",
    "distinct",
    "contains_distinct",
}
_LIST_MODES = {
    "content": "content",
    "unordered": "content",
    "position": "position",
    "ordered": "position",
    "match_on": "match_on",
}


class RulesError(ValueError):
    """The rules object is malformed; the message says where."""


@dataclass(frozen=True, slots=True)
class KeyRule:
    """How one key (or every key matching a `[*]` pattern) is compared."""

    abs_tol: float | None = None
    """Numbers within this absolute difference are exact."""

    rel_tol: float | None = None
    """Numbers within this relative difference (of the gold value) are exact."""

    time_tol_s: float | None = None
    """Timestamps (ISO 8601) within this many seconds are exact."""

    lenient_number: bool = False
    """Read numbers out of strings with `%`, thousands separators, currency signs or units."""

    list_mode: ListMode | None = None
    """How the list at this key is aligned: by content, by position, or on named fields."""

    fields: tuple[str, ...] = ()
    """For `match_on`: the item fields that identify an item."""

    distinct: bool = False
    """For `match_on`: model items must not repeat an identity; repeats are reported as extra."""

    contains_distinct: int | None = None
    """The list passes when it holds at least this many distinct items of the gold list."""


@dataclass(frozen=True, slots=True)
class AnswerRules:
    """All comparison options for one scenario."""

    keys: Mapping[str, KeyRule] = field(default_factory=dict)
    """Rules by key path or `[*]` pattern."""

    list_order: Literal["content", "position"] = "content"
    """Default alignment of lists without a rule of their own."""

    case_insensitive_keys: bool = False
    """Compare dict keys case-insensitively."""

    def for_path(self, path: str) -> KeyRule | None:
        """The rule for a flattened key path, exact path first, then its `[*]` pattern."""
        if not self.keys:
            return None
        rule = self.keys.get(path)
        if rule is None and "[" in path:
            rule = self.keys.get(_INDEX.sub("[*]", path))
        return rule


def parse_rules(raw: Any) -> AnswerRules:
    """Validate a rules object.

    Raises:
        RulesError: with a message naming the offending key.
    """
    if not isinstance(raw, Mapping):
        raise RulesError(f"rules must be an object, not {type(raw).__name__}")
    unknown = set(raw) - {"keys", "list_order", "case_insensitive_keys"}
    if unknown:
        raise RulesError(f"unknown rules field(s): {', '.join(sorted(map(str, unknown)))}")
    order: Literal["content", "position"]
    match _LIST_MODES.get(str(raw.get("list_order", "content"))):
        case "content":
            order = "content"
        case "position":
            order = "position"
        case _:
            raise RulesError("list_order must be 'content' or 'position'")
    insensitive = raw.get("case_insensitive_keys", False)
    if not isinstance(insensitive, bool):
        raise RulesError("case_insensitive_keys must be true or false")
    keys_raw = raw.get("keys", {})
    if not isinstance(keys_raw, Mapping):
        raise RulesError("keys must be an object mapping key paths to rules")
    keys = {
        _canonical_path(str(path)): _key_rule(str(path), spec) for path, spec in keys_raw.items()
    }
    return AnswerRules(keys=keys, list_order=order, case_insensitive_keys=insensitive)


def _canonical_path(path: str) -> str:
    path = path.strip().replace("[]", "[*]")
    if path == "answer" or path.startswith(("answer.", "answer[")):
        return path
    return "answer" + path if path.startswith("[") else "answer." + path


def _number(path: str, name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise RulesError(f"{path}: {name} must be a non-negative number")
    return float(value)


def _key_rule(path: str, spec: Any) -> KeyRule:
    if not isinstance(spec, Mapping):
        raise RulesError(f"{path}: a rule must be an object")
    unknown = set(spec) - _RULE_FIELDS
    if unknown:
        raise RulesError(f"{path}: unknown rule field(s): {', '.join(sorted(map(str, unknown)))}")
    mode_raw = spec.get("list")
    mode = None if mode_raw is None else _LIST_MODES.get(str(mode_raw))
    if mode_raw is not None and mode is None:
        raise RulesError(f"{path}: list must be 'ordered', 'content' or 'match_on'")
    fields_raw = spec.get("fields", [])
    if not isinstance(fields_raw, list) or not all(isinstance(f, str) for f in fields_raw):
        raise RulesError(f"{path}: fields must be a list of field names")
    if mode == "match_on" and not fields_raw:
        raise RulesError(f"{path}: list 'match_on' needs the fields that identify an item")
    contains = spec.get("contains_distinct")
    if contains is not None and (
        isinstance(contains, bool) or not isinstance(contains, int) or contains < 1
    ):
        raise RulesError(f"{path}: contains_distinct must be a positive integer")
    for flag in ("distinct", "lenient_number"):
        if not isinstance(spec.get(flag, False), bool):
            raise RulesError(f"{path}: {flag} must be true or false")
    return KeyRule(
        abs_tol=_number(path, "abs_tol", spec.get("abs_tol")),
        rel_tol=_number(path, "rel_tol", spec.get("rel_tol")),
        time_tol_s=_number(path, "time_tol_s", spec.get("time_tol_s")),
        lenient_number=spec.get("lenient_number", False),
        list_mode=mode,  # type: ignore[arg-type]
        fields=tuple(fields_raw),
        distinct=spec.get("distinct", False),
        contains_distinct=contains,
    )
