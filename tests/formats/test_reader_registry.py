"""Tests for `assay.formats.registry`: which reader claims a file, and reading its runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

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
            "--from: READERS)",
        ),
        (b"[1, 2]", "not a run file any reader knows: a list of numbers, with no object in it"),
        (
            b'{"trajectory": []}',
            "not a run file any reader knows: an object with keys trajectory (name the format "
            "with --from: READERS)",
        ),
    ],
)
def test_problems(tmp_path: Path, content: bytes, reason: str) -> None:
    reason = reason.replace("READERS", ", ".join(reader_names()))  # every reader, in order
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


# --- the registry itself --------------------------------------------------------------------


def test_the_builtin_list_is_every_module_that_registers_a_reader() -> None:
    import importlib
    import pkgutil

    import assay.formats
    from assay.formats import registry

    for module in pkgutil.iter_modules(assay.formats.__path__):
        importlib.import_module(f"assay.formats.{module.name}")
    registering = {registry.get_reader(name).module for name in reader_names()}
    assert registering == set(registry.BUILTIN_MODULES)


SHAPES: list[tuple[str, Any]] = [
    ("11.json", {"run_id": "r", "answer": "a", "trajectory": {"turns": []}}),
    ("11.json", {"trajectory": [{"step": 1, "tool": "sites", "response": []}]}),
    ("Q_1_trajectory.json", {"id": 1, "text": "q", "trajectory": [{"task_number": 1}]}),
    ("x.evalset.json", {"eval_set_id": "s", "eval_cases": []}),
    ("x.json", {"task_id": "t", "traces": {}}),
    ("x.json", {"resourceSpans": []}),
    ("x.json", {"run_id": "r", "messages": [{"role": "user", "content": "x"}]}),
    ("x.json", {"messages": [{"type": "human", "content": "x"}]}),
]


@pytest.mark.parametrize(("name", "value"), SHAPES)
def test_one_reader_claims_each_shape(name: str, value: Any) -> None:
    # Readers are asked in order and the first claim wins, but no shape should rely on that.
    from assay.formats import registry

    claims = [r for r in reader_names() if registry.get_reader(r).sniff(name, value)]
    assert len(claims) == 1, claims


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_one_reader_claims_each_sample(name: str) -> None:
    from assay.formats import registry
    from assay.formats._common import jsonl_run_lines, read_bytes

    path = SAMPLES / name
    if name.endswith(".jsonl"):
        line = next(iter(jsonl_run_lines(path)))
        assert not isinstance(line, ReadProblem)
        value = orjson.loads(line[0])
    else:
        data = read_bytes(path)
        assert isinstance(data, bytes)
        value = orjson.loads(data)
    claims = [r for r in reader_names() if registry.get_reader(r).sniff(name.lower(), value)]
    assert claims == [EXPECTED[name]]


def test_reading_assays_own_runs_imports_no_other_reader(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = write(tmp_path / "11.json", {"run_id": "r", "answer": "3"})
    counts = write(tmp_path / "token_counts.json", [120, 80])  # no reader can claim it
    code = (
        "import sys\n"
        "from assay.formats.registry import read_file\n"
        f"assert [r.run_id for r in read_file({str(path)!r})] == ['r']\n"
        f"assert [p.reason[-20:] for p in read_file({str(counts)!r})] == ['with no object in it']\n"
        "print(sorted(m for m in sys.modules if m.startswith('assay.formats.')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.split() == [
        "['assay.formats._common',",
        "'assay.formats.assetopsbench',",
        "'assay.formats.registry']",
    ]


def test_a_reader_registered_from_outside_is_asked_first(tmp_path: Path) -> None:
    from assay.formats.registry import register_reader, unregister_reader

    def sniff(name: str, value: Any) -> bool:
        return name.endswith(".mine.json")

    def read_mine(value: Any, source: str) -> list[Trajectory | ReadProblem]:
        return [Trajectory(run_id=str(value["run_id"]) + "-mine", source=source)]

    register_reader("test-mine", sniff, read_mine, description="a test's own format")
    try:
        with pytest.raises(ValueError, match="already registered"):
            register_reader("test-mine", sniff, read_mine)
        path = write(tmp_path / "a.mine.json", {"run_id": "r", "answer": "3"})
        (run,) = read(path)
        assert isinstance(run, Trajectory) and run.run_id == "r-mine"
        assert reader_names()[-1] == "test-mine"
        (plain,) = read(write(tmp_path / "a.json", {"run_id": "r", "answer": "3"}))
        assert isinstance(plain, Trajectory) and plain.run_id == "r"
    finally:
        unregister_reader("test-mine")
    assert "test-mine" not in reader_names()
    with pytest.raises(UnknownReaderError):
        unregister_reader("otel")  # built-in readers stay


def test_a_named_reader_that_finds_nothing_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "spans.json", {"resourceSpans": []})
    (problem,) = read(path)
    assert isinstance(problem, ReadProblem) and problem.source == str(path)
    path = write_lines(tmp_path / "one.jsonl", [{"resourceSpans": []}])
    items = read(path, "otel")
    assert all(isinstance(item, ReadProblem) for item in items), items


def test_ndjson_files_are_lines_too(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "runs.ndjson", [{"run_id": "a"}, {"run_id": "b"}])
    assert [getattr(item, "run_id", None) for item in read(path)] == ["a", "b"]


def test_lines_are_split_into_units_and_read_alike(tmp_path: Path) -> None:
    import pickle

    from assay.formats.registry import LinePiece, input_pieces, read_piece

    chats = write_lines(
        tmp_path / "chats.jsonl",
        [[{"role": "user", "content": "one"}], [{"role": "user", "content": "two"}]],
    )
    units = list(input_pieces(chats))
    assert [type(unit).__name__ for unit in units] == ["LinePiece", "LinePiece"]
    assert all(isinstance(unit, LinePiece) and unit.reader == "openai" for unit in units)
    copies = [pickle.loads(pickle.dumps(unit)) for unit in units]  # as a worker gets them
    questions = [run.question for unit in copies for run in read_piece(unit)]
    assert questions == ["one", "two"]
    # Spans of one trace may be split over lines: the file is one unit.
    spans = write_lines(tmp_path / "spans.jsonl", [{"resourceSpans": []}, {"resourceSpans": []}])
    assert [type(unit).__name__ for unit in input_pieces(spans)] == ["FilePiece"]


_KEYS = ["run_id", "answer", "trajectory", "turns", "messages", "role", "content", "type",
         "eval_cases", "conversation", "traces", "task_id", "resourceSpans", "traceId", "id",
         "text", "logs", "task_number", "history", "info", "tool", "step"]  # fmt: skip
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(_KEYS), inner, max_size=4),
    max_leaves=25,
)


@given(value=JSON, lines=st.booleans())
def test_any_json_file_gives_runs_or_problems_and_never_raises(
    tmp_path: Path, value: Any, lines: bool
) -> None:
    from hypothesis import assume

    data = orjson.dumps(value)
    assume(data.strip())
    path = tmp_path / ("any.jsonl" if lines else "any.json")
    path.write_bytes(data + b"\n")
    items = read(path)
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    for item in items:
        if isinstance(item, ReadProblem):
            assert item.reason and "\n" not in item.reason
        else:
            item.tool_names()


def test_an_swe_agent_traj_file_is_read_by_its_reader(tmp_path: Path) -> None:
    path = write(
        tmp_path / "django__django-11099.traj",
        {
            "environment": "swe_main",
            "trajectory": [
                {"action": "ls", "observation": "setup.py", "response": "", "thought": ""}
            ],
            "history": [{"role": "system", "content": "You are an agent.", "agent": "primary"}],
            "info": {"model_stats": {"tokens_sent": 10, "tokens_received": 2}},
        },
    )
    assert detect_reader(path) == "swe-agent"
    (run,) = read(path)
    assert isinstance(run, Trajectory) and run.scenario_id == "django__django-11099"
    assert run.tool_names() == ["ls"]



@pytest.mark.parametrize(
    ("value", "resembles"),
    [
        ({"trajectory": [], "info": {}}, "swe-agent (trajectory, info)"),
        ({"eval": {}, "status": "finished", "version": 2}, "inspect (eval, status, version)"),
        ([{"task_id": 1, "traj": [], "info": {}}], "taubench (task_id, traj, info)"),
    ],
)
def test_a_file_no_reader_claims_names_the_formats_it_resembles(
    tmp_path: Path, value: Any, resembles: str
) -> None:
    (problem,) = read(write(tmp_path / "input.json", value))
    assert isinstance(problem, ReadProblem)
    assert f"; it resembles {resembles} (name the format with --from: " in problem.reason
