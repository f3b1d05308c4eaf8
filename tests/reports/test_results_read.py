"""Reading `results.jsonl` back (`assay.reports.read`), and writing it in whole lines."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import assay.reports.files as files
from assay.reports.files import write_lines, write_temporary
from assay.reports.read import LineProblem, parse_results, read_results
from assay.reports.store import LINES_PER_FLUSH, ReportWriter

_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
_lines = st.lists(st.dictionaries(st.text(max_size=6), _values, max_size=4), max_size=6)


def jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


@given(_lines, st.data())
def test_any_prefix_reads_as_the_whole_lines_it_holds(
    lines: list[dict[str, Any]], data: st.DataObject
) -> None:
    # What a kill leaves of results.jsonl is a prefix of it: it reads as the lines whose text
    # is all there, and nothing else, without a problem.
    whole = jsonl(lines)
    cut = data.draw(st.integers(0, len(whole)))
    read = parse_results(whole[:cut])
    ends = [len(jsonl(lines[: i + 1])) for i in range(len(lines))]
    complete = sum(1 for end in ends if end - 1 <= cut)  # its text, if not its newline
    assert read.results == lines[:complete]
    assert read.problems == []
    is_cut = cut not in (0, *ends, *(end - 1 for end in ends))
    assert (read.cut_line is not None) == is_cut


def test_invalid_lines_are_problems_and_the_rest_is_read() -> None:
    data = b'{"a": 1}\n{oops\n\n[1, 2]\n\xff\xfe\n{"a": 2}\n{"a": 3'
    read = parse_results(data)
    assert read.results == [{"a": 1}, {"a": 2}]
    assert [problem.line for problem in read.problems] == [2, 4, 5]
    assert read.problems[1] == LineProblem(4, "not a JSON object: an array")
    assert read.problems[2].reason == "not UTF-8: undecodable byte at offset 0"
    assert read.problems[0].reason.startswith("invalid JSON:")
    assert read.cut_line == 7


def test_a_last_line_that_lost_only_its_newline_is_read() -> None:
    assert parse_results(b'{"a": 1}\n{"a": 2}').results == [{"a": 1}, {"a": 2}]
    assert parse_results(b'{"a": 1}\n{"a": 2}').cut_line is None


def test_a_bad_line_with_its_newline_is_a_problem_even_last() -> None:
    read = parse_results(b'{"a": 1}\n{"a": \n')
    assert read.cut_line is None and [p.line for p in read.problems] == [2]


def test_a_missing_results_file_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_results(tmp_path)


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "results.jsonl")
    with pytest.raises(OSError, match="not a regular file"):
        read_results(tmp_path)


# --- writing whole lines ---------------------------------------------------------------------


def adopt_runs(tmp_path: Path, count: int) -> Path:
    """Write `count` reports and their lines with a `ReportWriter`; return the directory."""
    reports = tmp_path / "reports"
    with ReportWriter(reports) as writer:
        for number in range(count):
            temporary = write_temporary(writer.directory, b"{}")
            writer.adopt(f"r{number}", temporary, b'{"run_id":"r%d"}' % number)
    return reports


def test_results_are_written_in_calls_of_whole_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: a buffered file wrote whatever filled its buffer, so a kill between two
    # write calls left half a line at the end of results.jsonl.
    calls: list[bytes] = []
    real_write = os.write

    def write(descriptor: int, data: Any) -> int:
        calls.append(bytes(data))
        return real_write(descriptor, data)

    monkeypatch.setattr(files.os, "write", write)
    reports = adopt_runs(tmp_path, 2 * LINES_PER_FLUSH + 5)
    results = [c for c in calls if c.startswith(b'{"run_id"')]
    assert [c.count(b"\n") for c in results] == [LINES_PER_FLUSH, LINES_PER_FLUSH, 5]
    assert all(c.endswith(b"\n") for c in results)
    assert b"".join(results) == (reports / "results.jsonl").read_bytes()
    read = read_results(reports)
    assert len(read.results) == 2 * LINES_PER_FLUSH + 5
    assert all((reports / line["report_file"]).is_file() for line in read.results)


def test_a_short_write_is_carried_on_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    monkeypatch.setattr(files.os, "write", lambda fd, data: real_write(fd, bytes(data[:7])))
    reports = adopt_runs(tmp_path, 3)
    assert [line["run_id"] for line in read_results(reports).results] == ["r0", "r1", "r2"]


def test_a_full_disk_leaves_whole_lines_and_the_error_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The second batch is written in part, then the disk is full: the file is cut back to its
    # last whole line, and the error is raised as before.
    real_write = os.write
    state = {"batches": 0}

    def write(descriptor: int, data: Any) -> int:
        if state["batches"] == 2:  # the rest of the second batch, and anything after it
            raise OSError(errno.ENOSPC, "No space left on device")
        if bytes(data[:9]) == b'{"run_id"':
            state["batches"] += 1
            if state["batches"] == 2:
                return real_write(descriptor, bytes(data[: len(data) // 2 + 3]))
        return real_write(descriptor, data)

    monkeypatch.setattr(files.os, "write", write)
    with pytest.raises(OSError, match="No space left"):
        adopt_runs(tmp_path, 3 * LINES_PER_FLUSH)
    data = (tmp_path / "reports" / "results.jsonl").read_bytes()
    assert data.endswith(b"\n")
    read = parse_results(data)
    assert read.problems == [] and read.cut_line is None
    assert LINES_PER_FLUSH < len(read.results) < 2 * LINES_PER_FLUSH


def test_write_lines_cuts_back_to_the_last_whole_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lines"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        size = write_lines(descriptor, b"a\n", 0)
        real_write = os.write
        calls = iter([5, None])

        def write(fd: int, data: Any) -> int:
            first = next(calls)
            if first is None:
                raise OSError(errno.ENOSPC, "No space left on device")
            return real_write(fd, bytes(data[:first]))

        monkeypatch.setattr(files.os, "write", write)
        with pytest.raises(OSError):
            write_lines(descriptor, b"bb\ncc\ndd\n", size)
        monkeypatch.undo()
        assert path.read_bytes() == b"a\nbb\n"
        assert write_lines(descriptor, b"ee\n", 5) == 8  # the next write starts a line
    finally:
        os.close(descriptor)
    assert path.read_bytes() == b"a\nbb\nee\n"


def test_an_earlier_aggregate_goes_when_a_new_evaluation_takes_the_directory(
    tmp_path: Path,
) -> None:
    # Regression: an evaluation killed before its aggregate left the earlier evaluation's,
    # which described other runs and said it was not interrupted.
    reports = adopt_runs(tmp_path, 3)
    (reports / "_aggregate.json").write_text('{"earlier": true}')
    with ReportWriter(reports) as writer:
        assert not (reports / "_aggregate.json").exists()
        temporary = write_temporary(writer.directory, b"{}")
        writer.adopt("new", temporary, b'{"run_id":"new"}')
    assert [line["run_id"] for line in read_results(reports).results] == ["new"]
