"""Property: every catalog scorer returns a well-formed Score, and never raises, on arbitrary
runs (random tool names, arguments, results of any JSON shape or None, messages with None
content) against arbitrary scenarios, well-formed or not."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from _examples import examples
from assay.formats import ReadProblem
from assay.formats.catalog import _scenario_case
from assay.records import Case, Message, Step, ToolCall, Trajectory, Usage
from assay.results import Score, ScoreStatus
from assay.scorers import create_scorer
from assay.scorers.multi_agent import routing_accuracy

SCORERS = {
    "max_turns": {},
    "token_budget": {},
    "response_contains": {},
    "response_not_contains": {},
    "escalation": {},
    "signal_task_complete": {},
    "tool_name_match": {},
    "error_suggestions": {},
    "confirmation_flow": {},
    "interrupt_rejection": {},
    "idempotency": {},
    "tool_graph": {},
    "routing": {},
    "hierarchical": {"subagents": {"billing": ["response_contains", "max_turns", "tool_graph"]}},
    "composite": {"scorers": ["max_turns", "confirmation_flow", "routing"], "mode": "weighted"},
}
BUILT = {name: create_scorer(name, **options) for name, options in SCORERS.items()}

TOOLS = [
    "escalate_to_human",
    "signal_task_complete",
    "process_refund",
    "confirm_process_refund",
    "delegate_to_billing",
    "delegate_to_",
    "search",
    "get_item",
    "",
]
names = st.one_of(st.sampled_from(TOOLS), st.text(max_size=12))
texts = st.one_of(st.none(), st.text(max_size=20), st.sampled_from(["refund", "Check the ID"]))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
actions = st.one_of(
    json_values,
    st.lists(st.one_of(names, st.fixed_dictionaries({"tool": names}), json_values), max_size=3),
)
result_dicts = st.fixed_dictionaries(
    {},
    optional={
        "status": st.one_of(
            st.sampled_from(["pending_confirmation", "already_processed", "completed"]),
            json_values,
        ),
        "data": json_values,
        "error": json_values,
        "suggestions": st.one_of(st.lists(texts, max_size=3), json_values),
        "available_actions": actions,
    },
)


def _as_json_text(value: dict[str, Any]) -> str:
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # e.g. an integer too large for JSON
        return "{"


results = st.one_of(
    json_values, result_dicts, result_dicts.map(_as_json_text), st.just('{"status": ')
)
args = st.one_of(
    st.none(),
    st.text(max_size=10),
    st.fixed_dictionaries(
        {}, optional={"idempotency_key": st.one_of(st.sampled_from(["k", 1]), json_values)}
    ),
    st.just('{"idempotency_key": "k"}'),
)
tool_calls = st.builds(
    ToolCall,
    name=names,
    args=args,
    call_id=st.one_of(st.none(), st.sampled_from(["c1", "c2"])),
    result=results,
)
usage = st.builds(Usage, st.integers(0, 10_000), st.integers(0, 10_000))
steps = st.builds(
    Step,
    index=st.integers(-2, 10),
    text=texts,
    tool_calls=st.lists(tool_calls, max_size=3),
    usage=usage,
    node=st.one_of(st.none(), st.sampled_from(["billing", "coordinator", "Billing", ""])),
)
messages = st.builds(
    Message,
    role=st.sampled_from(["system", "user", "assistant", "tool", "other"]),
    content=texts,
    tool_calls=st.lists(tool_calls, max_size=2),
    tool_call_id=st.one_of(st.none(), st.sampled_from(["c1", "c2"])),
)
runs = st.builds(
    Trajectory,
    answer=st.one_of(texts, json_values),
    steps=st.lists(steps, max_size=5),
    messages=st.lists(messages, max_size=5),
    usage=usage,
)

criteria_items = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "max_turns": st.one_of(st.integers(-1, 6), json_values),
            "max_tokens": st.one_of(st.integers(0, 20_000), json_values),
            "response_contains": st.one_of(st.lists(texts, max_size=3), json_values),
            "response_not_contains": st.one_of(st.lists(texts, max_size=3), json_values),
        },
    ),
    json_values,
)
scenarios = st.fixed_dictionaries(
    {"id": st.just("s")},
    optional={
        "success_criteria": st.one_of(st.lists(criteria_items, max_size=3), criteria_items),
        "should_escalate": st.one_of(st.booleans(), json_values),
        "should_signal_complete": st.one_of(st.booleans(), json_values),
        "sensitive_tool": st.one_of(st.just("process_refund"), json_values),
        "approval": st.one_of(st.sampled_from(["approve", "reject", "Reject"]), json_values),
        "expected_tool_graph": st.one_of(
            st.dictionaries(names, st.lists(names, max_size=2), max_size=2), json_values
        ),
        "expected_subagent": st.one_of(st.just("billing"), json_values),
        "expected_tools": st.one_of(
            st.lists(names, max_size=3), st.lists(json_values, max_size=2), json_values
        ),
        "rubrics": json_values,
    },
)


def as_case(scenario: dict[str, Any]) -> Case:
    """The scenario as the catalog reader makes it: every field checked once, there."""
    problems: list[ReadProblem] = []
    case = _scenario_case(scenario, "job", "c.json#jobs.job.scenarios[0]", problems)
    assert isinstance(case, Case)
    assert len(problems) >= len(case.problems)  # each unusable field was reported
    return case


cases = scenarios.map(as_case)


def check(score: Score, name: str) -> None:
    assert isinstance(score, Score)
    assert isinstance(score.rationale, str) and score.rationale
    if score.status is ScoreStatus.SCORED:
        assert isinstance(score.passed, bool)
        assert score.value is not None and 0.0 <= score.value <= 1.0
    else:
        assert score.value is None and score.passed is None
    assert isinstance(score.details, dict)
    assert score.scorer == name


@settings(max_examples=examples(300))
@given(case=cases, run=runs)
def test_every_catalog_scorer_returns_a_score(case: Case, run: Trajectory) -> None:
    for name, scorer in BUILT.items():
        check(scorer(case, run), name)
    accuracy = routing_accuracy([(case, run)])
    assert accuracy is None or 0.0 <= accuracy <= 1.0
