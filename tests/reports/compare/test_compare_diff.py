"""Matching and counting two evaluations' runs (`assay.reports.compare.diff`)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from assay.reports.compare.diff import compare_lines, setting_warnings
from assay.schema.compare import ScorerComparison


def verdict(scorer: str, passed: bool | None, score: float | None, why: str = "") -> dict[str, Any]:
    status = "unscored" if score is None else "scored"
    return {"scorer": scorer, "status": status, "passed": passed, "score": score,
            "rationale": why}


def line(scenario: str, run: str | None, passed: bool | None, score: float | None,
         **extra: Any) -> dict[str, Any]:
    return {"scenario_id": scenario, "run_id": run, "score": verdict("s", passed, score),
            "report_file": f"{run}.json", **extra}


def test_flips_and_score_changes_are_counted_apart_from_unscored_and_one_sided_runs() -> None:
    base = [
        line("1", "pass-fail", True, 1.0),
        line("1", "fail-pass", False, 0.0),
        line("2", "lower", False, 0.5),
        line("2", "higher", True, 0.8),
        line("3", "same", True, 1.0),
        line("3", "unscored-before", None, None),
        line("4", "unscored-after", True, 1.0),
        line("4", "gone", True, 1.0),
    ]
    new = [
        line("1", "pass-fail", False, 0.0),
        line("1", "fail-pass", True, 1.0),
        line("2", "lower", False, 0.25),
        line("2", "higher", True, 0.9),
        line("3", "same", True, 1.0),
        line("3", "unscored-before", True, 1.0),
        line("4", "unscored-after", None, None),
        line("5", "added", True, 1.0),
    ]
    figures = compare_lines(base, new, resamples=200)["scorers"]["s"]
    assert figures["regressed"] == ["pass-fail", "lower"]
    assert figures["improved"] == ["fail-pass", "higher"]
    assert figures["unchanged"] == ["same"]
    assert figures["unscored"] == ["unscored-before", "unscored-after"]
    assert figures["only_in_base"] == ["gone"]
    assert figures["only_in_new"] == ["added"]
    assert (figures["pass_to_fail"], figures["fail_to_pass"]) == (1, 1)
    assert figures["n_paired"] == 5 and figures["n_scenarios"] == 3
    assert figures["p_value"] == 1.0
    assert abs(figures["mean_delta"] - (-1 + 1 - 0.25 + 0.1 + 0) / 5) < 1e-12
    # Runs in order of scenario, then run id.
    assert [change["run_id"] for change in figures["changes"]] == [
        "fail-pass", "pass-fail", "higher", "lower"
    ]


def test_each_scorer_and_the_combined_verdict_are_compared_under_their_names() -> None:
    def run(a: bool, b: bool) -> dict[str, Any]:
        combined = verdict("a+b", a and b, (float(a) + float(b)) / 2)
        return {"scenario_id": "1", "run_id": "r", "score": combined,
                "scores": [verdict("a", a, float(a)), verdict("b", b, float(b))]}

    result = compare_lines([run(True, True)], [run(True, False)], resamples=100)
    assert sorted(result["scorers"]) == ["a", "a+b", "b"]
    assert result["scorers"]["a"]["unchanged"] == ["r"]
    assert result["scorers"]["b"]["regressed"] == ["r"]
    assert result["scorers"]["a+b"]["regressed"] == ["r"]


def test_runs_are_matched_by_repeat_when_lines_have_one() -> None:
    base = [line("1", "r", True, 1.0, repeat=0), line("1", "r", False, 0.0, repeat=1)]
    new = [line("1", "r", True, 1.0, repeat=1), line("1", "r", False, 0.0, repeat=0)]
    result = compare_lines(base, new, resamples=100)
    figures = result["scorers"]["s"]
    assert (figures["pass_to_fail"], figures["fail_to_pass"]) == (1, 1)
    assert [(c["repeat"], c["outcome"]) for c in figures["changes"]] == [
        (0, "regressed"), (1, "improved")
    ]
    assert not result["problems"]


def test_malformed_and_repeated_lines_are_problems_not_guesses() -> None:
    good = line("1", "r", True, 1.0)
    base = [
        good,
        dict(good),  # the same run again
        {"run_id": "x", "score": verdict("s", True, 1.0)},  # no scenario
        {"scenario_id": 7, "run_id": "x"},
        {"scenario_id": "1", "run_id": ["x"]},
        {"scenario_id": "1", "run_id": "y", "repeat": "1"},
        {"scenario_id": "1", "run_id": "z", "score": "passed"},
        {"scenario_id": "1", "run_id": "w", "score": {"scorer": "s", "status": "scored",
                                                       "passed": True, "score": 7}},
        {"scenario_id": "1", "run_id": "v", "score": {"status": "scored"}},
    ]
    result = compare_lines(base, [good], resamples=100)
    reasons = [problem["reason"] for problem in result["problems"]]
    assert all(problem["side"] == "base" for problem in result["problems"])
    assert len(reasons) == 8, reasons
    assert reasons[0] == "result 2: run r of scenario 1 appears again; the first is compared"
    assert "no scenario_id" in reasons[1]
    assert "run_id is not a string" in reasons[3]
    assert "repeat is not an integer" in reasons[4]
    assert "not an object" in reasons[5]
    assert "score in 0..1" in reasons[6]
    assert "scorer's name" in reasons[7]
    assert result["scorers"]["s"]["unchanged"] == ["r"]


def test_a_run_without_an_id_is_named_by_its_report_file() -> None:
    base = [line("1", None, True, 1.0, report_file="1-a.json")]
    new = [line("1", None, False, 0.0, report_file="1-b.json")]
    changes = compare_lines(base, new, resamples=100)["scorers"]["s"]["changes"]
    assert [(c["run_id"], c["has_run_id"]) for c in changes] == [("1-a", False)]


def test_a_significant_drop_in_pass_rate_is_a_regression() -> None:
    base = [line(str(k), "r", True, 1.0) for k in range(8)]
    new = [line(str(k), "r", k < 2, float(k < 2)) for k in range(8)]
    result = compare_lines(base, new, resamples=500)
    figures = result["scorers"]["s"]
    assert figures["p_value"] == 2 / 64
    assert figures["significant"] and figures["verdict"] == "regressed"
    assert figures["ci"][1] < 0
    assert result["verdict"] == "regressed"
    swapped = compare_lines(new, base, resamples=500)
    assert swapped["verdict"] == "improved"


def test_a_score_drop_without_flips_is_a_regression_by_its_interval() -> None:
    base = [line(str(k), "r", True, 0.9) for k in range(10)]
    new = [line(str(k), "r", True, 0.8 + 0.01 * (k % 3)) for k in range(10)]
    figures = compare_lines(base, new, resamples=500)["scorers"]["s"]
    assert figures["p_value"] == 1.0
    assert figures["verdict"] == "regressed" and figures["significant"]


def test_pass_flips_up_with_scores_down_is_mixed() -> None:
    # Six runs go from a high failing score to a low passing one (a threshold changed):
    # McNemar says better, the scores say worse.
    base = [line(str(k), "r", False, 0.9) for k in range(6)]
    new = [line(str(k), "r", True, 0.5) for k in range(6)]
    result = compare_lines(base, new, resamples=500)
    assert result["scorers"]["s"]["verdict"] == "mixed"
    assert result["verdict"] == "regressed"


def test_setting_warnings_name_each_difference() -> None:
    base = {"schema_version": 1, "scorers": [
        {"name": "static_json", "options": {"list_order": "content", "budget": 5}},
        {"name": "gone", "options": {}},
    ]}
    new = {"schema_version": 2, "scorers": [
        {"name": "static_json", "options": {"list_order": "position", "budget": 5,
                                            "extra": None}},
        "not a spec",
    ]}
    assert setting_warnings(base, new) == [
        "schema versions differ: 1 -> 2",
        "scorer gone only in BASE",
        "static_json options differ: extra (absent) -> null; list_order content -> position",
    ]
    assert setting_warnings(base, base) == []


_verdicts = st.one_of(
    st.none(),  # the run is absent on this side
    st.just((None, None)),  # unscored
    st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0])),
)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from("abcd"), _verdicts, _verdicts), max_size=14),
    st.integers(0, 1000),
)
def test_swapping_base_and_new_swaps_the_changes_and_negates_the_figures(
    runs: list[tuple[str, Any, Any]], seed: int
) -> None:
    base, new = [], []
    for number, (scenario, before, after) in enumerate(runs):
        for side, value in ((base, before), (new, after)):
            if value is not None:
                side.append(line(scenario, f"run{number}", value[0], value[1]))
    forward = compare_lines(base, new, resamples=100, seed=seed)
    backward = compare_lines(new, base, resamples=100, seed=seed)
    assert forward["scorers"].keys() == backward["scorers"].keys()
    for name, there in forward["scorers"].items():
        back = backward["scorers"][name]
        ScorerComparison.model_validate(there)  # the shape `assay schema compare` promises
        assert there["regressed"] == back["improved"]
        assert there["improved"] == back["regressed"]
        assert there["unchanged"] == back["unchanged"]
        assert there["unscored"] == back["unscored"]
        assert there["only_in_base"] == back["only_in_new"]
        assert there["p_value"] == back["p_value"]
        assert (there["pass_to_fail"], there["fail_to_pass"]) == (
            back["fail_to_pass"], back["pass_to_fail"]
        )
        if there["mean_delta"] is None:
            assert back["mean_delta"] is None and back["ci"] is None
        else:
            assert abs(there["mean_delta"] + back["mean_delta"]) < 1e-12
        if there["ci"] is None:
            assert back["ci"] is None
        else:
            assert abs(there["ci"][0] + back["ci"][1]) < 1e-12
            assert abs(there["ci"][1] + back["ci"][0]) < 1e-12
        flipped = {"regressed": "improved", "improved": "regressed"}
        assert back["verdict"] == flipped.get(there["verdict"], there["verdict"])
