"""Trajectory expectations of scenarios: typed `Case` fields, their problems, ADK eval sets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from assay.formats import ReadProblem, load_scenarios
from assay.formats._scenario_trajectory import FIELDS, read_expectation
from assay.records import Case


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(value))
    return path


def test_scenario_fields_become_case_fields_not_metadata(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "s.json",
        [
            {
                "id": "1",
                "expected_trajectory": ["a", "b"],
                "expected_turns": [["a"], [], ["b"]],
                "trajectory_mode": "EXACT",
                "trajectory_args": "ignore",
                "trajectory_overrides": {"a": ["x.y"]},
                "trajectory_threshold": 0.5,
                "owner": "ops",
            }
        ],
    )
    cases, problems = load_scenarios([path])
    case = cases["1"]
    assert problems == []
    assert case.expected_turns == [["a"], [], ["b"]]
    assert (case.trajectory_mode, case.trajectory_args) == ("EXACT", "ignore")
    assert case.trajectory_overrides == {"a": ["x.y"]}
    assert (case.trajectory_threshold, case.trajectory_problem) == (0.5, None)
    assert case.metadata == {"owner": "ops"}


def test_expected_trajectory_json_takes_the_short_names(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_3"
    write_json(
        folder / "expected_trajectory.json",
        {
            "steps": ["a"],
            "turns": [["a"]],
            "mode": "IN_ORDER",
            "args": "exact",
            "overrides": {"a": "ignore"},
            "threshold": 1,
        },
    )
    cases, problems = load_scenarios([tmp_path])
    case = cases["3"]
    assert problems == []
    assert (case.expected_trajectory, case.expected_turns) == (["a"], [["a"]])
    assert (case.trajectory_mode, case.trajectory_args, case.trajectory_threshold) == (
        "IN_ORDER",
        "exact",
        1.0,
    )
    assert case.trajectory_overrides == {"a": "ignore"}
    assert case.metadata == {}


def test_fields_of_the_wrong_shape_are_problems_the_case_carries(tmp_path: Path) -> None:
    path = write_json(
        tmp_path / "s.json",
        [
            {
                "id": "1",
                "expected_trajectory": ["a"],
                "trajectory_mode": 3,
                "trajectory_overrides": ["a"],
                "trajectory_threshold": "high",
                "expected_turns": [["a"], "b"],
            }
        ],
    )
    cases, problems = load_scenarios([path])
    reasons = [problem.reason for problem in problems]
    assert reasons == [
        "[0].expected_turns[1]: Input should be a valid list, got string",
        "[0].trajectory_mode: Input should be a valid string, got number",
        "[0].trajectory_overrides: Input should be a valid dictionary, got array",
        "[0].trajectory_threshold: Input should be a valid number, got string",
    ]
    assert {problem.source for problem in problems} == {str(path)}
    case = cases["1"]
    assert case.trajectory_problem == "; ".join(f"{path}: {reason}" for reason in reasons)
    assert case.expected_trajectory == ["a"]  # the usable fields stay
    assert case.trajectory_mode is None and case.expected_turns is None


def test_an_out_of_range_threshold_names_its_bound(tmp_path: Path) -> None:
    path = write_json(tmp_path / "s.json", {"scenarios": [{"id": "1", "trajectory_threshold": 2}]})
    _, problems = load_scenarios([path])
    assert [str(problem.reason) for problem in problems] == [
        "scenarios[0].trajectory_threshold: Input should be less than or equal to 1"
    ]


def test_a_broken_expected_trajectory_json_is_a_problem_of_that_file(tmp_path: Path) -> None:
    folder = tmp_path / "scenario_4"
    folder.mkdir()
    (folder / "expected_trajectory.json").write_text('"a"')
    cases, problems = load_scenarios([tmp_path])
    assert [p.reason for p in problems] == ["expected a list of steps or an object, got string"]
    assert cases["4"].trajectory_problem == (
        "expected_trajectory.json: expected a list of steps or an object, got string"
    )


def adk_eval_set() -> dict[str, Any]:
    return {
        "eval_set_id": "home",
        "eval_cases": [
            {
                "eval_id": "den_lights",
                "conversation": [
                    {
                        "user_content": {"parts": [{"text": "Lights off in the den"}]},
                        "final_response": {"parts": [{"text": "Done."}]},
                        "intermediate_data": {
                            "tool_uses": [{"name": "set_state", "args": {"device": "l1"}}]
                        },
                    }
                ],
            }
        ],
    }


def test_adk_eval_sets_are_scenarios_with_the_config_beside_them(tmp_path: Path) -> None:
    write_json(tmp_path / "evals" / "home.evalset.json", adk_eval_set())
    write_json(
        tmp_path / "evals" / "test_config.json",
        {"criteria": {"tool_trajectory_avg_score": {"threshold": 0.8, "match_type": "ANY_ORDER"}}},
    )
    old = [
        {
            "query": "Roll",
            "expected_tool_use": [{"tool_name": "roll", "tool_input": {}}],
            "reference": "4",
        }
    ]
    write_json(tmp_path / "evals" / "dice.test.json", old)
    cases, problems = load_scenarios([tmp_path / "evals"])
    assert problems == []  # test_config.json is read with the eval sets, not as scenarios
    assert sorted(cases) == ["den_lights", "dice"]
    den = cases["den_lights"]
    assert (den.question, den.expected_answer) == ("Lights off in the den", "Done.")
    assert den.expected_turns == [[{"name": "set_state", "args": {"device": "l1"}}]]
    assert (den.trajectory_mode, den.trajectory_threshold) == ("ANY_ORDER", 0.8)
    assert cases["dice"].trajectory_mode == "ANY_ORDER"


def test_a_test_config_without_eval_sets_is_a_problem_not_silence(tmp_path: Path) -> None:
    config = write_json(tmp_path / "test_config.json", {"criteria": {"response_match_score": 1}})
    for path in (tmp_path, config):
        cases, problems = load_scenarios([path])
        assert cases == {}
        assert [p.source for p in problems] == [str(config)]
        assert "holds the criteria of the eval sets beside it" in problems[0].reason


def test_an_invalid_config_is_reported_once_per_eval_set(tmp_path: Path) -> None:
    write_json(tmp_path / "home.evalset.json", adk_eval_set())
    write_json(tmp_path / "test_config.json", {"criteria": {"tool_trajectory_avg_score": "x"}})
    cases, problems = load_scenarios([tmp_path])
    assert [p.source for p in problems] == [str(tmp_path / "test_config.json")]
    problem = cases["den_lights"].trajectory_problem
    assert problem is not None and "criteria.tool_trajectory_avg_score" in problem


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(st.dictionaries(st.sampled_from(sorted(FIELDS)), json_values))
def test_every_field_given_is_either_kept_or_a_problem(obj: dict[str, Any]) -> None:
    problems: list[ReadProblem] = []
    found = read_expectation(obj, "s.json", problems)
    case = found.apply(Case(id="x"))
    for name, value in obj.items():
        kept = getattr(case, name)  # each field is the Case attribute of its name
        if value is None:
            assert kept is None
        elif kept is None:
            assert case.trajectory_problem is not None and name in case.trajectory_problem
    assert len(problems) == (0 if found.problem is None else found.problem.count("; ") + 1)
    if case.trajectory_threshold is not None:
        assert 0.0 <= case.trajectory_threshold <= 1.0
