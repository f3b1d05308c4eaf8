"""A run's source verdict read as pass or fail, and `assay evaluate`'s agreement with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _cli import assay, explain
from assay.source_verdicts import source_passed

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                 max_size=4),
    max_leaves=20,
)


@pytest.mark.parametrize(
    ("verdicts", "passed"),
    [
        ({"match": {"value": "C", "answer": "2"}}, True),  # Inspect AI
        ({"match": {"value": "I"}}, False),
        ({"match": {"value": "C"}, "judge": {"value": 0}}, False),  # every check must pass
        ({"match": {"value": "P"}}, None),  # partial credit says neither
        ({"accuracy": {"value": 0.5}}, None),  # a graded score says neither
        ({"reward": 1.0, "reward_info": {}}, True),  # tau-bench
        ({"reward": 0}, False),
        ({"reward": 0.4}, None),
        ({"final_eval_status": "PASSED", "metrics": {}}, True),  # Google ADK
        ({"final_eval_status": "NOT_EVALUATED"}, None),
        ({"resolved": False}, False),  # SWE-bench
        ({"status": "success", "eval": [{"passed": True}, {"score": 1.0}]}, True),  # MASEval
        ({"status": "success", "eval": [{"passed": True}, {"success": False}]}, False),
        ({"status": "agent_error"}, None),
        (None, None),
        ({}, None),
    ],
)
def test_the_source_verdict_as_pass_or_fail(verdicts: Any, passed: bool | None) -> None:
    assert source_passed(verdicts) is passed


@given(value=st.dictionaries(st.text(max_size=20), _json, max_size=5))
def test_no_verdicts_make_it_raise(value: dict[str, Any]) -> None:
    assert source_passed(value) in (True, False, None)


@pytest.mark.slow
def test_evaluate_says_how_often_it_agrees_with_the_runs_source(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    runs.mkdir()
    for sample_id, answer, inspect_says in [("1", "Paris", "C"), ("2", "Lyon", "C"),
                                            ("3", "Rome", "I")]:
        (gt / f"scenario_{sample_id}").mkdir(parents=True)
        (gt / f"scenario_{sample_id}" / "groundtruth.txt").write_text(
            {"1": "Paris", "2": "Paris", "3": "Madrid"}[sample_id]
        )
        log = {"version": 2, "status": "success",
               "eval": {"task": "capitals", "model": "openai/gpt-4o"},
               "samples": [{"id": sample_id, "epoch": 1, "input": "Capital?",
                            "messages": [{"role": "user", "content": "Capital?"},
                                         {"role": "assistant", "content": answer}],
                            "output": {"completion": answer},
                            "scores": {"match": {"value": inspect_says}}}]}
        (runs / f"log_{sample_id}.json").write_text(json.dumps(log))
    reports = tmp_path / "reports"
    proc = assay("evaluate", "--trajectories", runs, "--scenarios", gt, "--reports-dir",
                 reports, "--scorer-default", "static_json", cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    lines = [json.loads(line) for line in (reports / "results.jsonl").read_text().splitlines()]
    said = {line["scenario_id"]: (line["score"]["passed"], line["source_passed"])
            for line in lines}
    # assay: 1 passes, 2 and 3 fail; Inspect: 1 and 2 passed, 3 failed: two of three agree.
    assert said == {"1": (True, True), "2": (False, True), "3": (False, False)}
    aggregate = json.loads((reports / "_aggregate.json").read_text())
    assert aggregate["source_agreement"] == {
        "static_json": {"compared": 3, "agree": 2, "rate": 2 / 3}
    }
    assert "static_json: 2 of 3 runs (67%) judged as their source judged them" in proc.stdout
