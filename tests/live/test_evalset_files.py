"""Eval-set and config files: shapes read, problems named, round trips, ADK sets, schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.cli.main import main
from assay.evaluation import (
    CriterionConfig,
    EvalCase,
    EvalConfig,
    EvalSet,
    EvalSetError,
    MatchType,
    Rubric,
    ToolCall,
    TrajectoryStep,
)
from assay.formats.scenarios import load_scenarios


def test_the_seed_cases_and_their_json_round_trip(tmp_path: Path) -> None:
    single = EvalCase.single_turn(
        eval_id="weather-paris-001",
        user_query="What is the weather in Paris today?",
        expected_response="sunny",
        expected_tools=["get_weather"],
        expected_trajectory=[
            TrajectoryStep.node("RESEARCH_NODE"),
            TrajectoryStep.tool(ToolCall(name="search", args={"query": "AI trends"})),
        ],
        config={"configurable": {"thread_id": "t1"}},
    )
    multi = EvalCase(
        eval_id="multi-turn-001",
        turns=[
            ("Hello", "Hi"),
            ("What can you do?", "I can answer questions"),
            ("Tell me about Python", "Python is a programming language"),
        ],
        expected_tools=["search_docs"],
    )
    cases = EvalSet(cases=[single, multi])
    for name in ("set.jsonl", "set.json"):
        cases.to_file(tmp_path / name)
        assert EvalSet.from_file(tmp_path / name) == cases
    assert EvalSet.from_jsonl(tmp_path / "set.jsonl").cases[1].turns == multi.turns


def test_short_forms_of_steps_and_turns_are_read(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": [{
        "eval_id": "a",
        "turns": ["just saying", {"user": "q", "expected": "r"}, ["x", None]],
        "expected_trajectory": ["search", {"node": "PLAN"},
                                {"tool": "fetch", "args": {"url": "u"}}],
        "should_escalate": True,
    }]}))
    case = EvalSet.from_file(path).cases[0]
    assert case.turns == [("just saying", None), ("q", "r"), ("x", None)]
    assert [(s.type.value, s.name) for s in case.expected_trajectory or []] == [
        ("tool", "search"), ("node", "PLAN"), ("tool", "fetch")]
    assert case.extra_fields() == {"should_escalate": True}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"eval_id": "a"}', "needs `user_query` or `turns`"),
        ('{"eval_id": "", "user_query": "x"}', "eval_id"),
        ('{"eval_id": "a", "user_query": "x", "turns": [["y", null]]}', "not both"),
        ('{"eval_id": "a", "turns": []}', "must not be empty"),
        ('{"eval_id": "a", "user_query": "x", "expected_trajectory": [3]}',
         "expected_trajectory[0]: a step is a tool name"),
        ('{"eval_id": "a", "user_query": "x", "expected_tools": "search"}', "expected_tools"),
        ("[1, 2]", "expected an eval case object, got an array"),
        ("{not json", "invalid JSON"),
    ],
)
def test_bad_cases_are_problems_naming_the_line_and_field(
    tmp_path: Path, line: str, said: str
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"eval_id": "ok", "user_query": "fine"}\n' + line + "\n")
    with pytest.raises(EvalSetError) as raised:
        EvalSet.from_file(path)
    [problem] = raised.value.problems
    assert problem.source == f"{path}:2"
    assert said in problem.reason


def test_an_adk_eval_set_loads_as_cases(tmp_path: Path) -> None:
    path = tmp_path / "weather.evalset.json"
    path.write_text(json.dumps({
        "eval_set_id": "weather",
        "eval_cases": [{
            "eval_id": "paris",
            "conversation": [
                {"invocation_id": "i1",
                 "user_content": {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                 "final_response": {"role": "model", "parts": [{"text": "Sunny."}]},
                 "intermediate_data": {"tool_uses": [
                     {"name": "get_weather", "args": {"city": "Paris"}}]}},
                {"invocation_id": "i2",
                 "user_content": {"role": "user", "parts": [{"text": "And tomorrow?"}]},
                 "final_response": {"role": "model", "parts": [{"text": "Rain."}]},
                 "intermediate_data": {"tool_uses": []}},
            ],
        }],
    }))
    [case] = EvalSet.from_file(path).cases
    assert case.eval_id == "paris"
    assert case.turns == [("Weather in Paris?", "Sunny."), ("And tomorrow?", "Rain.")]
    [step] = case.expected_trajectory or []
    assert step.call is not None and step.call.args == {"city": "Paris"}
    assert case.extra_fields()["expected_turns"] == [
        [{"name": "get_weather", "args": {"city": "Paris"}}], []]

    # Run live, the calls are checked turn by turn: a call made in the second turn is not
    # the first turn's.
    from assay.evaluation import AgentEvaluator, CriterionConfig, EvalConfig, record_tool_call

    def agent(messages: list[dict[str, Any]]) -> str:
        if len(messages) == 3:  # the second turn
            record_tool_call("get_weather", {"city": "Paris"}, result="sunny")
        return "ok"

    config = EvalConfig(criteria={"path": CriterionConfig.scorer("trajectory")})
    verdict = AgentEvaluator(agent, config=config).evaluate_sync([case]).cases[0]
    assert verdict.passed is False
    assert "turn" in (verdict.criteria_results["path"].reason or "")


def test_evaluate_reads_an_eval_set_as_ground_truth(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps({"eval_id": "m", "turns": [["hi", "hello"], ["bye", "goodbye"]],
                    "expected_tools": ["wave"], "sensitive_tool": "wave"}) + "\n"
        + json.dumps({"eval_id": "s", "user_query": "q", "expected_response": {"a": 1},
                      "expected_trajectory": [{"node": "N"}, "t"]}) + "\n"
    )
    cases, problems = load_scenarios([path])
    assert problems == []
    multi, single = cases["m"], cases["s"]
    assert multi.question == "hi" and multi.expected_answer == "goodbye"
    assert [(t.question, t.expected_answer) for t in multi.turns or []] == [
        ("hi", "hello"), ("bye", "goodbye")]
    assert multi.sensitive_tool == "wave" and multi.expected_tools == ["wave"]
    assert single.expected_answer == {"a": 1}
    assert single.expected_trajectory == ["t"] and single.expected_nodes == ["N"]


def test_config_files_round_trip_and_bad_ones_name_the_field(tmp_path: Path) -> None:
    config = EvalConfig(criteria={
        "tool_match": CriterionConfig.tool_name_match(threshold=0.5),
        "trajectory": CriterionConfig.trajectory(match_type=MatchType.EXACT, check_args=False),
        "quality": CriterionConfig.llm_judge(prompt="Is it right?", model="openai/m"),
        "rubric": CriterionConfig.rubric([Rubric("acc", "Correct.", 0.7),
                                           Rubric("tone", "Polite.", 0.3)]),
        "safety": CriterionConfig.safety(weight=2.0),
        "persona": CriterionConfig.simulation("an angry customer", max_turns=3,
                                              goals=["refund offered"]),
        "idem": CriterionConfig.idempotency(),
        "custom": CriterionConfig.scorer("max_turns", limit=4),
    })
    config.to_file(tmp_path / "config.json")
    assert EvalConfig.from_file(tmp_path / "config.json") == config
    (tmp_path / "bad.json").write_text('{"criteria": {"a": {"weight": -1}}}')
    with pytest.raises(ValueError, match="weight"):
        EvalConfig.from_file(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="at least one criterion"):
        EvalConfig(criteria={})
    with pytest.raises(ValueError, match="max_turns"):
        CriterionConfig.simulation("x", max_turns=0)


def test_default_config_is_the_seeds() -> None:
    criteria = EvalConfig.default().criteria
    assert list(criteria) == ["tool_match", "trajectory"]
    assert criteria["trajectory"].options == {"mode": "IN_ORDER", "args": "superset"}


@pytest.mark.parametrize("name", ["evalset", "evalcase", "evalconfig"])
def test_assay_schema_prints_the_file_models(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", name]) == 0
    schema: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert schema["type"] == "object"


_text = st.text(st.characters(blacklist_categories=["Cs"]), min_size=1, max_size=20)


@given(
    eval_id=_text.filter(lambda s: s.strip() != ""),
    turns=st.lists(st.tuples(_text, st.one_of(st.none(), _text)), min_size=1, max_size=4),
    tools=st.one_of(st.none(), st.lists(_text, max_size=3)),
)
def test_any_case_survives_a_json_round_trip(
    eval_id: str, turns: list[tuple[str, str | None]], tools: list[str] | None
) -> None:
    case = EvalCase(eval_id=eval_id, turns=turns, expected_tools=tools)
    assert EvalCase.model_validate_json(case.model_dump_json()) == case
