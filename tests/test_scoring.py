"""The one scoring step: a live run and the same run re-scored from its reports directory give
the same verdicts (weights, node steps, judged criteria, failed runs, checks that drive the
agent), and the step itself builds every result one way."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from assay.evaluation import (
    AgentEvaluator,
    CriterionConfig,
    EvalCase,
    EvalConfig,
    MatchType,
    TrajectoryStep,
)
from assay.live.capture import current_collector
from assay.offline import RescoreError, evaluate, rescore_options
from assay.records import Case, Trajectory
from assay.results import ErrorKind, Score, ScoreStatus
from assay.schema.evalconfig import DEFAULT_JUDGE_MODEL
from assay.scorers.registry import UnknownScorerError
from assay.scoring import Criterion, Scoring
from chat_server import ChatServer, RecordedRequest, Reply


def _verdicts(directory: Path) -> dict[str, Any]:
    """Each run's verdict and its criteria's, as results.jsonl records them."""
    found = {}
    for raw in (directory / "results.jsonl").read_bytes().splitlines():
        line = orjson.loads(raw)
        found[line["run_id"]] = {
            key: value
            for key, value in line.items()
            if key not in ("report_file", "source", "duration_ms")
        }
    return found


def _rescored(live: Path, out: Path, **settings: Any) -> dict[str, Any]:
    evaluate(rescore_options(live, out, settings=settings, workers=1))
    return _verdicts(out)


def _live(agent: Any, config: EvalConfig | None, cases: list[EvalCase], out: Path,
          **options: Any) -> None:
    evaluator = AgentEvaluator(agent, config=config, **options)
    asyncio.run(evaluator.evaluate(cases, reports_dir=out))


async def _nodes_agent(messages: list[dict[str, Any]]) -> str:
    collector = current_collector()
    assert collector is not None
    for node in ("PLAN", "RESEARCH", "ANSWER"):
        collector.enter_node(node)
    text = messages[-1]["content"]
    if text == "boom":
        raise ValueError("no such city")
    if text == "slow":
        await asyncio.sleep(5)
    return "Paris" if "France" in text else "Berlin"


def test_weighted_criteria_score_the_same_live_and_rescored(tmp_path: Path) -> None:
    config = EvalConfig(criteria={
        "answer": CriterionConfig.response_match(weight=3.0),
        "tools": CriterionConfig.tool_name_match(weight=0.5),
    })
    cases = [
        EvalCase.single_turn("fr", "France?", expected_response="Paris", expected_tools=["x"]),
        EvalCase.single_turn("de", "Germany?", expected_response="Paris"),
    ]
    _live(_nodes_agent, config, cases, tmp_path / "live")
    live = _verdicts(tmp_path / "live")
    assert live["fr"]["score"]["details"]["weights"] == {"answer": 3.0, "tools": 0.5}
    assert _rescored(tmp_path / "live", tmp_path / "again") == live


def test_node_steps_score_the_same_live_and_rescored(tmp_path: Path) -> None:
    config = EvalConfig(
        criteria={"path": CriterionConfig.trajectory(match_type=MatchType.IN_ORDER)}
    )
    expected = [TrajectoryStep.node("PLAN"), TrajectoryStep.node("ANSWER")]
    cases = [
        EvalCase.single_turn("good", "France?", expected_trajectory=expected),
        EvalCase.single_turn("bad", "France?", expected_trajectory=expected[::-1]),
    ]
    _live(_nodes_agent, config, cases, tmp_path / "live")
    live = _verdicts(tmp_path / "live")
    assert [live["good"]["score"]["passed"], live["bad"]["score"]["passed"]] == [True, False]
    assert _rescored(tmp_path / "live", tmp_path / "again") == live


def test_failed_runs_and_repetitions_read_back_as_they_were(tmp_path: Path) -> None:
    config = EvalConfig(criteria={"answer": CriterionConfig.response_match()})
    cases = [
        EvalCase.single_turn("ok", "France?", expected_response="Paris"),
        EvalCase.single_turn("boom", "boom", expected_response="Paris"),
        EvalCase.single_turn("slow", "slow", expected_response="Paris"),
    ]
    _live(_nodes_agent, config, cases, tmp_path / "live", num_runs=2, timeout=0.5,
          concurrency=6)
    live = _verdicts(tmp_path / "live")
    assert live["boom#1"]["score"]["details"]["reason"] == "agent_error"
    assert live["slow#2"]["score"]["details"]["reason"] == "timeout"
    assert live["ok#2"]["repeat"] == 2
    assert _rescored(tmp_path / "live", tmp_path / "again") == live


def _judge(request: RecordedRequest) -> Reply:
    right = "Paris" in json.dumps(request.body["messages"][-1])
    return Reply.ok({"score": 1.0 if right else 0.0, "passed": right, "rationale": "checked"})


def test_judged_criteria_score_the_same_live_and_rescored(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.handler = _judge
    client = {"base_url": chat_server.base_url, "cache": "off", "max_retries": 0}
    config = EvalConfig(criteria={
        "judged": CriterionConfig.llm_judge(prompt="Is it Paris?"),
        "answer": CriterionConfig.response_match(),
    })
    cases = [
        EvalCase.single_turn("fr", "France?", expected_response="Paris"),
        EvalCase.single_turn("de", "Germany?", expected_response="Berlin"),
    ]
    _live(_nodes_agent, config, cases, tmp_path / "live",
          judge_options={"llm_judge": {"client_options": client}})
    live = _verdicts(tmp_path / "live")
    asked = len(chat_server.requests)
    assert asked == 2
    # The judge model is the criterion's, recorded: neither side picks one.
    recorded = orjson.loads((tmp_path / "live" / "_config.json").read_bytes())
    assert recorded["criteria"]["judged"]["options"]["model"] == DEFAULT_JUDGE_MODEL
    again = _rescored(tmp_path / "live", tmp_path / "again",
                      llm_judge={"client_options": client})
    assert len(chat_server.requests) == 2 * asked
    assert again == live


def test_a_judge_without_a_model_is_refused_on_both_sides(tmp_path: Path) -> None:
    config = EvalConfig(criteria={"judged": CriterionConfig.scorer("llm_judge")})
    case = EvalCase.single_turn("fr", "France?", expected_response="Paris")
    with pytest.raises(UnknownScorerError, match="needs its model"):
        AgentEvaluator(_nodes_agent, config=config).evaluate_sync([case])
    with pytest.raises(UnknownScorerError, match="needs its model"):
        Scoring.of(config).check()


def test_checks_that_drive_the_agent_keep_their_verdict_when_rescored(tmp_path: Path) -> None:
    async def agent(messages: list[dict[str, Any]], config: dict[str, Any]) -> dict[str, Any]:
        return {"content": "done", "status": "already_processed" if messages else "done"}

    config = EvalConfig(criteria={
        "answer": CriterionConfig.response_match(),
        "twice": CriterionConfig.idempotency(),
    })
    cases = [EvalCase.single_turn("a", "pay", expected_response="done")]
    _live(agent, config, cases, tmp_path / "live")
    live = _verdicts(tmp_path / "live")
    assert _rescored(tmp_path / "live", tmp_path / "again") == live
    # Checked another way with no report to keep it from, the check cannot be made.
    (tmp_path / "live" / "results.jsonl").write_bytes(b"")
    part = _rescored(tmp_path / "live", tmp_path / "third")["a"]["scores"][1]
    assert (part["status"], part["details"]["reason"]) == ("error", ErrorKind.NEEDS_AGENT.value)


def test_rescore_refuses_what_is_not_a_reports_directory(tmp_path: Path) -> None:
    with pytest.raises(RescoreError, match="not a reports directory"):
        rescore_options(tmp_path, tmp_path / "out")
    (tmp_path / ".assay_reports").write_text("{}")
    with pytest.raises(RescoreError, match="records no config"):
        rescore_options(tmp_path, tmp_path / "out")


def test_a_failed_run_is_never_scored_and_a_raising_scorer_is_its_criterions_error() -> None:
    from assay.scorers.registry import register_scorer

    @register_scorer("test_scoring_raises")
    def raises() -> Any:
        def score(case: Case, run: Trajectory) -> Score:
            raise RuntimeError("bug")

        return score

    scoring = Scoring([Criterion("a", "test_scoring_raises"),
                       Criterion("b", "max_turns", {"limit": 3})])
    failed = Trajectory(run_id="r", answer="x", error="timed out", error_kind="timeout")
    result = asyncio.run(scoring.score_case(Case(id="c"), failed))
    assert (result.score.status, result.score.details["reason"]) == (ScoreStatus.ERROR, "timeout")
    assert result.scores == []
    result = asyncio.run(scoring.score_case(Case(id="c"), Trajectory(run_id="r", answer="x")))
    first = result.scores[0]
    assert (first.scorer, first.details["reason"]) == ("a", ErrorKind.SCORER_ERROR)
    assert result.score.status is ScoreStatus.ERROR  # an error is never averaged in


def test_the_recorded_config_reads_back_as_the_same_checks() -> None:
    config = EvalConfig(criteria={
        "t": CriterionConfig.trajectory(match_type="ANY_ORDER", weight=2.0),
        "i": CriterionConfig.idempotency(),
    }, scorer_options={"trajectory": {"overrides": None}})
    scoring = Scoring.of(config, settings={"llm_judge": {"model": "m", "client_options": {}}})
    document = scoring.document()
    assert "client_options" not in json.dumps(document)
    again = Scoring.of(EvalConfig.model_validate(document))
    assert again.criteria == scoring.criteria
    assert again.document() == document


def test_a_live_directory_of_an_earlier_assay_rescores_to_its_own_verdicts(
    tmp_path: Path,
) -> None:
    """Before `_config.json`, a live directory kept its criteria in `_live.json`, and its runs
    did not say how they failed: the report's verdicts say it."""
    config = EvalConfig(criteria={"answer": CriterionConfig.response_match()})
    cases = [
        EvalCase.single_turn("ok", "France?", expected_response="Paris"),
        EvalCase.single_turn("boom", "boom", expected_response="Paris"),
    ]
    live = tmp_path / "live"
    _live(_nodes_agent, config, cases, live)
    recorded = orjson.loads((live / "_config.json").read_bytes())
    (live / "_config.json").unlink()
    (live / "_live.json").write_bytes(orjson.dumps({"criteria": recorded["criteria"]}))
    runs = [orjson.loads(line) for line in (live / "runs.jsonl").read_bytes().splitlines()]
    for run in runs:
        run.pop("error_kind", None)
    (live / "runs.jsonl").write_bytes(b"".join(orjson.dumps(run) + b"\n" for run in runs))
    again = _rescored(live, tmp_path / "again")
    assert again == _verdicts(live)
    assert again["boom"]["score"]["details"]["reason"] == "agent_error"


def test_options_given_at_the_call_win_over_the_configs_and_the_criterions_over_both() -> None:
    scoring = Scoring(
        [Criterion("short", "max_turns", {"limit": 9}), Criterion("tools", "tool_name_match")],
        scorer_options={"max_turns": {"limit": 1}, "tool_name_match": {"threshold": 0.2}},
        settings={"tool_name_match": {"threshold": 0.5}},
    )
    assert scoring.document()["scorer_options"] == {
        "max_turns": {"limit": 1}, "tool_name_match": {"threshold": 0.5}
    }
    scoring.check()
    run = Trajectory(run_id="r", answer="x")
    asyncio.run(scoring.score_case(Case(id="c", expected_tools=["t"]), run))
    assert [spec["options"].get("limit", spec["options"].get("threshold"))
            for spec in scoring.specs()] == [9, 0.5]


def test_live_and_rescored_reports_hold_the_runs_transcript(tmp_path: Path) -> None:
    from assay.evaluation import tool

    @tool
    def lookup(country: str) -> dict[str, Any]:
        return {"capital": "Paris"}

    def agent(messages: list[dict[str, Any]]) -> str:
        text = messages[-1]["content"]
        if text == "boom":
            raise ValueError("no such city")
        lookup(text)
        return "Paris"

    config = EvalConfig(criteria={"answer": CriterionConfig.response_match()})
    cases = [
        EvalCase.single_turn("fr", "France?", expected_response="Paris"),
        EvalCase.single_turn("boom", "boom", expected_response="Paris"),
    ]
    _live(agent, config, cases, tmp_path / "live")
    evaluate(rescore_options(tmp_path / "live", tmp_path / "again", workers=1))

    for reports in (tmp_path / "live", tmp_path / "again"):
        fr = orjson.loads((reports / "fr.json").read_bytes())["transcript"]
        assert [(e["role"], e.get("text"), e["turn"]) for e in fr] == [
            ("user", "France?", 0),
            ("assistant", None, 0),
            ("assistant", "Paris", 0),
        ]
        (call,) = fr[1]["calls"]
        assert (call["name"], call["args"], call["result"]) == (
            "lookup", {"country": "France?"}, {"capital": "Paris"}
        )
        boom = orjson.loads((reports / "boom.json").read_bytes())["transcript"]
        assert boom[0] == {"role": "user", "text": "boom", "turn": 0}
        assert boom[-1] == {
            "role": "error",
            "text": "agent_error: agent error: ValueError: no such city",
        }
        for line in (reports / "results.jsonl").read_bytes().splitlines():
            assert "transcript" not in orjson.loads(line)
