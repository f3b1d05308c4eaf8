"""`--github` end to end: `assay evaluate` and `assay compare` run as on GitHub Actions
(`GITHUB_ACTIONS=true`, `GITHUB_STEP_SUMMARY` naming a file in `tmp_path`), their workflow
commands read back from standard output by a parser written here from GitHub's format (not
the implementation's), and their job summary rendered with markdown-it, table cell by cell.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from _cli import assay, explain
from assay.cli.main import main

pytestmark = pytest.mark.slow  # each test runs the console script in a new process

HOSTILE = "evil\n::warning title=x::injected\r\n::add-mask::secret %0A, a:b ##[error]x"
"""A run id that would end a workflow command and start others, were it not escaped."""


# --- GitHub's workflow-command format, read as the runner reads it --------------------------

COMMAND = re.compile(r"::(?P<name>[A-Za-z][A-Za-z-]*)(?: (?P<properties>[^:]*))?::(?P<data>.*)")
"""`::name key=value,key=value::message`: a property holds no `:` (escaped as `%3A`), so the
first `::` after the name ends the properties."""


@dataclass
class Command:
    name: str
    properties: dict[str, str] = field(default_factory=dict)
    message: str = ""


def unescape(text: str, *, property_value: bool = False) -> str:
    """What the runner reads from an escaped value (`%25` last, so `%250A` stays `%0A`)."""
    pairs = [("%0D", "\r"), ("%0A", "\n")]
    if property_value:
        pairs += [("%3A", ":"), ("%2C", ",")]
    for escaped, plain in pairs:
        text = text.replace(escaped, plain)
    return text.replace("%25", "%")


def workflow_commands(stdout: str) -> list[Command]:
    """Every workflow command of `stdout`: each line that starts with `::` once leading
    white space is trimmed (as the runner trims it); a line that starts so and is not a
    well-formed command fails the test."""
    commands = []
    for line in stdout.splitlines():
        text = line.lstrip()
        if not text.startswith("::"):
            continue
        found = COMMAND.fullmatch(text)
        assert found is not None, f"not a well-formed workflow command: {line!r}"
        properties = {}
        for pair in filter(None, (found["properties"] or "").split(",")):
            key, sep, value = pair.partition("=")
            assert sep, f"a property without a value: {pair!r} in {line!r}"
            properties[key] = unescape(value, property_value=True)
        commands.append(Command(found["name"], properties, unescape(found["data"])))
    return commands


# --- the job summary, rendered ------------------------------------------------------------


def markdown_parser() -> MarkdownIt:
    try:
        return MarkdownIt("gfm-like")
    except ModuleNotFoundError:  # linkify-it-py is not installed
        return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tables(markdown: str) -> list[list[list[str]]]:
    """Each table of `markdown` as rows of cell texts (header row first); a cell must render
    as text, bold at most (assay's own markup): no link, code span, image or HTML."""
    found: list[list[list[str]]] = []
    for token in markdown_parser().parse(markdown):
        if token.type == "table_open":
            found.append([])
        elif token.type == "tr_open":
            found[-1].append([])
        elif token.type == "inline" and found and token.level >= 4:  # a cell's content
            kinds = {child.type for child in token.children or []}
            assert kinds <= {"text", "strong_open", "strong_close"}, (kinds, token.content)
            found[-1][-1].append("".join(child.content for child in token.children or []))
    return found


def headings(markdown: str) -> list[str]:
    tokens = markdown_parser().parse(markdown)
    return [
        tokens[index + 1].content
        for index, token in enumerate(tokens)
        if token.type == "heading_open"
    ]


def paragraphs(markdown: str) -> list[str]:
    """The text of each paragraph, its emphasis and code spans read as their text."""
    tokens = markdown_parser().parse(markdown)
    return [
        "".join(child.content for child in tokens[index + 1].children or [])
        for index, token in enumerate(tokens)
        if token.type == "paragraph_open"
    ]


def visible(text: str) -> str:
    """How the reports show a value with control characters: as escapes."""
    return re.sub(r"[\x00-\x1f]", lambda c: c.group().encode("unicode_escape").decode(), text)


# --- inputs -------------------------------------------------------------------------------


def offline_set(root: Path) -> None:
    """Scenarios 1-4 (gold `1k`) and 5 (empty ground truth: its run errors); runs/ok.json
    passes scenario 1, runs/batch.jsonl fails scenarios 2 and 3 (the second with a hostile
    id and answer) and errors on 5, runs/also.json passes scenario 4."""
    for k in range(1, 6):
        folder = root / "scenarios" / f"scenario_{k}"
        folder.mkdir(parents=True)
        (folder / "groundtruth.txt").write_text(f"{10 + k}\n" if k < 5 else "  \n")
    runs = root / "runs"
    runs.mkdir()
    (runs / "ok.json").write_text(json.dumps({"run_id": "ok", "scenario_id": "1", "answer": "11"}))
    (runs / "also.json").write_text(
        json.dumps({"run_id": "also", "scenario_id": "4", "answer": "14"})
    )
    batch = [
        {"run_id": "wrong", "scenario_id": "2", "answer": "999"},
        {"run_id": HOSTILE, "scenario_id": "3", "answer": "0\n::error::from the answer"},
        {"run_id": "broken", "scenario_id": "5", "answer": "15"},
    ]
    (runs / "batch.jsonl").write_text("".join(json.dumps(run) + "\n" for run in batch))


def github_env(root: Path, summary: Path | None) -> dict[str, str | None]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_STEP_SUMMARY": None if summary is None else str(summary),
        "GITHUB_WORKSPACE": str(root),
    }


def evaluate(
    root: Path, *extra: str, env: dict[str, str | None]
) -> subprocess.CompletedProcess[str]:
    return assay("evaluate", "--trajectories", "runs", "--scenarios", "scenarios",
                 "--reports-dir", "reports", "--workers", "1", *extra, cwd=root, env=env)


# --- assay evaluate -----------------------------------------------------------------------


def test_evaluate_annotates_each_failed_and_errored_run_and_appends_the_summary(
    tmp_path: Path,
) -> None:
    offline_set(tmp_path)
    summary = tmp_path / "summary.md"
    summary.write_text("## an earlier step\n\nits text\n")
    proc = evaluate(tmp_path, "--fail-under", "0.8", env=github_env(tmp_path, summary))
    assert proc.returncode == 1, explain(proc)  # below --fail-under, as without --github

    commands = workflow_commands(proc.stdout)
    assert [command.name for command in commands] == ["error"] * 3, explain(proc)
    by_title = {command.properties["title"]: command for command in commands}
    assert sorted(by_title) == sorted([
        "assay: run wrong failed (scenario 2)",
        f"assay: run {HOSTILE} failed (scenario 3)",
        "assay: run broken errored (scenario 5)",
    ])
    wrong = by_title["assay: run wrong failed (scenario 2)"]
    assert wrong.properties == {
        "file": "runs/batch.jsonl", "line": "1", "title": "assay: run wrong failed (scenario 2)"
    }
    assert wrong.message.startswith("static_json score 0.000")
    hostile = by_title[f"assay: run {HOSTILE} failed (scenario 3)"]
    assert (hostile.properties["file"], hostile.properties["line"]) == ("runs/batch.jsonl", "2")
    broken = by_title["assay: run broken errored (scenario 5)"]
    assert broken.properties["line"] == "3"
    assert broken.message.startswith("static_json error: ")
    assert "groundtruth.txt is empty" in broken.message

    text = summary.read_text()
    assert text.startswith("## an earlier step\n\nits text\n\n")  # appended, not truncated
    ours = text.removeprefix("## an earlier step\n\nits text\n")
    assert headings(ours)[0] == "assay evaluate — pass rate 50.0% (2 of 4 passed)"
    assert "Below --fail-under 0.8." in paragraphs(ours)
    counts, failed = tables(ours)[:2]
    assert dict(zip(counts[0], counts[1], strict=True)) == {
        "runs read": "5", "scored": "4", "passed": "2", "failed": "2", "unscored": "0",
        "partially scored": "0", "errors": "1", "skipped": "0",
    }
    assert failed[0] == ["run", "scenario", "score", "rationale"]
    rows = {row[0]: row for row in failed[1:]}
    assert sorted(rows) == sorted(["wrong", visible(HOSTILE), "broken"])
    assert rows["wrong"][1:3] == ["2", "0.000"]
    assert rows[visible(HOSTILE)][1:3] == ["3", "0.000"]
    assert rows["broken"][1:3] == ["5", "error"]
    assert "groundtruth.txt is empty" in rows["broken"][3]
    assert "\x1b" not in text and "<script" not in text


def test_a_hostile_run_id_cannot_inject_a_workflow_command(tmp_path: Path) -> None:
    offline_set(tmp_path)
    proc = evaluate(tmp_path, env=github_env(tmp_path, tmp_path / "summary.md"))
    assert proc.returncode == 0, explain(proc)
    # Every line the runner would read as a command is one of assay's three annotations.
    commands = workflow_commands(proc.stdout)
    assert [command.name for command in commands] == ["error"] * 3, explain(proc)
    assert not any(command.name in ("warning", "add-mask") for command in commands)
    [hostile] = [command for command in commands if "evil" in command.properties["title"]]
    assert hostile.properties["title"] == f"assay: run {HOSTILE} failed (scenario 3)"
    assert set(hostile.properties) == {"file", "line", "title"}
    for line in proc.stdout.splitlines():
        if "evil" in line and line.lstrip().startswith("::"):
            assert "\n" not in line and "\r" not in line
            assert "injected" in line and "::warning" not in line.split("::", 2)[1]
    # The answer's own line break is data too: one message, not a second command.
    assert not any(command.message == "from the answer" for command in commands)


def test_at_most_50_annotations_and_50_rows_then_how_many_more(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios" / "scenario_1"
    folder.mkdir(parents=True)
    (folder / "groundtruth.txt").write_text("11\n")
    (tmp_path / "runs").mkdir()
    lines = [{"run_id": f"r{k:02}", "scenario_id": "1", "answer": "0"} for k in range(53)]
    (tmp_path / "runs" / "many.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    summary = tmp_path / "summary.md"
    proc = evaluate(tmp_path, "-q", env=github_env(tmp_path, summary))
    assert proc.returncode == 0, explain(proc)
    commands = workflow_commands(proc.stdout)
    assert [command.name for command in commands] == ["error"] * 50 + ["notice"]
    assert commands[-1].properties == {}
    assert commands[-1].message.startswith("3 more failed or errored runs are not annotated")
    assert len(tables(summary.read_text())[1]) == 1 + 50
    assert "… and 3 more" in summary.read_text()


def test_no_github_and_no_github_actions_write_nothing_for_github(tmp_path: Path) -> None:
    offline_set(tmp_path)
    summary = tmp_path / "summary.md"
    proc = evaluate(tmp_path, "--no-github", env=github_env(tmp_path, summary))
    assert proc.returncode == 0, explain(proc)
    assert workflow_commands(proc.stdout) == [] and not summary.exists()
    quiet = github_env(tmp_path, summary) | {"GITHUB_ACTIONS": None}
    proc = evaluate(tmp_path, env=quiet)
    assert proc.returncode == 0, explain(proc)
    assert workflow_commands(proc.stdout) == [] and not summary.exists()


def test_github_without_a_summary_file_is_a_usage_error_before_anything_runs(
    tmp_path: Path,
) -> None:
    offline_set(tmp_path)
    env = github_env(tmp_path, None) | {"GITHUB_ACTIONS": None}
    proc = evaluate(tmp_path, "--github", env=env)
    assert proc.returncode == 2, explain(proc)
    assert "--github: GITHUB_STEP_SUMMARY is not set" in proc.stderr
    assert not (tmp_path / "reports").exists()
    # On GitHub Actions without the file (an emulated runner), the annotations alone.
    proc = evaluate(tmp_path, env=env | {"GITHUB_ACTIONS": "true"})
    assert proc.returncode == 0, explain(proc)
    assert len(workflow_commands(proc.stdout)) == 3


def test_a_summary_that_cannot_be_written_is_a_warning_and_the_result_stands(
    tmp_path: Path,
) -> None:
    offline_set(tmp_path)
    summary = tmp_path / "a-directory"
    summary.mkdir()
    proc = evaluate(tmp_path, "--github", "--fail-under", "0.8",
                    env=github_env(tmp_path, summary))
    assert proc.returncode == 1, explain(proc)
    assert "assay: warning: cannot write the GitHub job summary to" in proc.stderr
    assert len(workflow_commands(proc.stdout)) == 3


# --- assay compare ------------------------------------------------------------------------


def evaluated(root: Path, name: str, right: set[int], monkeypatch: pytest.MonkeyPatch) -> Path:
    """`assay evaluate` (in this process, never for GitHub) of runs 1-8 of scenarios 1-8,
    right on `right`; run 6 has the hostile id. Returns the reports directory."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    runs, scenarios = root / name / "runs", root / "scenarios"
    runs.mkdir(parents=True)
    for k in range(1, 9):
        (scenarios / f"scenario_{k}").mkdir(parents=True, exist_ok=True)
        (scenarios / f"scenario_{k}" / "groundtruth.txt").write_text(str(10 + k))
        record = {"run_id": HOSTILE if k == 6 else f"run-{k}", "scenario_id": str(k),
                  "answer": str(10 + k) if k in right else "999"}
        (runs / f"{k}.json").write_text(json.dumps(record))
    code = main(["evaluate", "--trajectories", str(runs), "--scenarios", str(scenarios),
                 "--reports-dir", str(root / name / "reports"), "--workers", "1", "-q"])
    assert code == 0
    return root / name / "reports"


def test_compare_summarises_as_its_markdown_and_annotates_each_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluated(tmp_path, "base", set(range(1, 9)), monkeypatch)
    evaluated(tmp_path, "new", {7, 8}, monkeypatch)
    summary = tmp_path / "summary.md"
    proc = assay("compare", "base/reports", "new/reports", "--markdown", "comment.md",
                 cwd=tmp_path, env=github_env(tmp_path, summary))
    assert proc.returncode == 0, explain(proc)
    assert summary.read_text() == (tmp_path / "comment.md").read_text()

    commands = workflow_commands(proc.stdout)
    assert [command.name for command in commands] == ["error"] * 6, explain(proc)
    ids = [HOSTILE if k == 6 else f"run-{k}" for k in range(1, 7)]
    titles = [f"assay compare: run {run} regressed (scenario {k})" for k, run in
              enumerate(ids, start=1)]
    assert sorted(command.properties["title"] for command in commands) == sorted(titles)
    for command in commands:
        scenario = command.properties["title"].rsplit("(scenario ", 1)[1].rstrip(")")
        assert command.properties["file"] == f"new/runs/{scenario}.json"
        assert "line" not in command.properties
        assert command.message.startswith("static_json: pass 1.000 → fail 0.000")

    regressed = tables(summary.read_text())[-1]
    assert regressed[0] == ["run", "scenario", "before → after", "rationale (NEW)"]
    assert sorted(row[0] for row in regressed[1:]) == sorted(visible(run) for run in ids)
    assert all(row[2] == "pass 1.000 → fail 0.000" for row in regressed[1:])


def test_compare_with_no_github_prints_no_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluated(tmp_path, "base", set(range(1, 9)), monkeypatch)
    evaluated(tmp_path, "new", {7, 8}, monkeypatch)
    summary = tmp_path / "summary.md"
    proc = assay("compare", "base/reports", "new/reports", "--no-github", cwd=tmp_path,
                 env=github_env(tmp_path, summary))
    assert proc.returncode == 0, explain(proc)
    assert workflow_commands(proc.stdout) == [] and not summary.exists()
    env = github_env(tmp_path, None) | {"GITHUB_ACTIONS": None}
    proc = assay("compare", "base/reports", "new/reports", "--github", cwd=tmp_path, env=env)
    assert proc.returncode == 2 and "GITHUB_STEP_SUMMARY is not set" in proc.stderr
