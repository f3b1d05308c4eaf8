"""Tests for `assay.formats.registry`: which reader claims a file, and reading its runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from assay.cli import convert
from assay.formats import ReadProblem, UnknownReaderError, detect_reader, read_file, reader_names
from assay.records import Trajectory

SAMPLES = Path(__file__).parent / "samples"

EXPECTED = {
    "adk_camel.evalset.json": "adk",
    "adk_dice.test.json": "adk",
    "adk_snake.evalset.json": "adk",
    "langgraph_dicts.json": "langchain",
    "langgraph_serialised.json": "langchain",
    "maseval_results.jsonl": "maseval",
    "openai_parallel.json": "openai",
    "otel_export.json": "otel",
}


def write(path: Path, value: Any) -> Path:
    path.write_bytes(orjson.dumps(value))
    return path


def write_lines(path: Path, values: list[Any]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in values))
    return path


def read(path: Path, fmt: str | None = None) -> list[Trajectory | ReadProblem]:
    return list(read_file(path, fmt))


@pytest.mark.parametrize(("name", "fmt"), sorted(EXPECTED.items()))
def test_every_sample_is_recognised(name: str, fmt: str) -> None:
    assert detect_reader(SAMPLES / name) == fmt


def test_the_command_line_describes_every_reader() -> None:
    for name in reader_names():
        assert f"\n  {name} " in convert.DESCRIPTION, name


@pytest.mark.parametrize(
    ("value", "fmt"),
    [
        ([{"role": "user", "content": "x"}], "openai"),
        ({"messages": [{"role": "user", "content": "x"}]}, "openai"),
        ({"request": {"messages": [{"role": "user", "content": "x"}]}}, "openai"),
        ([[{"role": "user", "content": "x"}]], "openai"),
        ([{"messages": [{"type": "human", "content": "x"}]}], "langchain"),
        (
            [{"role": "assistant", "tool_calls": [{"name": "f", "args": {}, "id": "1"}]}],
            "langchain",
        ),
        ([{"type": "ai", "data": {"content": "x"}}], "langchain"),
        ({"resourceSpans": []}, "otel"),
        ([{"traceId": "t", "spanId": "s"}], "otel"),
        ({"name": "chat", "context": {"trace_id": "0x1"}}, "otel"),
        ({"eval_cases": []}, "adk"),
        ([{"query": "q", "reference": "r"}], "adk"),
        ([{"name": "n", "data": [{"query": "q"}]}], "adk"),
        ([{"eval_id": "e", "conversation": []}], "adk"),
        ({"task_id": "t", "traces": {}}, "maseval"),
        ({"agents": {"a": {"messages": []}}}, "maseval"),
        ([{"task_id": "t", "traces": {}}], "maseval"),
        ({"run_id": "r", "answer": "a"}, "assetopsbench"),
        ([{"run_id": "r", "trajectory": []}], "assetopsbench"),
        ({"something": "else"}, None),
        ([1, 2], None),
        ([], None),
        ("text", None),
    ],
)
def test_format_from_content(tmp_path: Path, value: Any, fmt: str | None) -> None:
    assert detect_reader(write(tmp_path / "input.json", value)) == fmt


def test_unreadable_and_invalid_files_have_no_format(tmp_path: Path) -> None:
    assert detect_reader(tmp_path / "missing.json") is None
    (tmp_path / "bad.json").write_text("{nope")
    assert detect_reader(tmp_path / "bad.json") is None
    (tmp_path / "bad.jsonl").write_text("{nope\n")
    assert detect_reader(tmp_path / "bad.jsonl") is None
    (tmp_path / "empty.jsonl").write_text("\n\n")
    assert detect_reader(tmp_path / "empty.jsonl") is None


def test_a_json_list_of_conversations_gives_one_run_each(tmp_path: Path) -> None:
    path = write(
        tmp_path / "chats.json",
        [
            {"run_id": "own-id", "messages": [{"role": "user", "content": "a"}]},
            {"messages": [{"role": "user", "content": "b"}]},
            {"messages": []},
        ],
    )
    first, second, empty = read(path)
    assert isinstance(first, Trajectory) and isinstance(second, Trajectory)
    assert (first.run_id, first.question, first.source) == ("own-id", "a", f"{path}#0")
    assert (second.run_id, second.source) == ("chats#1", f"{path}#1")  # named from its place
    assert isinstance(empty, ReadProblem)
    assert empty.reason == "no chat messages found (got object)"


def test_one_conversation_is_named_after_the_file(tmp_path: Path) -> None:
    (run,) = read(write(tmp_path / "support-chat.json", [{"role": "user", "content": "q"}]))
    assert isinstance(run, Trajectory) and run.run_id == "support-chat"


def test_jsonl_holds_one_conversation_per_line(tmp_path: Path) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_bytes(
        b'[{"role": "user", "content": "one"}]\n'
        b"\n"
        b"{broken\n"
        b'{"messages": [{"role": "user", "content": "three"}], "scenario_id": 3}\n'
        b"42\n"
    )
    items = read(path)
    assert [type(i).__name__ for i in items] == [
        "Trajectory",
        "ReadProblem",
        "Trajectory",
        "ReadProblem",
    ]
    one, broken, three, number = items
    assert isinstance(one, Trajectory) and isinstance(three, Trajectory)
    assert (one.run_id, one.source) == ("chats:1", f"{path}:1")
    assert broken.source == f"{path}:3" and "invalid JSON" in broken.reason
    assert (three.run_id, three.scenario_id) == ("chats:4", "3")
    assert isinstance(number, ReadProblem) and number.source == f"{path}:5"


def test_jsonl_problems_before_the_first_run_line_are_reported_once(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b'{broken\n{"run_id": "r1", "answer": "3"}\n[1]\n')
    items = read(path)
    assert [type(i).__name__ for i in items] == ["ReadProblem", "Trajectory", "ReadProblem"]
    # A line holding a list is a list of runs, as a file holding one is.
    assert [i.source for i in items] == [f"{path}:1", f"{path}:2", f"{path}:3#0"]

    spans = tmp_path / "spans.jsonl"
    chat = {
        "traceId": "t",
        "spanId": "s",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
    }
    spans.write_bytes(
        b"{broken\n" + orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [chat]}]}]})
    )
    assert [type(i).__name__ for i in read(spans)] == ["ReadProblem", "Trajectory"]


def test_jsonl_whose_first_line_cannot_be_told_goes_on(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "mixed.jsonl", [{"what": 1}, [{"type": "human", "content": "hi"}]]
    )
    problem, run = read(path)
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("not a run any reader knows: an object with keys what")
    assert isinstance(run, Trajectory) and run.question == "hi"


def test_otel_lines_are_joined_across_batches(tmp_path: Path) -> None:
    def chat(span_id: str, start: int) -> dict[str, Any]:
        return {
            "traceId": "t1",
            "spanId": span_id,
            "startTimeUnixNano": str(start),
            "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}],
        }

    path = write_lines(
        tmp_path / "spans.jsonl",
        [
            {"resourceSpans": [{"scopeSpans": [{"spans": [chat("b", 2)]}]}]},
            {"resourceSpans": [{"scopeSpans": [{"spans": [chat("a", 1)]}]}]},
        ],
    )
    (run,) = read(path)
    assert isinstance(run, Trajectory)
    assert (run.run_id, len(run.steps)) == ("t1", 2)


def test_assetopsbench_files_pass_through(tmp_path: Path) -> None:
    path = write(tmp_path / "run.json", {"run_id": "r1", "answer": "3", "trajectory": []})
    (run,) = read(path)
    assert isinstance(run, Trajectory) and (run.run_id, run.answer) == ("r1", "3")
    (again,) = read(path, "assetopsbench")
    assert isinstance(again, Trajectory) and again.run_id == "r1"


def test_a_named_format_is_used_as_is(tmp_path: Path) -> None:
    path = write(
        tmp_path / "x.json", [{"role": "user", "content": "q"}, {"type": "ai", "content": "a"}]
    )
    (as_openai,) = read(path, "openai")
    (as_langchain,) = read(path, "langchain")
    assert isinstance(as_openai, Trajectory) and isinstance(as_langchain, Trajectory)
    assert as_openai.answer is None  # `type` means nothing to the OpenAI reader
    assert as_langchain.answer == "a"
    (wrong,) = read(path, "adk")
    assert isinstance(wrong, ReadProblem)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty file"),
        (b"  \n", "empty file"),
        (b"[1, 2", "invalid JSON: unexpected end of data at line 1 column 6"),
        (
            b'{"what": 1}',
            "not a run file any reader knows: an object with keys what (name the format with "
            "--from: assetopsbench, track1, adk, maseval, otel, openai, langchain)",
        ),
        (
            b'{"trajectory": [{"action": "ls", "observation": ""}], "history": [], "info": {}}',
            "not a run file any reader knows: an object with keys trajectory, history, info "
            "(SWE-agent .traj?)",
        ),
        (
            b'{"trajectory": []}',
            "not a run file any reader knows: an object with keys trajectory (name the format "
            "with --from: assetopsbench, track1, adk, maseval, otel, openai, langchain)",
        ),
    ],
)
def test_problems(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "input.json"
    path.write_bytes(content)
    (problem,) = read(path)
    assert isinstance(problem, ReadProblem)
    assert (problem.source, problem.reason) == (str(path), reason)


def test_unknown_format_name_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UnknownReaderError, match=r"unknown format 'yaml' .*assetopsbench, track1"):
        read(tmp_path / "x.json", "yaml")
    (missing,) = read(tmp_path / "missing.jsonl")
    assert isinstance(missing, ReadProblem) and missing.reason.startswith("cannot read file")


def test_every_sample_reads_without_surprises() -> None:
    for name in EXPECTED:
        items = read(SAMPLES / name)
        runs = [item for item in items if isinstance(item, Trajectory)]
        assert runs, name
        assert all(run.run_id for run in runs), name
