"""End-to-end tests of reading every format: `assay evaluate` and `assay convert` on real shapes.

`evaluate` reads each trajectory file through the reader registry, so any supported format is
scored without a `convert` first; `--from` forces one reader. Runs go in a tmp dir, the real
CLI runs, and the tests read the files it writes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from _cli import assay
from assay.cli.main import main
from assay.offline import pipeline
from track1_files import track1_file

SAMPLES = Path(__file__).parents[1] / "formats" / "samples"


def aggregate(reports: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((reports / "_aggregate.json").read_text())
    return data


def results(reports: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (reports / "results.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_evaluate_reads_every_format_without_convert(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt" / "scenario_106"
    runs.mkdir()
    gt.mkdir(parents=True)
    for name in (
        "adk_camel.evalset.json",
        "otel_export.json",
        "maseval_results.jsonl",
        "openai_parallel.json",
        "langgraph_dicts.json",
    ):
        shutil.copy(SAMPLES / name, runs / name)
    track1_file(runs)
    (gt / "groundtruth.txt").write_text("Compressor Overheating can be detected.\n")
    (runs / "swe.json").write_text('{"trajectory": [{"action": "ls"}], "history": [], "info": {}}')
    reports = tmp_path / "reports"

    proc = assay("evaluate", "--trajectories", runs, "--scenarios", gt.parent,
                 "--reports-dir", reports, "-q")  # fmt: skip

    assert proc.returncode == 0, proc.stderr
    summary = aggregate(reports)
    assert (summary["totals"]["passed"], summary["totals"]["scored"]) == (1, 1)
    (scored,) = results(reports)
    assert (scored["scenario_id"], scored["run_id"]) == ("106", "106")
    report = json.loads((reports / scored["report_file"]).read_text())
    assert report["ops"]["tool_call_count"] == 3
    assert (report["ops"]["tokens_in"], report["ops"]["tokens_out"]) == (9645, 150)
    # Every other file's runs were read (they answer no scenario here), none taken for another
    # format or dropped.
    read_from = {Path(item["source"]).name.split("#")[0].split(":")[0]
                 for item in summary["not_scored"]["no_scenario"]}  # fmt: skip
    assert read_from == {
        "adk_camel.evalset.json",
        "otel_export.json",
        "maseval_results.jsonl",
        "openai_parallel.json",
        "langgraph_dicts.json",
        "swe.json",  # a SWE-agent trajectory, read by its reader
    }
    unreadable = {Path(item["source"]).name for item in summary["not_scored"]["unreadable"]}
    assert "swe.json" not in unreadable


@pytest.mark.slow
def test_from_forces_one_reader_and_an_unknown_name_is_a_usage_error(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt" / "scenario_106"
    runs.mkdir()
    gt.mkdir(parents=True)
    (gt / "groundtruth.txt").write_text("Compressor Overheating can be detected.")
    track1_file(runs)
    (runs / "106.json").write_text('{"run_id": "own", "scenario_id": 106, "answer": "x"}')
    reports = tmp_path / "reports"

    code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(gt.parent),
                 "--reports-dir", str(reports), "--from", "track1", "-q"])  # fmt: skip

    assert code == 0
    (scored,) = results(reports)
    assert scored["run_id"] == "106" and scored["score"]["passed"] is True
    (unreadable,) = aggregate(reports)["not_scored"]["unreadable"]
    assert unreadable["source"].endswith("106.json")
    assert unreadable["reason"].startswith("not a track-1 trajectory")

    proc = assay("evaluate", "--trajectories", runs, "--scenarios", gt.parent,
                 "--reports-dir", reports, "--from", "yaml")  # fmt: skip
    assert proc.returncode == 2
    assert (
        "--from: unknown format 'yaml' (expected one of assetopsbench, track1, adk, adk-results, "
        "adk-session, maseval, "
        "inspect, taubench, tau2, swe-agent, langsmith, langgraph-updates, otel, openai, "
        "langchain)" in proc.stderr
    )


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers need os.fork")
def test_workers_share_out_lines_of_any_format_with_the_same_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    runs.mkdir()
    lines = []
    for number in range(1, 41):
        folder = gt / f"scenario_{number}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(str(number * 2))
        answer = str(number * 2 if number % 3 else number)
        lines.append({"scenario_id": number, "messages": [
            {"role": "user", "content": f"twice {number}?"},
            {"role": "assistant", "content": answer}]})  # fmt: skip
    (runs / "chats.jsonl").write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    track1_file(runs, 7)
    monkeypatch.setattr(pipeline, "_MIN_FILES_PER_WORKER", 1)
    monkeypatch.setattr(pipeline, "_CHUNK", 4)
    outputs = []
    for workers in ("1", "2"):
        reports = tmp_path / f"reports-{workers}"
        code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(gt),
                     "--reports-dir", str(reports), "--workers", workers, "-q"])  # fmt: skip
        assert code == 0
        outputs.append(((reports / "results.jsonl").read_text(), aggregate(reports)["totals"]))
    assert outputs[0] == outputs[1]
    totals = outputs[0][1]
    assert (totals["runs_read"], totals["scored"], totals["passed"]) == (41, 41, 27)


@pytest.mark.slow
def test_convert_reads_a_track1_file_into_runs_evaluate_reads_back(tmp_path: Path) -> None:
    path = track1_file(tmp_path)
    out = tmp_path / "runs.jsonl"
    proc = assay("convert", path, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("converted 1 run from 1 file(s)")
    (record,) = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert record["run_id"] == "106"
    assert record["answer"] == "Compressor Overheating can be detected."
    calls = [call["name"] for turn in record["trajectory"]["turns"] for call in turn["tool_calls"]]
    assert calls == ["Get Failure Modes", "sites", "sensors"]


def test_a_multi_turn_scenario_is_scored_on_its_last_turn(tmp_path: Path) -> None:
    folder = tmp_path / "gt" / "scenario_4"
    for turn, answer in (("02", '{"asset": "Chiller 6"}'), ("03", '{"observations": 2876}')):
        (folder / "turns" / turn).mkdir(parents=True)
        (folder / "turns" / turn / "question.txt").write_text(f"turn {turn}?")
        (folder / "turns" / turn / "groundtruth.txt").write_text(answer + "\n")
    (folder / "question.txt").write_text("Which work order awaits approval?")
    (folder / "groundtruth.txt").write_text("1000045")
    runs = tmp_path / "runs"
    runs.mkdir()
    # A chat with one user message per turn: every turn is scored in the details.
    (runs / "4.json").write_bytes(orjson.dumps({"scenario_id": 4, "messages": [
        {"role": "user", "content": "Which work order awaits approval?"},
        {"role": "assistant", "content": "1000045"},
        {"role": "user", "content": "turn 02?"},
        {"role": "assistant", "content": '{"asset": "Chiller 9"}'},
        {"role": "user", "content": "turn 03?"},
        {"role": "assistant", "content": '{"observations": 2876}'}]}))  # fmt: skip
    reports = tmp_path / "reports"

    code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(folder.parent),
                 "--reports-dir", str(reports), "-q"])  # fmt: skip

    assert code == 0
    (scored,) = results(reports)
    assert scored["score"]["passed"] is True  # the final answer against the last turn
    report = json.loads((reports / scored["report_file"]).read_text())
    turns = report["score"]["details"]["turns"]
    assert [(t["turn"], t["passed"]) for t in turns] == [(1, True), (2, False), (3, True)]
    assert turns[1]["expected_answer"] == '{"asset": "Chiller 6"}'
    assert turns[2]["note"] == "final answer"
    assert aggregate(reports)["scenario_problems"] == []


@pytest.mark.slow
def test_content_a_reader_cannot_read_is_noted_in_the_run_and_counted(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt" / "scenario_7"
    runs.mkdir()
    gt.mkdir(parents=True)
    (gt / "groundtruth.txt").write_text("Paris")
    # An OpenAI Agents SDK input list with a reasoning item, a web search and an image.
    (runs / "7.json").write_text(json.dumps({"scenario_id": 7, "messages": [
        {"role": "user", "content": [{"type": "input_text", "text": "Capital of France?"},
                                     {"type": "input_image", "image_url": "data:..."}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Paris"}]},
    ]}))
    (runs / "8.json").write_text(json.dumps({"scenario_id": 7, "messages": [
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "content": "Paris"},
    ]}))
    reports = tmp_path / "reports"
    proc = assay("evaluate", "--trajectories", runs, "--scenarios", gt.parent,
                 "--reports-dir", reports, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "runs with content not read" in proc.stdout
    lines = {Path(line["source"]).name: line for line in results(reports)}
    assert lines["7.json"]["notes"] == [
        "not read: a content part of type 'input_image'",
        "not read: an item of type 'reasoning'",
        "not read: an item of type 'web_search_call'",
    ]
    assert "notes" not in lines["8.json"]  # read whole: nothing to say
    assert lines["7.json"]["score"]["passed"] is True  # the run itself is scored as ever
    report = json.loads((reports / lines["7.json"]["report_file"]).read_text())
    assert report["notes"] == lines["7.json"]["notes"]
    assert aggregate(reports)["totals"]["runs_with_notes"] == 1
    # Converted, the notes stay with the run.
    out = tmp_path / "runs.jsonl"
    assert main(["convert", str(runs / "7.json"), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["notes"] == lines["7.json"]["notes"]
