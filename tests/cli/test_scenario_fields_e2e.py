"""Scenario fields checked once, when the scenario file is read: a bad field is a scenario
problem at its path, the scorers that need it report it, the others still score; pydantic
stays out of `assay --help` and of scenario folders; `assay schema scenario` and `catalog`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli_evaluate_e2e import evaluate, make_run, read_aggregate, read_results, write_json

from _cli import explain
from _examples import examples
from assay.cli.main import main
from assay.formats._scenario_fields import EXPECTATION_FIELDS
from assay.formats.scenarios import _TEXT_FIELDS, case_from_object
from assay.schema.scenario import Scenario, check


@pytest.mark.slow
def test_a_bad_field_errors_the_scorer_that_needs_it_and_the_others_score(
    tmp_path: Path,
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "1", "done"))
    scenarios = write_json(
        gt / "scenarios.json",
        [
            {
                "id": "1",
                "expected_answer": "done",
                "should_escalate": "yes",
                "success_criteria": [{"max_tokens": "lots"}, {"response_contains": "done"}],
            }
        ],
    )
    reports = tmp_path / "reports"
    proc = evaluate(
        runs,
        gt,
        reports,
        "--scorer",
        "escalation",
        "--scorer",
        "token_budget",
        "--scorer",
        "response_contains",
    )
    assert proc.returncode == 0, explain(proc)
    (line,) = read_results(reports)
    by_scorer = {score["scorer"]: score for score in line["scores"]}
    escalation = by_scorer["escalation"]
    assert escalation["status"] == "error"
    assert (
        f"{scenarios}: [0].should_escalate: Input should be a valid boolean, got string"
        in escalation["rationale"]
    )
    budget = by_scorer["token_budget"]
    assert budget["status"] == "error"
    assert f"{scenarios}: [0].success_criteria[0].max_tokens" in budget["rationale"]
    contains = by_scorer["response_contains"]  # the usable criterion still counts
    assert (contains["status"], contains["passed"]) == ("scored", True)

    reasons = [p["reason"] for p in read_aggregate(reports)["scenario_problems"]]
    assert "[0].should_escalate: Input should be a valid boolean, got string" in reasons
    assert any(r.startswith("[0].success_criteria[0].max_tokens: ") for r in reasons)


@pytest.mark.slow
def test_help_folders_and_plain_scenario_files_do_not_import_pydantic(tmp_path: Path) -> None:
    folder = tmp_path / "gt" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text("{'a': 1}")
    (folder / "groundtruth_eval.json").write_text('{"keys": {"a": {"abs_tol": 1}}}')
    (folder / "expected_trajectory.json").write_text('{"steps": ["f"], "mode": "IN_ORDER"}')
    plain = tmp_path / "plain.json"
    plain.write_text('[{"id": "2", "text": "Q?", "expected_answer": "x", "owner": "ops"}]')
    expecting = tmp_path / "expecting.json"
    expecting.write_text('[{"id": "3", "expected_answer": "x", "should_escalate": false}]')
    code = f"""
import contextlib, io, sys
from assay.cli.main import main
from assay.formats import load_scenarios
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    main(["--help"])
cases, problems = load_scenarios([{str(tmp_path / "gt")!r}])
assert problems == [] and cases["1"].trajectory_mode == "IN_ORDER", problems
print("pydantic" in sys.modules)
load_scenarios([{str(plain)!r}])
print("pydantic" in sys.modules)
load_scenarios([{str(expecting)!r}])
print("pydantic" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # Only a scenario that states expectations needs the models.
    assert out.stdout.split() == ["False", "False", "True"]


def test_assay_schema_scenario_and_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "scenario"]) == 0
    scenario = json.loads(capsys.readouterr().out)
    assert scenario["required"] == ["id"]
    properties = scenario["properties"]
    assert properties["should_escalate"]["description"].startswith("Whether the agent")
    # What the reader accepts, the schema allows: one phrase alone, a mapping of criteria.
    criteria = json.dumps(properties["success_criteria"])
    assert '"type": "string"' in criteria and '"$ref": "#/$defs/Criteria"' in criteria
    assert main(["schema", "catalog"]) == 0
    catalog = json.loads(capsys.readouterr().out)
    assert {"jobs", "scenarios"} <= set(catalog["properties"])  # either, as the reader takes
    assert "turns" in catalog["$defs"]["CatalogScenario"]["properties"]


# -- every field given is on the case, or a problem names it --------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(), st.text(max_size=6))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_TYPED = (
    "should_escalate",
    "should_signal_complete",
    "sensitive_tool",
    "approval",
    "expected_subagent",
    "expected_tool_graph",
    "expected_tools",
    "rubrics",
)
_objects = st.fixed_dictionaries(
    {"id": st.just("1")},
    optional={name: _values for name in (*_TYPED, "success_criteria", "type", "owner")},
)


@settings(max_examples=examples(300))
@given(obj=_objects)
def test_every_field_given_is_kept_or_a_problem(obj: dict[str, Any]) -> None:
    case, problems = case_from_object(obj, "s.json")
    assert case is not None
    for name in _TYPED:
        if obj.get(name) is None:
            continue
        kept = getattr(case, name) is not None
        assert kept != (case.problem(name) is not None), (name, obj[name])
    if obj.get("success_criteria") is not None:
        assert case.success_criteria is not None or case.problem("success_criteria")
    # One problem per field that failed, each naming the file and the field's path.
    assert all(text.startswith("s.json: ") for text in case.problems.values())
    assert len(problems) >= len(case.problems)
    # repr, not ==: an owner of NaN is kept as NaN, which equals nothing, itself included.
    assert repr(case.metadata.get("owner")) == repr(obj.get("owner"))


@settings(max_examples=examples(200))
@given(obj=st.dictionaries(st.text(max_size=8), _values, max_size=6))
def test_check_never_raises(obj: dict[str, Any]) -> None:
    found, errors = check(Scenario, {**obj, "id": "1"})
    assert found is not None  # a field that fails is left out, never the scenario
    assert all(loc and loc[0] in obj for loc, _ in errors)


_plain = st.fixed_dictionaries(
    {"id": st.sampled_from(["1", 2, "scenario_3"])},
    optional={
        name: st.one_of(_scalars, st.lists(_scalars, max_size=2))
        for name in (
            "text",
            "question",
            "expected_answer",
            "characteristic_form",
            "type",
            "category",
            "scoring_method",
            "groundtruth_eval",
            "owner",
        )
    },
)


@settings(max_examples=examples(300))
@given(obj=_plain)
def test_objects_without_expectations_read_the_same_without_the_models(
    obj: dict[str, Any],
) -> None:
    plain, plain_problems = case_from_object(obj, "s.json")
    # An expectation field set to null changes nothing but sends the object through the model.
    modelled, model_problems = case_from_object({**obj, "should_escalate": None}, "s.json")
    assert plain == modelled
    assert plain_problems == model_problems


def test_the_reader_names_every_expectation_field_of_the_models() -> None:
    plain = {"id", "expected_answer", "groundtruth_eval", *_TEXT_FIELDS}
    assert set(Scenario.model_fields) - plain == EXPECTATION_FIELDS
