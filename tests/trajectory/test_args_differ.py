"""args_differ: the calls of the right tool with the wrong arguments, argument by argument."""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay import check_trajectory
from assay.trajectory import ArgsRule

MODES = ("strict", "unordered", "subsequence", "superset", "subset")


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args}


def test_a_missing_argument_pairs_the_two_calls_and_names_it() -> None:
    result = check_trajectory(
        [call("get_work_orders", asset_id="CH-12")], [call("get_work_orders", site="MAIN")]
    )
    assert result.args_differ == [
        {
            "expected_step": 0,
            "expected": "get_work_orders {'asset_id': 'CH-12'}",
            "actual_step": 0,
            "actual": "get_work_orders {'site': 'MAIN'}",
            "why": "get_work_orders: argument 'asset_id' missing",
            "differences": [{"argument": "asset_id", "kind": "missing", "expected": '"CH-12"'}],
        }
    ]
    # Additive: the two calls are still listed as missing and unexpected.
    details = result.to_details()
    assert len(details["missing"]) == len(details["unexpected"]) == 1
    assert details["args_differ"] == result.args_differ


def test_exact_arguments_list_every_difference_in_the_order_explain_sees_them() -> None:
    result = check_trajectory(
        [call("f", a=1, b={"start": "09:00"}, c=True)],
        [call("f", b={"start": "10:00"}, c=1, d="x")],
        args="exact",
    )
    (pair,) = result.args_differ
    assert pair["differences"] == [
        {"argument": "a", "kind": "missing", "expected": "1"},
        {"argument": "b.start", "kind": "different", "expected": '"09:00"', "actual": '"10:00"'},
        {"argument": "c", "kind": "different", "expected": "true", "actual": "1"},
        {"argument": "d", "kind": "unexpected", "actual": '"x"'},
    ]
    assert pair["why"] == "f: argument 'a' missing"


def test_extras_count_only_where_the_mode_counts_them() -> None:
    expected, actual = [call("f", a=1)], [call("f", a=2, extra=0)]
    superset = check_trajectory(expected, actual, args="superset").args_differ[0]
    assert [d["argument"] for d in superset["differences"]] == ["a"]
    subset = check_trajectory(expected, actual, args="subset").args_differ[0]
    assert [d["kind"] for d in subset["differences"]] == ["different", "unexpected"]


def test_field_path_overrides_name_the_paths_they_check() -> None:
    result = check_trajectory(
        [call("book", time={"start": "09:00"}, room="A")],
        [call("book", time={"start": "10:00"}, room="B")],
        overrides={"book": ["time.start", "who"]},
    )
    assert result.args_differ[0]["differences"] == [
        {"argument": "time.start", "kind": "different", "expected": '"09:00"',
         "actual": '"10:00"'},
        {"argument": "who", "kind": "missing"},
    ]


def test_a_custom_matcher_or_unparsable_arguments_give_the_reason_and_no_arguments() -> None:
    custom = check_trajectory(
        [call("f", a=1)], [call("f", a=1)], overrides={"f": lambda got, wanted: False}
    )
    assert custom.args_differ[0]["differences"] == []
    assert custom.args_differ[0]["why"] == "f: custom argument matcher returned false"
    broken = check_trajectory([call("f", a=1)], [{"name": "f", "arguments": '{"a": '}])
    assert broken.args_differ[0]["differences"] == []
    assert "not valid JSON" in broken.args_differ[0]["why"]


def test_other_tools_and_passing_checks_give_no_pairs() -> None:
    assert check_trajectory([call("f", a=1)], [call("g", a=1)]).args_differ == []
    assert check_trajectory([call("f", a=1)], [call("f", a=1, b=2)]).args_differ == []
    assert check_trajectory(["f"], [call("f", a=1)]).to_details()["args_differ"] == []


def test_ordered_modes_pair_a_call_only_where_the_alignment_leaves_room() -> None:
    # b matched in the middle: the a before it can only be set against an a before it.
    result = check_trajectory(
        [call("a", x=1), "b", call("c", y=1)],
        [call("c", y=2), "b", call("a", x=2)],
        mode="strict",
    )
    assert result.args_differ == []
    shifted = check_trajectory(
        [call("a", x=1), "b", call("a", x=3)],
        [call("a", x=2), "b", call("a", x=4)],
        mode="subsequence",
    )
    assert [(p["expected_step"], p["actual_step"]) for p in shifted.args_differ] == [(0, 0), (2, 2)]


def test_unordered_modes_pair_one_to_one() -> None:
    result = check_trajectory(
        [call("f", a=1), call("f", a=2)], [call("f", a=3)], mode="unordered", args="exact"
    )
    assert [p["expected"] for p in result.args_differ] == ["f {'a': 1}"]


def test_parallel_calls_of_a_paired_step_pair_within_it() -> None:
    result = check_trajectory(
        [[call("f", a=1), call("g", b=1)]], [[call("g", b=1), call("f", a=2)]], mode="strict"
    )
    (pair,) = result.args_differ
    assert (pair["expected"], pair["actual"]) == ("f {'a': 1}", "f {'a': 2}")


def test_long_values_and_many_differences_are_cut() -> None:
    many = {f"k{i}": i for i in range(30)}
    result = check_trajectory([call("f", **many, big="x" * 500)], [call("f")], args="exact")
    (pair,) = result.args_differ
    assert len(pair["differences"]) == 20 and pair["more_differences"] == 11
    cut = check_trajectory([call("f", big="x" * 500)], [call("f", big="y")]).args_differ[0]
    assert cut["differences"][0]["expected"].endswith("…")
    assert len(cut["differences"][0]["expected"]) == 200


def test_failed_turns_carry_their_pairs() -> None:
    from assay.trajectory import check_turns

    details = check_turns(
        [[call("f", a=1)]], [[call("f", a=2)]], match_type="EXACT"
    ).to_details()
    assert details["turns"][0]["args_differ"][0]["differences"][0]["kind"] == "different"


# --- properties ----------------------------------------------------------------------------

names = st.sampled_from(["a", "b", "c"])
scalars = st.one_of(st.integers(-3, 3), st.booleans(), st.sampled_from(["x", ""]), st.none())
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(names, inner, max_size=2),
    max_leaves=5,
)
arg_dicts = st.dictionaries(st.sampled_from(["k", "m", "n"]), values, max_size=3)
calls = st.builds(lambda n, a: {"name": n, "args": a}, names, arg_dicts)
steps = st.lists(st.one_of(calls, st.lists(calls, min_size=1, max_size=2)), max_size=5)
arg_modes = st.sampled_from(["superset", "subset", "exact"])


@given(steps, steps, st.sampled_from(MODES), arg_modes)
def test_pairs_are_unmatched_calls_of_one_tool_whose_first_difference_is_the_reason(
    expected: list[Any], actual: list[Any], mode: str, args: str
) -> None:
    result = check_trajectory(expected, actual, mode=mode, args=args)
    missing = {(m["step"], m["call"]) for m in result.missing}
    unexpected = {(u["step"], u["call"]) for u in result.unexpected}
    for pair in result.args_differ:
        assert (pair["expected_step"], pair["expected"]) in missing
        assert (pair["actual_step"], pair["actual"]) in unexpected
        assert pair["expected"].split(" ")[0] == pair["actual"].split(" ")[0]
        assert pair["differences"], pair  # a difference of parsed dicts is always named
        first = pair["differences"][0]
        assert f"'{first['argument']}'" in pair["why"] or first["argument"] == ""
        for difference in pair["differences"]:
            for side in ("expected", "actual"):
                if side in difference:
                    orjson.loads(difference[side])  # JSON text (these values are short)
    assert len(result.args_differ) <= min(len(result.missing), len(result.unexpected))


@given(arg_dicts, arg_dicts, arg_modes)
def test_differences_are_empty_exactly_when_the_rule_matches(
    actual: dict[str, Any], expected: dict[str, Any], mode: str
) -> None:
    rule = ArgsRule.build(mode)
    found = list(rule.differences(actual, expected))
    assert (not found) == rule.matches(actual, expected)
    assert rule.explain(actual, expected) == (found[0].message if found else "")


@given(steps)
def test_a_trajectory_against_itself_has_no_pairs(trajectory: list[Any]) -> None:
    for mode in MODES:
        assert check_trajectory(trajectory, copy.deepcopy(trajectory), mode=mode).args_differ == []


@pytest.mark.parametrize("mode", MODES)
def test_a_changed_argument_is_paired_in_every_mode(mode: str) -> None:
    result = check_trajectory(["a", call("b", k=1)], ["a", call("b", k=2)], mode=mode)
    assert [d["kind"] for p in result.args_differ for d in p["differences"]] == ["different"]
