"""A resumed live evaluation leaves a directory that agrees with itself: `results.jsonl`, the
per-run reports, `runs.jsonl` and the aggregate list the same runs, whatever was edited,
removed or renamed between the two evaluations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.evaluation import AgentEvaluator, EvalCase


def _agent(asked: list[str]) -> Any:
    def agent(messages: list[dict[str, Any]]) -> str:
        asked.append(messages[-1]["content"])
        return "yes"

    return agent


def _case(eval_id: str, expected: str = "yes") -> EvalCase:
    return EvalCase.single_turn(eval_id, f"q {eval_id}", expected_response=expected)


def _lines(directory: Path, name: str = "results.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (directory / name).read_text().splitlines()]


def _agrees(directory: Path) -> list[tuple[str, int | None]]:
    """The runs the directory holds, after checking its files list the same ones."""
    results = _lines(directory)
    keys = [(line["scenario_id"], line.get("repeat")) for line in results]
    assert len(set(keys)) == len(keys), keys
    reports = {p.name for p in directory.glob("*.json") if not p.name.startswith("_")}
    assert {line["report_file"] for line in results} == reports
    runs = [(line["scenario_id"], line.get("repeat")) for line in _lines(directory, "runs.jsonl")]
    assert sorted(runs, key=str) == sorted(keys, key=str)
    aggregate = json.loads((directory / "_aggregate.json").read_text())
    assert aggregate["totals"]["runs_read"] == len(results)
    return keys


@pytest.mark.parametrize("change", ["edited", "removed"])
def test_a_dropped_run_before_kept_ones_is_rewritten_out(tmp_path: Path, change: str) -> None:
    asked: list[str] = []
    cases = [_case("a"), _case("b"), _case("c")]
    AgentEvaluator(_agent(asked)).evaluate_sync(cases, reports_dir=tmp_path)
    asked.clear()
    again = [_case("a", "no"), *cases[1:]] if change == "edited" else cases[1:]
    report = AgentEvaluator(_agent(asked)).evaluate_sync(again, reports_dir=tmp_path, resume=True)
    assert asked == (["q a"] if change == "edited" else [])
    expected = [("b", None), ("c", None)] + ([("a", None)] if change == "edited" else [])
    assert sorted(_agrees(tmp_path)) == sorted(expected)
    assert len(report.cases) == len(again)
    # A second resume has nothing left to run.
    asked.clear()
    AgentEvaluator(_agent(asked)).evaluate_sync(again, reports_dir=tmp_path, resume=True)
    assert asked == []
    assert sorted(_agrees(tmp_path)) == sorted(expected)


def test_a_case_id_with_a_hash_is_not_taken_for_a_repetition(tmp_path: Path) -> None:
    asked: list[str] = []
    # Run once each: case "a#1" has the run id "a#1".
    AgentEvaluator(_agent(asked)).evaluate_sync([_case("a#1", "no")], reports_dir=tmp_path)
    asked.clear()
    # Twice each: case "a"'s first repetition is also run id "a#1", but not the same run.
    both = [_case("a#1", "no"), _case("a")]
    report = AgentEvaluator(_agent(asked), num_runs=2).evaluate_sync(
        both, reports_dir=tmp_path, resume=True
    )
    assert sorted(asked) == ["q a", "q a", "q a#1", "q a#1"]
    assert sorted(_agrees(tmp_path), key=str) == sorted(
        [("a#1", 1), ("a#1", 2), ("a", 1), ("a", 2)], key=str
    )
    passed = {(c.eval_id, c.result.repeat): c.result.score.passed for c in report.cases
              if c.result is not None}
    assert passed == {("a#1", 1): False, ("a#1", 2): False, ("a", 1): True, ("a", 2): True}


@pytest.mark.parametrize("lost", ["_config.json", "evalset.jsonl"])
def test_resume_refuses_a_directory_that_does_not_say_how_its_runs_were_made(
    tmp_path: Path, lost: str
) -> None:
    cases = [_case("a")]
    AgentEvaluator(_agent([])).evaluate_sync(cases, reports_dir=tmp_path)
    (tmp_path / lost).unlink()
    with pytest.raises(ValueError, match="cannot resume"):
        AgentEvaluator(_agent([])).evaluate_sync(cases, reports_dir=tmp_path, resume=True)
