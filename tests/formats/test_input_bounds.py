"""What one input may take: files read whole, lines of a JSONL file, memory; and file names
that are not UTF-8, as the readers name them.

Large inputs are sparse files (`os.truncate`): they cost no disk and, past a limit, must cost
no reading either. What is read is bounded by counting bytes and allocations, never by time.
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import _common
from assay.formats._common import (
    ReadProblem,
    jsonl_run_lines,
    load_json,
    parse_json,
    read_bytes,
)
from assay.formats.registry import read_file
from assay.formats.scenarios import index_scenarios, load_scenarios
from assay.limits import InputLimits, using_input_limits

GB = 2**30
MB = 2**20


def _sparse(path: Path, size: int, head: bytes = b"") -> Path:
    path.write_bytes(head)
    os.truncate(path, size)
    return path


class _CountedReads:
    """Bytes handed out by os.read, summed (what `_read_whole` read)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.total = 0
        real = os.read

        def counted(descriptor: int, wanted: int) -> bytes:
            data = real(descriptor, wanted)
            self.total += len(data)
            return data

        monkeypatch.setattr(os, "read", counted)


# --- files read whole ------------------------------------------------------------------------


def test_a_file_past_the_default_cap_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = _sparse(tmp_path / "big.json", 2 * GB)
    reads = _CountedReads(monkeypatch)
    value, problem = load_json(big)
    assert value is None and problem is not None
    assert problem.source == str(big)
    assert problem.reason == "file is 2 GB; the limit is 256 MB (--max-file-size)"
    assert reads.total == 0


def test_a_file_at_the_cap_is_read_and_one_byte_more_is_not(tmp_path: Path) -> None:
    at = tmp_path / "at.json"
    at.write_bytes(b"[" + b" " * 1022 + b"]")
    over = tmp_path / "over.json"
    over.write_bytes(b"[" + b" " * 1023 + b"]")
    with using_input_limits(InputLimits(max_file_bytes=1024)):
        assert load_json(at) == ([], None)
        problem = load_json(over)[1]
    assert problem is not None
    assert problem.reason == "file is 1,025 bytes; the limit is 1 KB (--max-file-size)"


def test_a_file_that_grows_while_read_is_read_no_further_than_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fstat said 10 bytes; by the time it is read the file holds a gigabyte.
    grown = _sparse(tmp_path / "grown.json", GB)
    real_open = _common.open_regular
    monkeypatch.setattr(_common, "open_regular", lambda path: (real_open(path)[0], 10))
    reads = _CountedReads(monkeypatch)
    with using_input_limits(InputLimits(max_file_bytes=3 * MB)):
        problem = read_bytes(grown)
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "file grew past the limit of 3 MB while read (--max-file-size)"
    assert reads.total == 3 * MB + 1


def test_a_scenario_file_past_the_cap_is_a_problem_and_the_others_load(tmp_path: Path) -> None:
    _sparse(tmp_path / "a_big.json", 300 * MB)
    (tmp_path / "b.json").write_text('[{"id": 1, "expected_answer": 3}]')
    _sparse(tmp_path / "c.jsonl", 2 * GB)
    cases, problems = load_scenarios([tmp_path])
    assert list(cases) == ["1"]
    assert [(Path(p.source).name, p.reason) for p in problems] == [
        ("a_big.json", "file is 300 MB; the limit is 256 MB (--max-file-size)"),
        ("c.jsonl", "file is 2 GB; the limit is 256 MB (--max-file-size)"),
    ]


def test_a_scenario_folder_file_past_the_cap_makes_the_case_unusable(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_1"
    folder.mkdir()
    _sparse(folder / "groundtruth.txt", 2 * GB)
    index = index_scenarios([tmp_path])
    case = index.get("1")
    assert isinstance(case, ReadProblem)
    assert case.reason == "file is 2 GB; the limit is 256 MB (--max-file-size)"


# --- lines -----------------------------------------------------------------------------------


def _lines(path: Path, longest: int) -> list[tuple[str, str]]:
    """What jsonl_run_lines gives, as (place, line or problem reason)."""
    with using_input_limits(InputLimits(max_line_bytes=longest)):
        return [
            (item.source.rpartition(":")[2], item.reason)
            if isinstance(item, ReadProblem)
            else (item[1].rpartition(":")[2], item[0].decode())
            for item in jsonl_run_lines(path)
        ]


def test_a_line_past_the_cap_is_its_own_problem_and_the_next_lines_are_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{"run_id": "a"}\n' + b"x" * 5000 + b'\n{"run_id": "b"}\n' + b"y" * 4097)
    assert _lines(path, 4096) == [
        ("1", '{"run_id": "a"}\n'),
        ("2", "line is 4.9 KB; the limit is 4 KB (--max-line-size)"),
        ("3", '{"run_id": "b"}\n'),
        ("4", "line is 4,097 bytes; the limit is 4 KB (--max-line-size)"),
    ]


def test_a_line_of_exactly_the_cap_is_read_whatever_ends_it(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"a" * 8 + b"\n" + b"b" * 8)
    assert _lines(path, 8) == [("1", "a" * 8 + "\n"), ("2", "b" * 8)]


@pytest.mark.slow
def test_a_gigabyte_line_is_skipped_without_being_held(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    _sparse(path, GB, b'{"run_id": "a"}\n')
    with path.open("ab") as handle:
        handle.write(b'\n{"run_id": "b"}\n')
    tracemalloc.start()
    try:
        found = _lines(path, MB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == [
        ("1", '{"run_id": "a"}\n'),
        ("2", f"line is {GB - 16:,} bytes; the limit is 1 MB (--max-line-size)"),
        ("3", '{"run_id": "b"}\n'),
    ]
    assert peak < 8 * MB  # the limit, a piece being skipped and the read buffer


@given(
    st.lists(
        st.one_of(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), st.just(b" ")),
        max_size=8,
    ),
    st.integers(min_value=1, max_value=10),
    st.booleans(),
)
def test_lines_are_split_as_the_file_says_whatever_their_length(
    lines: list[bytes], longest: int, final_newline: bool
) -> None:
    import tempfile

    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory, "runs.jsonl")
        path.write_bytes(data)
        with using_input_limits(InputLimits(max_line_bytes=longest)):
            found = list(jsonl_run_lines(path))
    expected: list[tuple[int, bytes | int]] = []
    for number, line in enumerate(data.split(b"\n")[: len(lines)], start=1):
        if number == 1 and line.startswith(b"\xef\xbb\xbf") and len(line) <= longest:
            line = line[3:]
        if len(line) > longest:
            expected.append((number, len(line)))
        elif line and not line.isspace():
            expected.append((number, line))
    got: list[tuple[int, bytes | int]] = []
    for item in found:
        if isinstance(item, ReadProblem):
            if item.reason == "empty file":
                continue
            got.append((int(item.source.rpartition(":")[2]), int(item.reason.split()[2])))
        else:
            got.append((int(item[1].rpartition(":")[2]), item[0].rstrip(b"\n")))
    assert got == expected
    assert any(isinstance(i, ReadProblem) and i.reason == "empty file" for i in found) == (
        not expected
    )


def test_a_file_of_lines_read_together_is_capped_as_a_whole_file(tmp_path: Path) -> None:
    spans = '{"resourceSpans": []}\n'
    path = tmp_path / "trace.jsonl"
    _sparse(path, 2 * GB, spans.encode())
    with using_input_limits(InputLimits(max_line_bytes=16)):
        items = list(jsonl_run_lines(path, whole=True))
    assert [(i.source, i.reason) for i in items if isinstance(i, ReadProblem)] == [
        (str(path), "file is 2 GB; the limit is 256 MB (--max-file-size)")
    ]
    assert [i.reason for i in read_file(path, "otel") if isinstance(i, ReadProblem)] == [
        "file is 2 GB; the limit is 256 MB (--max-file-size)"
    ]


# --- memory ----------------------------------------------------------------------------------


def test_running_out_of_memory_while_parsing_is_the_input_s_problem(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def out_of_memory(data: bytes) -> object:
        try:
            raise MemoryError
        except MemoryError as cause:  # how orjson reports it
            raise SystemError("<built-in function loads> returned a result") from cause

    monkeypatch.setattr(_common.orjson, "loads", out_of_memory)
    value, reason = parse_json(b"[1]")
    assert value is None
    assert reason is not None and reason.startswith("not enough memory to read it")


def test_other_system_errors_are_not_taken_for_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(data: bytes) -> object:
        raise SystemError("a bug")

    monkeypatch.setattr(_common.orjson, "loads", broken)
    with pytest.raises(SystemError, match="a bug"):
        parse_json(b"[1]")


def test_running_out_of_memory_while_reading_is_the_file_s_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(b"[1]")

    def no_memory(path: str, limit: int) -> bytes:
        raise MemoryError

    monkeypatch.setattr(_common, "_read_whole", no_memory)
    problem = read_bytes(path)
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("not enough memory to read it")


# --- file names that are not UTF-8 -----------------------------------------------------------


def test_a_problem_names_an_undecodable_file_name_with_escapes(tmp_path: Path) -> None:
    name = os.fsdecode(b"\xff.json")
    (tmp_path / name).write_bytes(b"{")
    problem = load_json(tmp_path / name)[1]
    assert problem is not None
    assert problem.source == f"{tmp_path}/\\xff.json"
    assert ReadProblem(name, f"cannot read {name}").reason == "cannot read \\xff.json"


def test_runs_of_an_undecodable_file_name_are_read_with_its_text_as_source(
    tmp_path: Path,
) -> None:
    json_file = tmp_path / os.fsdecode(b"\xfe.json")
    json_file.write_text('{"scenario_id": 1, "answer": "3"}')
    lines_file = tmp_path / os.fsdecode(b"\xfd.jsonl")
    lines_file.write_text('{"run_id": "a", "answer": "3"}\n')
    ((run,), (line_run,)) = list(read_file(json_file)), list(read_file(lines_file))
    assert not isinstance(run, ReadProblem) and not isinstance(line_run, ReadProblem)
    assert run.source == f"{tmp_path}/\\xfe.json"
    assert line_run.source == f"{tmp_path}/\\xfd.jsonl:1"


def test_a_scenario_folder_that_is_not_utf8_has_its_id_as_shown(tmp_path: Path) -> None:
    folder = tmp_path / os.fsdecode(b"scenario_\xff")
    folder.mkdir()
    (folder / "groundtruth.txt").write_text("7")
    index = index_scenarios([tmp_path])
    assert list(index) == ["\\xff"]
    assert index.case_id("\\xff") == "\\xff"
    assert index.source("\\xff") == f"{tmp_path}/scenario_\\xff"
    case = index.get("\\xff")
    assert not isinstance(case, ReadProblem)
    assert (case.id, case.source, case.expected_answer) == (
        "\\xff",
        f"{tmp_path}/scenario_\\xff",
        "7",
    )


def test_a_folder_named_with_the_escape_itself_is_the_same_id_and_a_duplicate(
    tmp_path: Path,
) -> None:
    for name in (b"scenario_\xff", b"scenario_\\xff"):
        folder = tmp_path / os.fsdecode(name)
        folder.mkdir()
        (folder / "groundtruth.txt").write_text("7")
    index = index_scenarios([tmp_path])
    assert list(index) == ["\\xff"]
    assert [p.reason.split(":")[0] for p in index.problems] == [
        "duplicate scenario id '\\\\xff' (key '\\\\xff')"
    ]
