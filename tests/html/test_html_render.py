"""The HTML report without a browser: the data it embeds, how it is escaped, and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.cli.main import main
from assay.reports.html import Limits
from assay.reports.html._page_data import run_data, text
from assay.reports.html.render import embed_json

# Page data holds only text made safe (no lone surrogates) and numbers JSON can carry.
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)))
_LEAF = _TEXT | st.integers(-(2**53), 2**53) | st.none() | st.sampled_from(["</script>", "\u2028"])


@given(st.recursive(_LEAF, lambda inner: st.lists(inner) | st.dictionaries(_TEXT, inner)))
def test_embedded_json_reads_back_and_cannot_end_the_script(value: object) -> None:
    embedded = embed_json(value)
    assert json.loads(embedded) == value
    assert not set(embedded) & {"<", ">", "&", "\u2028", "\u2029"}


def test_long_strings_are_cut_with_a_note() -> None:
    line = {"run_id": "r", "scenario_id": "1", "answer": "a" * 5000,
            "score": {"status": "scored", "passed": True, "score": 1.0}}  # fmt: skip
    run = run_data(line, Limits(answer=100))
    assert run["a"] == "a" * 100 + "… (cut, 5000 chars)"
    assert text("\ud800x", 10) == "\\ud800x"
    line["ops"] = {"tokens_in": 2**70, "tokens_out": 10**400, "est_cost_usd": float("nan")}
    assert run_data(line, Limits())["o"][:3] == [float(2**70), None, None]


def _evaluate(tmp_path: Path, *extra: str) -> int:
    runs, gt = tmp_path / "runs", tmp_path / "gt" / "scenario_1"
    runs.mkdir()
    gt.mkdir(parents=True)
    (runs / "1.json").write_text('{"run_id": "r1", "scenario_id": "1", "answer": "{\\"k\\": 7}"}')
    (gt / "groundtruth.txt").write_text('{"k": 8}')
    out = str(tmp_path / "out")
    return main(["evaluate", "--trajectories", str(runs), "--scenarios", str(tmp_path / "gt"),
                 "--workers", "1", "-q", "--reports-dir", out, *extra])  # fmt: skip


def _data(page: Path) -> dict[str, object]:
    found = re.search(r'id="assay-data">(.*?)</script>', page.read_text(), re.S)
    assert found is not None
    value = json.loads(found.group(1))
    assert isinstance(value, dict)
    return value


def test_evaluate_writes_the_page_with_the_per_key_table(tmp_path: Path) -> None:
    assert _evaluate(tmp_path, "--html", str(tmp_path / "page.html")) == 0
    page = (tmp_path / "page.html").read_text()
    assert "default-src 'none'" in page
    assert not re.search(r"(src|href)=|https?://", page.split('id="assay-data"')[0])
    data = _data(tmp_path / "page.html")
    (run,) = data["runs"]  # type: ignore[misc]
    assert run["st"] == "failed"
    (row,) = run["sc"][0]["k"]
    assert row[:3] == ["answer.k", "8", "7"] and row[4] == 0.0
    assert data["strings"][row[3]] == "mismatch"  # type: ignore[index]


@pytest.mark.reports_not_validated
def test_report_without_the_run_report_says_so(tmp_path: Path) -> None:
    assert _evaluate(tmp_path) == 0
    (tmp_path / "out" / "r1.json").unlink()
    assert main(["report", str(tmp_path / "out"), "--html", str(tmp_path / "p.html")]) == 0
    (run,) = _data(tmp_path / "p.html")["runs"]  # type: ignore[misc]
    assert run["nr"] is True and "k" not in run["sc"][0]


def test_report_of_a_missing_directory_or_to_a_directory_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "none"), "--html", str(tmp_path / "p.html")]) == 3
    assert not (tmp_path / "p.html").exists()
    assert _evaluate(tmp_path) == 0
    (tmp_path / "dir").mkdir()
    assert main(["report", str(tmp_path / "out"), "--html", str(tmp_path / "dir")]) == 3
    assert "--html" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".assay-")] == []


def test_help_does_not_import_the_page(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom assay.cli.main import main\ntry:\n    main(['report', '--help'])\n"
            "except SystemExit:\n    pass\nprint('assay.reports.html' in sys.modules, "
            "'rich' in sys.modules, 'pydantic' in sys.modules)")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False False False"


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
_FIELDS = ["run_id", "scenario_id", "runner", "model", "question", "answer", "score", "ops",
           "scores", "report_file", "scenario_type"]  # fmt: skip


@given(
    line=st.dictionaries(st.sampled_from(_FIELDS), _JSON),
    scores=st.lists(st.dictionaries(st.sampled_from(["scorer", "status", "details"]), _JSON)),
    details=st.dictionaries(
        st.sampled_from(["details", "matched", "missing", "unexpected", "rubrics", "criteria",
                         "judge", "missing_keys", "reason", "args_differ"]),
        _JSON,
    ),
)  # fmt: skip
def test_any_line_or_report_becomes_page_data(
    line: dict[str, object], scores: list[dict[str, object]], details: dict[str, object]
) -> None:
    report = {"scores": [*scores, {"scorer": "x", "details": details}]}
    run = run_data(line, Limits(), report)
    assert run["st"] in ("passed", "failed", "unscored", "error")
    assert json.loads(embed_json(run)) == json.loads(json.dumps(run))


@pytest.mark.reports_not_validated
def test_lines_that_are_not_results_are_listed(tmp_path: Path) -> None:
    assert _evaluate(tmp_path) == 0
    with (tmp_path / "out" / "results.jsonl").open("a") as out:
        out.write('not json\n{"run_id": "r2"}\n')
    assert main(["report", str(tmp_path / "out"), "--html", str(tmp_path / "p.html")]) == 0
    data = _data(tmp_path / "p.html")
    assert data["summary"]["line_problem_count"] == 1  # type: ignore[index]
    # A JSON object that is no result is still a run of the page: an error, with no report.
    assert [(r["i"], r["st"], r["nr"]) for r in data["runs"]] == [  # type: ignore[attr-defined]
        ("r1", "failed", False),
        ("r2", "error", True),
    ]


def test_a_pair_whose_arguments_differ_is_one_row_with_its_arguments() -> None:
    pair = {"expected_step": 0, "expected": "f {'a': 1}", "actual_step": 2,
            "actual": "f {'a': 2}", "why": "f: argument 'a': expected 1, got 2",
            "differences": [{"argument": "a", "kind": "different", "expected": "1",
                             "actual": "2"},
                            {"argument": "b", "kind": "missing", "expected": "x" * 300},
                            "not a difference"],
            "more_differences": 4}  # fmt: skip
    details = {
        "mode": "strict",
        "matched": [],
        "missing": [{"step": 0, "call": "f {'a': 1}"}, {"step": 1, "call": "g"}],
        "unexpected": [{"step": 2, "call": "f {'a': 2}"}],
        "args_differ": [pair, "not a pair"],
    }
    report = {"scores": [{"scorer": "trajectory", "status": "scored", "details": details}]}
    tj = run_data({"run_id": "r"}, Limits(), report)["sc"][0]["tj"]
    assert tj["pairs"] == [
        [0, "f {'a': 1}", 2, "f {'a': 2}", [
            ["a", "different", "1", "2"],
            ["b", "missing", "x" * 80 + "… (cut, 300 chars)", None],
            ["… 4 more", "more", None, None],
        ]],
        [1, "g", None, None],
    ]  # fmt: skip
    assert tj["cut"] == 0


def test_a_page_lists_the_first_inputs_not_scored_and_counts_the_rest(tmp_path: Path) -> None:
    from assay.offline import EvaluateOptions, evaluate
    from assay.reports.html._page_data import Limits, page_data
    from assay.reports.load import load_reports

    runs = tmp_path / "runs"
    runs.mkdir()
    for i in range(12):
        (runs / f"broken{i:02d}.json").write_text("{ not json")
    (tmp_path / "s.json").write_text('[{"id": "1", "expected_answer": "4"}]')
    evaluate(EvaluateOptions(runs, (tmp_path / "s.json",), tmp_path / "out"))
    summary = page_data(load_reports(tmp_path / "out"), Limits(not_scored=5))["summary"]
    assert len(summary["not_scored"]) == 5
    assert summary["not_scored_count"] == 13  # 12 unreadable and the scenario without runs
