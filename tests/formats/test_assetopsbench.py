"""Tests for `assay.formats.assetopsbench`: saved runs in, Trajectories and ReadProblems out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.formats import ReadProblem, iter_input_files, read_runs, trajectory_from_record
from assay.formats._common import MistypedId
from assay.formats.ids import scenario_key
from assay.records import Step, ToolCall, Trajectory, Usage

# A run as an SDK-style agent saves it: turns with text, tool calls, tokens and durations.
SDK_RUN: dict[str, Any] = {
    "run_id": "b3f1c2e0-5d6a-4c1e-9a57-0f2d8e1c4b7a",
    "scenario_id": 11,
    "runner": "openai-agents",
    "model": "litellm_proxy/Azure/gpt-5-mini-2025-08-07",
    "question": "How many storage-related work orders were energy vs material for CWC04009?",
    "answer": '{"energy": 14, "material": 27}',
    "trajectory": {
        "turns": [
            {
                "index": 1,
                "text": "I will look up the work orders first.",
                "tool_calls": [
                    {
                        "name": "get_work_orders",
                        "arguments": '{"equipment_id": "CWC04009", "year": 2017}',
                        "output": {"count": 41},
                        "id": "call_0",
                    },
                    {
                        "name": "get_asset",
                        "input": {"asset_id": "CWC04009"},
                        "result": "Chiller 9",
                        "call_id": 17,
                    },
                ],
                "input_tokens": 812,
                "output_tokens": 64,
                "duration_ms": 1520.5,
            },
            {
                "index": 2,
                "content": [
                    {"type": "text", "text": "Grouping "},
                    {"type": "text", "text": "now."},
                ],
                "tool_calls": [
                    {"name": "group_by_cause", "args": "not json {"},
                    {"name": "summarise", "arguments": "[1, 2]"},
                ],
                "usage": {"prompt_tokens": 1040, "completion_tokens": "31"},
                "duration_ms": 980,
            },
            {
                "index": 3,
                "text": '{"energy": 14, "material": 27}',
                "prompt_tokens": 1100,
                "completion_tokens": 22,
                "duration_s": 0.5,
            },
        ]
    },
}

# A run as the plan-execute runner saves it: step results, run-level token totals.
PLAN_EXECUTE_RUN: dict[str, Any] = {
    "run_id": "pe-0042",
    "scenario_id": "scenario_42",
    "runner": "plan-execute",
    "model": "watsonx/meta-llama/llama-3-3-70b-instruct",
    "question": "List the sites available in the IoT server.",
    "answer": "The available site is MAIN.",
    "tokens_in": 5321,
    "tokens_out": 412,
    "duration_s": 12.25,
    "trajectory": [
        {"step": 1, "server": "iot", "tool": "sites", "tool_args": {}, "response": ["MAIN"]},
        {
            "step": 2,
            "server": "iot",
            "tool": "assets",
            "args": '{"site": "MAIN"}',
            "result": {"assets": ["CH-1", "CH-2"]},
        },
        {"step": 3, "server": None, "tool": None, "response": "The available site is MAIN."},
    ],
}


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(value))
    return path


def only_run(items: list[Trajectory | ReadProblem]) -> Trajectory:
    assert len(items) == 1, items
    assert isinstance(items[0], Trajectory), items[0]
    return items[0]


def only_problem(items: list[Trajectory | ReadProblem]) -> ReadProblem:
    assert len(items) == 1, items
    assert isinstance(items[0], ReadProblem), items[0]
    return items[0]


# --- SDK turns ----------------------------------------------------------------------------


def test_sdk_run_becomes_a_full_trajectory(tmp_path: Path) -> None:
    path = write_json(tmp_path / "11.json", SDK_RUN)
    run = only_run(list(read_runs(path)))

    assert run.source == str(path)
    assert run.run_id == SDK_RUN["run_id"]
    assert run.scenario_id == "11"
    assert run.runner == "openai-agents"
    assert run.model == "litellm_proxy/Azure/gpt-5-mini-2025-08-07"
    assert run.answer == '{"energy": 14, "material": 27}'
    assert [step.index for step in run.steps] == [0, 1, 2]
    assert run.tool_names() == ["get_work_orders", "get_asset", "group_by_cause", "summarise"]

    first, second, third = run.steps
    assert first.text == "I will look up the work orders first."
    assert second.text == "Grouping now."
    assert third.text == '{"energy": 14, "material": 27}'

    orders, asset = first.tool_calls
    assert orders.args == {"equipment_id": "CWC04009", "year": 2017}  # JSON text parsed
    assert orders.result == {"count": 41}
    assert orders.call_id == "call_0"
    assert asset.args == {"asset_id": "CWC04009"}
    assert asset.result == "Chiller 9"
    assert asset.call_id == "17"
    group, summarise = second.tool_calls
    assert group.args == "not json {"  # unparsable text kept raw
    assert summarise.args == "[1, 2]"  # parses, but not to an object: kept raw

    assert first.usage == Usage(812, 64)
    assert second.usage == Usage(1040, 31)  # usage dict, numeric text accepted
    assert third.usage == Usage(1100, 22)
    assert run.usage == Usage(812 + 1040 + 1100, 64 + 31 + 22)
    assert (first.duration_ms, second.duration_ms, third.duration_ms) == (1520.5, 980.0, 500.0)
    assert run.duration_ms == pytest.approx(3000.5)


def test_malformed_turns_keep_what_is_usable() -> None:
    record = {
        "run_id": "r-messy",
        "answer": "3",
        "trajectory": {
            "turns": [
                "a bare string turn",
                None,
                42,
                {
                    "tool_calls": [
                        {"args": {"x": 1}},  # no name: kept with name ""
                        {"name": 7, "arguments": "{}"},  # name not text: kept with name ""
                        {
                            "type": "function",
                            "id": "c9",
                            "function": {"name": "lookup", "arguments": '{"q": "pump"}'},
                        },
                        "plain_tool_name",
                        None,  # not a call: dropped
                        ["nested"],  # not a call: dropped
                    ],
                    "input_tokens": "garbage",
                    "output_tokens": True,
                    "duration_ms": "slow",
                },
                {
                    "tool_calls": "not a list",
                    "input_tokens": -5,
                    "output_tokens": 7.9,
                    "duration_ms": -3,
                },
                {"input_tokens": "12", "output_tokens": " 8 ", "duration_ms": "250"},
            ]
        },
    }
    run = trajectory_from_record(record, "messy.json")
    assert [step.index for step in run.steps] == [0, 1, 2, 3]
    assert run.steps[0].text == "a bare string turn"
    assert run.tool_names() == ["", "", "lookup", "plain_tool_name"]
    lookup = run.steps[1].tool_calls[2]
    assert (lookup.args, lookup.call_id) == ({"q": "pump"}, "c9")
    assert run.steps[1].usage == Usage(None, None)  # garbage and booleans are not counts
    assert run.steps[2].usage == Usage(None, 7)  # negative: not a count; float truncated
    assert run.steps[3].usage == Usage(12, 8)
    assert [step.duration_ms for step in run.steps] == [None, None, None, 250.0]
    assert run.duration_ms == 250.0


# --- plan-execute -------------------------------------------------------------------------


def test_plan_execute_run_uses_record_totals(tmp_path: Path) -> None:
    path = write_json(tmp_path / "pe.json", PLAN_EXECUTE_RUN)
    run = only_run(list(read_runs(path)))

    assert run.scenario_id == "scenario_42"  # kept as written; the join normalises
    assert run.tool_names() == ["sites", "assets"]
    sites, assets, final = run.steps
    assert sites.tool_calls[0].args == {}
    assert sites.tool_calls[0].result == ["MAIN"]
    assert assets.tool_calls[0].args == {"site": "MAIN"}
    assert assets.tool_calls[0].result == {"assets": ["CH-1", "CH-2"]}
    assert final.tool_calls == []
    assert final.text == "The available site is MAIN."
    assert run.usage == Usage(5321, 412)
    assert run.duration_ms == 12250.0


def test_step_tokens_win_over_record_totals() -> None:
    record = {
        "run_id": "r",
        "tokens_in": 999,
        "tokens_out": 999,
        "trajectory": {"turns": [{"input_tokens": 10, "output_tokens": 2}]},
    }
    assert trajectory_from_record(record, "x").usage == Usage(10, 2)


def test_record_level_usage_dict_and_duration_ms() -> None:
    record = {
        "run_id": "r",
        "usage": {"input_tokens": 40, "output_tokens": 4},
        "duration_ms": 321,
        "trajectory": {"turns": [{"text": "hi"}]},
    }
    run = trajectory_from_record(record, "x")
    assert run.usage == Usage(40, 4)
    assert run.duration_ms == 321.0


def test_trajectory_stored_as_json_text() -> None:
    record = {"run_id": "r", "trajectory": orjson.dumps(PLAN_EXECUTE_RUN["trajectory"]).decode()}
    assert trajectory_from_record(record, "x").tool_names() == ["sites", "assets"]


# --- fields -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (11, "11"),
        (11.0, "11.0"),
        ("011", "011"),
        ("scenario_11", "scenario_11"),
        (None, None),
        # No id: kept as what it held, for the reader to refuse the run with that reason.
        (True, "a boolean"),
        ([11], "an array"),
    ],
)
def test_ids_are_stringified_not_normalised(raw: Any, expected: str | None) -> None:
    run = trajectory_from_record({"run_id": raw, "scenario_id": raw}, "x")
    assert (run.run_id, run.scenario_id) == (expected, expected)
    if raw is True or isinstance(raw, list):
        assert isinstance(run.run_id, MistypedId) and scenario_key(run.scenario_id) is None


@pytest.mark.parametrize("answer", ["", "42", 42, {"energy": 14}, ["a"], None, False])
def test_answer_is_kept_exactly(answer: Any) -> None:
    assert trajectory_from_record({"run_id": "r", "answer": answer}, "x").answer == answer


def test_missing_fields() -> None:
    run = trajectory_from_record({"run_id": "r"}, "runs.jsonl:4")
    assert run.answer is None
    assert run.scenario_id is None
    assert run.steps == []
    assert run.usage == Usage(None, None)  # never recorded: unknown, not 0
    assert run.duration_ms is None
    assert run.source == "runs.jsonl:4"


@pytest.mark.parametrize("trajectory", [None, 3, "not json", {"turns": None}, {"turns": {}}, {}])
def test_unusable_trajectory_gives_no_steps(trajectory: Any) -> None:
    assert trajectory_from_record({"run_id": "r", "trajectory": trajectory}, "x").steps == []


# --- files --------------------------------------------------------------------------------


def test_json_list_of_runs(tmp_path: Path) -> None:
    path = write_json(tmp_path / "runs.json", [SDK_RUN, 7, PLAN_EXECUTE_RUN, {"foo": 1}])
    items = list(read_runs(path))
    assert [item.source for item in items] == [f"{path}#{i}" for i in range(4)]
    assert isinstance(items[0], Trajectory)
    assert isinstance(items[1], ReadProblem)
    assert items[1].reason == "expected a run object, got number"
    assert isinstance(items[2], Trajectory)
    assert isinstance(items[3], ReadProblem)
    assert items[3].reason.startswith("not a run")


def test_jsonl_bad_line_does_not_stop_reading(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    lines = [
        orjson.dumps(SDK_RUN),
        b"",
        b"{not json",
        b"   ",
        b'"just a string"',
        orjson.dumps(PLAN_EXECUTE_RUN) + b"\r",  # CRLF line ending
    ]
    path.write_bytes(b"\n".join(lines) + b"\n")
    items = list(read_runs(path))
    assert [item.source for item in items] == [f"{path}:{n}" for n in (1, 3, 5, 6)]
    assert isinstance(items[0], Trajectory)
    assert isinstance(items[1], ReadProblem)
    assert items[1].reason.startswith("invalid JSON: ")
    assert "line 1 column" in items[1].reason
    assert isinstance(items[2], ReadProblem)
    assert items[2].reason == "expected a run object, got string"
    assert isinstance(items[3], Trajectory)
    assert items[3].run_id == "pe-0042"


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("broken.json", b'{"run_id": "r1", "answer": ', "invalid JSON: "),
        ("empty.json", b"", "empty file"),
        ("blank.json", b" \n\t\n", "empty file"),
        ("empty.jsonl", b"\n\n", "empty file"),
        ("numbers.json", b"[1, 2, 3]", None),
        ("number.json", b"12", "expected a run object or a list of runs, got number"),
        ("string.json", b'"r1"', "expected a run object or a list of runs, got string"),
        ("latin1.json", '{"answer": "caf\xe9"}'.encode("latin-1"), "not UTF-8: "),
        ("nested.json", b"[" * 5000 + b"]" * 5000, "invalid JSON: "),
        ("empty_list.json", b"[]", "empty list: no runs"),
    ],
)
def test_unusable_files_are_problems(
    tmp_path: Path, name: str, content: bytes, reason: str | None
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    items = list(read_runs(path))
    assert items
    assert all(isinstance(item, ReadProblem) for item in items)
    if reason is not None:
        problem = only_problem(items)
        assert problem.source == str(path)
        assert problem.reason.startswith(reason), problem.reason
        assert "\n" not in problem.reason


def test_list_of_numbers_is_one_problem_per_item(tmp_path: Path) -> None:
    path = write_json(tmp_path / "numbers.json", [1, 2, 3])
    items = list(read_runs(path))
    assert [(p.source, p.reason) for p in items if isinstance(p, ReadProblem)] == [
        (f"{path}#{i}", "expected a run object, got number") for i in range(3)
    ]


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps(SDK_RUN))
    assert only_run(list(read_runs(path))).run_id == SDK_RUN["run_id"]


def test_missing_path_is_a_problem(tmp_path: Path) -> None:
    problem = only_problem(list(read_runs(tmp_path / "nope.json")))
    assert problem.reason == "cannot read file: No such file or directory"


def test_directory_walk(tmp_path: Path) -> None:
    write_json(tmp_path / "b" / "2.json", PLAN_EXECUTE_RUN)
    write_json(tmp_path / "a.json", SDK_RUN)
    (tmp_path / "c.jsonl").write_bytes(orjson.dumps(SDK_RUN) + b"\n")
    write_json(tmp_path / "UPPER.JSON", SDK_RUN)
    write_json(tmp_path / ".hidden" / "x.json", SDK_RUN)
    write_json(tmp_path / ".dot.json", SDK_RUN)
    write_json(tmp_path / "b" / ".cache" / "y.json", SDK_RUN)
    (tmp_path / "notes.txt").write_text("not a run")
    (tmp_path / "report.json.bak").write_text("{}")

    files = list(iter_input_files(tmp_path))
    # Stable order without listing the whole tree first: a directory's files (sorted), then
    # its subdirectories (sorted).
    assert [f.relative_to(tmp_path).as_posix() for f in files] == [
        "UPPER.JSON",
        "a.json",
        "c.jsonl",
        "b/2.json",
    ]
    items = list(read_runs(tmp_path))
    assert [item.source for item in items] == [
        str(tmp_path / "UPPER.JSON"),
        str(tmp_path / "a.json"),
        f"{tmp_path / 'c.jsonl'}:1",
        str(tmp_path / "b" / "2.json"),
    ]
    assert all(isinstance(item, Trajectory) for item in items)


def test_empty_directory_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("no runs here")
    assert list(iter_input_files(tmp_path)) == []
    problem = only_problem(list(read_runs(tmp_path)))
    assert (problem.source, problem.reason) == (
        str(tmp_path),
        "no .json, .jsonl, .ndjson, .eval or .traj files in directory",
    )


def test_a_file_is_its_own_input(tmp_path: Path) -> None:
    path = tmp_path / "run.txt"  # explicit files are read whatever their suffix
    path.write_bytes(orjson.dumps(SDK_RUN))
    assert list(iter_input_files(path)) == [path]
    assert only_run(list(read_runs(path))).source == str(path)


def test_read_runs_is_lazy(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(SDK_RUN) for _ in range(3)))
    iterator = read_runs(path)
    assert isinstance(next(iterator), Trajectory)


# --- properties ---------------------------------------------------------------------------

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "run_id",
                    "scenario_id",
                    "answer",
                    "trajectory",
                    "turns",
                    "tool_calls",
                    "name",
                    "args",
                    "arguments",
                    "input_tokens",
                    "output_tokens",
                    "usage",
                    "duration_ms",
                    "tool",
                    "tool_args",
                    "response",
                    "tokens_in",
                    "tokens_out",
                    "text",
                    "function",
                ]
            )
            | st.text(max_size=4),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


@given(
    record=st.dictionaries(
        st.sampled_from(
            ["run_id", "scenario_id", "answer", "trajectory", "tokens_in", "duration_s", "model"]
        ),
        _json,
    )
)
def test_trajectory_from_record_never_raises(record: dict[str, Any]) -> None:
    run = trajectory_from_record(record, "x")
    for tokens in (run.usage.input_tokens, run.usage.output_tokens):
        assert tokens is None or (type(tokens) is int and tokens >= 0)
    assert all(isinstance(name, str) for name in run.tool_names())


@settings(max_examples=examples(200))
@given(
    content=st.one_of(st.binary(max_size=200), _json.map(orjson.dumps)),
    suffix=st.sampled_from([".json", ".jsonl"]),
)
def test_read_runs_never_raises_on_arbitrary_bytes(
    tmp_path: Path, content: bytes, suffix: str
) -> None:
    path = tmp_path / f"fuzz{suffix}"
    path.write_bytes(content)
    for item in read_runs(path):
        assert isinstance(item, Trajectory | ReadProblem)
        if isinstance(item, ReadProblem):
            assert item.reason
            assert "\n" not in item.reason


def test_special_files_named_like_runs_are_problems_not_hangs(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "pipe.json")
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    items = list(read_runs(tmp_path))
    assert [(Path(p.source).name, p.reason) for p in items if isinstance(p, ReadProblem)] == [
        ("pipe.json", "cannot read file: not a regular file"),
        ("pipe.jsonl", "cannot read file: not a regular file"),
        ("zero.json", "cannot read file: not a regular file"),
    ]


def test_a_recorded_failure_is_kept_as_one_line() -> None:
    as_object = trajectory_from_record(
        {"run_id": "r", "error": {"type": "BadRequestError", "message": "context length exceeded"}},
        "x.json",
    )
    assert as_object.error == "BadRequestError: context length exceeded"
    assert trajectory_from_record({"run_id": "r", "error": "timed out"}, "x.json").error == (
        "timed out"
    )
    for nothing in (None, "", False):
        assert trajectory_from_record({"run_id": "r", "error": nothing}, "x.json").error is None
    assert len(trajectory_from_record({"run_id": "r", "error": "x" * 9999}, "x").error or "") == 500


# --- deferred steps: the figures read without building steps are those of the steps ------

_counts = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["12", "1.5", "x", "", "1e3", "-4"]),
)
_names = st.one_of(st.text(max_size=6), st.none(), st.integers(0, 3), st.booleans())
_calls = st.one_of(
    st.text(max_size=5),
    st.dictionaries(
        st.sampled_from(["name", "input", "args", "arguments", "id", "output"]),
        st.one_of(
            _names, st.dictionaries(st.text(max_size=3), st.integers(-(2**40), 2**40), max_size=2)
        ),
        max_size=4,
    ),
    st.fixed_dictionaries({"function": st.fixed_dictionaries({"name": _names})}),
    st.none(),
    st.integers(-(2**40), 2**40),
)
_step_fields = {
    "input_tokens": _counts,
    "output_tokens": _counts,
    "prompt_tokens": _counts,
    "completion_tokens": _counts,
    "usage": st.fixed_dictionaries(
        {}, optional={"input_tokens": _counts, "output_tokens": _counts}
    ),
    "duration_ms": _counts,
    "duration_s": _counts,
    "text": st.one_of(st.text(max_size=5), st.none()),
}
_turns = st.fixed_dictionaries(
    {}, optional={**_step_fields, "tool_calls": st.one_of(st.lists(_calls, max_size=4), _names)}
)
_plan_steps = st.fixed_dictionaries(
    {}, optional={**_step_fields, "tool": _names, "response": _names, "task": _names}
)
_items = st.lists(
    st.one_of(
        _turns,
        _plan_steps,
        st.text(max_size=4),
        st.none(),
        st.integers(-(2**40), 2**40),
        st.lists(st.none()),
    ),
    max_size=6,
)
_trajectories = st.one_of(
    st.fixed_dictionaries({"turns": _items}),
    _items,
    _items.map(lambda items: orjson.dumps(items).decode()),
    st.none(),
    st.text(max_size=5),
)


@settings(max_examples=examples(400))
@given(
    trajectory=_trajectories,
    tokens=st.fixed_dictionaries({}, optional={"tokens_in": _counts, "tokens_out": _counts}),
)
def test_figures_read_from_the_record_are_those_of_the_steps(
    trajectory: Any, tokens: dict[str, Any]
) -> None:
    record = {"run_id": "r", "answer": "x", "trajectory": trajectory, "duration_ms": 7, **tokens}
    run = trajectory_from_record(record, "runs.json")
    names, count = run.tool_names(), run.step_count()
    usage, duration = run.usage, run.duration_ms
    steps = run.steps
    assert names == [call.name for step in steps for call in step.tool_calls]
    assert count == len(steps)
    step_usage = sum((step.usage for step in steps), Usage())
    if step_usage.recorded:
        assert usage == step_usage
    durations = [step.duration_ms for step in steps if step.duration_ms is not None]
    assert duration == (sum(durations) if durations else 7.0)


def test_steps_assigned_after_reading_are_the_steps_seen() -> None:
    # Regression: steps were once built lazily, and figures read before assigning new steps
    # (tool names, step count) kept describing the old ones.
    record = {
        "run_id": "r1",
        "trajectory": {"turns": [{"text": "t", "tool_calls": [{"name": "a", "input": {"x": 1}}]}]},
    }
    run = trajectory_from_record(record, "runs.json")
    run.steps = [Step(index=0, tool_calls=[ToolCall("b"), ToolCall("c")])]
    assert (run.tool_names(), run.step_count()) == (["b", "c"], 1)
    assert trajectory_from_record(record, "runs.json").steps[0].tool_calls[0].args == {"x": 1}


def test_a_run_file_larger_than_one_read_is_read_whole(tmp_path: Path) -> None:
    # Past the reader's chunk size (1 MiB), and with a long answer in the middle of it.
    answer = "x" * (3 * (1 << 20))
    path = tmp_path / "big.json"
    path.write_bytes(orjson.dumps({"run_id": "big", "answer": answer}))
    [run] = list(read_runs(path))
    assert isinstance(run, Trajectory) and run.answer == answer


def test_an_empty_file_and_a_file_of_exactly_one_chunk(tmp_path: Path) -> None:
    (tmp_path / "empty.json").write_bytes(b"")
    [problem] = list(read_runs(tmp_path / "empty.json"))
    assert isinstance(problem, ReadProblem) and problem.reason == "empty file"
    exact = orjson.dumps({"run_id": "r", "answer": ""})
    exact = exact[:-1] + b" " * ((1 << 20) - len(exact)) + b"}"
    assert len(exact) == 1 << 20
    (tmp_path / "exact.json").write_bytes(exact)
    [run] = list(read_runs(tmp_path / "exact.json"))
    assert isinstance(run, Trajectory) and run.run_id == "r"
