"""Property tests of answer parsing, comparison and the static_json scorer.

- parsing never raises, whatever the text and whichever fallback is allowed;
- any JSON-like value, written as JSON or as a Python literal, is a strict match for itself;
- a list of objects in another order is still a strict match (content alignment);
- comparison never raises and its metrics stay in range and add up;
- similarity and normal forms keep their documented promises.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.answers import (
    compare_values,
    normal_form,
    normalize,
    parse_answer,
    parse_gold,
    similarity,
)
from assay.answers.parse import ParsedAnswer, answer_region
from assay.records import Case, Trajectory
from assay.scorers import create_scorer

EXPECTS = ("any", "count", "option")
MAX_DEPTH = 5
PROPERTY = settings(max_examples=examples(150), deadline=None)

# --- strategies -----------------------------------------------------------------------------

# Text built from the characters the parser treats specially, so that the interesting paths
# (brackets, quotes, labels, think blocks, numbers, option letters) are hit far more often
# than plain st.text() would hit them.
BRACKETS = "{}[]()"
QUOTES = "\"'\\`"
DIGITS = "0123456789.,-+eE%"
FRAGMENTS = [
    "Final Answer:",
    "Answer:",
    "answer is",
    "**Answer**:",
    "<think>",
    "</think>",
    "```json\n",
    "```",
    "option",
    "the correct option is ",
    "true",
    "null",
    "None",
    "nan",
    "inf",
    "1e999",
    ": ",
    ", ",
    "\n",
    " ",
    "\t",
    "A",
    "C)",
    "(b)",
    "：",
    "{'a': 1}",
    '{"a": [1, 2]}',
    "[(1, 2)]",
    "{[1]: 2}",
    "-",
    "9" * 400,
    "\x00",
]

bracket_text = st.text(alphabet=BRACKETS + QUOTES + " ,:", max_size=80)
digit_text = st.text(alphabet=DIGITS + " \n", max_size=60)
mixed_text = st.lists(
    st.sampled_from(FRAGMENTS)
    | st.text(alphabet=BRACKETS + QUOTES + DIGITS + "aAbC:\n ", max_size=6),
    max_size=24,
).map("".join)
any_text = st.one_of(st.text(), bracket_text, digit_text, mixed_text)

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
keys = st.text(max_size=8)


def json_like(depth: int = MAX_DEPTH) -> st.SearchStrategy[Any]:
    """JSON-like values nested at most `depth` levels (tuples are written as lists)."""
    if depth <= 1:
        return leaves
    inner = json_like(depth - 1)
    return st.one_of(
        leaves,
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=4),
    )


values = json_like()
containers = st.one_of(
    st.lists(json_like(MAX_DEPTH - 1), max_size=4),
    st.dictionaries(keys, json_like(MAX_DEPTH - 1), max_size=4),
)

# --- helpers --------------------------------------------------------------------------------


def score_text(gold: str, answer: str, **options: Any) -> Any:
    scorer = create_scorer("static_json", **options)
    return scorer(Case(id="x", expected_answer=gold), Trajectory(answer=answer))


def assert_strict_pass(gold: str, answer: str, **options: Any) -> None:
    score = score_text(gold, answer, **options)
    details = score.details
    assert score.status.value == "scored", (score.rationale, gold, answer)
    assert score.passed is True, (score.rationale, details.get("details"), gold, answer)
    assert score.value == 1.0
    assert details["strict_exact_match_accuracy"] == 1.0
    assert details["missing_keys"] == []
    assert details["extra_keys"] == []
    assert details["exact_value_matches"] == details["total_gold_keys"]


def check_parsed(result: ParsedAnswer) -> None:
    assert isinstance(result, ParsedAnswer)
    assert isinstance(result.method, str)
    if result.rejected:
        assert result.value is None
        assert result.error


# --- parsing never raises -------------------------------------------------------------------


@PROPERTY
@given(text=any_text, expect=st.sampled_from(EXPECTS))
def test_parse_answer_never_raises(text: str, expect: Any) -> None:
    check_parsed(parse_answer(text, expect=expect))


@PROPERTY
@given(text=any_text)
def test_parse_gold_never_raises(text: str) -> None:
    result = parse_gold(text)
    check_parsed(result)
    # parse_gold is parse_answer without the fallbacks.
    assert result == parse_answer(text, expect="any")


@PROPERTY
@given(prefix=mixed_text, inner=mixed_text, expect=st.sampled_from(EXPECTS))
def test_parse_never_raises_inside_think_blocks_and_labels(
    prefix: str, inner: str, expect: Any
) -> None:
    for text in (
        f"<think>{inner}</think>{prefix}",
        f"{prefix}\nFinal Answer: {inner}",
        f"{prefix}```json\n{inner}\n```",
        f"Answer: {inner}\nAnswer: {prefix}",
    ):
        check_parsed(parse_answer(text, expect=expect))


@PROPERTY
@given(value=values, expect=st.sampled_from(EXPECTS))
def test_parse_answer_takes_non_strings_as_values(value: Any, expect: Any) -> None:
    result = parse_answer(value, expect=expect)
    check_parsed(result)
    if not isinstance(value, str):
        assert result.value == value
        assert result.method == "value"


@pytest.mark.parametrize("expect", EXPECTS)
@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "{" * 100_000,
        "(" * 100_000,
        "[" * 64 + "]" * 64,
        "(" * 200 + "1" + ")" * 200,
        "[" + "-" * 50_000 + "1]",
        "[" + "not " * 20_000 + "1]",
        "9" * 5000,
        "Answer: " + "9" * 5000,
        "The answer is " + "9" * 5000 + ".",
        "{[1]: 2}",
        "{**x}",
        "[1e999]",
        "{'a': 1}" * 5_000,
        "x" * 1_000_001,
        "\x00[1]\x00",
        "[1, 2" + ", 3" * 10_000,
    ],
    ids=lambda t: repr(t[:24]) + f"..{len(t)}",
)
def test_parse_handles_hostile_text(text: str, expect: Any) -> None:
    check_parsed(parse_answer(text, expect=expect))
    check_parsed(parse_gold(text))


# --- a value is a strict match for itself ---------------------------------------------------


@PROPERTY
@given(value=values)
def test_json_text_scores_strict_pass_against_itself(value: Any) -> None:
    text = json.dumps(value)
    assert_strict_pass(text, text)


@PROPERTY
@given(value=values)
def test_pretty_printed_json_scores_strict_pass_against_itself(value: Any) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    assert_strict_pass(text, text)


@PROPERTY
@given(value=values)
def test_python_repr_scores_strict_pass_against_itself(value: Any) -> None:
    text = repr(value)
    assert_strict_pass(text, text)


@PROPERTY
@given(value=containers)
def test_json_gold_against_python_style_answer(value: Any) -> None:
    # The same structure in the two spellings a model may use is the same answer. (A string
    # holding a think tag is cut where the tag is, before parsing, so the two spellings differ.)
    gold, answer = json.dumps(value), repr(value)
    assume("think>" not in gold.lower() and "think>" not in answer.lower())
    assert_strict_pass(gold, answer)


@PROPERTY
@given(value=values)
def test_compare_value_with_itself_is_strict(value: Any) -> None:
    metrics = compare_values(value, value).metrics()
    assert metrics["strict_exact_match_accuracy"] == 1.0
    assert metrics["f1"] == 1.0
    assert metrics["partial_similarity_score"] == 1.0


# --- lists are aligned by content -----------------------------------------------------------

flat_records = st.dictionaries(keys, leaves, max_size=4)
nested_records = st.dictionaries(keys, json_like(3), max_size=3)


@PROPERTY
@given(data=st.data(), items=st.lists(flat_records | nested_records, min_size=1, max_size=6))
def test_shuffled_list_of_dicts_is_a_strict_match(data: st.DataObject, items: list[Any]) -> None:
    gold = json.dumps(items)
    # Outside a whole JSON document (here: the Python-style spelling), a think tag inside a
    # string is still read as a think tag, and shuffling moves it; JSON documents are immune
    # (test_json_answer_mentioning_a_think_tag_is_parsed_as_json).
    assume("think>" not in gold.lower())
    shuffled = data.draw(st.permutations(items), label="shuffled")
    assert_strict_pass(gold, json.dumps(shuffled))
    assert_strict_pass(gold, repr(shuffled))


@PROPERTY
@given(
    data=st.data(),
    items=st.lists(
        st.fixed_dictionaries({"id": st.integers(0, 50), "v": leaves}), min_size=2, max_size=6
    ),
)
def test_shuffled_list_under_position_order_is_compared_by_index(
    data: st.DataObject, items: list[Any]
) -> None:
    shuffled = data.draw(st.permutations(items), label="shuffled")
    gold, answer = json.dumps(items), json.dumps(shuffled)
    assert_strict_pass(gold, answer)  # content alignment, the default
    positional = score_text(gold, answer, list_order="position")
    same_by_index = all(
        normal_form(a["id"]) == normal_form(b["id"]) and normal_form(a["v"]) == normal_form(b["v"])
        for a, b in zip(items, shuffled, strict=True)
    )
    assert positional.passed is same_by_index


# --- comparison invariants ------------------------------------------------------------------


def check_metrics(metrics: dict[str, Any]) -> None:
    for name in (
        "strict_exact_match_accuracy",
        "partial_exact_match_accuracy",
        "partial_similarity_score",
        "precision",
        "recall",
        "f1",
    ):
        value = metrics[name]
        assert isinstance(value, float), name
        assert 0.0 <= value <= 1.0, (name, value)
    total_gold, total_model = metrics["total_gold_keys"], metrics["total_model_keys"]
    exact, matched = metrics["exact_value_matches"], metrics["matched_keys"]
    assert 0 <= exact <= min(total_gold, total_model)
    assert exact <= matched <= min(total_gold, total_model)
    assert total_gold == matched + len(metrics["missing_keys"])
    assert total_model == matched + len(metrics["extra_keys"])
    assert metrics["partial_exact_match_accuracy"] <= metrics["partial_similarity_score"] + 1e-9
    if metrics["strict_exact_match_accuracy"] == 1.0:
        assert exact == total_gold == total_model
        assert metrics["f1"] == 1.0


@PROPERTY
@given(
    gold=values,
    model=values,
    list_order=st.sampled_from([None, "content", "position"]),
    insensitive=st.sampled_from([None, True, False]),
)
def test_compare_values_never_raises_and_metrics_stay_in_range(
    gold: Any, model: Any, list_order: Any, insensitive: Any
) -> None:
    result = compare_values(gold, model, list_order=list_order, case_insensitive_keys=insensitive)
    check_metrics(result.metrics())
    for record in result.records:
        assert 0.0 <= record.similarity <= 1.0
        assert (record.similarity == 1.0) == record.exact or record.match_type == "contains"
        report = record.to_report()
        json.dumps(report, default=str)  # every record can be written


@PROPERTY
@given(gold=values, data=st.data())
def test_compare_values_with_a_mutated_answer(gold: Any, data: st.DataObject) -> None:
    # A model answer close to the gold one (one leaf changed) exercises the alignment much
    # more than two unrelated values do.
    model = data.draw(_mutate(gold), label="model")
    check_metrics(compare_values(gold, model).metrics())
    check_metrics(compare_values(model, gold).metrics())


def _mutate(value: Any) -> st.SearchStrategy[Any]:
    if isinstance(value, dict) and value:
        return st.sampled_from(sorted(value)).flatmap(
            lambda key: _mutate(value[key]).map(lambda new: {**value, key: new})
        )
    if isinstance(value, list) and value:
        return st.integers(0, len(value) - 1).flatmap(
            lambda i: _mutate(value[i]).map(lambda new: [*value[:i], new, *value[i + 1 :]])
        )
    return leaves


@PROPERTY
@given(gold_text=any_text, answer_text=any_text)
def test_static_json_never_raises_on_text(gold_text: str, answer_text: str) -> None:
    score = score_text(gold_text, answer_text)
    assert score.status.value in ("scored", "error")
    if score.status.value == "scored":
        assert score.value is not None and 0.0 <= score.value <= 1.0
        check_metrics(score.details)


# --- similarity and normal forms ------------------------------------------------------------


@PROPERTY
@given(a=st.text(), b=st.text())
def test_similarity_of_different_strings_is_below_one(a: str, b: str) -> None:
    score = similarity(a, b)
    assert 0.0 <= score <= 1.0
    if normal_form(a) == normal_form(b):
        assert score == 1.0
    else:
        assert score < 1.0


@settings(max_examples=40, deadline=None)
@given(
    a=st.text(min_size=1, max_size=16).map(lambda t: t * (1001 // len(t) + 1)),
    suffix=st.text(min_size=1, max_size=16),
)
def test_similarity_of_long_strings_sharing_a_first_page_is_below_one(a: str, suffix: str) -> None:
    # Only the first page is compared; strings that differ after it must still not be equal.
    b = a + suffix
    assume(normal_form(a) != normal_form(b))
    assert similarity(a, b) < 1.0


@PROPERTY
@given(a=values, b=values)
def test_similarity_is_one_exactly_for_equal_normal_forms(a: Any, b: Any) -> None:
    score = similarity(a, b)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (normal_form(a) == normal_form(b))


@PROPERTY
@given(n=st.integers(min_value=-(10**18), max_value=10**18))
def test_normal_form_of_an_int_its_float_and_its_text_agree(n: int) -> None:
    assert normal_form(n) == normal_form(float(n)) == normal_form(str(n))


@PROPERTY
@given(n=st.integers(min_value=-(10**250), max_value=10**250))
def test_normal_form_of_large_ints_agree(n: int) -> None:
    assert normal_form(n) == normal_form(float(n)) == normal_form(str(n))


@PROPERTY
@given(n=st.integers(min_value=-(10**12), max_value=10**12))
def test_numeric_spellings_are_exact_matches(n: int) -> None:
    gold = json.dumps({"n": n})
    for spelled in (n, float(n), str(n), f"{n}.0"):
        assert_strict_pass(gold, json.dumps({"n": spelled}))


@PROPERTY
@given(value=leaves)
def test_normal_form_is_hashable_and_stable(value: Any) -> None:
    form = normal_form(value)
    hash(form)
    assert normal_form(value) == form
    assert similarity(value, value) == 1.0


# --- known bugs -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[1if 1else 2]", "[0x1for]", '["\\:"]', "{'a': '\\d'}"])
def test_parsing_emits_no_warnings(text: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parse_answer(text)
        parse_gold(text)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(
    "value",
    [
        {"note": "<think>", "a": 1},
        {"note": "see the </think> tag", "a": 1},
        [{"<THINK>": None}, {}],
    ],
)
def test_json_answer_mentioning_a_think_tag_is_parsed_as_json(value: Any) -> None:
    text = json.dumps(value)
    assert parse_answer(text).value == value
    assert_strict_pass(text, json.dumps(value))


def test_long_strings_are_compared_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # difflib is quadratic or worse on repetitive text, so it must never see long strings;
    # checked by what difflib is given rather than by a clock.
    seen: list[int] = []
    real = normalize.SequenceMatcher

    def recording(junk: Any, first: str, second: str, **kwargs: Any) -> Any:
        seen.append(len(first) + len(second))
        return real(junk, first, second, **kwargs)

    monkeypatch.setattr(normalize, "SequenceMatcher", recording)
    gold = ["abc" * 333 + str(i) for i in range(20)]
    model = ["abd" * 333 + str(i) for i in range(20)]
    metrics = compare_values(gold, model).metrics()
    assert 0.0 < metrics["partial_similarity_score"] < 1.0
    assert seen == [] or max(seen) <= 400
    assert normalize.text_similarity("abc" * 333, "abd" * 333) < 1.0


def test_think_tags_are_found_where_lower_casing_would_move_them() -> None:
    # "İ".lower() is two characters: positions found in a lower-cased copy would cut the
    # answer a character late for each one before the tag.
    assert answer_region("İİİ reasoning</THINK>Answer: 42") == " 42"
    assert parse_answer("İİİ reasoning</think>Answer: 42", expect="count").value == 42
    assert answer_region("İ ok <Think> never closed") == "İ ok "
