"""Tests for `assay.formats.adk`: ADK eval sets in, runs and ground-truth cases out."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import ReadProblem, cases_from_adk, trajectories_from_adk
from assay.formats.adk import load_adk_cases
from assay.records import Case, Trajectory, Usage

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> Any:
    return orjson.loads((SAMPLES / name).read_bytes())


def runs_of(items: list[Trajectory | ReadProblem]) -> list[Trajectory]:
    return [item for item in items if isinstance(item, Trajectory)]


def test_snake_case_eval_set() -> None:
    items = trajectories_from_adk(sample("adk_snake.evalset.json"), "s.evalset.json")
    assert [type(item).__name__ for item in items] == ["Trajectory", "Trajectory", "ReadProblem"]
    counted, multi_agent, scenario = items
    assert isinstance(counted, Trajectory) and isinstance(multi_agent, Trajectory)

    assert (counted.run_id, counted.scenario_id, counted.runner) == (
        "wo_count_2017",
        "wo_count_2017",
        "asset_ops_agent",
    )
    assert counted.question == "How many corrective work orders did CWC04009 have in 2017?"
    assert counted.answer == "27"  # the last final response
    assert [step.text for step in counted.steps] == ["14", "27"]
    assert [step.turn for step in counted.steps] == [0, 1]  # an invocation is a turn
    first = counted.steps[0].tool_calls[0]
    assert (first.name, first.args, first.call_id, first.result) == (
        "get_work_orders",
        {"equipment_id": "CWC04009", "year": 2017},
        "adk-1",
        {"count": 14},
    )
    assert counted.steps[1].tool_calls[0].result is None  # no response recorded
    assert counted.source == "s.evalset.json#0"
    assert [m.role for m in counted.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "assistant",
    ]

    # Invocation events: each call its own step, in order, in the invocation's turn, by the
    # agent that made it; the invocation's usage (thinking counted as output) and duration on
    # its last step.
    first, last = multi_agent.steps
    assert multi_agent.tool_names() == ["list_sites", "list_assets"]
    assert [len(step.tool_calls) for step in multi_agent.steps] == [1, 1]
    assert [(step.turn, step.node) for step in multi_agent.steps] == [
        (0, "site_agent"),
        (0, "site_agent"),
    ]
    assert first.tool_calls[0].result == {"result": ["MAIN"]}
    assert (first.usage, first.duration_ms, first.text) == (Usage(), None, None)
    assert last.usage == Usage(300 + 340, 12 + 40 + 18)
    assert (last.duration_ms, multi_agent.duration_ms) == (2250.0, 2250.0)
    assert multi_agent.usage == last.usage
    assert multi_agent.model == "gemini-2.5-flash"

    assert isinstance(scenario, ReadProblem)
    assert scenario.source == "s.evalset.json#2"
    assert "conversation_scenario" in scenario.reason


def test_camel_case_eval_set_reads_the_same() -> None:
    snake = runs_of(trajectories_from_adk(sample("adk_snake.evalset.json"), "x"))[0]
    camel = runs_of(trajectories_from_adk(sample("adk_camel.evalset.json"), "x"))[0]
    assert camel.steps == snake.steps
    assert (camel.question, camel.answer, camel.runner) == (
        snake.question,
        snake.answer,
        snake.runner,
    )


def test_old_test_json_is_one_case_named_after_the_file() -> None:
    (run,) = runs_of(trajectories_from_adk(sample("adk_dice.test.json"), "evals/dice.test.json"))
    assert run.scenario_id == "dice"
    assert run.question == "What can you do?"
    assert run.answer == "I rolled 13 and 4."
    # The first invocation calls nothing: a step without calls keeps its turn.
    assert [(len(step.tool_calls), step.turn) for step in run.steps] == [(0, 0), (1, 1), (1, 1)]
    assert run.steps[1].tool_calls[0].args == {"sides": 17}


def test_old_eval_set_list_with_data() -> None:
    data = [
        {
            "name": "roll_twice",
            "data": [
                {
                    "query": "Roll",
                    "expected_tool_use": [{"tool_name": "roll_die", "tool_input": {}}],
                    "reference": "3",
                }
            ],
            "initial_session": {"app_name": "dice_agent", "user_id": "u", "state": {}},
        },
        "not a case",
    ]
    run, problem = trajectories_from_adk(data, "old.json")
    assert isinstance(run, Trajectory) and isinstance(problem, ReadProblem)
    assert (run.scenario_id, run.runner, run.tool_names()) == (
        "roll_twice",
        "dice_agent",
        ["roll_die"],
    )
    assert problem.source == "old.json#1"


def test_cases_carry_the_expected_answer_and_trajectory() -> None:
    items = cases_from_adk(sample("adk_snake.evalset.json"), "s.evalset.json")
    counted, multi_agent, scenario = items
    assert isinstance(counted, Case) and isinstance(multi_agent, Case)
    assert isinstance(scenario, ReadProblem)
    assert counted.id == "wo_count_2017"
    assert counted.question == "How many corrective work orders did CWC04009 have in 2017?"
    assert counted.expected_answer == "27"
    assert counted.expected_turns == [
        [{"name": "get_work_orders", "args": {"equipment_id": "CWC04009", "year": 2017}}],
        [
            {
                "name": "get_work_orders",
                "args": {"equipment_id": "CWC04009", "year": 2017, "kind": "preventive"},
            }
        ],
    ]
    # All the calls in order, one step each, for checks on runs that record no turns.
    assert counted.expected_trajectory == [turn[0] for turn in counted.expected_turns]
    # ADK's default criterion when no test_config.json is given.
    assert (
        counted.trajectory_mode,
        counted.trajectory_args,
        counted.trajectory_threshold,
        counted.trajectory_problem,
    ) == ("EXACT", "exact", 1.0, None)
    assert counted.metadata == {
        "eval_set_id": "asset_ops_smoke",
        "turns": [
            {
                "user": "How many corrective work orders did CWC04009 have in 2017?",
                "expected_answer": "14",
            },
            {"user": "And preventive ones?", "expected_answer": "27"},
        ],
    }
    # Two calls in one invocation: one turn, the calls in order.
    assert multi_agent.expected_turns == [
        [
            {"name": "list_sites", "args": {}},
            {"name": "list_assets", "args": {"site": "MAIN", "kind": "chiller"}},
        ]
    ]
    assert multi_agent.expected_trajectory == multi_agent.expected_turns[0]


def test_cases_from_camel_case_and_test_json() -> None:
    (camel,) = cases_from_adk(sample("adk_camel.evalset.json"), "c.evalset.json")
    assert isinstance(camel, Case)
    assert camel.metadata["eval_set_id"] == "asset_ops_camel"
    (dice,) = cases_from_adk(sample("adk_dice.test.json"), "dice.test.json")
    assert isinstance(dice, Case)
    # An invocation without calls is a turn without calls, not left out.
    assert dice.expected_turns == [
        [],
        [{"name": "roll_die", "args": {"sides": 17}}, {"name": "roll_die", "args": {"sides": 17}}],
    ]


def test_responses_pair_by_id_then_by_name() -> None:
    data = {
        "eval_cases": [
            {
                "eval_id": "e",
                "conversation": [
                    {
                        "user_content": "plain text user content",
                        "intermediate_data": {
                            "tool_uses": [
                                {"name": "a", "id": "1"},
                                {"name": "b"},
                                {"name": "a", "id": "2"},
                            ],
                            "tool_responses": [
                                {"name": "a", "id": "2", "response": "second a"},
                                {"name": "b", "response": "b by name"},
                                {"name": "a", "id": "9", "response": "unknown id"},
                            ],
                        },
                    }
                ],
            }
        ]
    }
    (run,) = runs_of(trajectories_from_adk(data, "x"))
    assert run.question == "plain text user content"
    calls = run.tool_calls()
    assert [call.result for call in calls] == [None, "b by name", "second a"]
    assert calls[1].args is None


def test_thought_parts_are_not_the_answer() -> None:
    data = {
        "eval_cases": [
            {
                "eval_id": "t",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "q"}]},
                        "final_response": {
                            "parts": [{"text": "thinking...", "thought": True}, {"text": "42"}]
                        },
                    }
                ],
            }
        ]
    }
    assert runs_of(trajectories_from_adk(data, "x"))[0].answer == "42"


PROBLEMS: list[tuple[Any, str]] = [
    ({"eval_set_id": "x"}, "not an ADK eval set: no eval_cases list"),
    ({"eval_cases": []}, "eval set without eval cases"),
    ([], "empty list: no eval cases"),
    ([1, 2], "not an ADK eval set: no eval cases, queries or data"),
    (None, "not an ADK eval set: got null"),
    ("text", "not an ADK eval set: got string"),
    ({"eval_cases": [3]}, "expected an eval case object, got number"),
    ({"eval_cases": [{"conversation": []}]}, "eval case without an eval_id"),
    ({"eval_cases": [{"eval_id": "a"}]}, "eval case 'a' has no conversation"),
    ([{"name": "n", "data": "x"}], "eval case 'n' has no data list"),
    ([{"data": []}], "eval case without a name"),
]


@pytest.mark.parametrize(("data", "reason"), PROBLEMS)
def test_unusable_input_is_a_problem(data: Any, reason: str) -> None:
    for items in (trajectories_from_adk(data, "f.json"), cases_from_adk(data, "f.json")):
        assert len(items) == 1
        assert isinstance(items[0], ReadProblem), items
        assert items[0].reason == reason


HOSTILE: list[Any] = [
    {"eval_cases": [{"eval_id": 1, "conversation": [None, 1, "x", [], {}]}]},
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [{"user_content": {"parts": "x"}, "final_response": [1]}],
            }
        ]
    },
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [
                    {"intermediate_data": {"tool_uses": "x", "tool_responses": [1, None]}}
                ],
            }
        ]
    },
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [
                    {"intermediate_data": {"tool_uses": [{"name": 5, "args": "{bad"}]}}
                ],
            }
        ]
    },
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [
                    {
                        "intermediate_data": {
                            "invocation_events": [
                                None,
                                {"content": "x"},
                                {"content": {"parts": [1, {"function_call": "f"}]}},
                            ]
                        }
                    }
                ],
            }
        ]
    },
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [
                    {
                        "intermediate_data": {
                            "invocation_events": [
                                {"usage_metadata": {"prompt_token_count": "many"}}
                            ]
                        }
                    }
                ],
            }
        ]
    },
    {
        "eval_cases": [
            {
                "eval_id": "a",
                "conversation": [{"duration": -5}, {"duration": "long"}, {"duration": True}],
            }
        ]
    },
    {"evalCases": [{"evalId": "a", "conversation": [], "sessionInput": "x"}]},
    [{"query": None, "expected_tool_use": "x", "reference": 5}],
    [{"query": "q", "expected_tool_use": [None, {"tool_name": None, "tool_input": [1]}]}],
]


@pytest.mark.parametrize("data", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_input_never_raises(data: Any) -> None:
    before = copy.deepcopy(data)
    for items in (trajectories_from_adk(data, "f"), cases_from_adk(data, "f")):
        assert items and all(isinstance(item, Trajectory | Case | ReadProblem) for item in items)
    assert data == before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
ADK_KEYS = [
    "eval_id",
    "conversation",
    "user_content",
    "final_response",
    "intermediate_data",
    "tool_uses",
    "tool_responses",
    "invocation_events",
    "parts",
    "text",
    "function_call",
    "name",
    "args",
    "id",
]
adk_like = st.recursive(
    json_values,
    lambda inner: (
        st.dictionaries(st.sampled_from(ADK_KEYS), inner, max_size=4) | st.lists(inner, max_size=3)
    ),
    max_leaves=15,
)


@given(
    st.dictionaries(st.sampled_from(["eval_cases", "evalCases", "eval_set_id"]), adk_like)
    | adk_like
)
def test_property_never_raises_and_never_mutates(data: Any) -> None:
    before = copy.deepcopy(data)
    assert trajectories_from_adk(data, "f")
    assert cases_from_adk(data, "f")
    assert data == before


# --- test_config.json: the tool trajectory criterion ---------------------------------------


def write_eval_set(folder: Path, config: Any = None, *, raw_config: str | None = None) -> Path:
    """An eval set in the shape `adk web` saves, with a `test_config.json` beside it."""
    folder.mkdir(parents=True, exist_ok=True)
    evalset = {
        "eval_set_id": "home",
        "eval_cases": [
            {
                "eval_id": "lights",
                "conversation": [
                    {
                        "invocation_id": "i-1",
                        "user_content": {"parts": [{"text": "Hi"}], "role": "user"},
                        "final_response": {"parts": [{"text": "Hello!"}], "role": "model"},
                        "intermediate_data": {"tool_uses": [], "intermediate_responses": []},
                    },
                    {
                        "invocation_id": "i-2",
                        "user_content": {"parts": [{"text": "Lights off in the den"}]},
                        "final_response": {"parts": [{"text": "Done."}]},
                        "intermediate_data": {
                            "tool_uses": [
                                {"id": None, "name": "get_devices", "args": {"room": "den"}},
                                {"id": None, "name": "set_state", "args": {"device": "l1"}},
                            ]
                        },
                    },
                ],
            }
        ],
    }
    path = folder / "home.evalset.json"
    path.write_bytes(orjson.dumps(evalset))
    if raw_config is not None:
        (folder / "test_config.json").write_text(raw_config)
    elif config is not None:
        (folder / "test_config.json").write_bytes(orjson.dumps(config))
    return path


@pytest.mark.parametrize(
    ("config", "options"),
    [
        (None, ("EXACT", "exact", 1.0)),
        ({"criteria": {"response_match_score": 0.8}}, ("EXACT", "exact", 1.0)),
        ({"criteria": {"tool_trajectory_avg_score": 0.75}}, ("EXACT", "exact", 0.75)),
        ({"criteria": {"tool_trajectory_avg_score": 1}}, ("EXACT", "exact", 1.0)),
        (
            {
                "criteria": {
                    "tool_trajectory_avg_score": {"threshold": 0.9, "match_type": "IN_ORDER"}
                }
            },
            ("IN_ORDER", "exact", 0.9),
        ),
        (
            {
                "criteria": {
                    "tool_trajectory_avg_score": {
                        "threshold": 1.0,
                        "matchType": "any_order",
                        "ignoreArgs": True,
                    }
                }
            },
            ("ANY_ORDER", "ignore", 1.0),
        ),
        (
            {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.5, "match_type": 1}}},
            ("IN_ORDER", "exact", 0.5),
        ),
    ],
)
def test_the_criterion_beside_the_eval_set_sets_the_case_options(
    tmp_path: Path, config: Any, options: tuple[str, str, float]
) -> None:
    (case,) = load_adk_cases(write_eval_set(tmp_path, config))
    assert isinstance(case, Case)
    assert (case.trajectory_mode, case.trajectory_args, case.trajectory_threshold) == options
    assert case.trajectory_problem is None
    # The invocation without calls keeps its place; calls stay in order.
    assert case.expected_turns == [
        [],
        [
            {"name": "get_devices", "args": {"room": "den"}},
            {"name": "set_state", "args": {"device": "l1"}},
        ],
    ]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ("[]", "test_config.json must be a JSON object, got array"),
        ("{not json", "invalid JSON"),
        ('{"criteria": 1}', "criteria must be an object, got number"),
        (
            '{"criteria": {"tool_trajectory_avg_score": "high"}}',
            "criteria.tool_trajectory_avg_score must be a threshold between 0 and 1 or an object",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": 1.5}}',
            "criteria.tool_trajectory_avg_score must be a threshold",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"match_type": "EXACT"}}}',
            "tool_trajectory_avg_score.threshold must be a number between 0 and 1 (missing)",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"threshold": true}}}',
            "tool_trajectory_avg_score.threshold must be a number between 0 and 1 (got True)",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "SOME"}}}',
            "tool_trajectory_avg_score.match_type must be one of EXACT, IN_ORDER, ANY_ORDER, "
            "got 'SOME'",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": 7}}}',
            "criteria.tool_trajectory_avg_score.match_type must be one of",
        ),
        (
            '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "ignore_args": "yes"}}}',
            "criteria.tool_trajectory_avg_score.ignore_args must be true or false, got 'yes'",
        ),
    ],
)
def test_an_invalid_config_is_a_problem_and_the_cases_say_so(
    tmp_path: Path, config: str, field: str
) -> None:
    problem, case = load_adk_cases(write_eval_set(tmp_path, raw_config=config))
    assert isinstance(problem, ReadProblem) and isinstance(case, Case)
    assert problem.source == str(tmp_path / "test_config.json")
    assert field in problem.reason
    assert case.trajectory_problem == f"{problem.source}: {problem.reason}"
    assert case.trajectory_mode is None and case.expected_answer == "Done."


def test_an_unreadable_eval_set_file_is_one_problem(tmp_path: Path) -> None:
    broken = tmp_path / "x.evalset.json"
    broken.write_text("{")
    (problem,) = load_adk_cases(broken)
    assert isinstance(problem, ReadProblem) and "invalid JSON" in problem.reason
    (missing,) = load_adk_cases(tmp_path / "absent.evalset.json")
    assert isinstance(missing, ReadProblem) and missing.reason.startswith("cannot read file")
    empty = tmp_path / "e.test.json"
    empty.write_text("  ")
    assert load_adk_cases(empty) == [ReadProblem(str(empty), "empty file")]
