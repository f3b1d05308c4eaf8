"""Paths and ids from file names as report text: one rule, `\\xNN` for an undecodable byte."""

from __future__ import annotations

from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from assay._jsonable import dumps_lenient
from assay._text import escape_surrogates, path_text


@given(st.binary(max_size=40))
def test_any_file_name_becomes_text_json_can_hold(name: bytes) -> None:
    shown = path_text(name)
    shown.encode("utf-8")  # never raises
    assert orjson.loads(orjson.dumps(shown)) == shown
    # The same text whichever way the name arrives: bytes, str or a Path.
    decoded = name.decode("utf-8", "surrogateescape")
    assert path_text(decoded) == shown
    assert path_text(Path(decoded)) == path_text(str(Path(decoded)))


@given(st.text())
def test_valid_text_is_left_as_it_is(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # hypothesis' text() may hold lone surrogates
        return
    assert escape_surrogates(text) == text


@given(st.lists(st.one_of(st.binary(min_size=1, max_size=3), st.sampled_from([b"\\", b"x"]))))
def test_each_undecodable_byte_is_shown_as_its_escape(parts: list[bytes]) -> None:
    name = b"".join(parts)
    expected = name.decode("utf-8", "backslashreplace")  # Python's own \xNN for bad bytes
    assert path_text(name) == expected


def test_other_lone_surrogates_are_shown_as_unicode_escapes() -> None:
    assert escape_surrogates("a\ud800b\udfff") == "a\\ud800b\\udfff"
    assert escape_surrogates("\udcff") == "\\xff"  # what surrogateescape makes of byte 0xff


def test_a_report_value_holding_a_lone_surrogate_is_written_as_json() -> None:
    # A Python-literal answer ('\ud800') parses to a lone surrogate: the report is still an
    # object, with the surrogate escaped, never the repr of the whole report as one string.
    value = {"answer": {"a": "\ud800"}, "\udcff": 1}
    assert orjson.loads(dumps_lenient(value)) == {"answer": {"a": "\\ud800"}, "\\xff": 1}
