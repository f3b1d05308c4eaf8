"""Tests for `assay.formats.maseval`: MASEval reports in, one Trajectory per task repetition."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import ReadProblem, trajectories_from_maseval
from assay.records import Trajectory

SAMPLES = Path(__file__).parent / "samples"


def reports() -> list[Any]:
    lines = (SAMPLES / "maseval_results.jsonl").read_bytes().splitlines()
    return [orjson.loads(line) for line in lines if line.strip()]


def test_two_agents_merge_into_one_timeline() -> None:
    (run,) = trajectories_from_maseval(reports()[0], "results.jsonl:1")
    assert isinstance(run, Trajectory)
    assert (run.run_id, run.scenario_id, run.source) == (
        "b6f0c1d2-hotel-001#0",
        "b6f0c1d2-hotel-001",
        "results.jsonl:1",
    )
    assert run.question == "Book a hotel in Lisbon for 12 May, under 150 EUR."
    assert run.answer == "Booked Casa Alfama for 12 May at 132 EUR (confirmation HX-2231)."
    # The orchestrator delegates, the hotel agent works, the orchestrator answers: by time.
    assert [step.node for step in run.steps] == [
        "orchestrator",
        "hotel_agent",
        "hotel_agent",
        "hotel_agent",
        "orchestrator",
    ]
    assert run.tool_names() == ["hotel_agent", "search_hotels", "book_hotel"]
    delegate, search, book = run.tool_calls()
    assert delegate.result == "Booked Casa Alfama, 132 EUR, confirmation HX-2231."
    assert search.args == {"city": "Lisbon", "date": "2025-05-12", "max_price": 150}
    assert book.result == '{"confirmation": "HX-2231"}'
    # Tool invocations duplicate what the messages say; they are not added again.
    assert len(run.tool_calls()) == 3


def test_failed_setup_is_a_problem_with_its_status() -> None:
    (problem,) = trajectories_from_maseval(reports()[1], "results.jsonl:2")
    assert isinstance(problem, ReadProblem)
    assert (
        problem.reason
        == "no agent messages or tool invocations (status setup_failed; KeyError: 'hotels')"
    )


def test_call_ids_pair_within_each_agent_only() -> None:
    report = {
        "task_id": 5,
        "traces": {
            "agents": {
                "a": {
                    "messages": [
                        {
                            "role": "assistant",
                            "tool_calls": [
                                {"id": "call_0", "function": {"name": "fa", "arguments": "{}"}}
                            ],
                        },
                        {"role": "tool", "tool_call_id": "call_0", "content": "from a"},
                    ]
                },
                "b": {
                    "messages": [
                        {
                            "role": "assistant",
                            "tool_calls": [
                                {"id": "call_0", "function": {"name": "fb", "arguments": "{}"}}
                            ],
                        },
                        {"role": "tool", "tool_call_id": "call_0", "content": "from b"},
                    ]
                },
            }
        },
    }
    (run,) = trajectories_from_maseval(report, "x")
    assert isinstance(run, Trajectory)
    assert [(c.name, c.result) for c in run.tool_calls()] == [("fa", "from a"), ("fb", "from b")]
    assert (run.run_id, run.scenario_id) == ("5", "5")  # no repeat_idx: the task id alone
    assert [s.node for s in run.steps] == ["a", "b"]  # no timestamps: agent by agent


def test_tool_invocations_stand_in_when_messages_record_no_calls() -> None:
    traces = {
        "agents": {
            "solo": {
                "name": "solo",
                "messages": [
                    {"role": "user", "content": "go", "timestamp": "2025-01-01T00:00:00"},
                    {"role": "assistant", "content": "done", "timestamp": "2025-01-01T00:00:09"},
                ],
            }
        },
        "tools": {
            "second": {
                "invocations": [
                    {
                        "id": "2",
                        "inputs": {"n": 2},
                        "outputs": "two",
                        "timestamp": "2025-01-01T00:00:05",
                    }
                ]
            },
            "first": {
                "name": "first",
                "invocations": [
                    {
                        "id": "1",
                        "inputs": '{"n": 1}',
                        "outputs": "one",
                        "timestamp": "2025-01-01T00:00:02+00:00",
                    },
                    None,
                ],
            },
        },
    }
    (run,) = trajectories_from_maseval(traces, "bare.json")  # a bare traces object
    assert isinstance(run, Trajectory)
    assert [[c.name for c in s.tool_calls] for s in run.steps] == [["first"], ["second"], []]
    assert run.tool_calls()[0].args == {"n": 1}
    assert run.tool_calls()[1].result == "two"
    assert run.answer == "done"


def test_a_list_of_reports() -> None:
    items = trajectories_from_maseval([*reports(), 3], "all.json")
    assert [type(i).__name__ for i in items] == ["Trajectory", "ReadProblem", "ReadProblem"]
    assert [i.source for i in items] == ["all.json#0", "all.json#1", "all.json#2"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ([], "empty list: no reports"),
        (None, "expected a MASEval report object, got null"),
        ({"task_id": "t"}, "not a MASEval report: no traces object"),
        ({"task_id": "t", "traces": {"agents": {}}}, "no agent messages or tool invocations"),
    ],
)
def test_problems(data: Any, reason: str) -> None:
    (problem,) = trajectories_from_maseval(data, "f")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == reason


HOSTILE: list[Any] = [
    {"traces": {"agents": [], "tools": "x"}},
    {
        "traces": {
            "agents": {"a": None, "b": {"messages": "x"}, "c": {"messages": [None, 1, {"role": 3}]}}
        }
    },
    {"traces": {"agents": {"a": {"messages": [{"role": "user", "content": "x", "timestamp": 5}]}}}},
    {
        "traces": {
            "agents": {
                "a": {
                    "messages": [
                        {"role": "user", "timestamp": "2025-01-01T00:00:00"},
                        {"role": "user", "timestamp": "2025-01-01T00:00:00+05:00"},
                    ]
                }
            }
        }
    },
    {
        "traces": {
            "tools": {
                "t": {"invocations": [{"inputs": [1], "outputs": None, "timestamp": "yesterday"}]}
            }
        }
    },
    {
        "task_id": [],
        "repeat_idx": True,
        "traces": {"agents": {"a": {"name": 3, "messages": [{"role": "assistant"}]}}},
    },
    {"status": 5, "error": {"error_type": 1}, "traces": {}},
]


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(data: Any) -> None:
    before = copy.deepcopy(data)
    items = trajectories_from_maseval(data, "f")
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    assert data == before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "tool", "system"])},
    optional={
        "content": json_values,
        "tool_calls": json_values,
        "tool_call_id": json_values,
        "timestamp": st.sampled_from(["2025-01-01T00:00:01", "2025-01-01T00:00:00+01:00"])
        | json_values,
    },
)
agent_traces = st.dictionaries(
    st.text(max_size=4),
    st.fixed_dictionaries(
        {}, optional={"name": json_values, "messages": st.lists(messages | json_values, max_size=4)}
    )
    | json_values,
    max_size=3,
)


@given(
    st.fixed_dictionaries(
        {
            "traces": st.fixed_dictionaries(
                {}, optional={"agents": agent_traces, "tools": json_values}
            )
        },
        optional={"task_id": json_values, "repeat_idx": json_values},
    )
    | json_values
)
def test_property_never_raises_and_never_mutates(data: Any) -> None:
    before = copy.deepcopy(data)
    items = trajectories_from_maseval(data, "f")
    assert items and all(isinstance(item, Trajectory | ReadProblem) for item in items)
    assert data == before


def _agent_report(status: str, **extra: object) -> dict[str, object]:
    return {
        "task_id": "t-9", "repeat_idx": 1, "status": status,
        "traces": {
            "models": {"main_model": {"type": "LiteLLMModelAdapter", "model_id": "gpt-4o-mini",
                                      "total_calls": 2, "logs": []}},
            "agents": {"solver": {"name": "solver", "messages": [
                {"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}]}},
        },
        **extra,
    }


def test_the_model_status_error_and_eval_are_kept() -> None:
    failed = _agent_report(
        "agent_error", error={"error_type": "AgentError", "error_message": "tool crashed"},
        eval=None,
    )
    (run,) = trajectories_from_maseval(failed, "results.jsonl:3")
    assert isinstance(run, Trajectory)
    assert run.model == "gpt-4o-mini"
    assert run.error == "MASEval status agent_error: AgentError: tool crashed"
    assert run.error_kind == "agent_error"  # never scored
    assert run.source_verdicts == {"status": "agent_error"}

    judged = _agent_report("success", eval=[{"passed": True, "score": 1.0}])
    (run,) = trajectories_from_maseval(judged, "results.jsonl:4")
    assert isinstance(run, Trajectory) and run.error is None and run.answer == "4"
    assert run.source_verdicts == {"status": "success", "eval": [{"passed": True, "score": 1.0}]}

    # An evaluator that failed is the check's failure, not the run's: the run stays whole.
    unjudged = _agent_report(
        "evaluation_failed", error={"error_type": "KeyError", "error_message": "'gold'"}
    )
    (run,) = trajectories_from_maseval(unjudged, "results.jsonl:5")
    assert isinstance(run, Trajectory) and run.error is None
    assert run.source_verdicts == {"status": "evaluation_failed"}
