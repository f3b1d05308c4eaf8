"""Results as a pandas DataFrame: `EvalReport.to_pandas()` and `assay.load_dataframe(dir)`
give the same frame of the same runs; columns and dtypes; a reports directory with lines
that are not results still loads, those lines reported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pd = pytest.importorskip("pandas")

import assay  # noqa: E402
from assay.evaluation import AgentEvaluator, EvalCase, EvalSet, tool  # noqa: E402
from assay.offline import EvaluateOptions, evaluate  # noqa: E402
from assay.reports.load import (  # noqa: E402
    DATAFRAME_COLUMNS,
    ReportsError,
    load_dataframe,
    results_dataframe,
)


@tool
def get_weather(city: str) -> str:
    return {"Paris": "sunny"}.get(city, "unknown")


def agent(messages: list[dict[str, Any]]) -> str:
    text = messages[-1]["content"]
    if "crash" in text:
        raise RuntimeError("the agent fell over")
    city = text.split()[-1].strip("?")
    return f"It is {get_weather(city)} in {city}."


CASES = EvalSet(cases=[
    EvalCase.single_turn("paris", "weather in Paris?", expected_response="sunny",
                         expected_tools=["get_weather"]),
    EvalCase.single_turn("rome", "weather in Rome?", expected_response="sunny",
                         expected_tools=["get_forecast"]),
    EvalCase.single_turn("broken", "crash in Paris?", expected_tools=["get_weather"]),
])


@pytest.fixture
def live_reports(tmp_path: Path) -> tuple[Any, Path]:
    out = tmp_path / "live"
    report = AgentEvaluator(agent, timeout=10).evaluate_sync(
        CASES, num_runs=2, reports_dir=out)
    return report, out


def test_the_report_and_its_directory_give_the_same_frame(
    live_reports: tuple[Any, Path],
) -> None:
    report, out = live_reports
    in_memory = report.to_pandas()
    loaded = assay.load_dataframe(out)
    pd.testing.assert_frame_equal(in_memory, loaded)
    assert in_memory.attrs["problems"] == loaded.attrs["problems"] == []
    assert len(in_memory) == report.total_cases == 6
    assert in_memory["passed"].sum() == report.passed_cases
    by_run = in_memory.set_index("run_id")
    assert by_run.loc["paris#1", "passed"] and not by_run.loc["rome#2", "passed"]
    assert by_run.loc["paris#2", "repeat"] == 2
    assert by_run.loc["broken#1", "status"] == "error"
    assert by_run.loc["broken#1", "error_kind"] == "agent_error"
    assert pd.isna(by_run.loc["broken#1", "score"])
    assert pd.isna(by_run.loc["paris#1", "error_kind"])
    assert by_run.loc["rome#1", "score_tool_match"] == 0.0
    assert by_run.loc["paris#1", "score_response"] == 1.0
    assert (by_run["duration_ms"] >= 0).all()


def test_columns_and_dtypes(live_reports: tuple[Any, Path]) -> None:
    frame = load_dataframe(live_reports[1])
    scorers = [name for name in frame.columns if name.startswith("score_")]
    assert sorted(scorers) == ["score_response", "score_tool_match"]
    fixed = list(DATAFRAME_COLUMNS)
    split = fixed.index("tokens_in")
    assert list(frame.columns) == [*fixed[:split], *scorers, *fixed[split:]]
    assert fixed == ["run_id", "scenario_id", "repeat", "runner", "model", "passed", "score",
                     "status", "error_kind", "tokens_in", "tokens_out", "cost_usd",
                     "duration_ms"]
    for name, dtype in DATAFRAME_COLUMNS.items():
        assert frame[name].dtype == pd.api.types.pandas_dtype(dtype), name
    for name in scorers:
        assert frame[name].dtype == "float64"
    assert frame["passed"].dtype == bool


def test_an_empty_report_has_the_columns_and_no_rows() -> None:
    frame = results_dataframe([])
    assert list(frame.columns) == list(DATAFRAME_COLUMNS) and frame.empty
    assert frame["repeat"].dtype == "Int64"


def test_an_offline_reports_directory_loads(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "gt" / "scenario_1").mkdir(parents=True)
    (tmp_path / "gt" / "scenario_2").mkdir(parents=True)
    (tmp_path / "runs" / "1.json").write_text('{"scenario_id": "1", "answer": "7"}')
    (tmp_path / "runs" / "2.json").write_text('{"scenario_id": "2", "answer": "8"}')
    (tmp_path / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    (tmp_path / "gt" / "scenario_2" / "groundtruth.txt").write_text("9")
    evaluate(EvaluateOptions(tmp_path / "runs", (tmp_path / "gt",), tmp_path / "out"))
    frame = load_dataframe(str(tmp_path / "out")).sort_values("scenario_id")
    assert frame["scenario_id"].tolist() == ["1", "2"]
    assert frame["passed"].tolist() == [True, False]
    assert frame["repeat"].isna().all()
    assert [name for name in frame.columns if name.startswith("score_")]


@pytest.mark.reports_not_validated  # lines that are not results, on purpose
def test_lines_that_are_not_results_are_reported_not_fatal(
    live_reports: tuple[Any, Path],
) -> None:
    out = live_reports[1]
    results = out / "results.jsonl"
    good = results.read_bytes()
    count = len(good.splitlines())
    results.write_bytes(
        good + b"not json\n" + b'{"scenario_id": "x"}\n' + b"[1]\n" + b'{"run_id": "cut'
    )
    with pytest.warns(UserWarning, match="4 line"):
        frame = load_dataframe(out)
    assert len(frame) == count
    problems = frame.attrs["problems"]
    assert [problem.split(": ")[0] for problem in problems] == [
        f"{results}:{count + n}" for n in (1, 2, 3, 4)]
    assert "invalid JSON" in problems[0]
    assert "not a result line" in problems[1]
    assert "not a JSON object" in problems[2]
    assert "cut short" in problems[3]


def test_a_directory_without_results_is_a_reports_error(tmp_path: Path) -> None:
    with pytest.raises(ReportsError, match="not a directory"):
        load_dataframe(tmp_path / "missing")
    with pytest.raises(ReportsError, match=r"cannot read results\.jsonl"):
        load_dataframe(tmp_path)


def test_without_pandas_the_error_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install pandas") as raised:
        load_dataframe(tmp_path)
    assert raised.value.name == "pandas"
    with pytest.raises(ImportError, match=r"pip install pandas"):
        assay.EvalReport([]).to_pandas()


@pytest.mark.slow
def test_importing_assay_does_not_import_pandas() -> None:
    code = (
        "import sys, assay, assay.evaluation, assay.reports.load, assay.live.views\n"
        "assay.load_dataframe\n"
        "print('pandas' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert proc.stdout.strip() == "False"
