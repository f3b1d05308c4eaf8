"""List alignment and key records."""

from __future__ import annotations

from assay.answers import compare_values, nothing_answered
from assay.answers._assign import max_weight_assignment


def test_assignment_is_optimal_not_greedy() -> None:
    # Greedy (row 0 takes its best, column 0) would give 10 + 1 = 11; the optimum is 9 + 9 = 18.
    assert max_weight_assignment([[10, 9], [9, 1]]) == [(0, 1), (1, 0)]


def test_assignment_handles_rectangles() -> None:
    assert max_weight_assignment([[1], [5], [3]]) == [(1, 0)]
    assert max_weight_assignment([[1, 5, 3]]) == [(0, 1)]
    assert max_weight_assignment([]) == []


def test_alignment_prefers_more_exact_keys_over_similarity() -> None:
    gold = [{"id": "A", "name": "pump north", "n": 1}]
    model = [{"id": "B", "name": "pump north", "n": 2}, {"id": "A", "name": "zzz", "n": 1}]
    result = compare_values(gold, model)
    matched = [r for r in result.records if r.in_gold]
    assert {r.model_key for r in matched} == {"answer[1].id", "answer[1].name", "answer[1].n"}


def test_extra_items_are_numbered_after_gold_items_and_keep_their_own_path() -> None:
    result = compare_values([{"id": 1}], [{"id": 9}, {"id": 1}])
    extra = [r for r in result.records if not r.in_gold]
    assert [(r.key, r.model_key) for r in extra] == [("answer[1].id", "answer[0].id")]


def test_duplicates_pair_one_to_one() -> None:
    metrics = compare_values([1, 1, 2], [1, 2, 2]).metrics()
    assert metrics["exact_value_matches"] == 2
    assert metrics["strict_exact_match_accuracy"] == 0.0


def test_long_lists_fall_back_to_greedy_alignment_with_a_note() -> None:
    gold = [{"id": f"A{i}", "v": i, "status": "open"} for i in range(400)]
    model = [{"id": f"A{i}", "v": i + (i % 2), "status": "open"} for i in reversed(range(400))]
    result = compare_values(gold, model)
    assert result.notes and "greedily" in result.notes[0]
    metrics = result.metrics()
    # Every item finds its partner by id; only the changed values miss.
    assert metrics["exact_value_matches"] == 400 + 200 + 400
    assert metrics["missing_keys"] == [] and metrics["extra_keys"] == []


def test_long_lists_with_nothing_in_common_pair_by_position() -> None:
    gold = [{"i": i} for i in range(200)]
    model = [{"i": i + 1000} for i in range(200)]
    result = compare_values(gold, model)
    assert result.metrics()["total_gold_keys"] == 200
    assert result.metrics()["matched_keys"] == 200


def test_long_identical_lists_in_another_order_still_align() -> None:
    gold = [{"i": i} for i in range(5000)]
    assert (
        compare_values(gold, list(reversed(gold))).metrics()["strict_exact_match_accuracy"] == 1.0
    )


def test_type_mismatch_flattens_both_sides() -> None:
    metrics = compare_values({"x": {"a": 1}}, {"x": 5}).metrics()
    assert metrics["missing_keys"] == ["answer.x.a"]
    assert metrics["extra_keys"] == ["answer.x"]


def test_nothing_answered_marks_every_gold_key_missing() -> None:
    metrics = nothing_answered({"a": [1, 2]}).metrics()
    assert metrics["missing_keys"] == ["answer.a[0]", "answer.a[1]"]
    assert metrics["total_model_keys"] == 0 and metrics["precision"] == 0.0


def test_scalar_against_scalar() -> None:
    metrics = compare_values(34, 34.0).metrics()
    assert metrics["strict_exact_match_accuracy"] == 1.0
    assert metrics["total_gold_keys"] == 1
