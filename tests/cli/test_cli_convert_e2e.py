"""End-to-end tests of `assay convert`: the real command, its output file, and scoring it.

The console script runs as a subprocess on the committed samples in `tests/formats/samples`;
the JSONL it writes is read back with `assay.formats.read_run_file` and then scored by the real
`assay evaluate`. In-process runs of `assay.cli.main.main` cover the error paths.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from _cli import assay, explain
from assay.cli.main import main
from assay.formats import ReadProblem, read_run_file
from assay.records import Trajectory

SAMPLES = Path(__file__).parents[1] / "formats" / "samples"
TRAJECTORY_SAMPLES = (
    "adk_camel.evalset.json",
    "adk_dice.test.json",
    "adk_snake.evalset.json",
    "langgraph_dicts.json",
    "langgraph_serialised.json",
    "maseval_results.jsonl",
    "openai_parallel.json",
    "otel_export.json",
)


def sample_dir(root: Path) -> Path:
    """A directory holding the trajectory samples, and nothing else."""
    folder = root / "in"
    folder.mkdir()
    for name in TRAJECTORY_SAMPLES:
        shutil.copy(SAMPLES / name, folder / name)
    return folder


def runs_by_id(path: Path) -> dict[str, Trajectory]:
    items = list(read_run_file(path))
    assert not [i for i in items if isinstance(i, ReadProblem)], items
    runs = [i for i in items if isinstance(i, Trajectory)]
    by_id = {run.run_id: run for run in runs if run.run_id is not None}
    assert len(by_id) == len(runs), "every converted run has its own id"
    return by_id


@pytest.mark.slow
def test_convert_the_samples_then_read_them_back(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    proc = assay("convert", sample_dir(tmp_path), "--out", out)
    assert proc.returncode == 0, explain(proc)
    assert "converted 9 runs from 8 file(s)" in proc.stdout
    # Three inputs cannot be runs; each is named with its reason, and conversion went on.
    assert "assay: 3 inputs could not be converted:" in proc.stderr
    assert (
        "adk_snake.evalset.json#2: eval case 'scenario_only' has a conversation_scenario"
        in proc.stderr
    )
    assert (
        "maseval_results.jsonl:2: no agent messages or tool invocations (status setup_failed"
        in proc.stderr
    )
    assert "otel_export.json#0af7651916cd43dd8448eb211c80319c: no GenAI model call" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "runs.jsonl"]  # no temporary left

    runs = runs_by_id(out)
    assert set(runs) == {
        "chat-0007",
        "langgraph_dicts",
        "langgraph_serialised",
        "wo_count_2017",
        "wo_count_2017_camel",
        "sites_multi_agent",
        "adk_dice",
        "b6f0c1d2-hotel-001#0",
        "5b8efff798038103d269b633813fc60c",
    }

    chat = runs["chat-0007"]
    assert (chat.scenario_id, chat.model) == ("11", "gpt-4o-2024-08-06")
    assert chat.answer == '{"corrective": 14, "preventive": 27}'
    corrective, preventive, broken = chat.steps[0].tool_calls
    assert corrective.args == {"equipment_id": "CWC04009", "year": 2017, "kind": "corrective"}
    assert (corrective.call_id, corrective.result) == ("call_Qm1", '{"count": 14}')
    assert preventive.result == '{"count": 27}'
    assert broken.args == '{"asset_id": "CWC04009"'
    assert (chat.usage.input_tokens, chat.usage.output_tokens) == (2310, 188)

    graph = runs["langgraph_dicts"]
    assert graph.steps == runs["langgraph_serialised"].steps
    assert [s.node for s in graph.steps][:2] == ["supervisor", "asset_agent"]
    assert graph.steps[4].tool_calls[2].args == '{"asset_id": "CH-2"'

    trace = runs["5b8efff798038103d269b633813fc60c"]
    assert trace.tool_names() == ["get_work_orders", "get_asset"]
    assert trace.steps[0].tool_calls[1].args == {"asset_id": "CWC04009"}
    assert [s.duration_ms for s in trace.steps] == [1100.0, 800.0]


@pytest.mark.slow
def test_the_converted_file_is_scored_by_evaluate(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    inputs = [SAMPLES / "openai_parallel.json", SAMPLES / "langgraph_dicts.json"]
    proc = assay("convert", *inputs, "--out", out)
    assert proc.returncode == 0, explain(proc)

    scenarios = tmp_path / "scenarios.json"
    scenarios.write_text(
        json.dumps(
            [
                {
                    "id": "11",
                    "text": "Corrective and preventive?",
                    "expected_answer": '{"corrective": 14, "preventive": 27}',
                },
                {
                    "id": "lg-3",
                    "text": "Oldest open work order?",
                    "expected_answer": '{"asset": "CH-1"}',
                },
            ]
        )
    )
    reports = tmp_path / "reports"
    proc = assay(
        "evaluate",
        "--trajectories",
        out,
        "--scenarios",
        scenarios,
        "--reports-dir",
        reports,
        "--workers",
        "1",
    )
    assert proc.returncode == 0, explain(proc)
    results = {
        line["run_id"]: line
        for line in map(json.loads, (reports / "results.jsonl").read_text().splitlines())
    }
    assert set(results) == {"chat-0007", "langgraph_dicts"}
    assert results["chat-0007"]["score"]["passed"] is True
    assert results["chat-0007"]["ops"]["tool_call_count"] == 4
    assert results["chat-0007"]["ops"]["tokens_in"] == 2310
    assert results["langgraph_dicts"]["score"]["passed"] is not True  # prose, not the JSON asked


@pytest.mark.slow
def test_nothing_convertible_exits_3_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"what": 1}')
    out = tmp_path / "runs.jsonl"
    out.write_text("kept\n")
    proc = assay("convert", bad, tmp_path / "missing.json", "--out", out)
    assert proc.returncode == 3, explain(proc)
    assert "assay: 2 inputs could not be converted:" in proc.stderr
    assert "not a run file any reader knows: an object with keys what" in proc.stderr
    assert "missing.json: cannot read file: No such file or directory" in proc.stderr
    assert "assay: error: nothing converted" in proc.stderr
    assert out.read_text() == "kept\n"  # a failed conversion leaves the old output alone


@pytest.mark.slow
def test_with_standard_error_closed_problems_do_not_land_on_standard_output(
    tmp_path: Path,
) -> None:
    inputs = sample_dir(tmp_path)
    (inputs / "bad.json").write_text('{"what": 1}')
    out = tmp_path / "runs.jsonl"
    proc = assay("convert", inputs, "--out", out, preexec_fn=lambda: os.close(2))
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout.startswith("converted ") and proc.stdout.count("\n") == 1
    assert runs_by_id(out)


@pytest.mark.slow
def test_named_format_and_help(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    proc = assay("convert", SAMPLES / "otel_export.json", "--from", "otel", "--out", out, "-q")
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout == ""
    assert len(out.read_text().splitlines()) == 1

    proc = assay("convert", SAMPLES / "otel_export.json", "--from", "yaml", "--out", out)
    assert proc.returncode == 2, explain(proc)
    assert "--from: unknown format 'yaml' (expected one of assetopsbench, track1," in proc.stderr

    proc = assay("convert", "--help")
    assert proc.returncode == 0 and "--from FORMAT" in proc.stdout
    assert "  track1         AssetOpsBench track-1 trajectory files" in proc.stdout


# --- in process -----------------------------------------------------------------------------


def test_output_directory_must_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "convert",
            str(SAMPLES / "openai_parallel.json"),
            "--out",
            str(tmp_path / "no" / "x.jsonl"),
        ]
    )
    assert code == 3
    assert "no such directory" in capsys.readouterr().err
    assert main(["convert", str(SAMPLES / "openai_parallel.json"), "--out", str(tmp_path)]) == 3
    assert "--out is a directory" in capsys.readouterr().err


def test_a_previous_output_inside_the_input_directory_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inputs = sample_dir(tmp_path)
    out = inputs / "converted.jsonl"
    assert main(["convert", str(inputs), "--out", str(out)]) == 0
    first = out.read_bytes()
    assert main(["convert", str(inputs), "--out", str(out)]) == 0
    assert out.read_bytes() == first
    assert "converted 9 runs from 8 file(s)" in capsys.readouterr().out


def test_an_empty_directory_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["convert", str(empty), "--out", str(tmp_path / "x.jsonl")]) == 3
    err = capsys.readouterr().err
    assert "could not be converted" in err and "nothing converted" in err


@pytest.mark.slow
def test_a_problem_naming_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    bad = tmp_path / "bad\x1b[2J.json"
    bad.write_text('{"wh\\u0007at\\u001b[31m": 1}')
    proc = assay("convert", bad, "--out", tmp_path / "runs.jsonl")
    assert proc.returncode == 3, explain(proc)
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "bad\\x1b[2J.json" in proc.stderr
