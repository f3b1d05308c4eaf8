"""JUnit XML of a reports directory (`assay.reports.junit`, `--junit` on evaluate and report),
read back with junitparser, as a CI tool reads it, and with the standard library's parser."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import junitparser
import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.cli.main import main
from assay.reports.junit import MESSAGE_LIMIT, junit_report, write_junit, xml_text
from assay.reports.load import load_reports
from assay.reports.read import ResultLines

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HOSTILE = "x]]>y<z&w\x1b[31m\x01\x7f\ufffe\u009b"
HOSTILE_SHOWN = "x]]>y<z&w\\x1b[31m\\x01\\x7f\\ufffe\\x9b"


def evaluate_examples(tmp_path: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "out"
    code = main(
        [
            "evaluate", "--trajectories", str(EXAMPLES / "trajectories"),
            "--scenarios", str(EXAMPLES / "scenarios"), "--reports-dir", str(out),
            "--scorer", "static_json", "--scorer", "trajectory", "--workers", "1", "-q", *extra,
        ]
    )  # fmt: skip
    return code, out


def aggregate_counts(reports: Path) -> dict[str, int]:
    """What the CI counts must be, from assay's own aggregate."""
    totals = json.loads((reports / "_aggregate.json").read_text())["totals"]
    return {
        "tests": totals["runs_read"],
        "failures": totals["failed"],
        "errors": totals["errors"] + totals["unreadable"] + totals["no_scenario"],
        "skipped": totals["unscored"],
    }


def junit_counts(path: Path) -> dict[str, int]:
    """The counts of the XML's attributes, checked against junitparser's own count of the test
    cases' results (a tool that counts elements must agree with one that reads attributes)."""
    xml = junitparser.JUnitXml.fromfile(str(path))
    (suite,) = list(xml)
    counts = {
        "tests": suite.tests,
        "failures": suite.failures,
        "errors": suite.errors,
        "skipped": suite.skipped,
    }
    assert counts == {name: getattr(xml, name) for name in counts}
    suite.update_statistics()
    assert counts == {name: getattr(suite, name) for name in counts}
    return counts


def cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_the_examples_give_assays_counts_in_junit_xml(tmp_path: Path) -> None:
    code, out = evaluate_examples(tmp_path, "--junit", str(tmp_path / "junit.xml"))
    assert code == 0
    counts = junit_counts(tmp_path / "junit.xml")
    assert counts == aggregate_counts(out)
    assert counts == {"tests": 11, "failures": 2, "errors": 2, "skipped": 2}
    by_name = cases(tmp_path / "junit.xml")
    failed = by_name["12"].find("failure")
    assert failed is not None and failed.get("type") == "trajectory"
    assert "expected step 0 (get_sites) not found" in (failed.get("message") or "")
    assert by_name["12"].get("classname") == (
        "direct-llm-agent/litellm_proxy/Azure/gpt-5-mini-2025-08-07"
    )
    assert by_name["12"].get("time") == "1.468"
    partial = by_name["11-retry"].find("skipped")
    assert partial is not None and (partial.text or "").startswith("partially scored: ")
    unreadable = by_name["examples/trajectories/broken.json".replace("examples", str(EXAMPLES))]
    error = unreadable.find("error")
    assert error is not None and error.get("type") == "unreadable"
    assert "invalid JSON" in (error.get("message") or "")
    no_scenario = by_name["19"].find("error")
    assert no_scenario is not None and no_scenario.get("type") == "no_scenario"
    passed = by_name["13"]
    assert [child.tag for child in passed] == ["system-out"]
    root = ET.parse(tmp_path / "junit.xml").getroot()
    suite = root.find("testsuite")
    assert suite is not None and root.get("time") == suite.get("time")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["pass_rate"] == "0.625" and properties["interrupted"] == "false"


def test_assay_report_writes_the_same_xml_from_the_directory(tmp_path: Path) -> None:
    _, out = evaluate_examples(tmp_path, "--junit", str(tmp_path / "first.xml"))
    assert main(["report", str(out), "--junit", str(tmp_path / "again.xml")]) == 0
    assert (tmp_path / "again.xml").read_bytes() == (tmp_path / "first.xml").read_bytes()
    before = sorted(entry.name for entry in out.iterdir())
    assert main(["report", str(out), "--junit", str(out / "junit.xml")]) == 0
    after = sorted(entry.name for entry in out.iterdir())
    assert after == sorted([*before, "junit.xml"])  # no temporary left behind


def test_a_run_per_scorer_failure_error_and_judge_verdict(tmp_path: Path) -> None:
    """A run two scorers failed has one `<failure>` naming both, each rationale in full;
    an errored run (empty ground truth) an `<error>`."""
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    (gt / "scenario_1").mkdir(parents=True)
    (gt / "scenario_1" / "groundtruth.txt").write_text("{'a': 1}")
    (gt / "scenario_1" / "expected_trajectory.json").write_text(
        json.dumps(["get_sites"])
    )
    (gt / "scenario_2").mkdir()
    (gt / "scenario_2" / "groundtruth.txt").write_text("  \n")
    runs.mkdir()
    turns = {"turns": [{"tool_calls": [{"name": "other", "input": {}}]}]}
    for run_id, scenario in (("both", "1"), ("empty-gt", "2")):
        record = {"run_id": run_id, "scenario_id": scenario, "answer": '{"a": 2}',
                  "trajectory": turns}  # fmt: skip
        (runs / f"{run_id}.json").write_text(json.dumps(record))
    junit = tmp_path / "junit.xml"
    code = main(
        ["evaluate", "--trajectories", str(runs), "--scenarios", str(gt), "--reports-dir",
         str(tmp_path / "out"), "--scorer", "static_json", "--scorer", "trajectory",
         "--workers", "1", "-q", "--junit", str(junit)]
    )  # fmt: skip
    assert code == 0
    assert junit_counts(junit) == aggregate_counts(tmp_path / "out")
    by_name = cases(junit)
    (failure,) = by_name["both"].findall("failure")
    assert failure.get("type") == "static_json+trajectory"
    body = failure.text or ""
    assert body.startswith("static_json (score 0.000): ") and "\n\ntrajectory (score" in body
    (error,) = by_name["empty-gt"].findall("error")
    assert "groundtruth.txt is empty" in (error.text or "")


def test_hostile_text_survives_as_text(tmp_path: Path) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    (gt / "scenario_1").mkdir(parents=True)
    (gt / "scenario_1" / "groundtruth.txt").write_text("7")
    runs.mkdir()
    record = {"run_id": HOSTILE, "scenario_id": "1", "answer": HOSTILE, "runner": HOSTILE,
              "model": "]]><!--", "question": "<![CDATA[", "trajectory": {"turns": []}}  # fmt: skip
    (runs / "a.json").write_text(json.dumps(record))
    unmatched = {"run_id": "lost" + HOSTILE, "scenario_id": "9" + HOSTILE, "answer": "1"}
    (runs / "b.json").write_text(json.dumps(unmatched))
    (runs / "c\x1b.json").write_text("{" + HOSTILE)
    junit = tmp_path / "junit.xml"
    assert main(["evaluate", "--trajectories", str(runs), "--scenarios", str(gt),
                 "--reports-dir", str(tmp_path / "out"), "--workers", "1", "-q",
                 "--junit", str(junit)]) == 0  # fmt: skip
    assert junit_counts(junit) == aggregate_counts(tmp_path / "out")
    by_name = cases(junit)
    case = by_name[HOSTILE_SHOWN]
    assert case.get("classname") == f"{HOSTILE_SHOWN}/]]><!--"
    out = case.find("system-out")
    assert out is not None and f"answer: {HOSTILE_SHOWN}" in (out.text or "")
    assert "question: <![CDATA[" in (out.text or "")
    assert by_name["lost" + HOSTILE_SHOWN].find("error") is not None
    assert any("c\\x1b.json" in name for name in by_name)
    # The file itself holds no raw control character, and parses with junitparser.
    assert not any(byte < 0x20 and byte not in b"\t\n\r" for byte in junit.read_bytes())


def loaded_with(tmp_path: Path, line: dict[str, Any]) -> Any:
    """A loaded reports directory of one real run, its one line replaced by `line`'s fields."""
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    (gt / "scenario_1").mkdir(parents=True)
    (gt / "scenario_1" / "groundtruth.txt").write_text("7")
    runs.mkdir()
    (runs / "a.json").write_text(json.dumps({"run_id": "a", "scenario_id": "1", "answer": "6"}))
    assert main(["evaluate", "--trajectories", str(runs), "--scenarios", str(gt),
                 "--reports-dir", str(tmp_path / "out"), "--workers", "1", "-q"]) == 0  # fmt: skip
    loaded = load_reports(tmp_path / "out")
    loaded.lines = ResultLines([{**loaded.results[0], **line}])
    return loaded


def test_a_lone_surrogate_in_a_rationale_is_written_as_an_escape(tmp_path: Path) -> None:
    """A rationale in memory can hold what JSON cannot (a judge's reply cut mid-pair)."""
    loaded = loaded_with(tmp_path, {})
    loaded.results[0]["score"]["rationale"] = "cut \ud800 here ]]> \x00"
    report = junit_report(loaded)
    failure = ET.fromstring(report.xml).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.text == "static_json (score 0.000): cut \\ud800 here ]]> \\x00"
    assert failure.get("message") == "static_json: cut \\ud800 here ]]> \\x00"


def test_a_long_rationale_is_cut_in_the_message_and_whole_in_the_body(tmp_path: Path) -> None:
    loaded = loaded_with(tmp_path, {})
    loaded.results[0]["score"]["rationale"] = "why " * 500
    failure = ET.fromstring(junit_report(loaded).xml).find("testsuite/testcase/failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert len(message) == MESSAGE_LIMIT and message.endswith("…")
    assert (failure.text or "").endswith("why " * 499 + "why ")


@pytest.mark.reports_not_validated
def test_lines_that_are_not_results_are_error_cases(tmp_path: Path) -> None:
    _, out = evaluate_examples(tmp_path)
    results = out / "results.jsonl"
    lines = results.read_text().splitlines()
    broken = json.loads(lines[1])
    broken["score"]["status"] = "maybe"
    results.write_text("\n".join([lines[0], json.dumps(broken), "[1]", *lines[2:]]) + "\n")
    junit = tmp_path / "junit.xml"
    assert main(["report", str(out), "--junit", str(junit)]) == 0
    by_name = cases(junit)
    said = {name: case.find("error") for name, case in by_name.items() if "results" in name}
    assert set(said) == {"results.jsonl result 2", "results.jsonl:3"}
    assert "score.status" in (said["results.jsonl result 2"].get("message") or "")  # type: ignore[union-attr]
    mismatch = by_name["_aggregate.json"].find("error")
    assert mismatch is not None and "failed 2 in _aggregate.json, 1 listed" in (mismatch.text or "")
    counts = junit_counts(junit)
    assert counts["tests"] == 11 - 1 + 3 and counts["errors"] == 2 + 3


@pytest.mark.parametrize("kind", ["fifo", "symlink", "directory", "device", "report name"])
def test_a_target_that_is_not_a_regular_file_is_refused_before_scoring(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "junit.xml"
    out = tmp_path / "out"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink":
        (tmp_path / "elsewhere.xml").write_text("kept")
        target.symlink_to(tmp_path / "elsewhere.xml")
    elif kind == "directory":
        target.mkdir()
    elif kind == "device":
        target = Path("/dev/null")
    else:
        target = out / "results.jsonl"
    code, _ = evaluate_examples(tmp_path, "--junit", str(target))
    assert code == 3
    assert "cannot write JUnit XML to" in capsys.readouterr().err
    assert not out.exists()  # nothing was scored
    if kind == "symlink":
        assert (tmp_path / "elsewhere.xml").read_text() == "kept"


def test_a_missing_parent_or_reports_directory_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "none"), "--junit", str(tmp_path / "j.xml")]) == 3
    assert "not a directory" in capsys.readouterr().err
    _, out = evaluate_examples(tmp_path)
    assert main(["report", str(out), "--junit", str(tmp_path / "no" / "j.xml")]) == 3
    assert "no such directory" in capsys.readouterr().err
    assert not (tmp_path / "j.xml").exists()


def test_the_reports_directory_may_hold_the_xml_it_creates(tmp_path: Path) -> None:
    code, out = evaluate_examples(tmp_path, "--junit", str(tmp_path / "out" / "junit.xml"))
    assert code == 0 and (out / "junit.xml").is_file()


def test_write_junit_on_a_reports_directory(tmp_path: Path) -> None:
    _, out = evaluate_examples(tmp_path)
    report = write_junit(out, tmp_path / "j.xml")
    assert (report.tests, report.failures, report.errors, report.skipped) == (11, 2, 2, 2)
    assert report.problems == []
    aggregate = (out / "_aggregate.json").read_bytes()
    with pytest.raises(OSError, match=r"a report of .* has that name"):
        write_junit(load_reports(out), out / "_aggregate.json")
    assert (out / "_aggregate.json").read_bytes() == aggregate


_ALLOWED = st.characters(
    blacklist_categories=("Cs",),
    blacklist_characters="\r",
).filter(lambda c: c in "\t\n" or not ("\x00" <= c < "\x20" or "\x7f" <= c <= "\x9f"))


@given(st.text())
def test_any_text_becomes_xml_that_parses(text: str) -> None:
    """Whatever the text, the document parses, in an attribute and in an element."""
    element = ET.Element("testcase", name=xml_text(text))
    element.text = xml_text(text)
    parsed = ET.fromstring(ET.tostring(element, encoding="utf-8"))
    assert parsed.get("name") == xml_text(text)
    assert (parsed.text or "") == xml_text(text).replace("\r\n", "\n").replace("\r", "\n")


@given(st.text(alphabet=_ALLOWED).filter(lambda t: "\ufffe" not in t and "\uffff" not in t))
def test_text_xml_holds_is_left_as_it_is(text: str) -> None:
    assert xml_text(text) == text


def test_judges_through_the_console_script(chat_server: Any, tmp_path: Path) -> None:
    """The examples with static_json, trajectory and a judge on a real local server: a judge
    that fails one run with a hostile rationale and gives no verdict on another."""
    from _cli import assay
    from chat_server import RecordedRequest, Reply

    def judge(request: RecordedRequest) -> Reply:
        prompt = json.dumps(request.body["messages"])  # the repair request too
        if "Final Answer" in prompt:
            return Reply.ok("no verdict here")
        passed = "27" not in prompt
        return Reply.ok({"score": float(passed), "passed": passed, "rationale": HOSTILE})

    chat_server.handler = judge
    junit, out = tmp_path / "junit.xml", tmp_path / "out"
    proc = assay(
        "evaluate",
        "--trajectories", EXAMPLES / "trajectories", "--scenarios", EXAMPLES / "scenarios",
        "--reports-dir", out, "--scorer", "static_json", "--scorer", "trajectory",
        "--scorer", "llm_judge", "--judge-model", "local/judge-1", "--no-cache", "--junit", junit,
        env={"LOCAL_BASE_URL": chat_server.base_url},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    counts = junit_counts(junit)
    assert counts == aggregate_counts(out)
    by_name = cases(junit)
    failure = by_name["11"].find("failure")
    assert failure is not None and failure.get("type") == "static_json+llm_judge"
    assert f"llm_judge (score 0.000): {HOSTILE_SHOWN}" in (failure.text or "")
    skipped = by_name["13"].find("skipped")
    assert skipped is not None and "partially scored: no verdict from llm_judge" in (
        skipped.text or ""
    )


def test_help_imports_no_junit_writer() -> None:
    """`--junit` costs the command line's start-up nothing: its code loads when it is used."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from assay.cli.main import main\n"
        "for command in ('evaluate', 'report'):\n"
        "    try:\n"
        "        main([command, '--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('assay.reports', 'assay.cli._junit', 'xml', 'pydantic', 'rich')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert "--junit FILE" in proc.stdout
    assert proc.stderr.strip() == "[]"


def test_an_interrupted_evaluation_says_so(tmp_path: Path) -> None:
    loaded = loaded_with(tmp_path, {})
    loaded.aggregate["interrupted"] = True
    suite = ET.fromstring(junit_report(loaded).xml).find("testsuite")
    assert suite is not None
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["interrupted"] == "true"
    assert "interrupted" in (suite.findtext("system-err") or "")
