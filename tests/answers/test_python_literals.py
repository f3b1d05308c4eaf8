"""The rewrite of Python-style literals to JSON agrees with Python's own reading of them."""

from __future__ import annotations

import ast
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from assay.answers.parse import _python_as_json, parse_answer

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=12)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=15,
)


def as_lists(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [as_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: as_lists(v) for k, v in value.items()}
    return value


@given(values)
def test_fast_path_reads_what_python_reads(value: Any) -> None:
    source = repr(value)
    translated = _python_as_json(source)
    if translated is None:
        return  # not simple enough: the full parser reads it
    try:
        fast = orjson.loads(translated)
    except orjson.JSONDecodeError:
        return  # e.g. a trailing comma in "(1,)": the full parser reads it
    assert fast == as_lists(ast.literal_eval(source))


@given(st.text(alphabet="()[]{},:'\" 1aTrueNone-.e", max_size=40))
def test_fast_path_never_raises(text: str) -> None:
    _python_as_json(text)


def test_groupings_and_escapes_go_to_the_full_parser() -> None:
    assert _python_as_json("(1)") is None
    assert _python_as_json("{'it\\'s': 1}") is None
    assert _python_as_json("[(1, 2), ('a', True)]") == '[[1, 2], ["a", true]]'


@given(st.text(alphabet="()[]{},:'\" 1aTrueNone-.e", max_size=40))
def test_a_rewrite_orjson_accepts_means_what_python_means(text: str) -> None:
    translated = _python_as_json(text)
    if translated is None:
        return
    try:
        fast = orjson.loads(translated)
    except orjson.JSONDecodeError:
        return
    assert fast == as_lists(ast.literal_eval(text))


def test_a_whole_python_literal_is_the_answer_even_when_its_strings_look_like_markup() -> None:
    # As for a whole JSON document: think tags and labels inside its strings are data.
    text = "{'note': '<think>not a thought</think>', 'count': 3}"
    assert parse_answer(text).value == {"note": "<think>not a thought</think>", "count": 3}
    assert parse_answer(text).method == "structure"
    labelled = "[('Answer: pumps', 2),\n ('valves', 1)]"
    assert parse_answer(labelled).value == [["Answer: pumps", 2], ["valves", 1]]
    # Prose around a literal still goes through the answer region: the last one wins.
    drafted = "{'count': 2}\nFinal Answer: {'count': 3}"
    assert parse_answer(drafted).value == {"count": 3}


def test_literals_with_one_kind_of_quote() -> None:
    assert _python_as_json("{'energy': 14, 'material': 48}") == '{"energy": 14, "material": 48}'
    # Parentheses inside strings are text; outside they are tuples.
    assert (
        _python_as_json("[('Engines & motors (x)', 5), ('Pumps', 3)]")
        == '[["Engines & motors (x)", 5], ["Pumps", 3]]'
    )
    assert _python_as_json("()") == "[]"
    # Double quotes alone are read the same way; names are rewritten outside strings only.
    assert (
        _python_as_json('{"a": True, "b": (1, None), "c": "None of them"}')
        == '{"a": true, "b": [1, null], "c": "None of them"}'
    )
    # A grouping, at any depth, or brackets that do not pair, go to the full parser.
    for text in ["(1)", "((1, 2))", "{'a': ('b')}", "[(1, 2]"]:
        assert _python_as_json(text) is None, text
    # A quote that never closes is left as it is: orjson refuses it, and the full parser reads it.
    assert _python_as_json("'open") == "'open"
    assert parse_answer("'open").value == "'open"
