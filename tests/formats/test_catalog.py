"""Evaluator-catalog scenario files: the committed YAML and JSON samples, and bad input of every
kind becoming a problem with its reason instead of an exception."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.formats import catalog as catalog_module
from assay.formats import load_catalog
from assay.records import Case, Step, SuccessCriteria, ToolCall, Trajectory
from assay.scorers import create_scorer

SAMPLES = Path(__file__).parent / "samples"
YAML_SAMPLE = SAMPLES / "catalog_support.yaml"
JSON_SAMPLE = SAMPLES / "catalog_support.json"


def by_id(cases: list[Case]) -> dict[str, Case]:
    return {case.id: case for case in cases}


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def load_json(tmp_path: Path, document: Any) -> tuple[list[Case], list[str]]:
    cases, problems = load_catalog(write(tmp_path, "c.json", orjson.dumps(document)))
    return cases, [problem.reason for problem in problems]


def load_yaml(tmp_path: Path, text: str) -> tuple[list[Case], list[str]]:
    pytest.importorskip("yaml")
    cases, problems = load_catalog(write(tmp_path, "c.yaml", text))
    return cases, [problem.reason for problem in problems]


# -- the committed samples ------------------------------------------------------------------


def check_sample(cases: list[Case], problems: list[Any], source: Path) -> None:
    assert [case.id for case in cases] == [
        "refund_broken_item",
        "refund_rejected",
        "angry_customer",
        "route_billing",
        "7",
        "bad_approval",
    ]
    found = by_id(cases)
    refund = found["refund_broken_item"]
    assert refund.type == "billing"
    assert refund.question == "Order 42 arrived broken, please refund it"
    assert refund.conversation == ["Order 42 arrived broken, please refund it", "Yes, go ahead"]
    assert refund.expected_tools == ["lookup_order", "check_refund_policy", "process_refund"]
    assert refund.success_criteria == SuccessCriteria(
        max_turns=5,
        response_contains=["refund"],
        response_not_contains=["internal error"],
        max_tokens=5000,
    )
    assert refund.approval == "approve"
    assert refund.sensitive_tool == "process_refund"
    assert refund.should_escalate is False
    assert refund.should_signal_complete is True
    assert refund.problems == {}
    # Only what no scorer reads stays in metadata.
    assert refund.metadata == {"tags": ["refund", "happy-path"]}

    rejected = found["refund_rejected"]
    assert rejected.question == "Refund order 43"
    assert rejected.success_criteria == SuccessCriteria(max_turns=4)
    assert rejected.approval == "reject"
    assert rejected.metadata == {}

    angry = found["angry_customer"]
    assert angry.question == "I want to speak to a manager NOW"
    assert angry.input == angry.question and angry.conversation is None
    assert angry.metadata["created"] == "2024-05-01"  # a YAML date is kept as ISO text

    routed = found["route_billing"]
    assert routed.type == "routing"
    assert routed.expected_subagent == "billing"
    assert routed.expected_tool_graph == {
        "search_orders": ["get_order", "refund_order"],
        "get_order": ["refund_order"],
    }
    assert found["7"].question == "Track my parcel"

    # A bad field is a problem at its path; the scenario loads without it.
    bad = found["bad_approval"]
    path = bad.source.split("#", 1)[1]
    approval = f"{path}.approval: Input should be 'approve' or 'reject'"
    assert bad.approval is None
    assert bad.problems == {"approval": f"{source}: {approval}"}

    reasons = [problem.reason for problem in problems]
    assert reasons == [
        "scenario has no id (give it an `id` or a `name`)",
        approval,
        f"duplicate scenario id 'refund_broken_item': already loaded from {refund.source}; "
        "this one is ignored",
    ]
    assert all(problem.source.startswith(str(source)) for problem in problems)


def test_yaml_sample() -> None:
    pytest.importorskip("yaml")
    cases, problems = load_catalog(YAML_SAMPLE)
    check_sample(cases, problems, YAML_SAMPLE)
    assert cases[0].source == f"{YAML_SAMPLE}#jobs.billing.scenarios[0]"


def test_json_sample_with_jobs_as_a_list() -> None:
    cases, problems = load_catalog(str(JSON_SAMPLE))
    check_sample(cases, problems, JSON_SAMPLE)
    assert cases[0].source == f"{JSON_SAMPLE}#jobs[0].scenarios[0]"


def test_yaml_and_json_samples_give_the_same_cases() -> None:
    pytest.importorskip("yaml")
    from_yaml, _ = load_catalog(YAML_SAMPLE)
    from_json, _ = load_catalog(JSON_SAMPLE)
    assert len(from_yaml) == len(from_json)
    for a, b in zip(from_yaml, from_json, strict=True):
        # Equal but for where they were read from.
        a.source = b.source = ""
        a.problems = {key: text.split(": ", 1)[1] for key, text in a.problems.items()}
        b.problems = {key: text.split(": ", 1)[1] for key, text in b.problems.items()}
        assert a.problems.keys() == b.problems.keys()
        a.problems = b.problems = {}
        assert a == b


def test_loaded_scenarios_drive_the_catalog_scorers() -> None:
    cases, _ = load_catalog(JSON_SAMPLE)
    refund = by_id(cases)["refund_broken_item"]
    run = Trajectory(
        answer="Your refund is confirmed.",
        steps=[
            Step(index=0, tool_calls=[ToolCall("lookup_order"), ToolCall("check_refund_policy")]),
            Step(
                index=1,
                tool_calls=[ToolCall("process_refund", result={"status": "pending_confirmation"})],
            ),
            Step(index=2, tool_calls=[ToolCall("confirm_process_refund")]),
            Step(index=3, tool_calls=[ToolCall("signal_task_complete")]),
        ],
    )
    for name in (
        "max_turns",
        "response_contains",
        "response_not_contains",
        "escalation",
        "signal_task_complete",
        "tool_name_match",
        "confirmation_flow",
    ):
        result = create_scorer(name)(refund, run)
        assert result.passed is True, (name, result.rationale)


# -- bad files ------------------------------------------------------------------------------


def test_unparsable_yaml_says_where() -> None:
    pytest.importorskip("yaml")
    cases, problems = load_catalog(SAMPLES / "catalog_broken.yaml")
    assert cases == []
    assert len(problems) == 1
    assert problems[0].reason.startswith("invalid YAML: ")
    assert " at line " in problems[0].reason and " column " in problems[0].reason


def test_unparsable_json(tmp_path: Path) -> None:
    cases, problems = load_catalog(write(tmp_path, "c.json", '{"jobs": [}'))
    assert cases == [] and problems[0].reason.startswith("invalid JSON: ")


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("c.json", "", "empty file"),
        ("c.json", "  \n", "empty file"),
        ("c.txt", "jobs: []", "expected a .yaml, .yml or .json file, got .txt"),
        ("c.json", b"\xff\xfe{}", "not UTF-8: undecodable byte at offset 0"),
    ],
)
def test_unusable_files(tmp_path: Path, name: str, content: str | bytes, reason: str) -> None:
    cases, problems = load_catalog(write(tmp_path, name, content))
    assert cases == [] and [p.reason for p in problems] == [reason]


def test_missing_file(tmp_path: Path) -> None:
    cases, problems = load_catalog(tmp_path / "nope.yaml")
    assert cases == [] and problems[0].reason.startswith("cannot read file")


def test_too_large_file_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog_module, "MAX_FILE_BYTES", 10)
    cases, problems = load_catalog(write(tmp_path, "c.json", '{"jobs": {"a": {}}}'))
    assert cases == [] and problems[0].reason.startswith("file too large: 19 bytes")


def test_missing_pyyaml_says_how_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # makes `import yaml` fail
    cases, problems = load_catalog(write(tmp_path, "c.yml", "jobs: {}"))
    assert cases == []
    assert problems[0].reason == "reading YAML needs PyYAML: pip install pyyaml"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # safe_load only: no Python objects from a scenario file
        ("jobs: !!python/object/apply:os.system ['true']", "invalid YAML: "),
        ("jobs:\n  a: {scenarios: [{id: x, created: 2024-13-45}]}", "invalid YAML: ValueError"),
        ("a: &a [*a]\njobs: {}", "a YAML alias refers to a value that contains it"),
        ("jobs:\n  yes: {scenarios: [{id: x}]}", "mapping key True is not text (YAML reads"),
        ("jobs: {a: {scenarios: [{id: x, blob: !!binary aGVsbG8=}]}}", "unsupported value"),
        ("- just\n- a list", "expected a mapping with `jobs`, got array"),
        ("jobs: 3", "`jobs` must be a list of jobs or a mapping of job name to job, got number"),
        ("jobs: []", "`jobs` is empty: no scenarios"),
        ("title: no jobs", "no `jobs`: a catalog file has `jobs`, each with `scenarios`"),
    ],
)
def test_bad_yaml_documents(tmp_path: Path, text: str, reason: str) -> None:
    cases, reasons = load_yaml(tmp_path, text)
    assert cases == []
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons


def test_alias_expansion_is_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog_module, "MAX_VALUES", 1000)
    bomb = (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "jobs: {j: {scenarios: [{id: x, payload: *c}]}}\n"
    )
    cases, reasons = load_yaml(tmp_path, bomb)
    assert cases == [] and reasons[0].startswith("document too large: more than 1000 values")


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    document = {"jobs": {"j": {"scenarios": [{"id": "x", "deep": []}]}}}
    deep: list[Any] = document["jobs"]["j"]["scenarios"][0]["deep"]  # type: ignore[index]
    for _ in range(150):
        deep.append([])
        deep = deep[0]
    cases, reasons = load_json(tmp_path, document)
    assert cases == [] and reasons == ["nested deeper than 100 levels"]


# -- bad jobs and scenarios: problems, and the rest still loads -----------------------------


def test_a_top_level_scenarios_list_is_one_unnamed_job(tmp_path: Path) -> None:
    cases, reasons = load_json(tmp_path, {"scenarios": [{"id": "a", "input": "hi"}]})
    assert [(c.id, c.type, c.question) for c in cases] == [("a", None, "hi")]
    assert reasons == []


def test_bad_jobs_are_reported_and_good_ones_load(tmp_path: Path) -> None:
    document = {
        "jobs": [
            "not a job",
            {"name": "no_scenarios"},
            {"name": "scenarios_text", "scenarios": "a, b"},
            {"name": "empty", "scenarios": []},
            {"name": "good", "scenarios": [{"id": "g"}, 3, None]},
        ]
    }
    cases, reasons = load_json(tmp_path, document)
    assert [c.id for c in cases] == ["g"]
    assert reasons == [
        "expected a job mapping with `scenarios`, got string",
        "job has no `scenarios`",
        "`scenarios` must be a list, got string",
        "job has no scenarios (empty list)",
        "expected a scenario mapping, got number",
        "expected a scenario mapping, got null",
    ]


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        ({"input": "x"}, "scenario has no id (give it an `id` or a `name`)"),
        ({"id": None, "name": None}, "scenario has no id (give it an `id` or a `name`)"),
        ({"id": "  "}, "unusable scenario id '  '"),
        ({"id": True}, "scenario id must be text or a number, got boolean"),
        ({"name": ["x"]}, "scenario name must be text or a number, got array"),
    ],
)
def test_scenarios_without_a_usable_id_are_left_out(
    tmp_path: Path, scenario: dict[str, Any], reason: str
) -> None:
    document = {"jobs": {"j": {"scenarios": [scenario, {"id": "fine"}]}}}
    cases, reasons = load_json(tmp_path, document)
    assert [c.id for c in cases] == ["fine"]
    assert reasons == [reason]


_AT = "jobs.j.scenarios[0]."


@pytest.mark.parametrize(
    ("scenario", "key", "reason"),
    [
        (
            {"success_criteria": 5},
            "success_criteria",
            "success_criteria: Input should be a valid list, got number",
        ),
        (
            {"success_criteria": [{"max_turns": "5"}]},
            "success_criteria.max_turns",
            "success_criteria[0].max_turns: Input should be a valid integer, got string",
        ),
        (
            {"success_criteria": [{"max_tokens": -1}]},
            "success_criteria.max_tokens",
            "success_criteria[0].max_tokens: Input should be greater than or equal to 0",
        ),
        (
            {"success_criteria": [{"max_turns": 5}, {"max_turns": 6}]},
            "success_criteria.max_turns",
            "success_criteria[1].max_turns: given twice with different values (5 and 6)",
        ),
        (
            {"success_criteria": [{"response_contains": [1]}]},
            "success_criteria.response_contains",
            "success_criteria[0].response_contains[0]: Input should be a valid string, got number",
        ),
        (
            {"success_criteria": [7]},
            "success_criteria",
            "success_criteria[0]: Input should be a valid dictionary, got number",
        ),
        ({"turns": {"user": "hi"}}, "turns", "turns: Input should be a valid list, got object"),
        (
            {"turns": [{"user": 3}]},
            "turns",
            "turns[0].user: Input should be a valid string, got number",
        ),
        ({"turns": [4]}, "turns", "turns[0]: Input should be a valid dictionary, got number"),
        ({"input": ["a"]}, "input", "input: Input should be a valid string, got array"),
        (
            {"should_escalate": "yes"},
            "should_escalate",
            "should_escalate: Input should be a valid boolean, got string",
        ),
        (
            {"sensitive_tool": ""},
            "sensitive_tool",
            "sensitive_tool: String should have at least 1 character",
        ),
        (
            {"expected_tools": "a"},
            "expected_tools",
            "expected_tools: Input should be a valid list, got string",
        ),
        (
            {"expected_tools": ["a", ""]},
            "expected_tools",
            "expected_tools[1]: String should have at least 1 character",
        ),
        (
            {"expected_tool_graph": ["a"]},
            "expected_tool_graph",
            "expected_tool_graph: Input should be a valid dictionary, got array",
        ),
        (
            {"expected_tool_graph": {"a": [None]}},
            "expected_tool_graph",
            "expected_tool_graph.a[0]: Input should be a valid string, got null",
        ),
        (
            {"expected_subagent": 3},
            "expected_subagent",
            "expected_subagent: Input should be a valid string, got number",
        ),
        ({"rubrics": [{"id": "a"}]}, "rubrics", "rubrics[0].content: Field required"),
        (
            {"rubrics": [{"id": "a", "content": "x"}] * 2},
            "rubrics",
            "rubrics: Value error, rubric ids must be unique",
        ),
    ],
)
def test_a_bad_field_is_a_problem_at_its_path_and_the_scenario_still_loads(
    tmp_path: Path, scenario: dict[str, Any], key: str, reason: str
) -> None:
    document = {"jobs": {"j": {"scenarios": [{"id": "x", **scenario}, {"id": "fine"}]}}}
    cases, reasons = load_json(tmp_path, document)
    assert [c.id for c in cases] == ["x", "fine"]
    assert reasons == [_AT + reason]
    assert cases[0].problems == {key: f"{tmp_path / 'c.json'}: {_AT}{reason}"}
    assert cases[1].problems == {}
    field, _, criterion = key.partition(".")
    if criterion:
        assert getattr(cases[0].success_criteria, criterion) is None
    elif field == "turns":  # the catalog's turns are Case.conversation
        assert cases[0].conversation is None
    else:
        assert getattr(cases[0], field) is None


def test_a_bad_criterion_leaves_the_others_usable(tmp_path: Path) -> None:
    scenario = {"id": "x", "success_criteria": [{"max_turns": 3}, {"max_tokens": "lots"}]}
    cases, _ = load_json(tmp_path, {"jobs": {"j": {"scenarios": [scenario]}}})
    assert cases[0].success_criteria == SuccessCriteria(max_turns=3)
    run = Trajectory(steps=[Step(index=0)], answer="ok")
    assert create_scorer("max_turns")(cases[0], run).passed is True
    budget = create_scorer("token_budget")(cases[0], run)
    assert budget.status.value == "error"
    assert budget.details == {"reason": "bad_expectation", "field": "success_criteria.max_tokens"}
    assert "success_criteria[1].max_tokens" in budget.rationale


def test_every_bad_field_of_a_scenario_is_named(tmp_path: Path) -> None:
    scenario = {"id": "x", "approval": 1, "should_escalate": "no"}
    _, reasons = load_json(tmp_path, {"jobs": {"j": {"scenarios": [scenario]}}})
    assert reasons == [
        _AT + "should_escalate: Input should be a valid boolean, got string",
        _AT + "approval: Input should be 'approve' or 'reject'",
    ]


def test_numeric_job_names_and_ids_become_text(tmp_path: Path) -> None:
    cases, reasons = load_yaml(tmp_path, "jobs:\n  2024:\n    scenarios: [{id: 11, input: hi}]\n")
    assert [(c.id, c.type) for c in cases] == [("11", "2024")]
    assert reasons == []


def test_a_name_beside_an_id_is_kept_as_a_label(tmp_path: Path) -> None:
    scenario = {"id": "x", "name": "Refund, broken item"}
    cases, _ = load_json(tmp_path, {"jobs": {"j": {"scenarios": [scenario]}}})
    assert cases[0].id == "x" and cases[0].metadata == {"name": "Refund, broken item"}


def test_expected_trajectory_goes_to_the_case(tmp_path: Path) -> None:
    scenario = {"id": "x", "expected_trajectory": ["a", "b"], "notes": {"k": 1}}
    cases, _ = load_json(tmp_path, {"jobs": {"j": {"scenarios": [scenario]}}})
    assert cases[0].expected_trajectory == ["a", "b"]
    assert cases[0].metadata == {"notes": {"k": 1}}


def test_criteria_merge_and_keep_the_ones_no_scorer_reads(tmp_path: Path) -> None:
    scenario = {
        "id": "x",
        "success_criteria": [
            {"response_contains": "a"},
            {"response_contains": ["b"]},
            {"max_turns": 3.0},
            {"max_turns": 3},
            "signal_task_complete",
            {"llm_judge": {"rubric": "polite"}},
        ],
    }
    cases, reasons = load_json(tmp_path, {"jobs": {"j": {"scenarios": [scenario]}}})
    assert reasons == []
    assert cases[0].success_criteria == SuccessCriteria(
        max_turns=3,
        response_contains=["a", "b"],
        signal_task_complete=True,
        others={"llm_judge": {"rubric": "polite"}},
    )


def test_pyyaml_is_imported_only_to_read_yaml() -> None:
    code = (
        "import sys, assay.formats, assay.scorers.checks, assay.scorers.multi_agent; "
        "print('yaml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- never raises ---------------------------------------------------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
_fields = st.sampled_from(
    [
        "id",
        "name",
        "turns",
        "input",
        "success_criteria",
        "approval",
        "sensitive_tool",
        "expected_tools",
        "expected_tool_graph",
        "should_escalate",
        "expected_subagent",
    ]
)
_scenario = st.dictionaries(_fields, _values, max_size=6)
_documents = st.one_of(
    _values,
    st.fixed_dictionaries(
        {
            "jobs": st.dictionaries(
                st.text(max_size=5),
                st.fixed_dictionaries(
                    {"scenarios": st.one_of(st.lists(_scenario, max_size=3), _values)}
                ),
                max_size=2,
            )
        }
    ),
    st.fixed_dictionaries(
        {
            "jobs": st.lists(
                st.one_of(
                    _values, st.fixed_dictionaries({"scenarios": st.lists(_scenario, max_size=3)})
                ),
                max_size=2,
            )
        }
    ),
)


@settings(max_examples=examples(200))
@given(document=_documents)
def test_load_catalog_never_raises_on_json(tmp_path: Path, document: Any) -> None:
    try:
        data = orjson.dumps(document)
    except TypeError:  # integers beyond 64 bits: not a JSON document orjson can write
        return
    cases, problems = load_catalog(write(tmp_path, "fuzz.json", data))
    assert all(isinstance(case.id, str) and case.id for case in cases)
    assert all(problem.reason for problem in problems)
    assert cases or problems


@settings(max_examples=examples(200))
@given(
    text=st.text(
        alphabet=st.sampled_from(list("jobs:scenario-id[]{}&*!|>'\"#\n ,?x1")), max_size=80
    )
)
def test_load_catalog_never_raises_on_yaml_text(tmp_path: Path, text: str) -> None:
    pytest.importorskip("yaml")
    cases, problems = load_catalog(write(tmp_path, "fuzz.yaml", text))
    assert cases or problems
