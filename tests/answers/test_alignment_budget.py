"""The alignment budget: one answer's list alignments, at every level of nesting, share one
bounded amount of work; past it lists are paired greedily (then by position) with a note.

Work is measured by counting the comparer's calls, never by the clock: `_Counted` counts
every pair of values compared (`_Comparer.compare`, any level) and every leaf compared, and
stops a runaway comparison (the code before the budget took minutes on these inputs) with
an exception instead of letting the test hang.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.answers import compare
from assay.answers.compare import Comparison, compare_values
from assay.limits import ALIGNMENT_BUDGET
from assay.records import Case, Trajectory
from assay.scorers import create_scorer

UNLIMITED = sys.maxsize
BUDGET_NOTE = "alignment budget of"


class _RunawayError(Exception):
    """More comparisons than any bounded comparison of these inputs makes."""


class _Counted:
    """Counts the comparer's pair and leaf comparisons while installed (see `counted`)."""

    def __init__(self, cap: int) -> None:
        self.pairs = 0
        self.leaves = 0
        self.cap = cap


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Counted]:
    counter = _Counted(cap=4 * ALIGNMENT_BUDGET)
    original_compare = compare._Comparer.compare
    original_leaf = compare._Comparer._leaf

    def counting_compare(self: Any, *args: Any) -> None:
        counter.pairs += 1
        if counter.pairs > counter.cap:
            raise _RunawayError(f"over {counter.cap} comparisons")
        original_compare(self, *args)

    def counting_leaf(self: Any, *args: Any) -> Any:
        counter.leaves += 1
        return original_leaf(self, *args)

    monkeypatch.setattr(compare._Comparer, "compare", counting_compare)
    monkeypatch.setattr(compare._Comparer, "_leaf", counting_leaf)
    yield counter


# --- inputs ---------------------------------------------------------------------------------


def _shuffled_off_by_one(value: Any, rnd: random.Random) -> Any:
    """`value` with every list shuffled and about a third of the numbers off by one."""
    if isinstance(value, dict):
        return {key: _shuffled_off_by_one(item, rnd) for key, item in value.items()}
    if isinstance(value, list):
        items = [_shuffled_off_by_one(item, rnd) for item in value]
        rnd.shuffle(items)
        return items
    if isinstance(value, int) and rnd.random() < 1 / 3:
        return value + 1
    return value


def _grid(rows: int, cols: int, seed: int = 0) -> tuple[list[list[int]], list[list[int]]]:
    rnd = random.Random(seed)
    gold = [[rnd.randrange(1000) for _ in range(cols)] for _ in range(rows)]
    return gold, _shuffled_off_by_one(gold, rnd)


def _leaf_count(value: Any) -> int:
    return len(compare._flatten(value))


def _budget_notes(result: Comparison) -> list[str]:
    return [note for note in result.notes if note.startswith(BUDGET_NOTE)]


# --- the reported fault ---------------------------------------------------------------------


@pytest.mark.slow
def test_a_shuffled_100x100_grid_is_compared_within_the_budget(counted: _Counted) -> None:
    # 69 KB of answer: every pair of rows aligned its own 100 items, so the work was 100^4.
    gold, model = _grid(100, 100)
    result = compare_values(gold, model)
    leaves = _leaf_count(gold)
    # Each pair scored costs two units or more; after the budget every leaf is compared once.
    assert counted.pairs <= ALIGNMENT_BUDGET // 2 + 4 * leaves
    assert counted.leaves <= ALIGNMENT_BUDGET // 2 + 2 * leaves
    notes = _budget_notes(result)
    assert len(notes) == 1
    assert notes[0].startswith(f"alignment budget of {ALIGNMENT_BUDGET:,} comparisons exhausted")
    assert "paired greedily by shared values instead" in notes[0]
    metrics = result.metrics()
    assert metrics["total_gold_keys"] == metrics["total_model_keys"] == 10_000
    assert metrics["missing_keys"] == [] and metrics["extra_keys"] == []
    # Still a sensible score: two thirds of the values are right, and most are found.
    assert 0.5 < metrics["f1"] < 0.7


def test_lists_of_dicts_of_lists_share_one_budget(counted: _Counted) -> None:
    rnd = random.Random(1)
    gold = [
        {"id": i, "parts": [{"vals": [rnd.randrange(1000) for _ in range(8)]} for _ in range(8)]}
        for i in range(30)
    ]
    model = _shuffled_off_by_one(gold, rnd)
    result = compare_values(gold, model, alignment_budget=20_000)
    assert counted.pairs <= 20_000 // 2 + 8 * _leaf_count(gold)
    assert len(_budget_notes(result)) == 1
    assert result.metrics()["total_gold_keys"] == _leaf_count(gold)
    assert result.metrics()["f1"] > 0.5


def test_long_strings_are_charged_by_their_length(counted: _Counted) -> None:
    # difflib on two 190-character strings of two letters takes milliseconds: 100x100 of
    # them is 10,000 such comparisons unless their cost counts against the budget.
    rnd = random.Random(2)
    gold = ["".join(rnd.choice("ab") for _ in range(190)) for _ in range(100)]
    model = ["".join(rnd.choice("ab") for _ in range(190)) for _ in range(100)]
    result = compare_values(gold, model, alignment_budget=50_000)
    assert counted.leaves <= 300  # 10,000 without the charge
    assert len(_budget_notes(result)) == 1
    assert result.metrics()["matched_keys"] == 100


def test_deep_nesting_past_the_greedy_allowance_pairs_by_position(counted: _Counted) -> None:
    def tree(depth: int, rnd: random.Random) -> Any:
        return rnd.randrange(1000) if depth == 0 else [tree(depth - 1, rnd), tree(depth - 1, rnd)]

    rnd = random.Random(3)
    gold = tree(12, rnd)
    model = _shuffled_off_by_one(gold, rnd)
    result = compare_values(gold, model, alignment_budget=1_000)
    notes = _budget_notes(result)
    assert len(notes) == 1 and notes[0].endswith("by position")
    leaves = _leaf_count(gold)
    assert counted.pairs <= 1_000 + 4 * leaves
    assert result.metrics()["total_gold_keys"] == leaves == 4096


def test_a_wide_flat_list_never_touches_the_budget(counted: _Counted) -> None:
    rnd = random.Random(4)
    gold = [rnd.randrange(100_000) for _ in range(10_000)]
    model = _shuffled_off_by_one(gold, rnd)
    result = compare_values(gold, model)
    assert result.work == 0 and not _budget_notes(result)
    assert counted.pairs <= 2 * 10_000  # too many differing items: greedy at once, as before
    records = [{"id": i, "v": i % 7} for i in range(10_000)]
    result = compare_values(records, _shuffled_off_by_one(records, rnd))
    assert not _budget_notes(result)


def test_an_exhausted_budget_gives_the_same_result_every_time() -> None:
    gold, model = _grid(20, 20, seed=5)
    first = compare_values(gold, model, alignment_budget=5_000)
    second = compare_values(gold, model, alignment_budget=5_000)
    assert _budget_notes(first)
    assert [r.to_report() for r in first.records] == [r.to_report() for r in second.records]
    assert first.notes == second.notes and first.work == second.work


# --- within the budget nothing changes -------------------------------------------------------

scalars = st.one_of(
    st.integers(-3, 3),
    st.sampled_from(["a", "b", "pump north", "Pump North ", "14", ""]),
    st.booleans(),
    st.none(),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.sampled_from(["a", "b", "c", "A"]), inner, max_size=4),
    ),
    max_leaves=30,
)


def _snapshot(result: Comparison) -> tuple[list[dict[str, Any]], list[str]]:
    return [record.to_report() for record in result.records], result.notes


@settings(max_examples=examples(300))
@given(gold=values, model=values, list_order=st.sampled_from([None, "content", "position"]))
def test_small_answers_never_reach_the_budget_and_compare_as_without_it(
    gold: Any, model: Any, list_order: Any
) -> None:
    bounded = compare_values(gold, model, list_order=list_order)
    unbounded = compare_values(gold, model, list_order=list_order, alignment_budget=UNLIMITED)
    assert bounded.work <= ALIGNMENT_BUDGET and not _budget_notes(bounded)
    assert _snapshot(bounded) == _snapshot(unbounded)


@settings(max_examples=examples(300))
@given(gold=values, model=values, budget=st.integers(0, 300))
def test_any_budget_loses_no_key_and_notes_when_it_ran_out(
    gold: Any, model: Any, budget: int
) -> None:
    bounded = compare_values(gold, model, alignment_budget=budget)
    unbounded = compare_values(gold, model, alignment_budget=UNLIMITED)
    got, full = bounded.metrics(), unbounded.metrics()
    # Pairing may differ; what is counted never does.
    assert got["total_gold_keys"] == full["total_gold_keys"]
    assert got["total_model_keys"] == full["total_model_keys"]
    assert 0.0 <= got["f1"] <= 1.0
    notes = _budget_notes(bounded)
    if notes:
        assert notes == [bounded.notes[-1]]
        assert notes[0].startswith(f"alignment budget of {budget:,} comparisons exhausted at")
    else:
        assert _snapshot(bounded) == _snapshot(unbounded)


# --- the static_json option -----------------------------------------------------------------


def test_static_json_takes_the_budget_as_an_option_and_notes_running_out() -> None:
    gold, model = _grid(12, 12, seed=6)
    case = Case(id="g", expected_answer=str(gold))
    run = Trajectory(answer=str(model))
    tight = create_scorer("static_json", alignment_budget=500)(case, run)
    assert tight.value is not None
    assert any(note.startswith(BUDGET_NOTE) for note in tight.details["notes"])
    default = create_scorer("static_json")(case, run)
    assert "notes" not in default.details


@pytest.mark.parametrize("bad", [-1, True, 2.5, "1000"])
def test_static_json_refuses_a_budget_that_is_not_a_count(bad: Any) -> None:
    with pytest.raises(ValueError, match="alignment_budget must be a whole number >= 0"):
        create_scorer("static_json", alignment_budget=bad)
