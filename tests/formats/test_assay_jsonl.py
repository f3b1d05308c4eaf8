"""Tests for `assay.formats.assay_jsonl`: Trajectories out as runs `assay evaluate` reads back."""

from __future__ import annotations

import math
import os
import stat
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import (
    read_file,
    read_run_file,
    run_from_line,
    trajectory_to_line,
    trajectory_to_record,
    write_runs_jsonl,
)
from assay.records import Step, ToolCall, Trajectory, Usage

SAMPLES = Path(__file__).parent / "samples"


SAMPLE_NAMES = (
    "adk_camel.evalset.json",
    "adk_dice.test.json",
    "adk_snake.evalset.json",
    "langgraph_dicts.json",
    "langgraph_serialised.json",
    "maseval_results.jsonl",
    "openai_parallel.json",
    "otel_export.json",
)


def converted_samples() -> list[Trajectory]:
    runs = []
    for name in SAMPLE_NAMES:
        runs.extend(
            item for item in read_file(SAMPLES / name) if isinstance(item, Trajectory)
        )
    return runs


def read_back(path: Path) -> list[Trajectory]:
    items = list(read_run_file(path))
    assert all(isinstance(item, Trajectory) for item in items), items
    return [item for item in items if isinstance(item, Trajectory)]


def assert_same_run(back: Trajectory, run: Trajectory) -> None:
    assert back.run_id == run.run_id
    assert back.scenario_id == run.scenario_id
    assert (back.runner, back.model, back.question) == (run.runner, run.model, run.question)
    assert back.answer == run.answer
    assert back.steps == run.steps  # text, calls (name, args, id, result), usage, duration, node
    assert back.usage == run.usage


def test_every_sample_round_trips(tmp_path: Path) -> None:
    runs = converted_samples()
    assert len(runs) == 9
    out = tmp_path / "runs.jsonl"
    assert write_runs_jsonl(runs, out) == len(runs)
    back = read_back(out)
    assert len(back) == len(runs)
    for again, run in zip(back, runs, strict=True):
        assert_same_run(again, run)
    # Nodes survive, so multi-agent runs keep who did what.
    assert any(step.node for run in back for step in run.steps)


def test_record_shape() -> None:
    run = Trajectory(
        run_id="r1",
        scenario_id="11",
        runner="agent",
        model="m",
        question="q",
        answer="a",
        steps=[
            Step(
                index=0,
                text="t",
                tool_calls=[ToolCall("f", {"x": 1}, "c1", {"ok": True})],
                usage=Usage(5, 2),
                duration_ms=12.5,
                node="planner",
            )
        ],
        usage=Usage(5, 2),
        duration_ms=20.0,
    )
    assert trajectory_to_record(run) == {
        "run_id": "r1",
        "scenario_id": "11",
        "runner": "agent",
        "model": "m",
        "question": "q",
        "answer": "a",
        "trajectory": {
            "turns": [
                {
                    "text": "t",
                    "tool_calls": [
                        {"name": "f", "input": {"x": 1}, "id": "c1", "output": {"ok": True}}
                    ],
                    "input_tokens": 5,
                    "output_tokens": 2,
                    "duration_ms": 12.5,
                    "node": "planner",
                }
            ]
        },
        "duration_ms": 20.0,
    }


def test_run_totals_are_written_only_when_the_steps_carry_none(tmp_path: Path) -> None:
    totals_only = Trajectory(run_id="a", steps=[Step(index=0, text="x")], usage=Usage(300, 40))
    assert trajectory_to_record(totals_only)["tokens_in"] == 300
    out = tmp_path / "a.jsonl"
    write_runs_jsonl([totals_only], out)
    assert read_back(out)[0].usage == Usage(300, 40)

    per_step = Trajectory(run_id="b", steps=[Step(index=0, usage=Usage(1, 1))], usage=Usage(1, 1))
    assert "tokens_in" not in trajectory_to_record(per_step)


class Opaque:
    def __str__(self) -> str:
        return "opaque thing"


def test_values_orjson_cannot_write_do_not_stop_the_writer(tmp_path: Path) -> None:
    deep: Any = "leaf"
    for _ in range(400):  # deeper than orjson writes
        deep = [deep]
    run = Trajectory(
        run_id="odd",
        answer=2**80,
        steps=[
            Step(
                index=0,
                tool_calls=[
                    ToolCall("big", {"n": 2**70, 1: "int key"}, result=(1, 2)),
                    ToolCall("object", result=Opaque()),
                    ToolCall("set", result={3}),
                    ToolCall("deep", result=deep),
                    ToolCall("fine", {"ok": [1, 2]}, result={"when": datetime(2025, 5, 1)}),
                    ToolCall("nan", result=math.nan),
                ],
            )
        ],
    )
    out = tmp_path / "odd.jsonl"
    write_runs_jsonl([run], out)
    back = read_back(out)[0]
    assert back.answer == str(2**80)
    big, opaque, a_set, deeper, fine, nan = back.steps[0].tool_calls
    assert big.args == {"n": str(2**70), "1": "int key"}
    assert big.result == [1, 2]
    assert opaque.result == "opaque thing"
    assert a_set.result == "{3}"
    assert isinstance(deeper.result, str)
    assert fine.args == {"ok": [1, 2]} and fine.result == {"when": "2025-05-01T00:00:00"}
    assert nan.result is None  # NaN is not JSON; orjson writes null


def test_a_plain_run_takes_the_fast_path_unchanged() -> None:
    run = Trajectory(run_id="p", answer={"k": [1, 2.5, None]})
    assert orjson.loads(trajectory_to_line(run)) == trajectory_to_record(run)


def test_write_is_atomic_when_runs_fail_midway(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    out.write_text("previous\n")

    def failing() -> Iterator[Trajectory]:
        yield Trajectory(run_id="1")
        raise RuntimeError("reader broke")

    with pytest.raises(RuntimeError):
        write_runs_jsonl(failing(), out)
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl"]  # no temporary left


def test_nothing_written_when_empty_and_not_kept(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    assert write_runs_jsonl([], out, keep_empty=False) == 0
    assert not out.exists() and list(tmp_path.iterdir()) == []
    assert write_runs_jsonl([], out) == 0
    assert out.read_bytes() == b""


def test_write_into_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert write_runs_jsonl([Trajectory(run_id="here")], "here.jsonl") == 1
    assert read_back(tmp_path / "here.jsonl")[0].run_id == "here"


texts = st.text(max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=10,
)
calls = st.builds(
    ToolCall,
    name=texts,
    args=st.none()
    | st.dictionaries(texts, json_values, max_size=3)
    | texts.filter(lambda t: not t.strip().startswith("{")),
    call_id=st.none() | texts,
    result=json_values,
)
step_values = st.builds(
    Step,
    index=st.just(0),
    text=st.none() | texts,
    tool_calls=st.lists(calls, max_size=3),
    usage=st.builds(Usage, st.integers(0, 10**6), st.integers(0, 10**6)),
    duration_ms=st.none() | st.floats(0, 10**7),
    node=st.none() | texts,
)


@given(
    st.lists(step_values, max_size=4),
    st.none() | texts,
    json_values,
    st.none() | texts.filter(bool).map(lambda text: text[:500]),
)
def test_property_round_trip(
    steps: list[Step], run_id: str | None, answer: Any, error: str | None
) -> None:
    """Any run of JSON values reads back as written (a text argument that is itself a JSON
    object is the one exception: the reader parses it, so it is left out here)."""
    for index, step in enumerate(steps):
        step.index = index
    run = Trajectory(run_id=run_id, scenario_id="s", answer=answer, steps=steps, error=error)
    run.usage = sum((s.usage for s in steps), Usage())
    line = trajectory_to_line(run)
    back = run_from_line(line, "x.jsonl:1")
    assert isinstance(back, Trajectory)
    assert back.steps == run.steps
    assert back.answer == answer
    assert back.usage == run.usage
    assert back.error == error


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_path_that_is_not_a_regular_file_is_never_replaced(tmp_path: Path, kind: str) -> None:
    # Regression: the rename put a regular file in place of a FIFO (or of `/dev/full`).
    out = tmp_path / "runs.jsonl"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        out.symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(OSError, match="not a regular file"):
        write_runs_jsonl([Trajectory(run_id="a")], out)
    assert out.is_symlink() if kind == "symlink" else stat.S_ISFIFO(os.lstat(out).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.jsonl"]  # no temporary left
