"""Per-key rules: tolerances, timestamps, list rules and "contains n distinct"."""

from __future__ import annotations

from typing import Any

import pytest

from assay.answers import compare_values, parse_rules
from assay.schema.answer_rules import RulesError


def metrics(gold: Any, model: Any, rules: dict[str, Any]) -> dict[str, Any]:
    return compare_values(gold, model, parse_rules(rules)).metrics()


def test_absolute_and_relative_tolerance() -> None:
    rules = {"keys": {"kwh": {"abs_tol": 0.5}, "rate": {"rel_tol": 0.02}}}
    assert (
        metrics({"kwh": 10, "rate": 100}, {"kwh": 10.4, "rate": 101.5}, rules)[
            "strict_exact_match_accuracy"
        ]
        == 1.0
    )
    assert (
        metrics({"kwh": 10, "rate": 100}, {"kwh": 10.6, "rate": 100}, rules)["exact_value_matches"]
        == 1
    )


def test_tolerance_records_say_tolerance() -> None:
    result = compare_values(
        {"kwh": 10}, {"kwh": 10.4}, parse_rules({"keys": {"kwh": {"abs_tol": 0.5}}})
    )
    assert result.records[0].match_type == "tolerance"
    assert result.records[0].similarity == 1.0


def test_timestamp_tolerance() -> None:
    rules = {"keys": {"at": {"time_tol_s": 60}}}
    assert (
        metrics({"at": "2023-04-02T10:15:00Z"}, {"at": "2023-04-02T10:15:45+00:00"}, rules)["f1"]
        == 1.0
    )
    assert (
        metrics({"at": "2023-04-02T10:15:00Z"}, {"at": "2023-04-02T10:17:00Z"}, rules)["f1"] == 0.0
    )
    assert metrics({"at": "2023-04-02T10:15:00Z"}, {"at": "not a time"}, rules)["f1"] == 0.0


def test_wildcard_paths_apply_to_every_item() -> None:
    rules = {"keys": {"items[*].kwh": {"abs_tol": 1}}}
    gold = {"items": [{"id": "a", "kwh": 10}, {"id": "b", "kwh": 20}]}
    model = {"items": [{"id": "b", "kwh": 20.5}, {"id": "a", "kwh": 9.5}]}
    assert metrics(gold, model, rules)["strict_exact_match_accuracy"] == 1.0


def test_match_on_fields_with_distinct_items() -> None:
    rules = {"keys": {"orders": {"list": "match_on", "fields": ["wo"], "distinct": True}}}
    gold = {"orders": [{"wo": "W1", "p": "high"}, {"wo": "W2", "p": "low"}]}
    model = {
        "orders": [{"wo": "W2", "p": "low"}, {"wo": "W1", "p": "low"}, {"wo": "W2", "p": "low"}]
    }
    result = compare_values(gold, model, parse_rules(rules))
    m = result.metrics()
    assert m["exact_value_matches"] == 3  # W1 id, W2 id and priority
    assert len(m["extra_keys"]) == 2  # the repeated W2 shows as extra
    assert any("repeat" in note for note in result.notes)


def test_contains_n_distinct_items() -> None:
    rules = {"keys": {"pumps": {"contains_distinct": 2}}}
    gold = {"pumps": ["P1", "P2", "P3", "P4"]}
    assert metrics(gold, {"pumps": ["P3", "P1"]}, rules)["f1"] == 1.0
    assert metrics(gold, {"pumps": ["P3", "P3"]}, rules)["partial_similarity_score"] == 0.5
    assert metrics(gold, {"pumps": "P3"}, rules)["f1"] == 0.0


def test_ordered_rule_only_affects_its_key() -> None:
    rules = {"keys": {"ranking": {"list": "ordered"}}}
    gold = {"ranking": [1, 2], "set": [1, 2]}
    assert metrics(gold, {"ranking": [1, 2], "set": [2, 1]}, rules)["f1"] == 1.0
    assert metrics(gold, {"ranking": [2, 1], "set": [1, 2]}, rules)["f1"] == 0.5


def test_position_default_from_rules() -> None:
    assert metrics([1, 2], [2, 1], {"list_order": "position"})["f1"] == 0.0


@pytest.mark.parametrize(
    "raw",
    [
        [],
        {"nope": 1},
        {"keys": []},
        {"keys": {"a": {"abs_tol": "x"}}},
        {"keys": {"a": {"list": "sideways"}}},
        {"keys": {"a": {"list": "match_on"}}},
        {"keys": {"a": {"contains_distinct": 0}}},
        {"keys": {"a": {"distinct": "yes"}}},
        {"keys": {"a": {"mystery": 1}}},
        {"list_order": "random"},
        {"case_insensitive_keys": "no"},
    ],
)
def test_malformed_rules_are_rejected_with_a_reason(raw: Any) -> None:
    with pytest.raises(RulesError):
        parse_rules(raw)
