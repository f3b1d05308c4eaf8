"""Google ADK eval results (`.evalset_result.json`) and ADK sessions, read as runs."""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay.formats.adk_results  # noqa: F401  (registers the readers)
from assay import create_scorer
from assay.formats import registry
from assay.formats._common import ReadProblem
from assay.formats.adk import cases_from_adk
from assay.formats.adk_results import (
    cases_from_adk_results,
    expected_eval_set,
    load_evalset_result,
    trajectories_from_adk_results,
    trajectories_from_adk_session,
)
from assay.formats.registry import get_reader, read_file
from assay.records import Case, Trajectory

# --- files in ADK's shapes -------------------------------------------------------------------


def content(role: str, *parts: dict[str, Any]) -> dict[str, Any]:
    return {"parts": list(parts), "role": role}


def invocation(
    question: str,
    answer: str | None,
    calls: Sequence[tuple[str, dict[str, Any], Any]] = (),
    inv_id: str = "e-1",
) -> dict[str, Any]:
    """An invocation as ADK writes one (snake_case, `tool_uses` / `tool_responses`)."""
    return {
        "invocation_id": inv_id,
        "user_content": content("user", {"text": question}),
        "final_response": None if answer is None else content("model", {"text": answer}),
        "intermediate_data": {
            "tool_uses": [
                {"id": f"c{i}", "name": name, "args": args}
                for i, (name, args, _) in enumerate(calls)
            ],
            "tool_responses": [
                {"id": f"c{i}", "name": name, "response": result}
                for i, (name, _, result) in enumerate(calls)
            ],
            "intermediate_responses": [],
        },
        "creation_timestamp": 1750000000.0,
    }


def metric(name: str, score: float | None, threshold: float, status: int) -> dict[str, Any]:
    return {
        "metric_name": name,
        "threshold": threshold,
        "criterion": None,
        "score": score,
        "eval_status": status,
        "details": None,
    }


def case_result(
    eval_id: str,
    status: int,
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
    metrics: list[dict[str, Any]],
) -> dict[str, Any]:
    return {
        "eval_set_file": None,
        "eval_set_id": "home",
        "eval_id": eval_id,
        "final_eval_status": status,
        "eval_metric_results": None,
        "overall_eval_metric_results": metrics,
        "eval_metric_result_per_invocation": [
            {
                "actual_invocation": actual,
                "expected_invocation": expected,
                "eval_metric_results": metrics,
            }
            for actual, expected in pairs
        ],
        "session_id": f"___eval___session___{eval_id}",
        "session_details": None,
        "user_id": "test_user_id",
    }


WEATHER = ("get_weather", {"city": "Paris"}, {"temp": 21})
TIME = ("get_time", {"city": "Paris"}, {"time": "10:00"})
BOOK = ("book", {"slot": "10:00"}, {"ok": True})

PASSED_CASE = case_result(
    "weather",
    1,
    [
        (
            invocation("Weather in Paris?", "21 degrees.", [WEATHER], "e-1"),
            invocation("Weather in Paris?", "It is 21 degrees.", [WEATHER], "x-1"),
        ),
        (
            invocation("And the time?", "10:00, booked.", [TIME, BOOK], "e-2"),
            invocation("And the time?", "10:00.", [TIME, BOOK], "x-2"),
        ),
    ],
    [
        metric("tool_trajectory_avg_score", 1.0, 1.0, 1),
        metric("response_match_score", 0.8, 0.7, 1),
    ],
)
FAILED_CASE = case_result(
    "swapped",
    2,
    [
        (
            invocation("Time and weather?", "Both done.", [TIME, WEATHER], "e-3"),
            invocation("Time and weather?", "Both done.", [WEATHER, TIME], "x-3"),
        ),
    ],
    [
        metric("tool_trajectory_avg_score", 0.0, 1.0, 2),
        metric("response_match_score", 1.0, 0.7, 1),
    ],
)
NOT_EVALUATED_CASE = case_result(
    "judged",
    3,
    [(invocation("Hi", "Hello"), invocation("Hi", "Hello"))],
    [metric("final_response_match_v2", None, 0.8, 3)],
)
RESULT = {
    "eval_set_result_id": "home_home_1750000000.0",
    "eval_set_result_name": "home_home_1750000000.0",
    "eval_set_id": "home",
    "eval_case_results": [PASSED_CASE, FAILED_CASE, NOT_EVALUATED_CASE],
    "creation_timestamp": 1750000000.0,
}


def camel(value: Any) -> Any:
    """`value` with every key in camelCase, as ADK's aliases spell them."""
    if isinstance(value, dict):
        return {_camel_key(key): camel(item) for key, item in value.items()}
    if isinstance(value, list):
        return [camel(item) for item in value]
    return value


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def runs(items: list[Trajectory | ReadProblem]) -> list[Trajectory]:
    found = [item for item in items if isinstance(item, Trajectory)]
    assert len(found) == len(items), [i for i in items if isinstance(i, ReadProblem)]
    return found


# --- eval results --------------------------------------------------------------------------


def test_each_case_result_is_a_run_of_its_actual_invocations() -> None:
    passed, failed, judged = runs(trajectories_from_adk_results(RESULT, "r.evalset_result.json"))
    assert (passed.run_id, passed.scenario_id, passed.repeat) == ("weather", "weather", None)
    assert passed.question == "Weather in Paris?"
    assert passed.answer == "10:00, booked."  # the actual one, not the expected "10:00."
    assert passed.tool_names() == ["get_weather", "get_time", "book"]
    assert [step.turn for step in passed.steps] == [0, 1, 1]
    assert [call.result for call in passed.tool_calls()] == [
        {"temp": 21}, {"time": "10:00"}, {"ok": True}
    ]  # fmt: skip
    assert passed.tool_calls()[0].args == {"city": "Paris"}
    assert passed.source == "r.evalset_result.json#0"
    assert failed.tool_names() == ["get_time", "get_weather"]
    assert judged.notes == [] and judged.answer == "Hello"


def test_source_verdicts_keep_what_adk_decided() -> None:
    passed, failed, judged = runs(trajectories_from_adk_results(RESULT, "r.json"))
    assert passed.source_verdicts is not None
    assert passed.source_verdicts["final_eval_status"] == "PASSED"
    assert passed.source_verdicts["metrics"] == {
        "tool_trajectory_avg_score": {"score": 1.0, "threshold": 1.0, "eval_status": "PASSED"},
        "response_match_score": {"score": 0.8, "threshold": 0.7, "eval_status": "PASSED"},
    }
    assert len(passed.source_verdicts["per_invocation"]) == 2
    assert failed.source_verdicts is not None and judged.source_verdicts is not None
    assert failed.source_verdicts["final_eval_status"] == "FAILED"
    assert failed.source_verdicts["metrics"]["tool_trajectory_avg_score"]["eval_status"] == (
        "FAILED"
    )
    assert judged.source_verdicts["final_eval_status"] == "NOT_EVALUATED"
    assert judged.source_verdicts["metrics"]["final_response_match_v2"] == {
        "score": None, "threshold": 0.8, "eval_status": "NOT_EVALUATED"
    }  # fmt: skip


def test_camel_case_reads_the_same() -> None:
    snake = runs(trajectories_from_adk_results(RESULT, "r.json"))
    camels = runs(trajectories_from_adk_results(camel(RESULT), "r.json"))
    assert [(r.run_id, r.question, r.answer, r.tool_names(), r.source_verdicts) for r in snake] == [
        (r.run_id, r.question, r.answer, r.tool_names(), r.source_verdicts) for r in camels
    ]
    assert [c.result for c in camels[0].tool_calls()] == [c.result for c in snake[0].tool_calls()]


def test_the_file_adk_writes_a_json_string_of_json_is_read(tmp_path: Path) -> None:
    path = tmp_path / "home_home_1750000000.0.evalset_result.json"
    path.write_text(json.dumps(json.dumps(RESULT), indent=2))
    value, problem = load_evalset_result(path)
    assert problem is None and value == RESULT
    # The reader reads the string too (as `--from adk-results` hands it over).
    raw = json.loads(path.read_text())
    assert isinstance(raw, str)
    assert [r.run_id for r in runs(trajectories_from_adk_results(raw, str(path)))] == [
        "weather", "swapped", "judged"
    ]  # fmt: skip
    assert get_reader("adk-results").sniff(path.name, raw)


def test_the_registry_unwraps_adk_s_file_before_asking_the_readers(tmp_path: Path) -> None:
    """A JSON string holds no object, so no reader would be asked about it:
    `load_evalset_result`, the registry's unpacker of the suffix, unwraps it first."""
    path = tmp_path / "home.evalset_result.json"
    path.write_text(json.dumps(json.dumps(RESULT)))
    assert registry.detect_reader(path) == "adk-results"
    assert [getattr(item, "run_id", None) for item in read_file(path)] == [
        "weather", "swapped", "judged"
    ]  # fmt: skip
    path.write_text(json.dumps("{not json"))
    (problem,) = read_file(path)
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith("an ADK eval set result: a JSON string whose text is not")


def test_invocation_events_and_unread_parts_are_noted() -> None:
    actual = {
        "invocation_id": "e-1",
        "user_content": content("user", {"text": "Draw a pump"},
                                {"inline_data": {"mime_type": "image/png", "data": "AAAA"}}),
        "final_response": content("model", {"text": "thinking", "thought": True},
                                  {"text": "Here it is."}),
        "intermediate_data": {"invocation_events": [
            {"author": "planner", "content": content("model", {"function_call": {
                "id": "f1", "name": "draw", "args": {"kind": "pump"}}})},
            {"author": "planner", "content": content("user", {"function_response": {
                "id": "f1", "name": "draw", "response": {"ok": 1}}})},
            {"author": "planner", "content": content("model", {"executable_code": {
                "code": "print(1)", "language": "PYTHON"}})},
        ]},
    }  # fmt: skip
    data = {"eval_case_results": [case_result("draw", 1, [(actual, actual)], [])]}
    (run,) = runs(trajectories_from_adk_results(data, "r.json"))
    assert run.tool_names() == ["draw"] and run.tool_calls()[0].result == {"ok": 1}
    assert run.steps[0].node == "planner"
    assert run.answer == "Here it is."
    assert run.notes == [
        "not read: a part of kind 'executable_code' (x1)",
        "not read: a part of kind 'inline_data' (x1)",
        "not read: a part of kind 'thought' (x1)",
    ]


def test_a_case_run_several_times_is_one_run_per_repeat() -> None:
    data = {"eval_case_results": [PASSED_CASE, PASSED_CASE, FAILED_CASE]}
    found = runs(trajectories_from_adk_results(data, "r.json"))
    assert [(r.run_id, r.scenario_id, r.repeat) for r in found] == [
        ("weather#1", "weather", 1), ("weather#2", "weather", 2), ("swapped", "swapped", None)
    ]  # fmt: skip
    cases = cases_from_adk_results(data, "r.json")
    assert [getattr(case, "id", None) for case in cases] == ["weather", "swapped"]


# --- agreement with ADK's own verdicts -----------------------------------------------------


def test_assay_agrees_with_adk_on_tool_trajectory_avg_score() -> None:
    """The expected invocations are an ADK eval case: assay's ADK match type (EXACT, turn by
    turn) gives each run the verdict ADK recorded for `tool_trajectory_avg_score`."""
    source = "r.evalset_result.json"
    found = runs(trajectories_from_adk_results(RESULT, source))
    # Read the ground truth the ordinary way, as an eval set, through `assay.formats.adk`.
    eval_set = expected_eval_set(RESULT, source)
    assert not isinstance(eval_set, ReadProblem)
    via_adk = {case.id: case for case in cases_from_adk(eval_set, source) if isinstance(case, Case)}
    via_results = {
        case.id: case for case in cases_from_adk_results(RESULT, source) if isinstance(case, Case)
    }
    scorer = create_scorer("trajectory")
    verdicts = []
    for run in found[:2]:  # the third case was not evaluated on this metric
        assert run.source_verdicts is not None
        adk = run.source_verdicts["metrics"]["tool_trajectory_avg_score"]
        for cases in (via_adk, via_results):
            case = cases[run.scenario_id or ""]
            assert case.trajectory_mode == "EXACT"
            score = scorer(case, run)
            assert score.details["by_turn"] is True
            assert score.value == adk["score"]
            assert ("PASSED" if score.passed else "FAILED") == adk["eval_status"]
        verdicts.append(adk["eval_status"])
    assert verdicts == ["PASSED", "FAILED"]  # the file has one of each


def test_the_criterion_recorded_in_the_result_sets_the_case_options() -> None:
    criterion_metric = metric("tool_trajectory_avg_score", 1.0, 0.5, 1)
    criterion_metric["criterion"] = {"threshold": 0.5, "match_type": "IN_ORDER"}
    data = {
        "eval_case_results": [{**FAILED_CASE, "overall_eval_metric_results": [criterion_metric]}]
    }
    (case,) = cases_from_adk_results(data, "r.json")
    assert isinstance(case, Case)
    assert (case.trajectory_mode, case.trajectory_threshold) == ("IN_ORDER", 0.5)


# --- sessions ------------------------------------------------------------------------------


def event(author: str, role: str, *parts: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "id": f"ev-{author}-{len(parts)}",
        "invocation_id": "e-1",
        "author": author,
        "content": content(role, *parts),
        "actions": {"state_delta": {}, "artifact_delta": {}, "requested_auth_configs": {}},
        "timestamp": extra.pop("timestamp", 101.0),
        **extra,
    }


SESSION = {
    "id": "5b1f",
    "app_name": "travel",
    "user_id": "u1",
    "state": {},
    "events": [
        event("user", "user", {"text": "Book Paris"}, timestamp=100.0),
        event("router", "model", {"function_call": {
            "id": "t1", "name": "transfer_to_agent", "args": {"agent_name": "booker"}}},
            usage_metadata={"prompt_token_count": 10, "candidates_token_count": 2},
            model_version="gemini-2.0-flash"),
        event("router", "user", {"function_response": {
            "id": "t1", "name": "transfer_to_agent", "response": {"result": None}}}),
        event("booker", "model", {"text": "Checking.", "thought": True},
              {"function_call": {"id": "b1", "name": "book", "args": {"city": "Paris"}}},
              {"function_call": {"name": "weather", "args": {}}}),
        event("booker", "user",
              {"function_response": {"name": "weather", "response": {"t": 21}}},
              {"function_response": {"id": "b1", "name": "book", "response": {"ok": True}}}),
        event("booker", "model", {"text": "Booked."},
              {"inline_data": {"mime_type": "image/png", "data": "AA"}}),
        event("user", "user", {"text": "Thanks"}),
        event("booker", "model", {"text": "You're welcome."},
              {"inline_data": {"mime_type": "image/png", "data": "AA"}}, timestamp=103.5),
    ],
    "last_update_time": 103.5,
}  # fmt: skip


def test_a_multi_agent_session_is_a_run() -> None:
    (run,) = runs(trajectories_from_adk_session(SESSION, "s.json"))
    assert (run.run_id, run.runner, run.model) == ("5b1f", "travel", "gemini-2.0-flash")
    assert (run.question, run.answer) == ("Book Paris", "You're welcome.")
    assert run.tool_names() == ["transfer_to_agent", "book", "weather"]
    assert [call.result for call in run.tool_calls()] == [{"result": None}, {"ok": True}, {"t": 21}]
    assert [(s.node, s.turn, s.text) for s in run.steps] == [
        ("router", 0, None), ("booker", 0, None), ("booker", 0, "Booked."),
        ("booker", 1, "You're welcome."),
    ]  # fmt: skip
    assert run.usage.input_tokens == 10 and run.duration_ms == 3500.0
    assert run.notes == [
        "not read: a part of kind 'inline_data' (x2)",
        "not read: a part of kind 'thought' (x1)",
    ]
    assert [m.role for m in run.messages][:3] == ["user", "assistant", "tool"]


def test_a_single_agent_session_in_camel_case_has_no_nodes() -> None:
    session = camel({"id": "s", "app_name": "a", "user_id": "u", "events": [
        event("user", "user", {"text": "Q1"}),
        event("user", "user", {"text": "Q2"}),  # a turn the agent never answered
        event("agent", "model", {"function_call": {"id": "x", "name": "f", "args": {}}}),
        event("agent", "user", {"function_response": {"id": "x", "name": "f", "response": 1}}),
        event("agent", "model", {"text": "A"}),
    ]})  # fmt: skip
    assert get_reader("adk-session").sniff("s.json", session)
    (run,) = runs(trajectories_from_adk_session(session, "s.json"))
    assert [(s.node, s.turn) for s in run.steps] == [(None, 0), (None, 1), (None, 1)]
    assert run.tool_calls()[0].result == 1 and run.answer == "A" and run.question == "Q1"


def test_a_list_of_sessions_is_a_run_each() -> None:
    found = trajectories_from_adk_session([SESSION, {**SESSION, "id": "2"}, 3], "s.json")
    assert [getattr(item, "run_id", None) for item in found[:2]] == ["5b1f", "2"]
    assert isinstance(found[2], ReadProblem) and found[2].source == "s.json#2"
    assert found[2].reason == "an ADK session: expected a session object, got number"


# --- sniffing ------------------------------------------------------------------------------


def test_sniffs_are_strict() -> None:
    results, session = get_reader("adk-results"), get_reader("adk-session")
    assert results.sniff("x.json", RESULT) and not session.sniff("x.json", RESULT)
    assert session.sniff("x.json", SESSION) and not results.sniff("x.json", SESSION)
    evalset = {"eval_set_id": "home", "eval_cases": [{"eval_id": "a", "conversation": []}]}
    for sniff in (results.sniff, session.sniff):
        assert not sniff("home.evalset.json", evalset)
        assert not sniff("x.json", {"events": [], "id": "1"})  # no app or user: not a session
        assert not sniff("x.json", [1, 2])


# --- bad files -----------------------------------------------------------------------------

BIG = "x" * (10 * 1024 * 1024)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"eval_set_id": "s"}, "not an ADK eval set result: no eval_case_results list in "
                               "an object with keys eval_set_id"),
        ({"eval_case_results": []}, "an ADK eval set result without eval case results"),
        ({"eval_case_results": [3]},
         "an ADK eval set result: expected an eval case result object, got number"),
        ({"eval_case_results": [{"final_eval_status": 1}]},
         "an ADK eval set result: eval case result without an eval_id"),
        ({"eval_case_results": [{"eval_id": "a", "final_eval_status": 3}]},
         "an ADK eval set result: eval case result 'a' has no eval_metric_result_per_invocation "
         "list (final_eval_status NOT_EVALUATED)"),
        ({"eval_case_results": [{"eval_id": "a", "final_eval_status": 3,
                                 "eval_metric_result_per_invocation": []}]},
         "an ADK eval set result: eval case result 'a' records no invocations "
         "(final_eval_status NOT_EVALUATED)"),
        ({"eval_case_results": [{"eval_id": "a", "eval_metric_result_per_invocation": [
            {"expected_invocation": {}}]}]},
         "an ADK eval set result: eval case result 'a': invocation 1 has no actual_invocation "
         "object"),
        ("not json", "an ADK eval set result: a JSON string whose text is not JSON "
                     "(invalid JSON:"),
        (BIG, "an ADK eval set result: a JSON string whose text is not JSON "
              "(invalid JSON:"),
    ],
)  # fmt: skip
def test_bad_results_are_problems(data: Any, reason: str) -> None:
    (problem,) = trajectories_from_adk_results(data, "r.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason.startswith(reason)  # the JSON parser's own words may follow


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"id": "s", "app_name": "a", "user_id": "u"},
         "an ADK session: session 's' has no events list (got null)"),
        ({"events": {"a": 1}}, "an ADK session: session has no events list (got object)"),
        (BIG, "not an ADK session: a string"),
        ([], "not an ADK session: an empty list"),
    ],
)  # fmt: skip
def test_bad_sessions_are_problems(data: Any, reason: str) -> None:
    (problem,) = trajectories_from_adk_session(data, "s.json")
    assert isinstance(problem, ReadProblem)
    assert problem.reason == reason


def test_a_huge_text_value_is_read_without_trouble() -> None:
    actual = invocation("Q", BIG)
    data = {"eval_case_results": [case_result("big", 1, [(actual, actual)], [])]}
    (run,) = runs(trajectories_from_adk_results(data, "r.json"))
    assert len(run.answer) == len(BIG)
    session = {**SESSION, "events": [event("user", "user", {"text": BIG}),
                                      event("a", "model", {"text": BIG})]}  # fmt: skip
    (run,) = runs(trajectories_from_adk_session(session, "s.json"))
    assert run.question == BIG and run.answer == BIG


def test_parts_in_odd_shapes_are_skipped_or_noted() -> None:
    session = {"id": "s", "app_name": "a", "user_id": "u", "events": [
        "not an event",
        {"author": "user", "content": {"parts": [None, 3, {"text": "Q"}, {}]}},
        {"author": "m", "content": {"parts": "oops"}},
        {"author": "m", "content": {"parts": [{"function_call": "oops"}, {"text": 5}]}},
        {"author": "m", "error_code": "SAFETY", "error_message": "blocked"},
    ]}  # fmt: skip
    (run,) = runs(trajectories_from_adk_session(session, "s.json"))
    assert run.question == "Q" and run.answer is None and run.tool_calls() == []
    assert run.notes == [
        "not read: a part of kind 'function_call (not an object)' (x1)",
        "not read: a part of kind 'text (not text)' (x1)",
        "an event records an error: blocked",
        "not read: an event that is not an object (x1)",
    ]
    # The agent's last word was that error: the run failed, and is never scored.
    assert run.error == "ADK session ended in an error: blocked"
    assert run.error_kind == "agent_error"


def test_an_error_the_agent_went_on_from_is_a_note_only() -> None:
    session = {"id": "s", "app_name": "a", "user_id": "u", "events": [
        {"author": "user", "content": {"parts": [{"text": "Q"}]}},
        {"author": "m", "error_code": "MALFORMED_FUNCTION_CALL"},
        {"author": "m", "content": {"parts": [{"text": "the answer"}]}},
    ]}  # fmt: skip
    (run,) = runs(trajectories_from_adk_session(session, "s.json"))
    assert run.answer == "the answer" and run.error is None and run.error_kind is None
    assert run.notes == ["an event records an error: MALFORMED_FUNCTION_CALL"]


# --- never raising -------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from([
            "eval_case_results", "evalCaseResults", "eval_id", "evalId", "final_eval_status",
            "eval_metric_result_per_invocation", "actual_invocation", "actualInvocation",
            "expected_invocation", "overall_eval_metric_results", "metric_name", "eval_status",
            "score", "threshold", "criterion", "user_content", "final_response", "parts", "text",
            "intermediate_data", "tool_uses", "tool_responses", "invocation_events", "author",
            "content", "function_call", "functionCall", "function_response", "id", "name",
            "args", "response", "events", "app_name", "user_id", "timestamp", "thought",
            "inline_data", "usage_metadata", "session_details", "intermediate_responses",
        ]) | st.text(max_size=4),
        children,
        max_size=5,
    ),
    max_leaves=30,
)  # fmt: skip


@settings(deadline=None)
@given(json_values)
def test_property_arbitrary_json_never_raises(data: Any) -> None:
    before = copy.deepcopy(data)
    for read in (trajectories_from_adk_results, trajectories_from_adk_session):
        items = read(data, "f.json")
        assert items and all(isinstance(i, Trajectory | ReadProblem) for i in items)
    assert isinstance(expected_eval_set(data, "f.json"), dict | ReadProblem)
    assert cases_from_adk_results(data, "f.json")
    for reader in ("adk-results", "adk-session"):
        assert isinstance(get_reader(reader).sniff("f.evalset_result.json", data), bool)
    assert data == before or data != data  # NaN never equals itself
