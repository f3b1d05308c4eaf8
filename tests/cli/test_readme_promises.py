"""The promises page (`docs/promises.md`, "What assay promises") names, for each promise, the
tests that hold it: each of those must exist, so that a promise cannot outlive its test."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _promises() -> str:
    return (ROOT / "docs" / "promises.md").read_text(encoding="utf-8")


def test_every_promise_names_tests_that_exist() -> None:
    section = _promises()
    named = re.findall(r"`(tests/[^`:]+\.py)(?:::(\w+))?`", section)
    assert len(named) >= 8, named
    for path, function in named:
        source = (ROOT / path).read_text(encoding="utf-8")
        if function:
            assert f"def {function}(" in source, f"{path} has no test {function}"
        else:
            assert "def test_" in source, f"{path} holds no test"


def test_every_paragraph_of_promises_names_a_test() -> None:
    for promise in _promises().split("\n- ")[1:]:
        assert "tests/" in promise or "corpus" in promise, promise
