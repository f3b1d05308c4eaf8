"""The seed's end-to-end example, with an assay agent in place of the other framework's graph
and a chat-completions server on 127.0.0.1 in place of the judge model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from assay.evaluation import (
    DEFAULT_JUDGE_MODEL,
    AgentEvaluator,
    CriterionConfig,
    EvalCase,
    EvalConfig,
    EvalSet,
    TrajectoryCollector,
    judge_model,
)
from chat_server import ChatServer, RecordedRequest, Reply


def _answers(responses: list[str]) -> Any:
    """The seed's `TestAgent(responses=[...])`: one scripted reply per call, in order."""
    replies = iter(responses)

    async def agent(messages: list[dict[str, Any]]) -> str:
        return next(replies)

    return agent


def _judge(request: RecordedRequest) -> Reply:
    text = json.dumps(request.body["messages"])
    right = "Paris" in text or "Berlin" in text
    return Reply.ok({"score": 1.0 if right else 0.0, "passed": right, "rationale": "checked"})


def _options(server: ChatServer, tmp_path: Path) -> dict[str, dict[str, Any]]:
    return {
        "llm_judge": {
            "model": "local/judge-1",
            "client_options": {
                "base_url": server.base_url,
                "cache": "off",
                "cache_dir": str(tmp_path / "cache"),
                "max_retries": 0,
            },
        }
    }


def test_the_seeds_end_to_end_example(chat_server: ChatServer, tmp_path: Path) -> None:
    chat_server.handler = _judge
    collector = TrajectoryCollector()
    agent = _answers(["The capital of France is Paris.", "Berlin is the capital of Germany."])
    eval_set = EvalSet(cases=[
        EvalCase.single_turn(
            eval_id="capitals-001",
            user_query="What is the capital of France?",
            expected_response="Paris",
        ),
        EvalCase.single_turn(
            eval_id="capitals-002",
            user_query="What is the capital of Germany?",
            expected_response="Berlin",
        ),
    ])
    config = EvalConfig(criteria={
        "response_quality": CriterionConfig.llm_judge(
            prompt="Does the response correctly identify the capital city? Score 0 or 1."
        ),
    })
    evaluator = AgentEvaluator(
        graph=agent,
        collector=collector,
        config=config,
        judge_options=_options(chat_server, tmp_path),
    )
    report = asyncio.run(evaluator.evaluate(eval_set))
    summary = report.format_summary()
    assert summary.startswith("Evaluated 2 runs: 2 passed (pass rate 100%), overall score 1.000")
    assert f"Pass rate: {report.pass_rate:.0%}" == "Pass rate: 100%"
    assert f"Overall score: {report.overall_score:.2f}" == "Overall score: 1.00"
    assert report.total_cases == 2 and report.passed_cases == 2
    result = report.cases[0].criteria_results["response_quality"]
    assert (result.criterion_name, result.passed, result.score) == ("response_quality", True, 1.0)
    # The judge saw the author's criterion and the agent's answer.
    sent = json.dumps(chat_server.requests[0].body["messages"])
    assert "identify the capital city" in sent and "The capital of France is Paris." in sent


def test_a_judge_outage_is_unscored_never_a_number(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.default = Reply.error(503)
    config = EvalConfig(criteria={
        "quality": CriterionConfig.llm_judge(prompt="Is it right?"),
        "says_paris": CriterionConfig.response_match(),
    })
    evaluator = AgentEvaluator(
        _answers(["Paris."]), config=config, judge_options=_options(chat_server, tmp_path)
    )
    report = evaluator.evaluate_sync(
        [EvalCase.single_turn("fr", "Capital of France?", expected_response="Paris")]
    )
    case = report.cases[0]
    quality = case.criteria_results["quality"]
    assert quality.passed is None and quality.score is None and quality.status == "unscored"
    assert case.criteria_results["says_paris"].passed is True
    assert not case.passed and case.score is None  # partially scored: neither passed nor a number
    assert report.overall_score == 1.0  # only the verdict that was given
    assert report.pass_rate == 0.0


def test_the_default_judge_model_is_documented_and_overridable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ASSAY_JUDGE_MODEL", raising=False)
    assert judge_model() == DEFAULT_JUDGE_MODEL
    monkeypatch.setenv("ASSAY_JUDGE_MODEL", "local/other")
    assert judge_model() == "local/other"
