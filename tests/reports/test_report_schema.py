"""The report's schema: what `assay schema` prints, and that reports are held to it."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from assay.cli import schema as schema_command
from assay.cli.main import main
from assay.offline import EvaluateOptions, evaluate
from assay.schema import SCHEMA_VERSION, json_schema, schema_names
from assay.schema.report import Aggregate, validate
from report_schema import check_reports_dir


def _evaluation(tmp_path: Path) -> Path:
    (tmp_path / "runs").mkdir()
    (tmp_path / "gt" / "scenario_1").mkdir(parents=True)
    (tmp_path / "runs" / "1.json").write_text(json.dumps({"run_id": "1", "answer": '{"a": 1}'}))
    (tmp_path / "runs" / "2.json").write_text(json.dumps({"run_id": "2", "scenario_id": "9"}))
    (tmp_path / "gt" / "scenario_1" / "groundtruth.txt").write_text("{'a': 1}")
    out = tmp_path / "out"
    evaluate(EvaluateOptions(tmp_path / "runs", (tmp_path / "gt",), out))
    return out


def test_an_evaluation_writes_reports_that_validate(tmp_path: Path) -> None:
    out = _evaluation(tmp_path)
    assert check_reports_dir(out) == []
    aggregate = validate(orjson.loads((out / "_aggregate.json").read_bytes()), Aggregate)
    assert aggregate.schema_version == SCHEMA_VERSION
    assert aggregate.assay_version
    assert aggregate.options.scorer_default == "static_json"
    assert aggregate.options.red_flag_thresholds["scenario_pass_rate"] == 0.9


@pytest.mark.reports_not_validated
def test_a_field_the_schema_does_not_know_is_caught(tmp_path: Path) -> None:
    out = _evaluation(tmp_path)
    line = orjson.loads((out / "results.jsonl").read_bytes().splitlines()[0])
    (out / "results.jsonl").write_bytes(orjson.dumps({**line, "surprise": 1}) + b"\n")
    report = orjson.loads((out / "1.json").read_bytes())
    report["score"]["score"] = 1.5
    (out / "1.json").write_bytes(orjson.dumps(report))
    problems = check_reports_dir(out)
    assert any("results.jsonl:1" in p and "surprise" in p for p in problems), problems
    assert any(p.startswith("1.json") and "score.score" in p for p in problems), problems


def test_assay_schema_prints_each_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(schema_command._NAMES) == schema_names()
    for name in schema_names():
        assert main(["schema", name]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed == json_schema(name)
    assert json_schema("line")["properties"]["report_file"]["type"] == "string"
    assert "unique_tools" in json_schema("run")["$defs"]["OpsRecord"]["properties"]


def test_partially_scored_is_an_optional_count_so_older_reports_still_validate() -> None:
    defs = json_schema("aggregate")["$defs"]
    for model in ("Totals", "Group"):
        assert defs[model]["properties"]["partially_scored"]["minimum"] == 0
        assert "partially_scored" not in defs[model]["required"]  # added, not required
