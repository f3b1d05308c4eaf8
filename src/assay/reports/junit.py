"""JUnit XML of a reports directory, for CI systems that show test results.

One `<testcase>` per run, and one per input that never reached a scorer, so that the counts a
CI system shows are assay's own: `tests` is `runs_read`, `failures` the failed runs, `errors`
the errored runs plus the unreadable inputs and the runs with no scenario, and `skipped` the
unscored runs (partially scored ones too). A failed run has one `<failure>` naming each scorer
that failed it, with each rationale in full in its body (one element per test case: some CI
tools count elements, others test cases, and both must agree with assay).

Everything comes from the reports directory as `load_reports` reads it, never re-scored, and
all of it is data: text is written as XML text (ElementTree escapes `<`, `&` and `]]>`), and a
character XML 1.0 cannot hold is written as a visible escape (`\\x1b`, `\\ud800`). A
`results.jsonl` line that is not an assay result, and a `results.jsonl` that does not add up
to the aggregate's totals, are each an `<error>` test case saying so, never skipped.

Example:
    >>> import tempfile
    >>> import xml.etree.ElementTree as ET
    >>> from pathlib import Path
    >>> from assay.offline import EvaluateOptions, evaluate
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "runs").mkdir(); (root / "gt" / "scenario_1").mkdir(parents=True)
    >>> run = '{"run_id": "a", "scenario_id": "1", "answer": "6"}'
    >>> _ = (root / "runs" / "a.json").write_text(run)
    >>> _ = (root / "gt" / "scenario_1" / "groundtruth.txt").write_text("7")
    >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
    >>> report = junit_report(load_reports(root / "out"))
    >>> suite = ET.fromstring(report.xml).find("testsuite")
    >>> suite.get("tests"), suite.get("failures"), suite.find("testcase").get("name")
    ('1', '1', 'a')
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from assay._text import escape_surrogates, path_text
from assay.reports.files import refused_output, write_atomic
from assay.reports.load import LoadedReports, load_reports
from assay.reports.store import AGGREGATE_FILE, RESULTS_FILE
from assay.results import PARTIALLY_SCORED
from assay.schema.report import ResultLine, validate

__all__ = [
    "MESSAGE_LIMIT",
    "JUnitReport",
    "junit_report",
    "refused_target",
    "write_junit",
    "xml_text",
]

MESSAGE_LIMIT = 200
"""Longest `message` attribute of a `<failure>`, `<error>` or `<skipped>`: CI tools show it
on one line; the full text is in the element's body."""

_SHOWN_LIMIT = 4000
"""Longest question or answer shown in a test case's `<system-out>`: the report holds it whole."""

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold (C0 controls but tab, newline and carriage return; lone
surrogates; U+FFFE and U+FFFF), and DEL and the C1 controls, which it holds but discourages
(a CI log that shows them raw may act on them: U+009B starts a terminal escape)."""


def xml_text(value: str) -> str:
    r"""`value` with every character XML 1.0 cannot hold (and DEL and the C1 controls) written
    as a visible escape; undecodable bytes of a file name as `\xNN`, as everywhere in reports.

    Example:
        >>> xml_text("ok\x1b[2J\ud800<&]]>\t")
        'ok\\x1b[2J\\ud800<&]]>\t'
    """
    text = escape_surrogates(value)
    if _NOT_XML.search(text) is None:
        return text
    return _NOT_XML.sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass(slots=True)
class JUnitReport:
    """A reports directory as JUnit XML, with what the XML counts."""

    xml: bytes
    """The document, UTF-8, with its XML declaration."""

    tests: int = 0
    """Test cases: runs read, plus one per problem of the reports directory."""

    failures: int = 0
    """Failed runs."""

    errors: int = 0
    """Errored runs, unreadable inputs, runs with no scenario, and problems."""

    skipped: int = 0
    """Unscored runs (partially scored ones included)."""

    time_s: float = 0.0
    """Total of the runs' durations where they were recorded, in seconds."""

    problems: list[str] = field(default_factory=list)
    """What in the reports directory is not as assay writes it (each an `<error>` test case
    too): lines of `results.jsonl` that are not results, a results file that does not add up
    to the aggregate."""


def junit_report(loaded: LoadedReports) -> JUnitReport:
    """The reports directory `loaded` as JUnit XML: one `<testsuites>` holding one
    `<testsuite name="assay">`.

    Args:
        loaded: A reports directory, as `assay.reports.load.load_reports` read it.

    Returns:
        The document and its counts; see the module's documentation for what each holds.
    """
    builder = _Builder()
    tally = builder.runs(loaded)
    not_scored = loaded.aggregate["not_scored"]
    for kind in ("unreadable", "no_scenario"):
        for entry in not_scored[kind]:
            builder.not_scored(kind, entry)
    builder.check_totals(loaded.aggregate["totals"], tally, not_scored)
    return builder.finish(loaded)


def write_junit(reports: LoadedReports | Path | str, target: Path | str) -> JUnitReport:
    """Write `reports` (a reports directory, or one `load_reports` read) as JUnit XML to the
    file `target`, atomically (a reader sees the old file or the new one whole; nothing else
    is written but a temporary file beside `target`, renamed onto it).

    Raises:
        assay.reports.load.ReportsError: `reports` is not a readable reports directory.
        OSError: `target` cannot be written (see `refused_target` for what is refused first).
    """
    loaded = reports if isinstance(reports, LoadedReports) else load_reports(reports)
    report = junit_report(loaded)
    refused = refused_target(target, loaded.directory)
    if refused is not None:
        raise OSError(refused)
    write_atomic(target, report.xml)
    return report


def refused_target(target: Path | str, reports_dir: Path | str | None = None) -> str | None:
    """Why JUnit XML cannot be written to `target`, or None (`files.refused_output`: a
    directory, link, FIFO or device, a missing parent directory unless it is `reports_dir`,
    which the evaluation creates, or a name one of the reports in `reports_dir` could have).

    Example:
        >>> refused_target("/dev/null")
        'cannot write JUnit XML to /dev/null: it is a character device, not a regular file'
        >>> refused_target("reports/results.jsonl", "reports")
        'cannot write JUnit XML to reports/results.jsonl: a report of reports has that name'
    """
    return refused_output(target, reports_dir, what="JUnit XML")


@dataclass(slots=True)
class _Tally:
    """Runs in `results.jsonl` by verdict, to check against the aggregate's totals."""

    passed: int = 0
    failed: int = 0
    unscored: int = 0
    errors: int = 0


class _Builder:
    """Builds the one `<testsuite>` and counts what goes in it."""

    def __init__(self) -> None:
        self.suite = ET.Element("testsuite")
        self.report = JUnitReport(b"")

    def runs(self, loaded: LoadedReports) -> _Tally:
        """One test case per line of `results.jsonl`; an error test case per line that is not
        an assay result."""
        tally = _Tally()
        for number, line in enumerate(loaded.results, start=1):
            try:
                validate(line, ResultLine)
            except ValueError as error:
                self.problem(
                    f"{RESULTS_FILE} result {number}",
                    f"{RESULTS_FILE}: result {number} is not an assay result: {error}",
                )
                continue
            self.run(line, tally)
        for problem in loaded.problems:
            self.problem(
                f"{RESULTS_FILE}:{problem.line}",
                f"{RESULTS_FILE}: line {problem.line} is not a result: {problem.reason}",
            )
        if loaded.lines.cut_line is not None:
            line_number = loaded.lines.cut_line
            self.problem(
                f"{RESULTS_FILE}:{line_number}",
                f"{RESULTS_FILE}: line {line_number} is cut short (its evaluation was stopped "
                "while writing it)",
            )
        return tally

    def run(self, line: dict[str, Any], tally: _Tally) -> None:
        """The test case of one run (a line that follows `assay schema line`)."""
        score = line["score"]
        case = self.case(_classname(line), line["run_id"] or line["scenario_id"])
        duration = line["ops"]["duration_ms"]
        if isinstance(duration, float | int) and math.isfinite(duration) and duration >= 0:
            seconds = duration / 1000
            case.set("time", f"{seconds:.3f}")
            self.report.time_s += seconds
        parts = line.get("scores") or [score]
        if score["status"] == "scored" and score["passed"] is False:
            tally.failed += 1
            failed = [p for p in parts if p["status"] == "scored" and p["passed"] is False]
            self.verdict(case, "failure", failed or [score])
            self.report.failures += 1
        elif score["status"] == "error":
            tally.errors += 1
            errored = [p for p in parts if p["status"] == "error"]
            self.verdict(case, "error", errored or [score])
            self.report.errors += 1
        elif score["status"] == "unscored":
            tally.unscored += 1
            partial = score["details"].get("reason") == PARTIALLY_SCORED
            reason = ("partially scored: " if partial else "") + score["rationale"]
            skipped = ET.SubElement(case, "skipped", message=_message(reason))
            skipped.text = xml_text(reason)
            self.report.skipped += 1
        else:
            tally.passed += 1
        ET.SubElement(case, "system-out").text = xml_text(_run_output(line))

    def not_scored(self, kind: str, entry: dict[str, Any]) -> None:
        """The error test case of an input that never reached a scorer."""
        name = entry.get("run_id") or entry.get("scenario_id") or entry["source"]
        case = self.case("assay", name)
        error = ET.SubElement(case, "error", type=kind, message=_message(entry["reason"]))
        error.text = xml_text(f"{entry['source']}: {entry['reason']}")
        self.report.errors += 1

    def problem(self, name: str, reason: str) -> None:
        """An error test case for something in the reports directory that is not as assay
        writes it."""
        case = self.case("assay", name)
        error = ET.SubElement(case, "error", type="reports_directory", message=_message(reason))
        error.text = xml_text(reason)
        self.report.errors += 1
        self.report.problems.append(reason)

    def check_totals(
        self, totals: dict[str, Any], tally: _Tally, not_scored: dict[str, list[Any]]
    ) -> None:
        """A problem when the runs in `results.jsonl` are not the ones the aggregate counts
        (a file edited or replaced since): the XML then cannot carry assay's counts."""
        seen = {
            "passed": tally.passed,
            "failed": tally.failed,
            "unscored": tally.unscored,
            "errors": tally.errors,
            "unreadable": len(not_scored["unreadable"]),
            "no_scenario": len(not_scored["no_scenario"]),
        }
        differ = [
            f"{name} {totals[name]} in {AGGREGATE_FILE}, {count} listed"
            for name, count in seen.items()
            if totals[name] != count
        ]
        if differ:
            self.problem(
                AGGREGATE_FILE,
                f"{RESULTS_FILE} does not add up to {AGGREGATE_FILE}: " + "; ".join(differ),
            )

    def case(self, classname: str, name: str) -> ET.Element:
        self.report.tests += 1
        return ET.SubElement(
            self.suite, "testcase", classname=xml_text(classname), name=xml_text(name)
        )

    @staticmethod
    def verdict(case: ET.Element, tag: str, parts: list[dict[str, Any]]) -> None:
        """One `<failure>` or `<error>` for the parts of a run's verdict that gave it."""
        said = [f"{part['scorer']}: {part['rationale']}" for part in parts]
        element = ET.SubElement(
            case,
            tag,
            type=xml_text("+".join(part["scorer"] for part in parts)),
            message=_message("; ".join(said)),
        )
        element.text = xml_text("\n\n".join(_part_text(part) for part in parts))

    def finish(self, loaded: LoadedReports) -> JUnitReport:
        """The document: counts on both `<testsuites>` and `<testsuite>`."""
        aggregate = loaded.aggregate
        report = self.report
        counts = {
            "tests": str(report.tests),
            "failures": str(report.failures),
            "errors": str(report.errors),
            "skipped": str(report.skipped),
            "time": f"{report.time_s:.3f}",
        }
        root = ET.Element("testsuites", {"name": "assay", **counts})
        self.suite.attrib.update(
            name="assay", timestamp=xml_text(aggregate["generated_at"]), **counts
        )
        properties = ET.Element("properties")
        totals = aggregate["totals"]
        for name, value in (
            ("assay_version", aggregate["assay_version"]),
            ("schema_version", aggregate["schema_version"]),
            ("reports_dir", path_text(loaded.directory)),
            ("pass_rate", totals["pass_rate"]),
            ("runs_read", totals["runs_read"]),
            ("partially_scored", totals.get("partially_scored", 0)),
            ("scenarios_without_runs", totals["scenarios_without_runs"]),
            ("interrupted", aggregate["interrupted"]),
        ):
            ET.SubElement(properties, "property", name=name, value=xml_text(_property(value)))
        self.suite.insert(0, properties)
        notes = _suite_notes(aggregate)
        if notes:
            ET.SubElement(self.suite, "system-err").text = xml_text(notes)
        root.append(self.suite)
        ET.indent(root)
        report.xml = ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
        return report


def _property(value: Any) -> str:
    """A property's value as JUnit XML writes it: JSON's `true`, `false`, and `` for null."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _classname(line: dict[str, Any]) -> str:
    """`runner/model` (or the one of them the run has), else the scenario type, else assay."""
    named = [part for part in (line["runner"], line["model"]) if part]
    if named:
        return "/".join(named)
    return line["scenario_type"] or "assay"


def _message(text: str) -> str:
    """`text` for a `message` attribute: one line, cut at `MESSAGE_LIMIT` characters."""
    one_line = " ".join(text.split())
    if len(one_line) > MESSAGE_LIMIT:
        one_line = one_line[: MESSAGE_LIMIT - 1] + "…"
    return xml_text(one_line)


def _part_text(part: dict[str, Any]) -> str:
    value = part.get("score")
    figure = f" (score {value:.3f})" if isinstance(value, float | int) else ""
    return f"{part['scorer']}{figure}: {part['rationale']}"


def _run_output(line: dict[str, Any]) -> str:
    """What a CI page shows beside a run: where it came from and what it answered."""
    answer = line["answer"]
    if answer is not None and not isinstance(answer, str):
        answer = orjson.dumps(answer).decode()
    said = [
        f"scenario: {line['scenario_id']}",
        f"source: {line['source']}",
        f"report: {line['report_file']}",
    ]
    if line["question"] is not None:
        said.append(f"question: {_cut(line['question'])}")
    said.append("answer: " + ("(none)" if answer is None else _cut(answer)))
    return "\n".join(said)


def _cut(text: str) -> str:
    if len(text) <= _SHOWN_LIMIT:
        return text
    return f"{text[:_SHOWN_LIMIT]}… [{len(text) - _SHOWN_LIMIT} more characters in the report]"


def _suite_notes(aggregate: dict[str, Any]) -> str:
    """Problems of the evaluation that are not runs: an interruption, unusable scenarios."""
    notes = []
    if aggregate["interrupted"]:
        notes.append("the evaluation was interrupted: these results cover the runs it finished")
    problems = aggregate["scenario_problems"]
    if problems:
        notes.append(f"scenario problems ({len(problems)}):")
        notes.extend(f"  {problem['source']}: {problem['reason']}" for problem in problems)
    return "\n".join(notes)
