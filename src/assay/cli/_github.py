"""What `evaluate`, `run`, `bench`, `report` and `compare` give GitHub Actions: a job summary
and one annotation per failed run.

With `--github`, or on GitHub Actions (`GITHUB_ACTIONS=true`) unless `--no-github`, a command
that wrote or read reports also:

- appends Markdown to the job summary, the file `$GITHUB_STEP_SUMMARY` names (never
  truncated: other steps' and commands' summaries stay): the pass rate `--fail-under` checks,
  the counts, the failed and errored runs (at most `MAX_ROWS`, then how many more) and the
  raised red flags; for `compare`, the Markdown of `--markdown`. A summary that cannot be
  written is a warning, never the command's failure. `--github` without the variable is a
  usage error (exit 2), told before anything runs; on GitHub Actions without it (an old or
  emulated runner) the summary is left out.
- prints on standard output one `::error` workflow command per failed or errored run (for
  `compare`, per run that regressed under the headline verdict), with the run's source file
  and line (relative to `$GITHUB_WORKSPACE` when inside it), at most `MAX_ANNOTATIONS`, then
  a `::notice::` counting the rest.

Everything taken from the reports is data. In the summary it goes through `escape_markdown`;
in a workflow command it is escaped as GitHub's toolkit (`@actions/core`) escapes it, so that
no run id or rationale can end the command or start another (`%`, CR and LF everywhere, `:`
and `,` in properties too); other control characters are written as visible escapes
(`\\x1b`), as on the console.

Example:
    >>> print(workflow_command("error", "got 6\\n::warning::x", file="runs/a,1.json", line=3,
    ...                        title="assay: r1: failed"))
    ::error file=runs/a%2C1.json,line=3,title=assay%3A r1%3A failed::got 6%0A::warning::x
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from assay.reports.load import LoadedReports

__all__ = [
    "MAX_ANNOTATIONS",
    "MAX_ROWS",
    "add_github_arguments",
    "github_mode",
    "github_output",
    "workflow_command",
]

SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"
"""The environment variable naming the job summary file of the step."""

MAX_ANNOTATIONS = 50
"""Annotations written at most (GitHub shows 10 of a step's errors); a notice counts the rest."""

MAX_ROWS = 50
"""Failed runs listed at most in the job summary; the rest are counted."""

RATIONALE_CHARS = 120
"""A rationale is cut to this many characters in the summary's table."""

MESSAGE_CHARS = 2000
"""An annotation's message is cut to this many characters (the report holds it whole)."""

_NOT_LINE_BREAK = re.compile(r"[^\r\n]+")


def add_github_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--github` and `--no-github` (they exclude each other) to a command.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> add_github_arguments(parser)
        >>> parser.parse_args([]).github, parser.parse_args(["--no-github"]).github
        (None, False)
    """
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--github",
        action=_GitHubAction,
        nargs=0,
        default=None,
        help="write a GitHub Actions job summary (appended to $GITHUB_STEP_SUMMARY) and an "
        "::error annotation per failed run on standard output; on by itself when "
        "GITHUB_ACTIONS=true",
    )
    group.add_argument(
        "--no-github",
        dest="github",
        action="store_const",
        const=False,
        help="no job summary or annotations, even on GitHub Actions",
    )


class _GitHubAction(argparse.Action):
    """`--github`: refused at once (a usage error) when there is no summary file to write."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if not os.environ.get(SUMMARY_VARIABLE):
            parser.error(
                f"--github: {SUMMARY_VARIABLE} is not set (GitHub Actions sets it to the job "
                "summary file; set it to a file to write the summary there)"
            )
        setattr(namespace, self.dest, True)


def github_mode(args: argparse.Namespace) -> bool:
    """Whether the command writes for GitHub: `--github`, `--no-github`, else whether it runs
    on GitHub Actions (`GITHUB_ACTIONS=true`)."""
    chosen = getattr(args, "github", None)
    if chosen is not None:
        return bool(chosen)
    return os.environ.get("GITHUB_ACTIONS", "").strip().lower() == "true"


def github_output(
    args: argparse.Namespace,
    command: str,
    reports: Path | LoadedReports,
    comparison: dict[str, Any] | None = None,
) -> None:
    """The job summary and the annotations of a command's reports, when `github_mode`.

    Args:
        args: The command's arguments (`github`; `fail_under` when it has it).
        command: How the summary's title names the command (`assay evaluate`).
        reports: The reports directory written or read (for `compare`, NEW), or it loaded.
        comparison: For `compare`: the comparison, whose Markdown is the summary and whose
            regressions (under the headline verdict) are annotated.

    Never changes the command's result: what cannot be read or written is a warning.
    """
    if not github_mode(args):
        return
    from assay.cli.messages import say
    from assay.reports.console import shown
    from assay.reports.load import LoadedReports, ReportsError, load_reports

    if isinstance(reports, LoadedReports):
        loaded = reports
    else:
        try:
            loaded = load_reports(reports)
        except ReportsError as problem:
            say(f"assay: warning: no GitHub summary or annotations: {shown(problem)}")
            return
    if comparison is not None:
        from assay.reports.compare.markdown import render_markdown

        markdown = render_markdown(comparison)
        commands = regression_annotations(comparison, loaded)
    else:
        markdown = summary_markdown(loaded, command, getattr(args, "fail_under", None))
        commands = run_annotations(loaded)
    write_job_summary(markdown)
    if sys.stdout is not None:
        for line in commands:
            print(line)
        sys.stdout.flush()


def write_job_summary(markdown: str) -> None:
    """Append `markdown` to the job summary file (`$GITHUB_STEP_SUMMARY`), after a blank line
    when the file holds something already; a warning when it cannot be written, nothing
    when the variable is not set."""
    target = os.environ.get(SUMMARY_VARIABLE)
    if not target:
        return
    from assay.cli.messages import say
    from assay.reports.console import shown

    try:
        with Path(target).open("a", encoding="utf-8", errors="backslashreplace") as out:
            out.write(("\n" if out.tell() > 0 else "") + markdown)
    except OSError as problem:
        say(
            f"assay: warning: cannot write the GitHub job summary to {shown(target)}: "
            f"{shown(problem.strerror or problem)}"
        )


# --- the job summary -------------------------------------------------------------------------


def summary_markdown(loaded: LoadedReports, command: str, fail_under: float | None) -> str:
    """The job summary of a reports directory: the pass rate `--fail-under` checks, the counts,
    the failed and errored runs, the raised red flags.

    Example:
        >>> import tempfile
        >>> from assay.offline import EvaluateOptions, evaluate
        >>> from assay.reports.load import load_reports
        >>> root = Path(tempfile.mkdtemp())
        >>> for k, gold, run, answer in (("1", "7", "a", "7"), ("2", "8", "a|b", "0")):
        ...     (root / "gt" / f"scenario_{k}").mkdir(parents=True)
        ...     _ = (root / "gt" / f"scenario_{k}" / "groundtruth.txt").write_text(gold)
        ...     (root / "runs" / run).mkdir(parents=True)
        ...     line = f'{{"run_id": "{run}", "scenario_id": "{k}", "answer": "{answer}"}}'
        ...     _ = (root / "runs" / run / "run.json").write_text(line)
        >>> _ = evaluate(EvaluateOptions(root / "runs", (root / "gt",), root / "out"))
        >>> text = summary_markdown(load_reports(root / "out"), "assay evaluate", 0.8)
        >>> print(text.splitlines()[0])
        ## assay evaluate — pass rate 50.0% (1 of 2 passed)
        >>> print(text.splitlines()[2])
        **Below `--fail-under 0.8`.**
        >>> [row] = [line for line in text.splitlines() if line.startswith("| a")]
        >>> print(row[:20])
        | a\\|b | 2 | 0.000 |
    """
    from assay.reports.compare._figures import cut
    from assay.reports.compare.markdown import escape_markdown

    summary = loaded.summary
    rate = summary.pass_rate
    totals, live = summary.totals, summary.live
    if live:
        passed, among = live.get("passed", 0), live.get("runs", 0)
    else:
        passed, among = totals["passed"], totals["scored"] + totals.get("partially_scored", 0)
    shown_rate = "n/a" if rate is None else f"{rate:.1%}"
    out = [f"## {command} — pass rate {shown_rate} ({passed} of {among} passed)", ""]
    if fail_under is not None:
        below = rate is None or rate < fail_under
        out += [
            f"**Below `--fail-under {fail_under}`.**" if below
            else f"At or above `--fail-under {fail_under}`.",
            "",
        ]
    out += [f"Reports: {escape_markdown(loaded.directory)}", ""]
    if summary.interrupted:
        out += ["> **Warning:** interrupted; the figures cover the runs that finished.", ""]
    counts = _counts(summary.totals, live)
    out += [
        "| " + " | ".join(name for name, _ in counts) + " |",
        "|" + "---:|" * len(counts),
        "| " + " | ".join(str(value) for _, value in counts) + " |",
    ]
    failed = [line for line in loaded.results if _verdict(line) is not None]
    if failed:
        out += [
            "",
            f"### Failed or errored runs ({len(failed)})",
            "",
            "| run | scenario | score | rationale |",
            "|---|---|---:|---|",
        ]
        for line in failed[:MAX_ROWS]:
            score = line.get("score") or {}
            out.append(
                "| "
                + " | ".join(
                    escape_markdown(cell)
                    for cell in (
                        _run_name(line),
                        line.get("scenario_id"),
                        _score_text(score),
                        cut(str(score.get("rationale") or ""), RATIONALE_CHARS),
                    )
                )
                + " |"
            )
        if len(failed) > MAX_ROWS:
            out += ["", f"… and {len(failed) - MAX_ROWS} more (results.jsonl lists them all)."]
    raised = [
        flag
        for flag in summary.red_flags.get("flags", [])
        if isinstance(flag, dict) and flag.get("status") == "raised"
    ]
    if raised:
        out += ["", "### Red flags", ""]
        for flag in raised:
            value, threshold = flag.get("value"), flag.get("threshold")
            figure = (
                f"{flag.get('metric')} {_number(value, '.3g')} {flag.get('comparison')} "
                f"{_number(threshold, 'g')}"
            )
            out.append(
                f"- **{escape_markdown(flag.get('red_flag'))}**: {escape_markdown(figure)}; "
                f"{escape_markdown(flag.get('action'))}"
            )
    if loaded.problems:
        out += ["", f"{len(loaded.problems)} line(s) of results.jsonl are not results."]
    return "\n".join(out) + "\n"


def _counts(totals: dict[str, Any], live: dict[str, Any]) -> list[tuple[str, int]]:
    if live:
        errors = live.get("errors") or {}
        return [
            ("runs", live.get("runs", 0)),
            ("passed", live.get("passed", 0)),
            ("failed", totals["failed"]),
            ("no verdict", totals["unscored"]),
            ("agent errors", errors.get("agent_error", 0)),
            ("timeouts", errors.get("timeout", 0)),
            ("infrastructure errors", errors.get("infrastructure_error", 0)),
        ]
    return [
        ("runs read", totals["runs_read"]),
        ("scored", totals["scored"]),
        ("passed", totals["passed"]),
        ("failed", totals["failed"]),
        ("unscored", totals["unscored"]),
        ("partially scored", totals.get("partially_scored", 0)),
        ("errors", totals["errors"]),
        ("skipped", totals["skipped"]),
    ]


def _number(value: Any, spec: str) -> str:
    return format(value, spec) if isinstance(value, int | float) else "n/a"


def _verdict(line: dict[str, Any]) -> str | None:
    """`failed` or `errored` for a run that failed or errored, else None."""
    score = line.get("score")
    if not isinstance(score, dict):
        return None
    if score.get("status") == "scored" and score.get("passed") is False:
        return "failed"
    if score.get("status") == "error":
        return "errored"
    return None


def _score_text(score: dict[str, Any]) -> str:
    if score.get("status") == "error":
        return "error"
    return _number(score.get("score"), ".3f")


def _run_name(line: dict[str, Any]) -> str:
    """The run's id; for a run without one, its report's file name without `.json`."""
    run = line.get("run_id")
    if isinstance(run, str):
        return run
    name = line.get("report_file")
    return name.removesuffix(".json") if isinstance(name, str) and name else "(no run id)"


# --- annotations ---------------------------------------------------------------------------


class _Annotation(NamedTuple):
    """What one `::error` says: its message, where (a file and line, when known), its title."""

    said: str
    rationale: str
    source: Any
    title: str


def _annotations(found: list[_Annotation], rest: str) -> list[str]:
    """The `::error` commands of the first `MAX_ANNOTATIONS` of `found`, then a `::notice::`
    counting the others (`rest` says where they are listed)."""
    commands = []
    for item in found[:MAX_ANNOTATIONS]:
        file, number = _location(item.source)
        message = f"{item.said}: {item.rationale}" if item.rationale else item.said
        commands.append(workflow_command("error", message, file=file, line=number,
                                         title=item.title))
    if len(found) > MAX_ANNOTATIONS:
        commands.append(workflow_command(
            "notice",
            f"{len(found) - MAX_ANNOTATIONS} more {rest}",
        ))
    return commands


def run_annotations(loaded: LoadedReports) -> list[str]:
    """An `::error` workflow command per failed or errored run of `loaded`, in the order of
    `results.jsonl`: at most `MAX_ANNOTATIONS`, then a `::notice::` counting the rest."""
    found: list[_Annotation] = []
    for line in loaded.results:
        verdict = _verdict(line)
        if verdict is None:
            continue
        score = line["score"]
        said = (
            f"{score.get('scorer')} score {_score_text(score)}"
            if verdict == "failed"
            else f"{score.get('scorer')} error"
        )
        found.append(_Annotation(
            said,
            str(score.get("rationale") or ""),
            line.get("source"),
            f"assay: run {_run_name(line)} {verdict} (scenario {line.get('scenario_id')})",
        ))
    return _annotations(
        found,
        f"failed or errored runs are not annotated (the first {MAX_ANNOTATIONS} are); "
        f"results.jsonl in {loaded.directory} lists them all",
    )


def regression_annotations(comparison: dict[str, Any], new: LoadedReports) -> list[str]:
    """An `::error` workflow command per run that regressed under the comparison's headline
    verdict (the combined one when several scorers ran), located by NEW's result of it: at
    most `MAX_ANNOTATIONS`, then a `::notice::` counting the rest."""
    from assay.reports.compare._figures import headline_scorer, side

    scorers: dict[str, dict[str, Any]] = comparison.get("scorers") or {}
    chosen = headline_scorer(scorers)
    if chosen is None:
        return []
    found: list[_Annotation] = []
    for change in scorers[chosen].get("changes", []):
        if change.get("outcome") != "regressed":
            continue
        after = change.get("new") or {}
        found.append(_Annotation(
            f"{chosen}: {side(change.get('base') or {})} → {side(after)}",
            str(after.get("rationale") or ""),
            _source_in(new, change) if len(found) < MAX_ANNOTATIONS else None,
            f"assay compare: run {change.get('run_id')} regressed "
            f"(scenario {change.get('scenario_id')})",
        ))
    return _annotations(
        found,
        f"regressed runs are not annotated (the first {MAX_ANNOTATIONS} are); the job "
        "summary and --json list them",
    )


def _source_in(new: LoadedReports, change: dict[str, Any]) -> Any:
    """The `source` of NEW's result of a changed run: same scenario, and the same run id (or
    report name, for a run without one), else the same repeat (runs matched by repeat)."""
    scenario, run, repeat = change.get("scenario_id"), change.get("run_id"), change.get("repeat")
    same_scenario = [line for line in new.results if line.get("scenario_id") == scenario]
    for line in same_scenario:
        if _run_name(line) == run:
            return line.get("source")
    for line in same_scenario:
        if repeat is not None and line.get("repeat") == repeat:
            return line.get("source")
    return None


def _location(source: Any) -> tuple[str | None, int | None]:
    """The file and line of a run's `source` (`path` or `path:line`), when it names a file
    that exists (a live run's source, `assay run: case#1`, does not); the file relative to
    `$GITHUB_WORKSPACE` when inside it, as GitHub links annotations."""
    if not isinstance(source, str) or not source:
        return None, None
    path, number = source, None
    head, colon, tail = source.rpartition(":")
    if colon and head and tail.isascii() and tail.isdigit() and int(tail) > 0:
        path, number = head, int(tail)
    if not Path(path).is_file():
        return None, None
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        with contextlib.suppress(OSError, ValueError):  # outside the workspace: as written
            path = Path(path).resolve().relative_to(Path(workspace).resolve()).as_posix()
    return path, number


def workflow_command(name: str, message: str, **properties: str | int | None) -> str:
    """The workflow command `::name key=value,...::message`, escaped as GitHub's toolkit
    escapes it (`issueCommand` of `@actions/core`): in the message `%`, CR and LF; in a
    property `:` and `,` too. Properties that are None or empty are left out; every other
    control character is written as a visible escape first.

    Example:
        >>> workflow_command("error", "100%\\r\\ndone", file="a.json", line=None, title="")
        '::error file=a.json::100%25%0D%0Adone'
        >>> workflow_command("notice", "x::y\\x1b[2J")
        '::notice::x::y\\\\x1b[2J'
    """
    given = [
        f"{key}={_escape_property(str(value))}"
        for key, value in properties.items()
        if value is not None and value != ""
    ]
    head = f"::{name} {','.join(given)}" if given else f"::{name}"
    return f"{head}::{_escape_data(_cut_message(message))}"


def _visible(text: str) -> str:
    """`text` with every control character but CR and LF written as an escape."""
    from assay.reports.console import shown

    return _NOT_LINE_BREAK.sub(lambda part: shown(part.group()), text)


def _escape_data(text: str) -> str:
    return _visible(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _cut_message(text: str) -> str:
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"

