"""Loading a reports directory back (`assay.reports.load`), and `assay report DIR`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assay.cli.main import main
from assay.offline import EvaluateOptions, evaluate
from assay.reports.load import ReportsError, load_reports
from assay.schema import SCHEMA_VERSION


def evaluated(root: Path, answers: dict[str, str]) -> Path:
    """A reports directory of one run per `answers` item (run id -> answer), gold `7`."""
    runs, gt = root / "runs", root / "gt" / "scenario_1"
    runs.mkdir(parents=True)
    gt.mkdir(parents=True)
    (gt / "groundtruth.txt").write_text("7")
    for number, (run_id, answer) in enumerate(answers.items()):
        record = {"run_id": run_id, "scenario_id": "1", "answer": answer}
        (runs / f"{number}.json").write_text(json.dumps(record))
    evaluate(EvaluateOptions(runs, (root / "gt",), root / "out", workers=1))
    return root / "out"


def test_a_reports_directory_reads_back_as_written(tmp_path: Path) -> None:
    out = evaluated(tmp_path, {"a": "7", "b": "8", "<script>": "7"})
    loaded = load_reports(out)
    assert loaded.aggregate["schema_version"] == SCHEMA_VERSION
    assert loaded.summary.totals["passed"] == 2 and loaded.summary.totals["failed"] == 1
    assert sorted(line["run_id"] for line in loaded.results) == ["<script>", "a", "b"]
    assert not loaded.problems
    reports = {line["run_id"]: loaded.run_report(line) for line in loaded.results}
    assert all(report is not None for report in reports.values())
    assert reports["b"] is not None and reports["b"]["score"]["passed"] is False
    # The gold answer is in the run's own report, so it can be shown without the scenarios,
    # and left out of results.jsonl, which stays small.
    assert reports["b"]["expected_answer"] == "7"
    assert all("expected_answer" not in line for line in loaded.results)


def test_a_line_naming_a_file_outside_or_missing_gives_no_report(tmp_path: Path) -> None:
    out = evaluated(tmp_path, {"a": "7"})
    (tmp_path / "secret.json").write_text('{"secret": 1}')
    loaded = load_reports(out)
    for name in ("../secret.json", "/etc/passwd", "missing.json", ".", "", 7, None):
        assert loaded.run_report({"report_file": name}) is None
    (out / "link.json").symlink_to(tmp_path / "secret.json")
    assert loaded.run_report({"report_file": "link.json"}) is None  # never through a link
    os.mkfifo(out / "fifo.json")
    assert loaded.run_report({"report_file": "fifo.json"}) is None  # never waits on a FIFO


@pytest.mark.reports_not_validated
@pytest.mark.parametrize(
    ("aggregate", "said"),
    [
        (None, "no _aggregate.json"),
        (b"{", "invalid JSON"),
        (b"[]", "not an assay aggregate"),
        (b'{"schema_version": 1}', "not an assay aggregate"),
        (b'{"schema_version": 999}', "schema version 999 is newer"),
    ],
)
def test_a_directory_that_is_not_a_readable_reports_directory_says_why(
    tmp_path: Path, aggregate: bytes | None, said: str
) -> None:
    (tmp_path / "results.jsonl").write_text("")
    if aggregate is not None:
        (tmp_path / "_aggregate.json").write_bytes(aggregate)
    with pytest.raises(ReportsError, match=said):
        load_reports(tmp_path)
    with pytest.raises(ReportsError, match="not a directory"):
        load_reports(tmp_path / "nowhere")


def test_assay_report_prints_the_summary_without_scoring(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = evaluated(tmp_path, {"a": "7", "b": "8"})
    capsys.readouterr()
    (tmp_path / "runs" / "0.json").unlink()  # nothing is read again
    assert main(["report", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "runs read" in shown and "50.0%" in shown
    assert main(["report", str(out), "--fail-under", "0.9"]) == 1
    assert "pass rate 0.500 is below --fail-under 0.9" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "runs")]) == 3
    assert "no _aggregate.json" in capsys.readouterr().err


def test_html_never_replaces_a_device_link_or_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: the page was renamed onto whatever --html named, a FIFO or a link included,
    # and onto a file of the reports directory (results.jsonl).
    out = evaluated(tmp_path, {"a": "7"})
    os.mkfifo(tmp_path / "fifo.html")
    (tmp_path / "link.html").symlink_to(tmp_path / "elsewhere.html")
    lines = (out / "results.jsonl").read_bytes()
    for target in (tmp_path / "fifo.html", tmp_path / "link.html", out / "results.jsonl"):
        assert main(["report", str(out), "--html", str(target)]) == 3
        assert "--html" in capsys.readouterr().err
    assert (tmp_path / "link.html").is_symlink() and not (tmp_path / "elsewhere.html").exists()
    assert (out / "results.jsonl").read_bytes() == lines
    assert not (tmp_path / "fifo.html").is_file()
    assert main(["report", str(out), "--html", str(tmp_path / "page.html")]) == 0


def test_write_atomic_refuses_to_replace_what_is_not_a_regular_file(tmp_path: Path) -> None:
    from assay.reports.files import write_atomic

    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for name in ("fifo", "dir"):
        with pytest.raises(OSError, match="not a regular file"):
            write_atomic(tmp_path / name, b"x")
    write_atomic(tmp_path / "file", b"x")
    write_atomic(tmp_path / "file", b"y")
    assert (tmp_path / "file").read_bytes() == b"y"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "fifo", "file"]
