"""The offline pipeline: joining, accounting for every input, and surviving failures."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import orjson
import pytest

from assay.formats.registry import InputPiece
from assay.offline import EvaluateOptions, evaluate, evaluate_async, pipeline
from assay.offline._interrupts import DeferrableInterrupts
from assay.records import Case, Trajectory
from assay.results import CaseResult, NotScored, RunSummary, Score
from assay.scorers import register_scorer
from assay.scorers.registry import Scorer, UnknownScorerError
from assay.scoring import Criterion


def write_run(folder: Path, name: str, **fields: Any) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(fields))


def write_scenario(root: Path, sid: str, gold: str) -> None:
    folder = root / f"scenario_{sid}"
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text(gold)


def write_numbered(
    runs: Path, gt: Path, count: int, answer_of: Callable[[int], str] = lambda i: '{"a": 1}'
) -> None:
    """Scenarios 0..count-1 with gold `{'a': 1}`, and one run of each in `runs`."""
    for i in range(count):
        write_scenario(gt, str(i), "{'a': 1}")
        write_run(runs, f"{i:02d}.json", run_id=f"r{i}", scenario_id=str(i), answer=answer_of(i))


def run_eval(tmp_path: Path, **options: Any) -> tuple[Any, Path]:
    out = tmp_path / "out"
    summary = evaluate(EvaluateOptions(tmp_path / "runs", (tmp_path / "gt",), out, **options))
    return summary, out


def test_every_input_is_accounted_for(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    for sid in ["1", "2", "3", "4"]:
        write_scenario(gt, sid, "{'a': 1}")
    write_run(runs, "1.json", run_id="r1", scenario_id="scenario_1", answer='{"a": 1}')
    write_run(runs, "2.json", run_id="r2", scenario_id=2.0, answer='{"a": 2}')
    write_run(runs, "x.json", run_id="r3", scenario_id="3", answer=None)
    write_run(runs, "9.json", run_id="r9", scenario_id="9", answer="{}")
    (runs / "bad.json").write_text("{oops")
    (runs / "more.jsonl").write_text(
        '{"run_id": "r4", "scenario_id": "1", "answer": "{\\"a\\": 1}"}\nnot json\n'
    )
    summary, out = run_eval(tmp_path)
    totals = summary.totals
    assert totals["runs_read"] == 7
    assert (totals["scored"], totals["passed"], totals["unscored"], totals["errors"]) == (
        3,
        2,
        1,
        0,
    )
    assert (totals["unreadable"], totals["no_scenario"], totals["skipped"]) == (2, 1, 3)
    assert (
        totals["scored"] + totals["unscored"] + totals["errors"] + totals["skipped"]
        == totals["runs_read"]
    )
    assert [item["scenario_id"] for item in summary.not_scored["no_run"]] == ["4"]
    assert [(f["run_id"], f["score"], f["report_file"]) for f in summary.worst_failures] == [
        ("r2", 0.0, "r2.json")
    ]
    aggregate = orjson.loads((out / "_aggregate.json").read_bytes())
    assert aggregate["totals"] == totals
    lines = (out / "results.jsonl").read_bytes().splitlines()
    assert len(lines) == 4  # scored and unscored runs; skipped inputs have no report


def test_join_falls_back_to_file_stem_then_run_id(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_scenario(gt, "34", "34")
    write_scenario(gt, "35", "35")
    write_run(runs, "34.json", run_id="abc", answer="34")
    write_run(runs, "named.json", run_id="35", scenario_id="descriptive label", answer="35")
    summary, _ = run_eval(tmp_path)
    assert summary.totals["passed"] == 2


def test_a_scorer_that_raises_becomes_an_error_and_the_run_goes_on(tmp_path: Path) -> None:
    @register_scorer("test_explodes_on_b")
    def explodes() -> Scorer:
        def score(case: Case, run: Trajectory) -> Score:
            if run.answer == "b":
                raise ValueError("boom")
            return Score.scored("test_explodes_on_b", 1.0, passed=True)

        return score

    runs, gt = tmp_path / "runs", tmp_path / "gt"
    for sid in "123":
        write_scenario(gt, sid, "x")
    for sid, answer in zip("123", "aba", strict=True):
        write_run(runs, f"{sid}.json", run_id=sid, answer=answer)
    summary, out = run_eval(tmp_path, scorer_default="test_explodes_on_b")
    assert (summary.totals["scored"], summary.totals["errors"]) == (2, 1)
    assert "ValueError: boom" in summary.not_scored["errors"][0]["reason"]
    assert orjson.loads((out / "2.json").read_bytes())["score"]["status"] == "error"


def test_an_interrupted_run_keeps_what_finished(tmp_path: Path) -> None:
    @register_scorer("test_interrupts_on_c")
    def interrupts() -> Scorer:
        def score(case: Case, run: Trajectory) -> Score:
            if run.answer == "c":
                raise KeyboardInterrupt
            return Score.scored("test_interrupts_on_c", 1.0, passed=True)

        return score

    runs, gt = tmp_path / "runs", tmp_path / "gt"
    for sid, answer in zip("123", "abc", strict=True):
        write_scenario(gt, sid, "x")
        write_run(runs, f"{sid}.json", run_id=sid, answer=answer)
    with pytest.raises(KeyboardInterrupt):
        run_eval(tmp_path, scorer_default="test_interrupts_on_c")
    aggregate = orjson.loads((tmp_path / "out" / "_aggregate.json").read_bytes())
    assert aggregate["interrupted"] is True
    assert aggregate["totals"]["scored"] == 2
    assert len((tmp_path / "out" / "results.jsonl").read_bytes().splitlines()) == 2
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        ".assay_reports",
        "1.json",
        "2.json",
        "_aggregate.json",
        "_config.json",
        "results.jsonl",
    ]


def test_unknown_default_scorer_fails_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "gt").mkdir()
    with pytest.raises(UnknownScorerError, match="available"):
        run_eval(tmp_path, scorer_default="no_such_scorer")
    assert not (tmp_path / "out").exists()


def test_unknown_per_scenario_scorer_is_an_error_on_that_run(tmp_path: Path) -> None:
    (tmp_path / "gt").mkdir()
    (tmp_path / "gt" / "s.json").write_text(
        json.dumps(
            [
                {"id": "1", "text": "q", "expected_answer": "1", "scoring_method": "mystery"},
                {"id": "2", "text": "q", "expected_answer": "2"},
            ]
        )
    )
    write_run(tmp_path / "runs", "1.json", run_id="1", answer="1")
    write_run(tmp_path / "runs", "2.json", run_id="2", answer="2")
    summary, _ = run_eval(tmp_path)
    assert (summary.totals["errors"], summary.totals["passed"]) == (1, 1)
    assert "mystery" in summary.not_scored["errors"][0]["reason"]


def test_ops_metrics_come_from_the_trajectory(tmp_path: Path) -> None:
    write_scenario(tmp_path / "gt", "1", "1")
    turns = [
        {
            "tool_calls": [{"name": "b", "input": {}}, {"name": "a", "input": {}}],
            "input_tokens": 1000,
            "output_tokens": 100,
            "duration_ms": 10.0,
        },
        {
            "tool_calls": [{"name": "a", "input": {}}],
            "input_tokens": 2000,
            "output_tokens": 50,
            "duration_ms": 5.5,
        },
    ]
    write_run(
        tmp_path / "runs",
        "1.json",
        run_id="1",
        model="openai/gpt-4.1-mini",
        answer="1",
        trajectory={"turns": turns},
    )
    _, out = run_eval(tmp_path)
    ops = orjson.loads((out / "1.json").read_bytes())["ops"]
    assert ops["turn_count"] == 2 and ops["tool_call_count"] == 3
    assert ops["unique_tools"] == ["a", "b"]
    assert (ops["tokens_in"], ops["tokens_out"], ops["duration_ms"]) == (3000, 150, 15.5)
    assert ops["est_cost_usd"] == pytest.approx(3000 * 0.40 / 1e6 + 150 * 1.60 / 1e6)


def test_workers_write_the_same_reports_as_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small chunks, so that many are in flight and a JSONL file's lines span several.
    monkeypatch.setattr(pipeline, "_CHUNK", 4)
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    for i in range(90):
        write_scenario(gt, str(i), f"{{'n': {i}, 'items': [1, 2, 3]}}")
        answer = f'{{"n": {i if i % 3 else i + 1}, "items": [3, 2, 1]}}'
        write_run(
            runs / f"d{i % 4}", f"{i}.json", run_id=f"r{i}", scenario_id=str(i), answer=answer
        )
    lines = [
        json.dumps({"run_id": f"l{i}", "scenario_id": str(i), "answer": "{}"}) for i in range(5)
    ]
    (runs / "d2" / "batch.jsonl").write_text("\n".join([*lines, "not json"]) + "\n")
    (runs / "d1" / "broken.json").write_text("{")
    write_scenario(gt, "broken", "")  # an unusable scenario, met by a run in a worker
    write_run(runs / "d3", "b.json", run_id="b", scenario_id="broken", answer="x")
    outputs = {}
    for workers in (1, 2):
        out = tmp_path / f"out{workers}"
        summary = evaluate(
            EvaluateOptions(runs, (gt,), out, workers=workers),
        )
        files = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "_aggregate.json"}
        aggregate = orjson.loads((out / "_aggregate.json").read_bytes())
        del aggregate["generated_at"], aggregate["options"]["reports_dir"]
        aggregate["options"]["workers"] = None
        outputs[workers] = (files, aggregate, summary.totals)
    assert outputs[1] == outputs[2]
    totals = outputs[2][2]
    assert (totals["runs_read"], totals["unreadable"], totals["errors"]) == (98, 2, 1)
    assert any("empty" in p["reason"] for p in outputs[2][1]["scenario_problems"])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_worker_that_dies_stops_the_evaluation_with_what_finished_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipeline, "_CHUNK", 4)
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_numbered(runs, gt, 80)
    units = pipeline._FileScorer.pieces

    def dies_on_run_50(self: pipeline._FileScorer, chunk: list[InputPiece]) -> object:
        if any(isinstance(unit, str) and unit.endswith("50.json") for unit in chunk):
            os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
        return units(self, chunk)

    monkeypatch.setattr(pipeline._FileScorer, "pieces", dies_on_run_50)
    out = tmp_path / "out"
    with pytest.raises(BrokenProcessPool):
        evaluate(EvaluateOptions(runs, (gt,), out, workers=2))
    aggregate = orjson.loads((out / "_aggregate.json").read_bytes())
    assert aggregate["interrupted"] is True
    kept = aggregate["totals"]["scored"]
    assert 0 < kept <= 48
    lines = (out / "results.jsonl").read_bytes().splitlines()
    assert len(lines) == kept
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize("workers", [1, 2])
def test_callbacks_see_every_input_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    monkeypatch.setattr(pipeline, "_CHUNK", 4)
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_numbered(runs, gt, 70, lambda i: '{"a": 1}' if i % 2 else '{"a": 2}')
    (runs / "zz.json").write_text("{")
    seen: list[CaseResult | NotScored] = []
    ticks: list[None] = []
    out = tmp_path / "out"
    summary = evaluate(
        EvaluateOptions(runs, (gt,), out, workers=workers),
        on_result=seen.append,
        on_progress=lambda: ticks.append(None),
    )
    assert len(ticks) == len(seen) == summary.totals["runs_read"] == 71
    results = [item for item in seen if isinstance(item, CaseResult)]
    assert [r.run_id for r in results] == [f"r{i}" for i in range(70)]
    assert [r.score.passed for r in results] == [bool(i % 2) for i in range(70)]
    lines = [orjson.loads(line) for line in (out / "results.jsonl").read_bytes().splitlines()]
    assert [r.report_file for r in results] == [line["report_file"] for line in lines]
    assert results[0].question is None and results[0].answer == '{"a": 2}'
    assert isinstance(seen[-1], NotScored) and seen[-1].kind == "unreadable"


@pytest.fixture
def ctrl_c_handled() -> Iterator[None]:
    """Python's own Ctrl-C handler, whatever this test run inherited: a suite started in the
    background has SIGINT ignored, and these tests are about what Ctrl-C does."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("ctrl_c_handled")
def test_ctrl_c_inside_a_step_is_raised_at_its_end() -> None:
    reached: list[str] = []
    with pytest.raises(KeyboardInterrupt), DeferrableInterrupts() as interrupts:
        with interrupts.step:
            os.kill(os.getpid(), signal.SIGINT)
            reached.append("after the signal")  # the step goes on
        reached.append("after the step")  # never: the interrupt comes first
    assert reached == ["after the signal"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored


@pytest.mark.usefixtures("ctrl_c_handled")
def test_ctrl_c_outside_a_step_is_raised_at_once() -> None:
    with pytest.raises(KeyboardInterrupt), DeferrableInterrupts():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(2)  # not reached: the interrupt comes at once


@pytest.mark.usefixtures("ctrl_c_handled")
def test_work_is_handed_to_the_workers_inside_a_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Regression: an interrupt raised inside `submit`, which forks the workers, could leave a
    # worker the pool did not know of; the process then waited for it at exit, forever.
    from concurrent.futures import ProcessPoolExecutor

    inside_a_step: list[bool] = []
    submit = ProcessPoolExecutor.submit

    def watched(self: Any, *args: Any, **kwargs: Any) -> Any:
        handler = signal.getsignal(signal.SIGINT)
        inside_a_step.append(bool(getattr(getattr(handler, "__self__", None), "busy", False)))
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolExecutor, "submit", watched)
    write_scenario(tmp_path / "gt", "1", "{'a': 1}")
    for i in range(200):
        write_run(tmp_path / "runs", f"r{i:03d}.json", run_id=f"r{i}", scenario_id="1", answer="x")
    summary, _ = run_eval(tmp_path, workers=2)
    assert summary.totals["scored"] == 200
    assert inside_a_step and all(inside_a_step)


def test_scenario_files_that_are_directories_are_reported_not_skipped(tmp_path: Path) -> None:
    gt = tmp_path / "gt"
    (gt / "scenario_1" / "groundtruth.txt").mkdir(parents=True)
    write_scenario(gt, "2", "{'a': 1}")
    (gt / "scenario_2" / "expected_trajectory.json").mkdir()
    write_scenario(gt, "3", "{'a': 1}")
    (gt / "scenario_3" / "groundtruth_eval.json").mkdir()
    for i in (1, 2, 3):
        write_run(
            tmp_path / "runs", f"r{i}.json", run_id=f"r{i}", scenario_id=str(i), answer="{'a': 1}"
        )
    summary, _ = run_eval(tmp_path)
    assert (summary.totals["scored"], summary.totals["passed"], summary.totals["errors"]) == (
        1,
        1,
        2,
    )
    reasons = {p["source"].rsplit("/", 1)[-1]: p["reason"] for p in summary.scenario_problems}
    assert reasons == dict.fromkeys(
        ["groundtruth.txt", "expected_trajectory.json", "groundtruth_eval.json"],
        "cannot read file: not a regular file",
    )
    errors = {e["run_id"]: e["reason"] for e in summary.not_scored["errors"]}
    assert errors["r1"] == "ground truth unusable: cannot read file: not a regular file"
    assert errors["r3"].startswith("invalid answer rules: groundtruth_eval.json")


class _WaitsForAModel:
    """An async scorer that waits as a judge would, then passes runs whose answer is `{"a": 1}`."""

    def __call__(self, case: Case, run: Trajectory) -> Score:
        return asyncio.run(self.score_async(case, run))

    async def score_async(self, case: Case, run: Trajectory) -> Score:
        await asyncio.sleep(0.001)
        return Score.scored("test_waits", 1.0, passed=run.answer == '{"a": 1}')


@register_scorer("test_waits", is_async=True)
def _waits() -> _WaitsForAModel:
    return _WaitsForAModel()


@pytest.mark.parametrize(
    ("workers", "scorer"), [(1, "static_json"), (2, "static_json"), (1, "test_waits")]
)
def test_evaluate_works_inside_a_running_event_loop(
    tmp_path: Path, workers: int, scorer: str
) -> None:
    # A notebook runs its cells inside an event loop: the synchronous `evaluate` must still
    # work there (scorers that await a model included), and give what it gives outside one.
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_numbered(runs, gt, 80, answer_of=lambda i: '{"a": 1}' if i % 3 else '{"a": 2}')

    def options(out: str) -> EvaluateOptions:
        return EvaluateOptions(runs, (gt,), tmp_path / out, workers=workers,
                               criteria=(Criterion(scorer, scorer),))

    async def cell() -> RunSummary:
        return evaluate(options("in-loop"))

    inside = asyncio.run(cell())
    outside = evaluate(options("no-loop"))
    assert inside.totals == outside.totals
    assert inside.totals["passed"] == 53
    assert sorted(p.name for p in (tmp_path / "in-loop").iterdir()) == sorted(
        p.name for p in (tmp_path / "no-loop").iterdir()
    )


def test_evaluate_async_is_the_same_evaluation(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_numbered(runs, gt, 5, answer_of=lambda i: '{"a": 1}' if i else "no")
    summary = asyncio.run(evaluate_async(EvaluateOptions(runs, (gt,), tmp_path / "out")))
    assert (summary.totals["passed"], summary.totals["failed"]) == (4, 1)
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 5


def test_tokens_a_run_did_not_record_are_null_not_zero(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_scenario(gt, "1", "{'a': 1}")
    write_run(runs, "a.json", run_id="a", scenario_id="1", answer='{"a": 1}', model="openai/gpt-4o")
    write_run(
        runs,
        "b.json",
        run_id="b",
        scenario_id="1",
        answer='{"a": 1}',
        tokens_in=30,
        tokens_out=4,
        model="openai/gpt-4o",
    )
    summary, out = run_eval(tmp_path)
    ops = {r["run_id"]: r["ops"] for r in map(json.loads, (out / "results.jsonl").open())}
    assert (ops["a"]["tokens_in"], ops["a"]["tokens_out"], ops["a"]["est_cost_usd"]) == (
        None,
        None,
        None,
    )
    assert (ops["b"]["tokens_in"], ops["b"]["tokens_out"]) == (30, 4)
    assert ops["b"]["est_cost_usd"] is not None
    assert (summary.ops["tokens_in_total"], summary.ops["tokens_out_total"]) == (30, 4)
    (runs / "b.json").unlink()
    summary, _ = run_eval(tmp_path)
    assert summary.ops["tokens_in_total"] is None  # no run recorded any: unknown, not 0


def test_token_counts_past_any_real_count_are_unknown_and_the_report_is_written(
    tmp_path: Path,
) -> None:
    # Regression: 1e300 tokens in a turn, or three runs of 9e18 (valid 64-bit ints whose sum
    # is not), ended the evaluation with "Integer exceeds 64-bit range" and no aggregate.
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_scenario(gt, "1", "{'a': 1}")
    for name in ("a", "b", "c"):
        write_run(
            runs,
            f"{name}.json",
            run_id=name,
            scenario_id="1",
            answer='{"a": 1}',
            tokens_in=9_000_000_000_000_000_000,
            tokens_out=5,
        )
    write_run(
        runs,
        "d.json",
        run_id="d",
        scenario_id="1",
        answer='{"a": 1}',
        trajectory={"turns": [{"text": "t", "input_tokens": 1e300, "output_tokens": 2}]},
    )
    summary, out = run_eval(tmp_path)
    assert summary.totals["passed"] == 4
    ops = {r["run_id"]: r["ops"] for r in map(json.loads, (out / "results.jsonl").open())}
    assert [ops[n]["tokens_in"] for n in "abcd"] == [None, None, None, None]
    assert (summary.ops["tokens_in_total"], summary.ops["tokens_out_total"]) == (None, 17)
    assert json.loads((out / "_aggregate.json").read_text())["ops"]["tokens_out_total"] == 17


def test_an_id_in_another_unicode_spelling_joins_its_scenario(tmp_path: Path) -> None:
    # Regression: NFC and NFD spellings of one id did not join (issue 13, item 13).
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_scenario(gt, "caf\u00e9", "{'a': 1}")
    write_run(runs, "r.json", run_id="r", scenario_id="cafe\u0301", answer='{"a": 1}')
    summary, _ = run_eval(tmp_path)
    assert (summary.totals["passed"], summary.totals["no_scenario"]) == (1, 0)
