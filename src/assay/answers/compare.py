"""Compare a gold value with a model value key by key, aligning lists by content.

Both values are flattened to key paths (`answer.energy`, `answer[0].count`) while they are
walked together, so that lists can be aligned first: items are paired by an optimal one-to-one
assignment (most exact keys first, then most similarity), identical items up front, so that a
correct list in another order is a strict match. Unpaired gold items show as missing keys,
unpaired model items as extra keys (numbered after the gold items; `model_key` keeps where they
were in the model's answer). Positional alignment is an option and a per-key rule.

Optimal alignment is bounded twice: per list (`_PAIR_LIMIT` pairs of differing items), and
per answer by one work budget that every level of nesting draws from (`ALIGNMENT_BUDGET`
units, see `assay.limits`), since each pair scored at one level aligns the lists inside it.
Past either bound a list is paired greedily by shared values, and a note says so.

Example:
    >>> result = compare_values({"energy": 14, "material": 48}, {"energy": 14, "material": 27})
    >>> [(r.key, r.exact) for r in result.records]
    [('answer.energy', True), ('answer.material', False)]
    >>> m = result.metrics()
    >>> m["f1"], m["partial_similarity_score"], m["strict_exact_match_accuracy"]
    (0.5, 0.5, 0.0)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

import orjson

from assay._jsonable import jsonable
from assay.answers._assign import max_weight_assignment
from assay.answers._budget import AlignmentBudget, assignment_cost
from assay.answers.normalize import (
    NormalForm,
    normal_form,
    similarity_of_forms,
    text_similarity_cost,
)
from assay.limits import ALIGNMENT_BUDGET
from assay.schema.answer_rules import AnswerRules, KeyRule

_SEQUENCE = (list, tuple)
_PAIR_LIMIT = 10_000
"""Most item pairs scored to align one list; longer lists fall back to position (with a note)."""

_COMMON_VALUE = 32
"""In greedy alignment, a value shared by more items than this does not help pair them."""

MatchType = Literal["exact", "tolerance", "partial", "mismatch", "missing", "extra", "contains"]


@dataclass(slots=True)
class KeyComparison:
    """One key of the flattened gold or model answer, and how it compared."""

    key: str
    """Key path in the aligned answer (`answer.items[2].count`)."""

    gold_value: Any
    """Gold leaf value (None when the key is extra)."""

    model_value: Any
    """Model leaf value (None when the key is missing)."""

    exact: bool
    """Equal after normalisation, or within the key's tolerance rule."""

    match_type: MatchType
    """exact, tolerance, partial, mismatch, missing, extra or contains."""

    similarity: float
    """0..1; 1.0 exactly when `exact`."""

    in_gold: bool = True
    in_model: bool = True
    model_key: str | None = None
    """The model's own path for this key, when list alignment moved it."""

    def to_report(self) -> dict[str, Any]:
        """The per-key record in a report."""
        gold, model = self.gold_value, self.model_value
        record = {
            "key": self.key,
            # Most values are plain scalars, which jsonable would return as they are.
            "gold_value": gold if type(gold) in _PLAIN else jsonable(gold),
            "model_value": model if type(model) in _PLAIN else jsonable(model),
            "exact": self.exact,
            "match_type": self.match_type,
            "similarity": self.similarity,
        }
        if self.model_key is not None and self.model_key != self.key:
            record["model_key"] = self.model_key
        return record


_PLAIN = frozenset({str, float, bool, type(None)})
"""Types `jsonable` returns unchanged (int is not among them: it may be too big for JSON)."""


@dataclass(slots=True)
class Comparison:
    """Every key compared, plus notes on anything the comparison had to decide."""

    records: list[KeyComparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    work: int = 0
    """Units of the alignment budget spent (see `assay.limits.ALIGNMENT_BUDGET`)."""

    def metrics(self) -> dict[str, Any]:
        """The static_json metrics, by name (details excluded)."""
        # One pass: this runs for every run scored.
        total_gold = total_model = matched = exact = 0
        similarity_sum = 0.0
        missing: list[str] = []
        extra: list[str] = []
        for record in self.records:
            if record.in_gold:
                total_gold += 1
                similarity_sum += record.similarity
                if record.in_model:
                    matched += 1
                else:
                    missing.append(record.key)
            else:
                extra.append(record.key)
            if record.in_model:
                total_model += 1
            if record.exact:
                exact += 1
        precision = exact / total_model if total_model else 0.0
        recall = exact / total_gold if total_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        strict = total_gold > 0 and exact == total_gold == total_model
        return {
            "strict_exact_match_accuracy": 1.0 if strict else 0.0,
            "partial_exact_match_accuracy": recall,
            "partial_similarity_score": similarity_sum / total_gold if total_gold else 0.0,
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "total_gold_keys": total_gold,
            "total_model_keys": total_model,
            "matched_keys": matched,
            "exact_value_matches": exact,
            "missing_keys": missing,
            "extra_keys": extra,
        }


def compare_values(
    gold: Any,
    model: Any,
    rules: AnswerRules | None = None,
    *,
    list_order: Literal["content", "position"] | None = None,
    case_insensitive_keys: bool | None = None,
    alignment_budget: int = ALIGNMENT_BUDGET,
) -> Comparison:
    """Compare two parsed values key by key.

    Args:
        gold: The parsed ground truth.
        model: The parsed model answer.
        rules: Per-key rules and defaults from the scenario, if any.
        list_order: Overrides the rules' default list alignment.
        case_insensitive_keys: Overrides the rules' key case handling.
        alignment_budget: Units of work all optimal list alignments together may spend;
            past it, lists are paired greedily (and a note says where it ran out).
    """
    rules = rules or AnswerRules()
    result = Comparison()
    if not rules.keys and _identity(gold) == _identity(model):
        # The common case of a right answer written the same way: every leaf is exact, so the
        # records follow from the gold value alone, without alignment or normalisation.
        result.records = [
            KeyComparison("answer" + suffix, leaf, leaf, True, "exact", 1.0)
            for suffix, leaf in _flatten(gold)
        ]
        return result
    comparer = _Comparer(
        rules,
        list_order or rules.list_order,
        rules.case_insensitive_keys if case_insensitive_keys is None else case_insensitive_keys,
        AlignmentBudget(alignment_budget),
    )
    comparer.roots = (gold, model)
    comparer.compare(gold, model, "answer", "answer", result.records)
    result.notes = comparer.notes
    budget = comparer.budget
    result.work = budget.spent
    if budget.exhausted_at is not None:
        result.notes.append(budget.note())
    return result


def nothing_answered(gold: Any) -> Comparison:
    """The comparison for a model answer that could not be read at all: every gold key missing.

    Example:
        >>> nothing_answered({"a": 1, "b": [2]}).metrics()["missing_keys"]
        ['answer.a', 'answer.b[0]']
    """
    return Comparison(records=_missing(gold, "answer"))


class _Comparer:
    def __init__(
        self, rules: AnswerRules, list_order: str, insensitive: bool, budget: AlignmentBudget
    ) -> None:
        self.rules = rules
        self.list_order = list_order
        self.insensitive = insensitive
        self.has_rules = bool(rules.keys)
        self.notes: list[str] = []
        self.budget = budget
        self.roots: tuple[Any, Any] = (None, None)
        """The whole gold and model values (their size sets the greedy allowance)."""

    def compare(
        self, gold: Any, model: Any, path: str, model_path: str, out: list[KeyComparison]
    ) -> None:
        rule = self.rules.for_path(path) if self.has_rules else None
        if rule is not None and rule.contains_distinct is not None and isinstance(gold, _SEQUENCE):
            out.append(self._contains(gold, model, path, model_path, rule.contains_distinct))
        elif isinstance(gold, dict) and gold and isinstance(model, dict) and model:
            self._dicts(gold, model, path, model_path, out)
        elif isinstance(gold, _SEQUENCE) and gold and isinstance(model, _SEQUENCE) and model:
            self._lists(gold, model, path, model_path, rule, out)
        else:
            self._leaves(gold, model, path, model_path, out)

    # -- dicts ---------------------------------------------------------------------------

    def _key(self, key: Any) -> str:
        text = str(key)
        return text.casefold() if self.insensitive else text

    def _dicts(
        self,
        gold: dict[Any, Any],
        model: dict[Any, Any],
        path: str,
        model_path: str,
        out: list[KeyComparison],
    ) -> None:
        index: dict[str, Any] = {}
        for key in model:
            index.setdefault(self._key(key), key)
        used: set[str] = set()
        for key, value in gold.items():
            lookup = self._key(key)
            sub_path = f"{path}.{key}"
            if lookup in index and lookup not in used:
                used.add(lookup)
                model_key = index[lookup]
                self.compare(value, model[model_key], sub_path, f"{model_path}.{model_key}", out)
            else:
                out.extend(_missing(value, sub_path))
        for key, value in model.items():
            lookup = self._key(key)
            if lookup in used and index[lookup] is key:
                continue
            out.extend(_extra(value, f"{path}.{key}", f"{model_path}.{key}"))

    # -- lists ---------------------------------------------------------------------------

    def _lists(
        self,
        gold: Any,
        model: Any,
        path: str,
        model_path: str,
        rule: KeyRule | None,
        out: list[KeyComparison],
    ) -> None:
        mode = rule.list_mode if rule is not None and rule.list_mode else self.list_order
        cached: dict[tuple[int, int], list[KeyComparison]] = {}
        if mode == "position":
            pairs = [(i, i) for i in range(min(len(gold), len(model)))]
        elif mode == "match_on" and rule is not None:
            pairs = self._match_on(gold, model, path, rule)
        else:
            pairs = self._align(gold, model, path, model_path, cached)
        paired_gold = {i for i, _ in pairs}
        paired_model = {j for _, j in pairs}
        for i, j in sorted(pairs):
            records = cached.get((i, j))
            if records is None:
                records = []
                self.compare(gold[i], model[j], f"{path}[{i}]", f"{model_path}[{j}]", records)
            out.extend(records)
        for i, item in enumerate(gold):
            if i not in paired_gold:
                out.extend(_missing(item, f"{path}[{i}]"))
        extra_index = len(gold)
        for j, item in enumerate(model):
            if j not in paired_model:
                out.extend(_extra(item, f"{path}[{extra_index}]", f"{model_path}[{j}]"))
                extra_index += 1

    def _align(
        self,
        gold: Any,
        model: Any,
        path: str,
        model_path: str,
        cached: dict[tuple[int, int], list[KeyComparison]],
    ) -> list[tuple[int, int]]:
        pairs: list[tuple[int, int]] = []
        rest_gold = list(range(len(gold)))
        rest_model = list(range(len(model)))
        if not self.has_rules:
            # Identical items are paired first: that never lowers the optimum (an identical
            # partner is the best any item can get), and it keeps long lists cheap.
            by_token: dict[Any, list[int]] = {}
            for j, item in enumerate(model):
                by_token.setdefault(_identity(item), []).append(j)
            rest_gold = []
            for i, item in enumerate(gold):
                bucket = by_token.get(_identity(item))
                if bucket:
                    pairs.append((i, bucket.pop(0)))
                else:
                    rest_gold.append(i)
            taken = {j for _, j in pairs}
            rest_model = [j for j in range(len(model)) if j not in taken]
        if not rest_gold or not rest_model:
            return pairs
        cells = len(rest_gold) * len(rest_model)
        if cells > _PAIR_LIMIT:
            self.notes.append(
                f"{path}: {len(rest_gold)}x{len(rest_model)} differing items are too many for an "
                "optimal alignment; they were paired greedily by shared values"
            )
            return pairs + self._greedy_pairs(gold, model, rest_gold, rest_model, _flatten)
        budget = self.budget
        # Every pair costs at least two units (itself and one key), and the assignment its own.
        planned = 2 * cells + assignment_cost(len(rest_gold), len(rest_model))
        if not budget.affords(planned):
            budget.run_out(path)
            return pairs + self._degraded_pairs(gold, model, rest_gold, rest_model)
        scores: list[list[tuple[int, float]]] = []
        widest = 1
        for i in rest_gold:
            row = []
            for j in rest_model:
                records: list[KeyComparison] = []
                self.compare(gold[i], model[j], f"{path}[{i}]", f"{model_path}[{j}]", records)
                cached[(i, j)] = records
                if not budget.spend(1 + len(records), path):
                    # Ran out here (or in a list inside this pair): the pairs scored so far
                    # stay cached for the greedy pairing to reuse.
                    return pairs + self._degraded_pairs(gold, model, rest_gold, rest_model)
                in_gold = [r for r in records if r.in_gold]
                widest = max(widest, len(in_gold))
                row.append((sum(r.exact for r in records), sum(r.similarity for r in in_gold)))
            scores.append(row)
        budget.spend(assignment_cost(len(rest_gold), len(rest_model)), path)
        # Exact keys dominate: one more exact key outweighs any amount of similarity.
        weights = [[exact * (widest + 1) + sim for exact, sim in row] for row in scores]
        for r, c in max_weight_assignment(weights):
            pairs.append((rest_gold[r], rest_model[c]))
        return pairs

    def _degraded_pairs(
        self, gold: Any, model: Any, rest_gold: list[int], rest_model: list[int]
    ) -> list[tuple[int, int]]:
        """Pairs for a list met after the alignment budget ran out: greedy by shared values.

        Every list below is paired this way too, and indexing whole items at every level
        costs their size times the depth, so the greedy pairing has an allowance of its own
        (one unit per leaf indexed); past that, items pair by position.
        """
        budget = self.budget
        if budget.greedy_limit is None:
            budget.allow_greedy(_leaf_total(self.roots))
        if not budget.greedy_allowed():
            budget.by_position += 1
            return list(zip(rest_gold, rest_model, strict=False))
        budget.greedy += 1

        def leaves(value: Any) -> list[tuple[str, Any]]:
            found = _flatten(value, indexed=False)
            budget.spent += len(found)
            return found

        return self._greedy_pairs(gold, model, rest_gold, rest_model, leaves)

    def _greedy_pairs(
        self,
        gold: Any,
        model: Any,
        rest_gold: list[int],
        rest_model: list[int],
        leaves: Callable[[Any], list[tuple[str, Any]]],
    ) -> list[tuple[int, int]]:
        """Pairs by most shared (key, value) leaves, best first; leftovers by position.

        Not optimal, but linear-ish where the assignment is cubic: each gold item only meets
        the model items it shares a value with, through an index of their leaves. Values
        that many items share (a common status) say little and are left out of the index.
        """
        postings: dict[tuple[str, NormalForm], list[int]] = {}
        for j in rest_model:
            for suffix, leaf in leaves(model[j]):
                postings.setdefault((suffix, normal_form(leaf)), []).append(j)
        candidates: list[tuple[int, int, int]] = []
        for i in rest_gold:
            shared: dict[int, int] = {}
            for suffix, leaf in leaves(gold[i]):
                hits = postings.get((suffix, normal_form(leaf)), ())
                if len(hits) <= _COMMON_VALUE:
                    for j in hits:
                        shared[j] = shared.get(j, 0) + 1
            candidates.extend((-count, i, j) for j, count in shared.items())
        candidates.sort()
        pairs: list[tuple[int, int]] = []
        used_gold: set[int] = set()
        used_model: set[int] = set()
        for _, i, j in candidates:
            if i not in used_gold and j not in used_model:
                used_gold.add(i)
                used_model.add(j)
                pairs.append((i, j))
        leftover_gold = [i for i in rest_gold if i not in used_gold]
        leftover_model = [j for j in rest_model if j not in used_model]
        return pairs + list(zip(leftover_gold, leftover_model, strict=False))

    def _match_on(self, gold: Any, model: Any, path: str, rule: KeyRule) -> list[tuple[int, int]]:
        def identity(item: Any) -> tuple[NormalForm, ...] | None:
            if not isinstance(item, dict):
                return None
            lookup = {self._key(k): v for k, v in item.items()}
            return tuple(normal_form(lookup.get(self._key(f))) for f in rule.fields)

        by_identity: dict[Any, list[int]] = {}
        for j, item in enumerate(model):
            key = identity(item)
            if key is not None:
                by_identity.setdefault(key, []).append(j)
        if rule.distinct:
            repeats = [js for js in by_identity.values() if len(js) > 1]
            for js in repeats:
                self.notes.append(
                    f"{path}: model items {', '.join(map(str, js))} repeat the same "
                    f"{'/'.join(rule.fields)}; only the first is matched"
                )
        pairs = []
        for i, item in enumerate(gold):
            bucket = by_identity.get(identity(item)) if isinstance(item, dict) else None
            if bucket:
                pairs.append((i, bucket.pop(0)))
                if rule.distinct:
                    bucket.clear()  # repeats stay unpaired, so they show as extra keys
        return pairs

    def _contains(
        self, gold: Any, model: Any, path: str, model_path: str, need: int
    ) -> KeyComparison:
        gold_items = {self._token(item) for item in gold}
        found = 0
        if isinstance(model, _SEQUENCE):
            found = len(gold_items & {self._token(item) for item in model})
        exact = found >= need
        return KeyComparison(
            key=path,
            gold_value=list(gold),
            model_value=list(model) if isinstance(model, _SEQUENCE) else model,
            exact=exact,
            match_type="contains" if exact else ("partial" if found else "mismatch"),
            similarity=1.0 if exact else found / need,
            model_key=model_path,
        )

    def _token(self, value: Any) -> Any:
        """A hashable normal form of a whole item (lists as multisets, as content order)."""
        if isinstance(value, dict):
            if not value:
                return ("dict",)
            return ("d", tuple(sorted((self._key(k), self._token(v)) for k, v in value.items())))
        if isinstance(value, _SEQUENCE):
            if not value:
                return ("list",)
            tokens = [self._token(v) for v in value]
            if self.list_order == "content":
                tokens.sort(key=repr)
            return ("l", tuple(tokens))
        return normal_form(value)

    # -- leaves --------------------------------------------------------------------------

    def _leaves(
        self, gold: Any, model: Any, path: str, model_path: str, out: list[KeyComparison]
    ) -> None:
        if not _is_container(gold) and not _is_container(model):  # the common case: two scalars
            out.append(self._leaf(path, model_path, gold, model))
            return
        model_leaves = dict(_flatten(model))
        for suffix, gold_value in _flatten(gold):
            if suffix in model_leaves:
                model_value = model_leaves.pop(suffix)
                out.append(self._leaf(path + suffix, model_path + suffix, gold_value, model_value))
            else:
                out.append(_absent(path + suffix, gold_value, in_gold=True))
        for suffix, model_value in model_leaves.items():
            record = _absent(path + suffix, model_value, in_gold=False)
            record.model_key = model_path + suffix
            out.append(record)

    def _leaf(self, path: str, model_path: str, gold: Any, model: Any) -> KeyComparison:
        rule = self.rules.for_path(path) if self.has_rules else None
        gold_form, model_form = normal_form(gold), normal_form(model)
        if rule is not None and rule.lenient_number:
            gold_form, model_form = _lenient(gold, gold_form), _lenient(model, model_form)
        if gold_form == model_form:
            return KeyComparison(path, gold, model, True, "exact", 1.0, model_key=model_path)
        if rule is not None and _within_tolerance(rule, gold, model, gold_form, model_form):
            return KeyComparison(path, gold, model, True, "tolerance", 1.0, model_key=model_path)
        score = similarity_of_forms(gold_form, model_form)
        if gold_form[0] == "str" and model_form[0] == "str":
            # Differing strings cost up to thousands of number comparisons (difflib is
            # quadratic): charged, or a list of long strings would escape the budget.
            self.budget.spent += text_similarity_cost(gold_form[1], model_form[1])
        kind: MatchType = "partial" if score > 0 else "mismatch"
        return KeyComparison(path, gold, model, False, kind, score, model_key=model_path)


_IDENTITY_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _identity(value: Any) -> Any:
    """A cheap key shared by identical values (serialised in C); equal values that are written
    differently ("14" and 14) get different keys and are paired by the assignment instead."""
    if not isinstance(value, dict | list | tuple):
        return value if not isinstance(value, float | int) else (type(value), value)
    try:
        return orjson.dumps(value, option=_IDENTITY_OPTIONS)
    except TypeError:  # beyond what orjson writes (huge ints): fall back to the value's repr
        return repr(value)


def _is_container(value: Any) -> bool:
    """A non-empty dict or list: something with keys below it (empty ones are leaves)."""
    return isinstance(value, dict | list | tuple) and bool(value)


def _flatten(value: Any, *, indexed: bool = True) -> list[tuple[str, Any]]:
    """Leaves of a value as (path suffix, value): `.a`, `[0].b`, or `` for a scalar.

    Empty dicts and lists are leaves themselves. With `indexed=False` list indices are left
    out of the paths: lists are aligned by content, so where a value sits in one says little
    (`[0].a` and `[3].a` are both `[].a`).

    Example:
        >>> _flatten({"id": 7, "tags": ["a", {"b": 2}]}, indexed=False)
        [('.id', 7), ('.tags[]', 'a'), ('.tags[].b', 2)]
    """
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        current, item = stack.pop()
        if isinstance(item, dict) and item:
            stack.extend((f"{current}.{k}", v) for k, v in reversed(item.items()))
        elif isinstance(item, _SEQUENCE) and item:
            if indexed:
                stack.extend((f"{current}[{i}]", v) for i, v in reversed(list(enumerate(item))))
            else:
                inner = current + "[]"
                stack.extend((inner, v) for v in reversed(item))
        else:
            out.append((current, item))
    return out


def _leaf_total(value: Any) -> int:
    """How many leaves `value` has (what `_flatten` would list), without building their paths.

    Example:
        >>> _leaf_total(({"a": [1, 2], "b": {}}, 3))
        4
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict) and item:
            stack.extend(item.values())
        elif isinstance(item, _SEQUENCE) and item:
            stack.extend(item)
        else:
            total += 1
    return total


def _absent(key: str, value: Any, *, in_gold: bool) -> KeyComparison:
    if in_gold:
        return KeyComparison(key, value, None, False, "missing", 0.0, in_gold=True, in_model=False)
    return KeyComparison(key, None, value, False, "extra", 0.0, in_gold=False, in_model=True)


def _missing(value: Any, path: str) -> list[KeyComparison]:
    return [_absent(path + suffix, leaf, in_gold=True) for suffix, leaf in _flatten(value)]


def _extra(value: Any, path: str, model_path: str) -> list[KeyComparison]:
    records = []
    for suffix, leaf in _flatten(value):
        record = _absent(path + suffix, leaf, in_gold=False)
        record.model_key = model_path + suffix
        records.append(record)
    return records


def _within_tolerance(
    rule: KeyRule, gold: Any, model: Any, gold_form: NormalForm, model_form: NormalForm
) -> bool:
    if gold_form[0] == "num" and model_form[0] == "num":
        difference = abs(gold_form[1] - model_form[1])
        if rule.abs_tol is not None and difference <= rule.abs_tol + 1e-12:
            return True
        if rule.rel_tol is not None and difference <= rule.rel_tol * abs(gold_form[1]) + 1e-12:
            return True
    if rule.time_tol_s is not None:
        gold_time, model_time = _timestamp(gold), _timestamp(model)
        if gold_time is not None and model_time is not None:
            try:
                return abs((gold_time - model_time).total_seconds()) <= rule.time_tol_s
            except TypeError:  # one aware, one naive: not comparable, so not within tolerance
                return False
    return False


def _timestamp(value: Any) -> datetime | None:
    if not isinstance(value, str) or len(value) > 64:
        return None
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def _lenient(value: Any, form: NormalForm) -> NormalForm:
    if form[0] != "str":
        return form
    cleaned = "".join(ch for ch in str(value) if ch.isdigit() or ch in ".-+eE")
    digits = str(value).strip()
    # Only strings that are one number dressed up ("12.5 %", "$1,234", "1,234 kWh") qualify.
    stripped = digits.strip("$€£%").replace(",", "").split()
    if not stripped or not cleaned:
        return form
    candidate = normal_form(stripped[0].rstrip("%"))
    return candidate if candidate[0] == "num" else form
