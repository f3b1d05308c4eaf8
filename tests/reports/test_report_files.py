"""Report file names and atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from assay.reports.files import ReportNames, inside, write_atomic, write_temporary


@pytest.mark.parametrize(
    ("wanted", "expected"),
    [
        ("11", "11"),
        ("../../x", "x"),
        ("a/b", "a_b"),
        ("..", "run"),
        ("", "run"),
        (None, "run"),
        ("_aggregate", "aggregate"),
        ("results", "results"),
        ("CON", "run-CON"),
        ("x" * 500, "x" * 120),
        ("run id with spaces\n", "run_id_with_spaces"),
    ],
)
def test_names_are_sanitised(wanted: str | None, expected: str) -> None:
    assert ReportNames().allocate(wanted) == expected


def test_names_stay_unique_over_many_runs() -> None:
    names = ReportNames()
    handed = [names.allocate(f"run-{i % 5000}") for i in range(10_000)]
    assert len({name.lower() for name in handed}) == 10_000
    assert handed[5000] == "run-0-2"


def test_names_are_unique_case_insensitively() -> None:
    names = ReportNames()
    assert [names.allocate(n) for n in ["a", "A", "a", "a-2"]] == ["a", "A-2", "a-3", "a-2-2"]


def test_inside_refuses_escaping_names(tmp_path: Path) -> None:
    for bad in ["../x.json", "a/b.json", "..", ""]:
        with pytest.raises(ValueError, match="refusing"):
            inside(tmp_path, bad)
    assert inside(tmp_path, "ok.json") == str(tmp_path / "ok.json")


def test_write_atomic_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_temporaries_of_a_forked_process_carry_its_own_pid(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the temporary's name, then leave at once
        try:
            name = Path(write_temporary(tmp_path, b"x")).name
            os.write(write_end, f"{os.getpid()} {name}".encode())
        finally:
            os._exit(0)
    os.close(write_end)
    os.waitpid(pid, 0)
    child_pid, name = os.read(read_end, 1000).decode().split()
    os.close(read_end)
    assert name.startswith(f".assay-{child_pid}-")
    assert Path(write_temporary(tmp_path, b"y")).name.startswith(f".assay-{os.getpid()}-")
