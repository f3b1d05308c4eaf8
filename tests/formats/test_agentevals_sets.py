"""Tests for `assay.formats.agentevals_sets`: agentevals eval sets (`case_id`, `conversation`)
read as scenarios, through the loader `assay evaluate --scenarios` uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from _cli import assay
from assay.formats import ReadProblem
from assay.formats.agentevals_sets import cases_from_agentevals, looks_like_agentevals
from assay.formats.scenarios import load_scenarios
from assay.records import Case, CaseTurn


def content(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "parts": list(parts)}


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"function_call": {"name": name, "args": args}}


# The shape of agentevals' example eval sets: cases named by `case_id`, the expected reply as
# `agent_content`, the expected calls as a `Content` in `intermediate_data`.
EVAL_SET: dict[str, Any] = {
    "eval_set_id": "pump_agent_eval",
    "eval_cases": [
        {
            "case_id": "greeting",
            "conversation": [
                {
                    "invocation_id": "inv-1",
                    "user_content": content("user", {"text": "Hi! What can you do?"}),
                    "agent_content": content("model", {"text": "I can check pumps and sites."}),
                }
            ],
        },
        {
            "case_id": "pump_status",
            "conversation": [
                {
                    "invocation_id": "inv-1",
                    "user_content": content("user", {"text": "Which pumps are down at MAIN?"}),
                    "agent_content": content("model", {"text": "P-3 is down."}),
                    "intermediate_data": content(
                        "model", call("list_sites"), call("down_assets", site="MAIN", kind="pump")
                    ),
                },
                {
                    "invocation_id": "inv-2",
                    "user_content": content("user", {"text": "Open a work order for it."}),
                    "agent_content": content("model", {"text": "Work order WO-17 is open."}),
                    "intermediate_data": content("model", call("open_work_order", asset="P-3")),
                },
            ],
        },
        {
            # A last turn that only calls a tool, with no `intermediate_data`: the calls are
            # the `function_call` parts of `agent_content`.
            "case_id": "restart",
            "conversation": [
                {
                    "invocation_id": "inv-1",
                    "user_content": content("user", {"text": "Is P-3 still down?"}),
                    "agent_content": content("model", {"text": "Yes."}),
                },
                {
                    "invocation_id": "inv-2",
                    "user_content": content("user", {"text": "Restart it."}),
                    "agent_content": content("model", call("restart_asset", asset="P-3")),
                },
            ],
        },
    ],
}


def write(folder: Path, value: Any, name: str = "eval_set.json") -> Path:
    path = folder / name
    path.write_bytes(orjson.dumps(value))
    return path


def test_an_eval_set_is_read_as_scenarios(tmp_path: Path) -> None:
    cases, problems = load_scenarios([write(tmp_path, EVAL_SET)])

    assert problems == []
    assert list(cases) == ["greeting", "pump_status", "restart"]
    greeting, status, restart = cases.values()

    assert (greeting.id, greeting.question, greeting.expected_answer, greeting.turns) == (
        "greeting",
        "Hi! What can you do?",
        "I can check pumps and sites.",
        None,
    )
    assert greeting.expected_turns == [[]]
    assert greeting.source.endswith("eval_set.json#0")
    assert greeting.metadata["eval_set_id"] == "pump_agent_eval"

    assert status.question == "Which pumps are down at MAIN?"
    assert status.expected_answer == "Work order WO-17 is open."
    assert status.turns == [
        CaseTurn("Which pumps are down at MAIN?", "P-3 is down."),
        CaseTurn("Open a work order for it.", "Work order WO-17 is open."),
    ]
    assert status.expected_turns == [
        [
            {"name": "list_sites", "args": {}},
            {"name": "down_assets", "args": {"site": "MAIN", "kind": "pump"}},
        ],
        [{"name": "open_work_order", "args": {"asset": "P-3"}}],
    ]
    assert [step["name"] for step in status.expected_trajectory or []] == [
        "list_sites",
        "down_assets",
        "open_work_order",
    ]
    # ADK's default tool trajectory criterion: agentevals scores with ADK's evaluators.
    assert (status.trajectory_mode, status.trajectory_args, status.trajectory_threshold) == (
        "EXACT",
        "exact",
        1.0,
    )

    # The last turn only calls a tool: it expects no reply, and so neither does the case.
    assert restart.turns == [CaseTurn("Is P-3 still down?", "Yes."), CaseTurn("Restart it.")]
    assert restart.expected_answer is None
    assert restart.expected_turns == [[], [{"name": "restart_asset", "args": {"asset": "P-3"}}]]


def test_adk_intermediate_data_and_final_response_are_read_too() -> None:
    evalset = {
        "eval_cases": [
            {
                "case_id": 7,
                "conversation": [
                    {
                        "user_content": content("user", {"text": "Roll a d6"}),
                        "final_response": content("model", {"text": "4"}),
                        "intermediate_data": {
                            "tool_uses": [{"name": "roll", "args": {"sides": 6}, "id": "c1"}],
                            "tool_responses": [{"name": "roll", "response": 4, "id": "c1"}],
                        },
                    }
                ],
            }
        ]
    }
    (case,) = cases_from_agentevals(evalset, "e.json")
    assert isinstance(case, Case)
    assert (case.id, case.expected_answer) == ("7", "4")
    assert case.expected_turns == [[{"name": "roll", "args": {"sides": 6}}]]


def test_looks_like_agentevals_tells_it_from_adk_and_scenario_lists() -> None:
    assert looks_like_agentevals(EVAL_SET)
    adk = {"eval_cases": [{"eval_id": "a", "conversation": []}]}
    assert not looks_like_agentevals(adk)
    assert not looks_like_agentevals([{"id": "1", "expected_answer": "x"}])
    assert not looks_like_agentevals({"eval_cases": []})


@pytest.mark.parametrize(
    ("bad_case", "reason"),
    [
        (
            {"conversation": []},
            "agentevals eval set: case without a case_id",
        ),
        (
            {"case_id": "broken", "conversation": {"user_content": "hi"}},
            "agentevals eval set: case 'broken': conversation must be a list of invocations, "
            "got object",
        ),
        (
            {"case_id": "silent"},
            "agentevals eval set: case 'silent' has no conversation",
        ),
        ("greeting", "agentevals eval set: expected a case object, got string"),
    ],
)
def test_a_bad_case_is_a_problem_naming_the_format_and_the_others_are_read(
    tmp_path: Path, bad_case: Any, reason: str
) -> None:
    evalset = {**EVAL_SET, "eval_cases": [EVAL_SET["eval_cases"][0], bad_case]}
    cases, problems = load_scenarios([write(tmp_path, evalset)])
    assert list(cases) == ["greeting"]
    assert [(Path(p.source).name, p.reason) for p in problems] == [("eval_set.json#1", reason)]


def test_an_eval_set_without_cases_names_the_format() -> None:
    (problem,) = cases_from_agentevals({"eval_set_id": "s", "eval_cases": []}, "e.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "agentevals eval set without cases (eval_cases is empty)"
    (problem,) = cases_from_agentevals({"cases": []}, "e.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == "not an agentevals eval set: no eval_cases list"


def test_an_empty_file_is_a_problem(tmp_path: Path) -> None:
    # Nothing in an empty file says which format it was meant to be.
    path = tmp_path / "eval_set.json"
    path.write_bytes(b"")
    cases, problems = load_scenarios([path])
    assert cases == {}
    assert [(p.source, p.reason) for p in problems] == [(str(path), "empty file")]


KEYS = st.sampled_from(
    (
        *("eval_cases", "case_id", "conversation", "user_content", "agent_content"),
        *("final_response", "intermediate_data", "parts", "text", "function_call"),
        *("name", "args", "tool_uses", "x"),
    )
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)
CASE = st.dictionaries(KEYS, JSON, max_size=5).map(lambda case: {"case_id": "c", **case})


@given(JSON | st.lists(CASE | JSON, max_size=4).map(lambda cases: {"eval_cases": cases}))
def test_arbitrary_json_never_raises(value: Any) -> None:
    looks_like_agentevals(value)
    for item in cases_from_agentevals(value, "e.json"):
        assert isinstance(item, Case | ReadProblem)


@pytest.mark.slow  # runs the console script in a new process
def test_evaluate_joins_runs_to_the_eval_set_cases(tmp_path: Path) -> None:
    write(tmp_path, EVAL_SET)

    def step(text: str | None, turn: int, name: str, **args: Any) -> dict[str, Any]:
        tool = {"name": name, "input": args, "id": f"call-{name}"}
        return {"text": text, "tool_calls": [tool], "conversation_turn": turn}

    runs = [
        {
            "run_id": "run-greeting",
            "scenario_id": "greeting",
            "question": "Hi! What can you do?",
            "answer": "I can check pumps and sites.",
            "trajectory": {"turns": [{"text": "I can check pumps and sites."}]},
        },
        {
            "run_id": "run-pump",
            "scenario_id": "pump_status",
            "question": "Which pumps are down at MAIN?",
            "answer": "Work order WO-17 is open.",
            "trajectory": {
                "turns": [
                    step(None, 0, "list_sites"),
                    step("P-3 is down.", 0, "down_assets", site="MAIN", kind="pump"),
                    step("Work order WO-17 is open.", 1, "open_work_order", asset="P-3"),
                ]
            },
        },
    ]
    (tmp_path / "runs.jsonl").write_bytes(b"".join(orjson.dumps(run) + b"\n" for run in runs))

    proc = assay("evaluate", "--trajectories", "runs.jsonl", "--scenarios", "eval_set.json",
                 "--scorer", "response_match", "--scorer", "trajectory",
                 "--reports-dir", "reports", "-q", cwd=tmp_path)  # fmt: skip

    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "reports" / "results.jsonl").read_text().splitlines()
    joined = {row["scenario_id"]: row for row in map(json.loads, lines)}
    assert set(joined) == {"greeting", "pump_status"}
    assert joined["greeting"]["run_id"] == "run-greeting"
    assert joined["pump_status"]["run_id"] == "run-pump"
    assert all(row["score"]["passed"] for row in joined.values()), lines
    summary = json.loads((tmp_path / "reports" / "_aggregate.json").read_text())
    assert summary["not_scored"].get("no_scenario", []) == []
