"""The pytest plugin `assay.testing`, run by pytest itself (`pytester`): the assertions'
messages, tests parametrized over scenarios, and the plugin's registration by entry point."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli.main import main

pytest_plugins = ["pytester"]
# Every run is a new interpreter (runpytest_subprocess): the plugin is then found by its entry
# point as in any project, and an in-process run's clean-up of sys.modules cannot leave this
# process holding two copies of assay's classes.

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """The examples evaluated with static_json and trajectory: pass rate 0.625."""
    out = tmp_path / "reports"
    code = main(
        [
            "evaluate", "--trajectories", str(EXAMPLES / "trajectories"),
            "--scenarios", str(EXAMPLES / "scenarios"), "--reports-dir", str(out),
            "--scorer", "static_json", "--scorer", "trajectory", "--workers", "1", "-q",
        ]
    )  # fmt: skip
    assert code == 0
    return out


@pytest.mark.slow
def test_assertions_pass_and_fail_with_the_figures_and_worst_runs(
    pytester: pytest.Pytester, reports: Path
) -> None:
    pytester.makepyfile(
        f"""
        from assay.testing import assert_pass_rate, assert_scorer

        REPORTS = {str(reports)!r}

        def test_rate_met():
            assert_pass_rate(REPORTS, 0.6)

        def test_scorer_met():
            assert_scorer(REPORTS, "static_json", min_mean=0.9, min_pass_rate=0.85)

        def test_rate_below():
            assert_pass_rate(REPORTS, 0.9)

        def test_scorer_below():
            assert_scorer(REPORTS, "trajectory", min_mean=0.4, min_pass_rate=0.5)

        def test_scorer_that_did_not_run():
            assert_scorer(REPORTS, "rubric", min_pass_rate=0.5)

        def test_no_reports():
            assert_pass_rate(REPORTS + "/nowhere", 0.5)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2, failed=4)
    result.stdout.fnmatch_lines(
        [
            "E*AssertionError: pass rate 0.625 is below 0.9: 5 of 8 runs passed (1 partially "
            "scored, counted as not passed); 11 runs read, 1 unscored, 2 not read or without a "
            "scenario",
            "E*worst failing runs:",
            "E*run 11, scenario 11, score 0.750: static_json: 1 of 2 gold keys exact "
            "[[]11.json[]]",
            "E*run 12, scenario 12, score 0.750: trajectory: expected step 0 (get_sites) "
            "not found anywhere in the run; 1 of 2 expected calls matched in order [[]12.json[]]",
            "E*AssertionError: trajectory: pass rate 0.333 is below 0.5 (1 of 3 scored runs "
            "passed, mean score 0.500; 6 unscored, 0 errors)",
            "E*worst failing runs of trajectory:",
            "E*run 11-retry, scenario 11, score 0.000: step 0: get_work_orders: argument "
            "'asset_id' missing; 0 of 1 expected calls matched in order [[]11-retry.json[]]",
            "E*AssertionError: scorer 'rubric' is not among the scorers that ran (scorers "
            "that ran: static_json, trajectory)",
            "E*AssertionError: cannot read the reports: */nowhere: not a directory",
        ],
        consecutive=False,
    )
    # The helpers' own frames are hidden: the failure points at the test's line.
    assert "raise AssertionError" not in result.stdout.str()


@pytest.mark.slow
def test_a_summary_from_assay_evaluate(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        f"""
        from pathlib import Path
        import pytest
        from assay import EvaluateOptions, evaluate
        from assay.scoring import Criterion
        from assay.testing import assert_pass_rate, assert_scorer

        EXAMPLES = Path({str(EXAMPLES)!r})

        @pytest.fixture
        def summary(tmp_path):
            options = EvaluateOptions(
                EXAMPLES / "trajectories", (EXAMPLES / "scenarios",), tmp_path / "out",
                criteria=(Criterion("static_json", "static_json"),), workers=1,
            )
            return evaluate(options)

        def test_met(summary):
            assert_scorer(summary, "static_json", min_pass_rate=0.7)

        def test_below(summary):
            assert_scorer(summary, "static_json", min_mean=0.95)

        def test_rate_below(summary, tmp_path):
            (tmp_path / "out" / "_aggregate.json").unlink()  # only the summary is left
            assert_pass_rate(summary, 0.99)

        def test_bad_minimum(summary):
            with pytest.raises(ValueError, match="min_rate must be a number between 0 and 1"):
                assert_pass_rate(summary, 80)
            with pytest.raises(ValueError, match="needs min_mean, min_pass_rate or both"):
                assert_scorer(summary, "static_json")
            with pytest.raises(TypeError, match="got int"):
                assert_pass_rate(3, 0.5)
        """
    )
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(
        [
            "E*AssertionError: static_json: mean score 0.929 is below 0.95 (6 of 7 scored "
            "runs passed, mean score 0.929; 2 unscored, 0 errors)",
            "E*worst failing runs of static_json:",
            "E*run 11, scenario 11, score 0.500: 1 of 2 gold keys exact [[]11.json[]]",
            "E*AssertionError: pass rate 0.857 is below 0.99: 6 of 7 runs passed; 11 runs "
            "read, 2 unscored, 2 not read or without a scenario",
            "E*run 11, scenario 11, score 0.500: 1 of 2 gold keys exact [[]11.json[]]",
        ],
        consecutive=False,
    )


def scenario_files(pytester: pytest.Pytester) -> None:
    shutil.copytree(EXAMPLES / "scenarios", pytester.path / "scenarios")
    (pytester.path / "scenarios" / "broken.json").write_text('[{"id": "31", "text": ')


@pytest.mark.slow
def test_a_marker_runs_a_test_per_scenario_through_the_entry_point(
    pytester: pytest.Pytester,
) -> None:
    scenario_files(pytester)
    pytester.makepyfile(
        """
        import pytest
        from assay.testing import scenarios

        @pytest.mark.assay_scenarios("scenarios")
        def test_each(assay_case):
            assert assay_case.id and assay_case.id != "18"

        @pytest.mark.parametrize("case", scenarios("scenarios/judged.json", "no/such/dir"))
        def test_helper(case):
            assert case.characteristic_form
        """
    )
    # A new interpreter: the plugin is found by its entry point, as in any project.
    result = pytester.runpytest_subprocess("-v", "--strict-markers", "-p", "no:cacheprovider")
    # A scenario that cannot be read fails its test in setup: an error, as in JUnit XML.
    result.assert_outcomes(passed=9, failed=1, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*::test_each?11? PASSED*",
            "*::test_each?18? FAILED*",
            "*::test_each?21? PASSED*",
            "*::test_each?problem: scenarios/broken.json? ERROR*",
            "*::test_helper?17? PASSED*",
            "*::test_helper?problem: no/such/dir? ERROR*",
            "scenario not readable: scenarios/broken.json: invalid JSON*",
            "scenario not readable: no/such/dir: no such file or directory",
        ],
        consecutive=False,
    )


@pytest.mark.slow
def test_a_marked_test_without_the_argument_is_a_clear_collection_error(
    pytester: pytest.Pytester,
) -> None:
    scenario_files(pytester)
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.assay_scenarios("scenarios")
        def test_each(case):
            pass
        """
    )
    result = pytester.runpytest_subprocess()
    result.stdout.fnmatch_lines(
        ["*assay_scenarios passes each scenario as the argument 'assay_case', which the test "
         "does not take*"]
    )  # fmt: skip
    assert result.ret != 0


@pytest.mark.slow
def test_the_plugin_is_registered_by_its_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_nothing(): pass")
    result = pytester.runpytest_subprocess("--trace-config")
    result.stdout.fnmatch_lines(["*registered third-party plugins:*", "*assay-*at*"])
    markers = pytester.runpytest_subprocess("--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.assay_scenarios(*paths)*"])
    off = pytester.runpytest_subprocess("--markers", "-p", "no:assay")
    assert "assay_scenarios" not in off.stdout.str()


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, assay.testing; print(sorted(m for m in sys.modules if m.startswith(("
        "'assay.reports', 'assay.formats', 'assay.offline', 'assay.results', 'pydantic', "
        "'rich', 'orjson', 'httpx'))))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.strip() == "[]"
