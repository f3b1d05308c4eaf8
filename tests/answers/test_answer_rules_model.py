"""The answer rules' model (for `assay schema answer_rules`) says what the readers' check says."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from _examples import examples
from assay.schema.answer_rules import RulesError, parse_rules
from assay.schema.answer_rules_model import AnswerRulesFile

_odd = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 5), st.floats(-2, 5, allow_nan=False),
    st.sampled_from(["content", "ordered", "position", "unordered", "match_on", "x", ""]),
    st.lists(st.sampled_from(["wo_id", "id", 3]), max_size=2),
    st.just({}),
)
# Each field with values near its edges, and now and then anything at all.
_number = st.one_of(st.integers(-1, 3), st.floats(-1, 3, allow_nan=False), st.booleans())
_field_values = {
    "abs_tol": _number,
    "rel_tol": _number,
    "time_tol_s": _number,
    "lenient_number": st.one_of(st.booleans(), st.integers(0, 1)),
    "list": st.sampled_from(["content", "ordered", "position", "unordered", "match_on", "x"]),
    "fields": st.lists(st.sampled_from(["wo_id", "id", 3]), max_size=2),
    "distinct": st.one_of(st.booleans(), st.integers(0, 1)),
    "contains_distinct": st.one_of(st.integers(-1, 3), st.floats(0, 3), st.booleans()),
}
_rule = st.one_of(
    st.fixed_dictionaries({}, optional={k: st.one_of(v, _odd) for k, v in _field_values.items()}),
    st.fixed_dictionaries({}, optional=_field_values),
    st.fixed_dictionaries({"tolerance": _odd}),
    _odd,
)
_rules = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "keys": st.one_of(st.dictionaries(st.sampled_from(["a", "b[*].c"]), _rule,
                                              max_size=2), _odd),
            "list_order": st.sampled_from(["content", "ordered", "position", "unordered",
                                           "match_on", "x"]),
            "case_insensitive_keys": st.one_of(st.booleans(), st.integers(0, 1)),
        },
    ),
    st.fixed_dictionaries({"mode": _odd}),
    _odd,
)


def _accepted_by_model(raw: Any) -> bool:
    try:
        AnswerRulesFile.model_validate(raw)
    except ValidationError:
        return False
    return True


def _accepted_by_check(raw: Any) -> bool:
    try:
        parse_rules(raw)
    except RulesError:
        return False
    return True


@settings(max_examples=examples(600))
@given(_rules)
def test_the_model_accepts_exactly_what_the_readers_accept(raw: Any) -> None:
    assert _accepted_by_model(raw) is _accepted_by_check(raw)


def test_the_documented_rules_are_valid_for_both() -> None:
    raw = {"keys": {"answer.total_kwh": {"abs_tol": 0.5}, "answer.ranking": {"list": "ordered"},
                    "answer.orders": {"list": "match_on", "fields": ["wo_id"], "distinct": True},
                    "answer.pumps": {"contains_distinct": 3}}}
    assert _accepted_by_model(raw) and _accepted_by_check(raw)
