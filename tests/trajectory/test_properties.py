"""Properties of check_trajectory that must hold for any trajectory."""

from __future__ import annotations

import copy
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from assay import TrajectoryChecker, check_trajectory

MODES = ("strict", "unordered", "subsequence", "superset", "subset")
MIRROR = {"superset": "subset", "subset": "superset", "ignore": "ignore"}

names = st.sampled_from(["a", "b", "c", "d"])
scalars = st.one_of(
    st.integers(-3, 3), st.booleans(), st.sampled_from(["x", "y", ""]), st.none(), st.floats(0, 2)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(names, inner, max_size=3),
    max_leaves=6,
)
arg_dicts = st.dictionaries(st.sampled_from(["k", "m", "n"]), values, max_size=3)
explicit_calls = st.builds(lambda n, a: {"name": n, "args": a}, names, arg_dicts)
any_calls = st.one_of(
    names,
    explicit_calls,
    st.builds(
        lambda n, text: {"name": n, "arguments": text},
        names,
        st.sampled_from(['{"k": 1}', '{"k": 1', "[]", "", "null", '{"k": true}']),
    ),
)


def steps_of(calls: st.SearchStrategy[Any]) -> st.SearchStrategy[list[Any]]:
    return st.lists(st.one_of(calls, st.lists(calls, min_size=1, max_size=3)), max_size=6)


@given(steps_of(any_calls))
def test_a_trajectory_matches_itself_in_every_mode(trajectory: list[Any]) -> None:
    for mode in MODES:
        result = check_trajectory(trajectory, copy.deepcopy(trajectory), mode=mode)
        assert result.passed and result.score == 1.0, (mode, result.reason)


@given(steps_of(explicit_calls))
def test_exact_arguments_match_themselves_too(trajectory: list[Any]) -> None:
    for mode in MODES:
        assert check_trajectory(
            trajectory, copy.deepcopy(trajectory), mode=mode, args="exact"
        ).passed


@given(steps_of(explicit_calls), steps_of(explicit_calls), st.sampled_from(sorted(MIRROR)))
def test_subset_and_superset_are_mirror_images(
    expected: list[Any], actual: list[Any], args: str
) -> None:
    forward = check_trajectory(expected, actual, mode="superset", args=args)
    mirrored = check_trajectory(actual, expected, mode="subset", args=MIRROR[args])
    assert forward.passed == mirrored.passed
    assert forward.score == mirrored.score
    assert (forward.precision, forward.recall) == (mirrored.recall, mirrored.precision)


@given(steps_of(any_calls), steps_of(any_calls), st.sampled_from(MODES))
def test_score_is_one_exactly_when_passed(
    expected: list[Any], actual: list[Any], mode: str
) -> None:
    result = check_trajectory(expected, actual, mode=mode)
    assert 0.0 <= result.score <= 1.0
    assert (result.score == 1.0) is result.passed
    for figure in (result.precision, result.recall, result.f1):
        assert 0.0 <= figure <= 1.0
    if mode == "strict":
        assert (result.f1 == 1.0) is result.passed


@given(
    steps_of(any_calls),
    steps_of(any_calls),
    st.sampled_from(["exact", "ignore", "subset", "superset"]),
)
def test_inputs_are_left_as_they_were(expected: list[Any], actual: list[Any], args: str) -> None:
    before = copy.deepcopy((expected, actual))
    for mode in MODES:
        check_trajectory(expected, actual, mode=mode, args=args)
    assert (expected, actual) == before


@given(st.lists(explicit_calls, max_size=7), st.randoms(use_true_random=False))
def test_any_order_of_the_same_calls_passes_unordered(calls: list[Any], random: Any) -> None:
    shuffled = list(calls)
    random.shuffle(shuffled)
    assert check_trajectory(calls, shuffled, mode="unordered", args="exact").passed


@given(st.lists(st.lists(explicit_calls, min_size=1, max_size=3), max_size=5), st.randoms())
def test_parallel_calls_shuffled_inside_their_steps_still_pass_strict(
    steps: list[list[Any]], random: Any
) -> None:
    shuffled = [random.sample(step, len(step)) for step in steps]
    assert check_trajectory(steps, shuffled, mode="strict", args="exact").passed


@given(steps_of(names), steps_of(names), st.sampled_from(MODES))
def test_matched_missing_and_unexpected_account_for_every_call(
    expected: list[Any], actual: list[Any], mode: str
) -> None:
    details = check_trajectory(expected, actual, mode=mode).to_details()
    flat = lambda steps: sum(len(s) if isinstance(s, list) else 1 for s in steps)  # noqa: E731
    assert details["expected_calls"] == flat(expected)
    assert details["actual_calls"] == flat(actual)


def openai_messages(steps: list[Any]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for index, step in enumerate(steps):
        calls = step if isinstance(step, list) else [step]
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{index}-{k}",
                        "type": "function",
                        "function": {"name": call["name"], "arguments": call["arguments"]},
                    }
                    for k, call in enumerate(calls)
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": f"c{index}-0", "content": "ok"})
    return messages


raw_arguments = st.one_of(
    st.none(),
    st.sampled_from(
        [
            '{"k": 1}',
            '{"k":1}',
            '{"k": 1.0}',
            '{"k":1,"m":2}',
            '{"m": 2, "k": 1}',
            '{"k": true}',
            '{"k":true}',
            '{"k": {"a": 1}}',
            '{"k": {"a": 1, "b": [true]}}',
            '{"k": [1, true]}',
            '{"k": [1, 1]}',
            "{}",
            '{"k"',
            "[]",
            "null",
        ]
    ),
    arg_dicts.map(lambda d: orjson.dumps(d).decode()),
    arg_dicts.map(lambda d: orjson.dumps(d, option=orjson.OPT_INDENT_2).decode()),
)
openai_calls = st.builds(lambda n, a: {"name": n, "arguments": a}, names, raw_arguments)


@given(
    st.lists(st.one_of(openai_calls, st.lists(openai_calls, min_size=1, max_size=3)), max_size=6),
    st.lists(st.one_of(openai_calls, st.lists(openai_calls, min_size=1, max_size=3)), max_size=6),
    st.sampled_from(MODES),
    st.sampled_from(["exact", "ignore", "subset", "superset"]),
)
def test_the_quick_count_agrees_with_the_general_path(
    expected: list[Any], actual: list[Any], mode: str, args: str
) -> None:
    checker = TrajectoryChecker(mode=mode, args=args)
    e_messages, a_messages = openai_messages(expected), openai_messages(actual)
    quick = checker(e_messages, a_messages)
    general = checker._general(e_messages, a_messages)
    assert (quick.passed, quick.score, quick.precision, quick.recall, quick.f1) == (
        general.passed,
        general.score,
        general.precision,
        general.recall,
        general.f1,
    )
    assert quick.reason == general.reason


@given(
    st.lists(explicit_calls, max_size=8),
    st.lists(explicit_calls, max_size=8),
    st.sampled_from(["strict", "subsequence"]),
)
def test_long_trajectories_align_as_the_table_does_when_steps_hold_one_call(
    expected: list[Any], actual: list[Any], mode: str
) -> None:
    from assay.trajectory import match

    by_table = check_trajectory(expected, actual, mode=mode)
    limit = match.MAX_TABLE_CELLS
    match.MAX_TABLE_CELLS = 0  # every pair of trajectories is "long" now
    try:
        sparse = check_trajectory(expected, actual, mode=mode)
    finally:
        match.MAX_TABLE_CELLS = limit
    assert (sparse.passed, sparse.score, sparse.precision, sparse.recall) == (
        by_table.passed,
        by_table.score,
        by_table.precision,
        by_table.recall,
    )


call_dicts = st.one_of(
    explicit_calls,
    st.builds(
        lambda n, text: {"name": n, "arguments": text},
        names,
        st.sampled_from(['{"k": 1}', '{"k": 1', "[]", "", "null", '{"k": true}', '{"k": 1.0}']),
    ),
    st.builds(lambda n, a: {"function": {"name": n, "arguments": orjson.dumps(a).decode()}},
              names, arg_dicts),
    st.builds(lambda n, a: {"tool_name": n, "tool_input": a}, names, arg_dicts),
)


@given(
    expected=explicit_calls | st.builds(lambda n: {"name": n}, names),
    actual=call_dicts,
    args=st.sampled_from(["exact", "ignore", "subset", "superset"]),
)
def test_tool_call_matches_is_a_one_call_strict_check(
    expected: dict[str, Any], actual: dict[str, Any], args: str
) -> None:
    # `ToolCall.matches` lives with the records (below the trajectory checks) and reads
    # arguments itself: it must agree with the checks on every single call.
    from assay.records import ToolCall

    call = ToolCall(expected["name"], expected.get("args"))
    checked = check_trajectory([call], [actual], mode="strict", args=args).passed
    assert call.matches(actual, args=args) is checked
