"""End-to-end tests: what assay writes stays in the directory named, in whole lines; what it
reads under --trajectories is accounted for (links, earlier reports); ids keep their digits.

Each test drives the real command (a subprocess, with a generous timeout as a hang guard) in a
temporary directory and reads the files it writes.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from test_cli_evaluate_e2e import (
    check_reports,
    evaluate,
    make_run,
    read_aggregate,
    read_results,
    scenario_folder,
    write_json,
    write_jsonl,
)

from _cli import assay, explain
from assay.reports.read import read_results as read_results_lines

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks are POSIX")


def one_scenario(tmp_path: Path) -> tuple[Path, Path]:
    """A runs folder with run `1` answering scenario 1 right, and the scenarios folder."""
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs"
    write_json(runs / "1.json", make_run("1", "1", '{"a": 1}'))
    return runs, scenarios


def unreadable(aggregate: dict[str, object]) -> dict[str, str]:
    """The unreadable inputs of an aggregate, reason by source."""
    entries = aggregate["not_scored"]["unreadable"]  # type: ignore[index]
    return {entry["source"]: entry["reason"] for entry in entries}


# --- assay convert --out ----------------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "symlink", "device", "directory"])
def test_convert_refuses_an_out_that_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    # Regression: `--out /dev/full` (or a FIFO) was replaced by a regular file.
    runs, _ = one_scenario(tmp_path)
    precious = tmp_path / "precious.jsonl"
    precious.write_text("keep me\n")
    out = tmp_path / "out.jsonl"
    if kind == "fifo":
        os.mkfifo(out)
    elif kind == "symlink":
        out.symlink_to(precious)
    elif kind == "directory":
        out.mkdir()
    else:
        # A null device of the test's own, never the system's: a convert that replaced it would
        # replace only this one.
        try:
            os.mknod(out, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except (PermissionError, AttributeError):
            pytest.skip("creating a device node needs privileges")
    before = os.lstat(out)
    proc = assay("convert", runs, "--out", out)
    assert proc.returncode == 3, explain(proc)
    assert "--out is a" in proc.stderr and str(out) in proc.stderr
    after = os.lstat(out)
    assert stat.S_IFMT(after.st_mode) == stat.S_IFMT(before.st_mode)
    assert after.st_ino == before.st_ino
    assert precious.read_text() == "keep me\n"
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".tmp")]


def test_convert_replaces_an_out_that_is_a_regular_file(tmp_path: Path) -> None:
    runs, _ = one_scenario(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    proc = assay("convert", runs, "--out", out)
    assert proc.returncode == 0, explain(proc)
    assert json.loads(out.read_text().splitlines()[0])["run_id"] == "1"


# --- the reports directory ----------------------------------------------------------------


@posix_only
def test_a_fifo_named_results_jsonl_is_refused_not_waited_on(tmp_path: Path) -> None:
    # Regression: opening a FIFO for writing waited for a reader, for ever (the timeout of
    # `cli` is the hang guard).
    runs, scenarios = one_scenario(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    os.mkfifo(reports / "results.jsonl")
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 3, explain(proc)
    assert "not a regular file" in proc.stderr
    assert sorted(p.name for p in reports.iterdir()) == ["results.jsonl"]


@posix_only
@pytest.mark.parametrize("name", ["_aggregate.json", ".assay_reports"])
@pytest.mark.parametrize("kind", ["fifo", "directory", "symlink"])
def test_an_aggregate_or_marker_that_is_not_a_regular_file_is_refused(
    tmp_path: Path, name: str, kind: str
) -> None:
    # Regression: the aggregate was renamed over a FIFO or link, or failed on a directory
    # only at the end, once every run had been scored.
    runs, scenarios = one_scenario(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "results.jsonl").write_text('{"earlier": 1}\n')
    target = reports / name
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    else:
        target.symlink_to(tmp_path / "elsewhere.json")
    try:
        proc = evaluate(runs, scenarios, reports)
        assert proc.returncode == 3, explain(proc)
        assert "not a regular file, refusing to replace it" in proc.stderr
        assert sorted(p.name for p in reports.iterdir()) == sorted([name, "results.jsonl"])
        assert (reports / "results.jsonl").read_text() == '{"earlier": 1}\n'  # nothing written
        assert not (tmp_path / "elsewhere.json").exists()
    finally:  # the suite's own check of reports directories would wait on a FIFO
        if kind == "directory":
            target.rmdir()
        else:
            target.unlink()


@posix_only
def test_a_report_is_never_renamed_onto_a_directory_fifo_or_link(tmp_path: Path) -> None:
    # Regression: a directory named like a report (`1.json`) ended the evaluation (exit 3)
    # when the report was renamed onto it; a FIFO or link so named was replaced.
    scenarios = tmp_path / "scenarios"
    runs = tmp_path / "runs"
    for sid in ("1", "2", "3"):
        scenario_folder(scenarios, sid, "{'a': 1}")
        write_json(runs / f"{sid}.json", make_run(sid, sid, '{"a": 1}'))
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "1.json").mkdir()
    os.mkfifo(reports / "2.json")
    (reports / "3.json").symlink_to(tmp_path / "elsewhere.json")
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    assert aggregate["totals"]["passed"] == 3
    assert sorted(line["report_file"] for line in read_results(reports)) == [
        "1-2.json",
        "2-2.json",
        "3-2.json",
    ]
    assert (reports / "1.json").is_dir() and stat.S_ISFIFO(os.lstat(reports / "2.json").st_mode)
    assert (reports / "3.json").is_symlink() and not (tmp_path / "elsewhere.json").exists()


@posix_only
def test_a_reports_dir_that_is_a_symlink_is_followed(tmp_path: Path) -> None:
    # The reports directory itself is the user's choice: a link to a bigger disk, say.
    runs, scenarios = one_scenario(tmp_path)
    real = tmp_path / "disk" / "reports"
    real.mkdir(parents=True)
    (tmp_path / "reports").symlink_to(real)
    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 0, explain(proc)
    assert check_reports(real)["totals"]["passed"] == 1


def test_every_reports_dir_holds_the_marker_and_results_read_back(tmp_path: Path) -> None:
    runs, scenarios = one_scenario(tmp_path)
    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    marker = json.loads((reports / ".assay_reports").read_text())
    assert marker["assay_reports"] == 1 and marker["assay_version"]
    lines = read_results_lines(reports)
    assert [line["report_file"] for line in lines.results] == ["1.json"]
    assert lines.problems == [] and lines.cut_line is None


# --- what --trajectories holds ----------------------------------------------------------------


def test_an_earlier_reports_dir_in_the_runs_tree_is_skipped_with_a_reason(
    tmp_path: Path,
) -> None:
    # Regression: with --reports-dir elsewhere, the reports of an earlier evaluation written
    # inside the runs folder were read back as runs.
    runs, scenarios = one_scenario(tmp_path)
    earlier = runs / "old-reports"
    assert evaluate(runs, scenarios, earlier).returncode == 0
    # Reports written before the marker existed are recognised by their two own files.
    legacy = runs / "legacy-reports"
    legacy.mkdir()
    for name in ("1.json", "_aggregate.json"):
        (legacy / name).write_bytes((earlier / name).read_bytes())
    (legacy / "results.jsonl").write_bytes((earlier / "results.jsonl").read_bytes())

    reports = tmp_path / "reports"
    proc = evaluate(runs, scenarios, reports)
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(reports)
    assert aggregate["totals"]["scored"] == 1  # run 1, once
    reasons = unreadable(aggregate)
    assert reasons == {
        str(earlier): "an assay reports directory (it holds .assay_reports), not read as runs",
        str(legacy): "an assay reports directory (it holds _aggregate.json and results.jsonl), "
        "not read as runs",
    }


@posix_only
def test_a_symlinked_folder_is_reported_not_followed_and_a_symlinked_file_is_read(
    tmp_path: Path,
) -> None:
    # Regression: os.walk skipped links to directories without a word.
    runs, scenarios = one_scenario(tmp_path)
    scenario_folder(scenarios, "2", "{'a': 2}")
    elsewhere = tmp_path / "elsewhere"
    write_json(elsewhere / "2.json", make_run("2", "2", '{"a": 2}'))
    (runs / "linked").symlink_to(elsewhere)
    (runs / "loop").symlink_to(runs)
    (runs / "2-link.json").symlink_to(elsewhere / "2.json")

    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(tmp_path / "reports")
    assert aggregate["totals"]["passed"] == 2  # 1.json, and 2.json through the file link
    assert unreadable(aggregate) == {
        str(runs / "linked"): "symbolic link to a directory, not followed",
        str(runs / "loop"): "symbolic link to a directory, not followed",
    }


# --- ids ---------------------------------------------------------------------------------------


def test_a_run_id_past_64_bits_never_becomes_float_text(tmp_path: Path) -> None:
    # Regression: "run_id": 123456789012345678901234567890 was reported as
    # "1.2345678901234568e+29"; two such ids could join as one.
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    (scenarios / "more.json").write_text(
        '[{"id": 123456789012345678901234567890, "expected_answer": "x"}]'
    )
    runs = tmp_path / "runs" / "runs.jsonl"
    write_jsonl(runs, [make_run("ok", "1", '{"a": 1}')])
    big = "123456789012345678901234567890"
    with runs.open("a") as handle:
        handle.write(f'{{"run_id": {big}, "scenario_id": 1, "answer": "x"}}\n')
        handle.write(f'{{"run_id": "r3", "scenario_id": {big[:-1]}1, "answer": "x"}}\n')
    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 0, explain(proc)
    reports = tmp_path / "reports"
    aggregate = check_reports(reports)
    assert aggregate["totals"]["scored"] == 1
    reasons = unreadable(aggregate)
    assert reasons[f"{runs}:2"].startswith("run_id 1.2345678901234568e+29 is a number too large")
    assert reasons[f"{runs}:3"].startswith("scenario_id 1.2345678901234568e+29 is a number")
    assert "write the id as a string" in reasons[f"{runs}:3"]
    problems = [p["reason"] for p in aggregate["scenario_problems"]]
    assert any(p.startswith("scenario id 1.2345678901234568e+29 is a number") for p in problems)
    assert "e+29" not in (reports / "results.jsonl").read_text()


def test_a_big_integer_id_written_as_text_keeps_every_digit(tmp_path: Path) -> None:
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "123456789012345678901234567890", "{'a': 1}")
    runs = tmp_path / "runs"
    big = "123456789012345678901234567890"
    write_json(runs / "r.json", make_run(big, big, '{"a": 1}'))
    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 0, explain(proc)
    (line,) = read_results(tmp_path / "reports")
    assert line["run_id"] == big and line["scenario_id"] == big
    assert read_aggregate(tmp_path / "reports")["totals"]["passed"] == 1


def test_a_run_id_that_is_no_id_is_refused_with_its_reason(tmp_path: Path) -> None:
    # Regression: a run_id holding an object, an array or a boolean was dropped in silence,
    # and the run named after its scenario.
    scenarios = tmp_path / "scenarios"
    scenario_folder(scenarios, "1", "{'a': 1}")
    runs = tmp_path / "runs" / "runs.jsonl"
    write_jsonl(runs, [make_run("ok", "1", '{"a": 1}')])
    with runs.open("a") as handle:
        handle.write('{"run_id": {"id": 7}, "scenario_id": "1", "answer": "x"}\n')
        handle.write('{"run_id": true, "scenario_id": "1", "answer": "x"}\n')
        handle.write('{"run_id": "r4", "scenario_id": [1], "answer": "x"}\n')
    proc = evaluate(runs, scenarios, tmp_path / "reports")
    assert proc.returncode == 0, explain(proc)
    aggregate = check_reports(tmp_path / "reports")
    assert aggregate["totals"]["scored"] == 1 and aggregate["totals"]["runs_read"] == 4
    reasons = unreadable(aggregate)
    assert reasons[f"{runs}:2"] == "run_id is an object, not text or a number"
    assert reasons[f"{runs}:3"] == "run_id is a boolean, not text or a number"
    assert reasons[f"{runs}:4"] == "scenario_id is an array, not text or a number"
