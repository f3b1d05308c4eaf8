"""Tests for `assay.formats.track1`: AssetOpsBench track-1 trajectory files as runs.

The fixtures (`tests/track1_files.py`) are small files in the shape the track-1 runner saves
(`benchmark/cods_track1/.../Q_<n>_trajectory.json`), with its misspelt `trajectroy_log`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import ReadProblem, detect_reader, read_file, trajectory_from_track1
from assay.formats.track1 import read_value
from assay.records import Trajectory
from track1_files import log_entry, track1_file


def test_a_track1_file_is_a_whole_run(tmp_path: Path) -> None:
    path = track1_file(tmp_path)
    assert detect_reader(path) == "track1"
    (run,) = read_file(path)
    assert isinstance(run, Trajectory)
    assert (run.run_id, run.scenario_id, run.runner) == ("106", "106", "mpe-agent")
    assert run.question is not None and run.question.startswith("List all failure modes")
    # The last sub-task's final answer is the run's.
    assert run.answer == "Compressor Overheating can be detected."
    # Every action of every sub-task is a step; Finish ends a sub-task without a tool call.
    assert run.tool_names() == ["Get Failure Modes", "sites", "sensors"]
    assert [step.node for step in run.steps] == [
        "Failure Mode and Sensor Relevancy Expert",
        "Failure Mode and Sensor Relevancy Expert",
        "IoT Data Download",
        "IoT Data Download",
        "IoT Data Download",
    ]
    calls = run.tool_calls()
    assert calls[0].args == "Chiller 6" and calls[0].result == "['Compressor Overheating']"
    assert calls[1].args == {} and calls[1].result == '{"sites": ["MAIN"]}'
    assert calls[2].args == "site_name=MAIN, assetnum=Chiller 6"  # kept as written, not parsed
    assert run.steps[1].text == "thought 2" and run.steps[1].tool_calls == []
    assert (run.usage.input_tokens, run.usage.output_tokens) == (9645, 150)


def test_the_response_stands_in_for_a_missing_final_answer() -> None:
    run = trajectory_from_track1(
        {"id": 3, "text": "q", "trajectory": [{"task_number": 1, "response": "r", "logs": {}}]},
        "Q_3_trajectory.json",
    )
    assert run.answer == "r"
    blank = trajectory_from_track1(
        {"id": 3, "trajectory": [{"response": "r", "logs": {"final_answer": "  "}}]}, "x"
    )
    assert blank.answer == "r"
    nothing = trajectory_from_track1({"id": 3, "text": "q", "trajectory": []}, "x")
    assert (nothing.answer, nothing.steps, nothing.question) == (None, [], "q")


def test_the_spelling_without_the_typo_is_read_too() -> None:
    run = trajectory_from_track1(
        {
            "id": 1,
            "trajectory": [
                {"agent_name": "A", "logs": {"trajectory_log": [log_entry(1, "sites", "{}", "")]}}
            ],
        },
        "x",
    )
    assert run.tool_names() == ["sites"]


def test_odd_parts_are_left_out_not_raised_on() -> None:
    run = trajectory_from_track1(
        {
            "id": [1],
            "text": 5,
            "trajectory": [
                "not a sub-task",
                {"agent_name": 7, "logs": {"trajectroy_log": [None, {"action": 3}, {}]}},
                {"logs": "text", "response": None},
            ],
        },
        "x",
    )
    assert (run.run_id, run.question, run.answer) == (None, None, None)
    assert [(step.node, step.tool_calls) for step in run.steps] == [(None, []), (None, [])]


def test_assays_own_reader_no_longer_takes_a_track1_file_for_an_empty_run(
    tmp_path: Path,
) -> None:
    path = track1_file(tmp_path)
    (problem,) = read_file(path, "assetopsbench")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("not a run: no run_id, scenario_id or answer")


def test_the_track1_reader_refuses_other_shapes(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(orjson.dumps({"run_id": "r", "answer": "3", "trajectory": []}))
    (problem,) = read_file(path, "track1")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("not a track-1 trajectory (no trajectory list of sub-tasks)")


def test_a_list_of_track1_objects_is_one_run_each(tmp_path: Path) -> None:
    one = orjson.loads(track1_file(tmp_path, 1).read_bytes())
    two = orjson.loads(track1_file(tmp_path, 2).read_bytes())
    items = list(read_value([one, two, 3], "all.json"))
    assert [getattr(item, "run_id", None) for item in items] == ["1", "2", None]
    assert isinstance(items[2], ReadProblem) and items[2].source == "all.json#2"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            ["id", "text", "trajectory", "logs", "trajectroy_log", "action", "agent_name", "x"]
        ),
        inner,
        max_size=5,
    ),
    max_leaves=30,
)


@given(JSON)
def test_any_json_gives_runs_or_problems_without_raising(value: Any) -> None:
    items = list(read_value(value, "x.json"))
    assert items
    assert all(isinstance(item, Trajectory | ReadProblem) for item in items)
    for item in items:
        if isinstance(item, Trajectory):
            item.tool_names()  # the steps are built and named without raising
