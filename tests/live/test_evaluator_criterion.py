"""A benchmark `Evaluator` as a criterion of a live evaluation (`CriterionConfig.evaluator`):
the seed's evaluator reads the run's tool invocations; its metrics give the verdict."""

from __future__ import annotations

from typing import Any

from assay.benchmark import Evaluator
from assay.evaluation import AgentEvaluator, CriterionConfig, EvalCase, EvalConfig, tool


@tool
def calculator(a: int, b: int) -> int:
    return a + b


class ToolUsageEvaluator(Evaluator):
    def __init__(self, task: Any, environment: Any, user: Any = None) -> None:
        super().__init__(task, environment, user)
        self.expected_tool = "calculator"
        self.expected_result = task.evaluation_data["correct_answer"]

    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return traces.get("tools", {}).get(self.expected_tool, {})

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        invocations = traces.get("invocations", [])
        if not invocations:
            return {"tool_used": False, "correct_result": False}
        correct = invocations[0].get("outputs", []) == self.expected_result
        return {"tool_used": True, "correct_result": correct, "accuracy": 1.0 if correct else 0.0}


class Broken(Evaluator):
    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return traces

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        raise RuntimeError("evaluator bug")


def agent(messages: list[dict[str, Any]]) -> str:
    numbers = [int(w) for w in messages[-1]["content"].split() if w.isdigit()]
    if not numbers:
        return "no numbers"
    return str(calculator(*numbers[:2]))


def _case(eval_id: str, query: str, answer: int) -> EvalCase:
    return EvalCase.model_validate(
        {"eval_id": eval_id, "user_query": query, "evaluation_data": {"correct_answer": answer}}
    )


def test_an_evaluator_is_a_criterion_of_a_live_run() -> None:
    config = EvalConfig(criteria={"tools": CriterionConfig.evaluator(ToolUsageEvaluator)})
    report = AgentEvaluator(agent, config=config).evaluate_sync(
        [_case("right", "add 2 3", 5), _case("wrong", "add 2 3", 6), _case("none", "hi", 1)]
    )
    scores = {c.eval_id: c.result.score for c in report.cases}
    assert (scores["right"].scorer, scores["right"].value, scores["right"].passed) == (
        "tools", 1.0, True)
    assert (scores["wrong"].value, scores["wrong"].passed) == (0.0, False)
    assert scores["none"].passed is None  # metrics without a verdict: kept, unscored
    assert scores["none"].details["tool_used"] is False


def test_an_evaluator_that_raises_is_the_criterions_error() -> None:
    config = EvalConfig(criteria={"broken": CriterionConfig.evaluator(Broken)})
    report = AgentEvaluator(agent, config=config).evaluate_sync([_case("a", "add 1 1", 2)])
    score = report.cases[0].result.score
    assert score.details["reason"] == "scorer_error" and "evaluator bug" in score.rationale
