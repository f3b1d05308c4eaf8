"""End-to-end: `assay evaluate` on inputs too large to read and on file names that are not
UTF-8. Each test writes its inputs in `tmp_path`, runs the CLI and reads the files it wrote.

Large inputs are sparse files: the evaluation must list them without reading them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _cli import assay
from assay.cli.main import main
from assay.formats import _common
from assay.formats.registry import register_reader, unregister_reader

GB = 2**30
MB = 2**20


def _run(path: Path, **fields: Any) -> None:
    path.write_text(json.dumps(fields))


def _ground_truth(root: Path, *ids: str, answer: str = "7") -> Path:
    for scenario in ids:
        folder = root / os.fsdecode(b"scenario_" + os.fsencode(scenario))
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(answer)
    return root


def _evaluate(runs: Path, gt: Path, out: Path, *extra: str) -> int:
    argv = ["evaluate", "--trajectories", str(runs), "--scenarios", str(gt)]
    return main([*argv, "--reports-dir", str(out), "--workers", "1", "-q", *extra])


def _lines(out: Path) -> list[dict[str, Any]]:
    # Every line must be a JSON object: json.loads raises on anything else.
    lines = [json.loads(line) for line in (out / "results.jsonl").read_bytes().splitlines()]
    assert all(isinstance(line, dict) for line in lines)
    return lines


def _aggregate(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "_aggregate.json").read_bytes())
    return data


def _unreadable(out: Path) -> list[tuple[str, str]]:
    return [(u["source"], u["reason"]) for u in _aggregate(out)["not_scored"]["unreadable"]]


# --- size caps -------------------------------------------------------------------------------


def test_a_2gb_run_file_is_listed_unread_and_the_other_runs_are_scored(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "big.json").touch()
    os.truncate(runs / "big.json", 2 * GB)
    _run(runs / "1.json", run_id="1", answer="7")
    out = tmp_path / "out"
    assert _evaluate(runs, _ground_truth(tmp_path / "gt", "1"), out) == 0
    totals = _aggregate(out)["totals"]
    assert (totals["runs_read"], totals["passed"], totals["unreadable"]) == (2, 1, 1)
    assert _unreadable(out) == [
        (str(runs / "big.json"), "file is 2 GB; the limit is 256 MB (--max-file-size)")
    ]


def test_max_file_size_holds_in_worker_processes_and_for_ground_truth(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    # Enough files for the evaluation to start its worker processes (32 per worker).
    for number in range(80):
        _run(runs / f"{number:03d}.json", run_id=str(number), scenario_id="1", answer="7")
    _run(runs / "040.json", run_id="40", scenario_id="1", answer="7", padding="x" * 2000)
    gt = _ground_truth(tmp_path / "gt", "1")
    (gt / "more.json").write_text(json.dumps([{"id": 2, "expected_answer": "x" * 3000}]))
    out = tmp_path / "out"
    code = main(
        [
            "evaluate", "--trajectories", str(runs), "--scenarios", str(gt),
            "--reports-dir", str(out), "--workers", "2", "-q", "--max-file-size", "2K",
        ]
    )  # fmt: skip
    assert code == 0
    size = (runs / "040.json").stat().st_size
    assert _unreadable(out) == [
        (str(runs / "040.json"), f"file is {size:,} bytes; the limit is 2 KB (--max-file-size)")
    ]
    assert _aggregate(out)["scenario_problems"] == [
        {
            "source": str(gt / "more.json"),
            "reason": f"file is {(gt / 'more.json').stat().st_size:,} bytes; the limit is 2 KB "
            "(--max-file-size)",
        }
    ]
    assert len(_lines(out)) == 79
    # The caps are recorded, so the evaluation can be re-created.
    assert _aggregate(out)["options"]["max_file_bytes"] == 2048
    assert _aggregate(out)["options"]["max_line_bytes"] == 64 * 1024**2


def test_a_jsonl_line_past_the_cap_is_that_line_s_problem(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    lines = runs / "runs.jsonl"
    lines.write_text(json.dumps({"run_id": "1", "answer": "7"}) + "\n")
    with lines.open("ab") as handle:  # a 100 MB line of NUL bytes, sparse
        handle.truncate(lines.stat().st_size + 100 * MB)
    with lines.open("ab") as handle:
        handle.write(b"\n" + json.dumps({"run_id": "2", "answer": "8"}).encode() + b"\n")
        long_run = json.dumps({"run_id": "3", "answer": "x" * 3000}).encode()
        handle.write(long_run + b"\n")
    (runs / "4.json").write_text(json.dumps({"run_id": "4", "answer": "x" * 3000}))
    gt = _ground_truth(tmp_path / "gt", "1", "2", "3", "4")
    out = tmp_path / "out"
    assert _evaluate(runs, gt, out) == 0
    assert _unreadable(out) == [
        (f"{lines}:2", "line is 100 MB; the limit is 64 MB (--max-line-size)")
    ]
    assert sorted(line["run_id"] for line in _lines(out)) == ["1", "2", "3", "4"]

    # A lower cap: the long run's line is refused; the file of the same run is not a line.
    out = tmp_path / "out-2"
    assert _evaluate(runs, gt, out, "--max-line-size", "2k") == 0
    assert [reason for _, reason in _unreadable(out)] == [
        "line is 100 MB; the limit is 2 KB (--max-line-size)",
        f"line is {len(long_run):,} bytes; the limit is 2 KB (--max-line-size)",
    ]
    assert sorted(line["run_id"] for line in _lines(out)) == ["1", "2", "4"]


@pytest.mark.parametrize("value", ["0", "-1M", "lots", "1.5G", "3T"])
def test_a_size_that_is_not_one_is_a_usage_error(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "r.json").write_text("{}")
    with pytest.raises(SystemExit) as exit_info:
        _evaluate(tmp_path / "r.json", tmp_path, tmp_path / "out", "--max-file-size", value)
    assert exit_info.value.code == 2
    assert "argument --max-file-size: " in capsys.readouterr().err


def test_help_documents_the_caps(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--max-file-size SIZE largest run or scenario file read whole" in shown
    assert "(default 256M)" in shown and "(default 64M)" in shown


@pytest.fixture
def _oom_reader() -> Iterator[None]:
    """A reader that runs out of memory on the files it claims (`oom*.json`)."""

    def read(value: Any, source: str) -> Any:
        raise MemoryError

    register_reader("test-oom", lambda name, value: name.startswith("oom"), read)
    try:
        yield
    finally:
        unregister_reader("test-oom")


@pytest.mark.usefixtures("_oom_reader")
def test_running_out_of_memory_on_one_input_lists_it_and_the_evaluation_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(runs / "1.json", run_id="1", answer="7")
    _run(runs / "oom.json", run_id="2", answer="7")  # its reader fails to allocate
    _run(runs / "3.json", run_id="3", answer="7", exhaust=True)  # orjson fails to allocate
    _run(runs / "4.json", run_id="4", answer="7")
    real_loads = _common.orjson.loads

    def loads(data: Any) -> Any:
        if b'"exhaust"' in bytes(data):
            try:
                raise MemoryError
            except MemoryError as cause:  # what orjson raises when an allocation fails
                raise SystemError("<built-in function loads> returned a result") from cause
        return real_loads(data)

    monkeypatch.setattr(_common.orjson, "loads", loads)
    out = tmp_path / "out"
    assert _evaluate(runs, _ground_truth(tmp_path / "gt", "1", "2", "3", "4"), out) == 0
    assert sorted(line["run_id"] for line in _lines(out)) == ["1", "4"]
    assert sorted(_unreadable(out)) == [
        (
            str(runs / "3.json"),
            "not enough memory to read it (--max-file-size and --max-line-size bound what "
            "is read)",
        ),
        (str(runs / "oom.json"), "not enough memory to read it"),
    ]


# --- file names that are not UTF-8 -----------------------------------------------------------


def _named(directory: Path, name: bytes) -> Path:
    return directory / os.fsdecode(name)


def test_runs_in_files_named_with_undecodable_bytes_are_scored_and_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(_named(runs, b"\xff.json"), run_id="1", answer="7")
    _named(runs, b"\xfe.jsonl").write_text(json.dumps({"scenario_id": 1, "answer": "7"}) + "\n{")
    _named(runs, b"\xfd.json").write_text("{")
    _run(_named(runs, b"\xfc.json"), answer="7")  # no ids: the file's name is tried
    out = tmp_path / "out"
    code = main(
        [
            "evaluate", "--trajectories", str(runs), "--scenarios",
            str(_ground_truth(tmp_path / "gt", "1")), "--reports-dir", str(out),
            "--workers", "1", "-v", "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    shown = str(runs)
    lines = sorted(_lines(out), key=lambda line: line["source"])
    assert [(line["source"], line["report_file"]) for line in lines] == [
        (f"{shown}/\\xfe.jsonl:1", "1.json"),
        (f"{shown}/\\xff.json", "1-2.json"),
    ]
    for line in lines:  # each report is the report object, never a string
        report = json.loads((out / line["report_file"]).read_bytes())
        assert report["source"] == line["source"] and report["score"]["passed"] is True
    aggregate = _aggregate(out)
    assert aggregate["totals"]["runs_read"] == 5
    assert _unreadable(out) == [
        (f"{shown}/\\xfd.json", "invalid JSON: unexpected end of data at line 1 column 2"),
        (f"{shown}/\\xfe.jsonl:2", "invalid JSON: unexpected end of data at line 1 column 2"),
    ]
    assert [u["source"] for u in aggregate["not_scored"]["no_scenario"]] == [f"{shown}/\\xfc.json"]
    printed = capsys.readouterr().out
    assert f"{shown}/\\xfd.json" in printed and "\\udc" not in printed


def test_a_scenario_folder_named_with_an_undecodable_byte_joins_by_its_shown_id(
    tmp_path: Path,
) -> None:
    gt = tmp_path / "gt"
    folder = _named(gt, b"scenario_\xff")
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text("7")
    _ground_truth(gt, "2")
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(_named(runs, b"\xff.json"), answer="7")  # joined by its file's stem
    _run(runs / "b.json", run_id="b", scenario_id="\\xff", answer="7")  # by the id as shown
    _run(runs / "c.json", run_id="c", scenario_id="scenario_\\xff", answer="7")
    out = tmp_path / "out"
    assert _evaluate(runs, gt, out) == 0
    lines = _lines(out)
    assert [(line["scenario_id"], line["score"]["passed"]) for line in lines] == [
        ("\\xff", True)
    ] * 3
    assert _aggregate(out)["not_scored"]["no_run"] == [
        {
            "run_id": None,
            "scenario_id": "2",
            "source": str(gt / "scenario_2"),
            "reason": "no run answered this scenario",
        }
    ]


def test_an_unanswered_or_broken_scenario_folder_so_named_is_listed(tmp_path: Path) -> None:
    gt = tmp_path / "gt"
    _named(gt, b"scenario_\xfe").mkdir(parents=True)  # no groundtruth.txt
    folder = _named(gt, b"scenario_\xff")
    folder.mkdir()
    (folder / "groundtruth.txt").write_text("7")
    (folder / "groundtruth_eval.json").write_text("{")
    _named(gt, b"\xfd.json").write_text("[")
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(runs / "1.json", run_id="1", answer="7")
    out = tmp_path / "out"
    assert _evaluate(runs, gt, out) == 0
    aggregate = _aggregate(out)
    assert aggregate["not_scored"]["no_run"][0]["source"] == f"{gt}/scenario_\\xff"
    assert aggregate["not_scored"]["no_run"][0]["scenario_id"] == "\\xff"
    assert sorted(p["source"] for p in aggregate["scenario_problems"]) == [
        f"{gt}/\\xfd.json",
        f"{gt}/scenario_\\xfe",
    ]


def test_directories_named_with_undecodable_bytes_are_shown_in_the_aggregate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = _named(tmp_path, b"runs\xfa")
    runs.mkdir()
    _run(runs / "1.json", run_id="1", answer="7")
    gt = _ground_truth(_named(tmp_path, b"gt\xfb"), "1")
    out = _named(tmp_path, b"out\xfc")
    code = main(
        [
            "evaluate", "--trajectories", str(runs), "--scenarios", str(gt),
            "--reports-dir", str(out), "--workers", "1", "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    options = _aggregate(out)["options"]
    assert (options["trajectories"], options["scenarios"], options["reports_dir"]) == (
        f"{tmp_path}/runs\\xfa",
        [f"{tmp_path}/gt\\xfb"],
        f"{tmp_path}/out\\xfc",
    )
    assert "out\\xfc" in " ".join(capsys.readouterr().out.split())


def test_lone_surrogates_in_json_content_are_data(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    # An escape JSON cannot decode: the file is unreadable, with orjson's reason.
    (runs / "a.json").write_text('{"run_id": "a\\ud800", "answer": "7"}')
    # A Python-literal answer holding one: parsed, compared, and written as escaped text.
    _run(runs / "b.json", run_id="b", scenario_id="1", answer="{'k': '\\ud800'}")
    gt = tmp_path / "gt"
    _ground_truth(gt, "1", answer="{'k': '\\ud800'}")
    out = tmp_path / "out"
    assert _evaluate(runs, gt, out) == 0
    assert _unreadable(out) == [
        (str(runs / "a.json"), "invalid JSON: no low surrogate in string at line 1 column 14")
    ]
    (line,) = _lines(out)
    report = json.loads((out / line["report_file"]).read_bytes())
    assert isinstance(report, dict) and report["score"]["passed"] is True
    (record,) = report["score"]["details"]["details"]
    assert (record["gold_value"], record["model_value"]) == ("\\ud800", "\\ud800")


@pytest.mark.slow
def test_a_non_utf8_file_name_through_the_installed_script(tmp_path: Path) -> None:
    # The same through a real process, whose argv and file names the OS hands over as bytes.
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(_named(runs, b"\xff.json"), run_id="1", answer="7")
    gt = _ground_truth(tmp_path / "gt", "1")
    done = assay(
        b"evaluate", b"--trajectories", os.fsencode(runs), b"--scenarios", os.fsencode(gt),
        b"--reports-dir", os.fsencode(tmp_path / "o"), text=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (line,) = _lines(tmp_path / "o")
    assert line["source"] == f"{runs}/\\xff.json"


def test_a_lone_surrogate_in_yaml_ground_truth_is_written_escaped(tmp_path: Path) -> None:
    # YAML, unlike JSON as orjson reads it, decodes "\ud800"; the scenario's type then names
    # a breakdown of the aggregate, which must still be written.
    pytest.importorskip("yaml")
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text('jobs:\n  "b\\ud800":\n    scenarios:\n      - id: r1\n        input: hi\n')
    runs = tmp_path / "runs"
    runs.mkdir()
    _run(runs / "r1.json", run_id="r1", answer="x")
    out = tmp_path / "out"
    assert _evaluate(runs, catalog, out, "--scorer", "max_turns") == 0
    (line,) = _lines(out)
    assert line["scenario_type"] == "b\\ud800"
    assert list(_aggregate(out)["by_scenario_type"]) == ["b\\ud800"]
