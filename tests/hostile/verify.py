"""Running `assay evaluate` on hostile input, and the checks every such evaluation must pass.

The checks are the promises of the reports: nothing lost (every input accounted for, every
`results.jsonl` line valid and naming a report that exists, totals that add up), nothing
outside (no file changes anywhere but the reports directory), never hung (the command ends;
a generous timeout is only the guard), and nothing from the data drives the terminal.

Example:
    >>> strict_control_problems(b"ok\\n"), strict_control_problems(b"a\\x1b[2Jb")
    ([], ["ESC at 1: b'a\\\\x1b[2Jb'"])
"""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from corpus import Expect, Outcome

from _cli import command
from assay._text import path_text

HANG_GUARD_S = 180
"""Wall-clock seconds after which a command is taken to hang: a guard, not a speed check."""

CPU_BUDGET_S = 20
"""CPU seconds a command may use (RLIMIT_CPU): far above what the inputs here need (the whole
corpus takes about 6: most of it the kernel's, skipping the 2 GB line of the sparse `.jsonl` to
find the next one), so only a runaway computation reaches it. Work bounded by a counter, not by
the clock."""

MEMORY_BUDGET = 1536 * 1024**2
"""Address space a command may map (RLIMIT_AS): an input that makes assay hold gigabytes
fails here instead of taking the machine's memory from everything else."""

REPORTS_OWN = frozenset({"results.jsonl", "_aggregate.json"})

NOT_SCORED_KINDS = ("unscored", "errors", "unreadable", "no_scenario")
"""The lists of `_aggregate.json` that hold runs (or inputs) not scored."""

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Characters that reorder the text a terminal shows (a `Trojan Source` display)."""

SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""rich's own styling when colour is on (Select Graphic Rendition)."""


def assay_command() -> list[str]:
    """How to run the `assay` console script of the interpreter running the tests."""
    return command()


def environment(root: Path, *, colour: bool = False) -> dict[str, str]:
    """The command's environment: a wide terminal, colour off (or forced on), and a home
    directory inside `root` so that a stray write there is seen."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NO_COLOR", "FORCE_COLOR", "TERM", "COLUMNS", "CLICOLOR_FORCE")
    }
    home = root / "home"
    home.mkdir(exist_ok=True)
    env.update(COLUMNS="200", HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))
    if colour:
        env.update(TERM="xterm-256color", FORCE_COLOR="1")
    else:
        env.update(TERM="dumb", NO_COLOR="1")
    return env


def limit_resources() -> None:
    """In the child: bound CPU and memory, and take SIGINT/SIGTERM as a fresh shell would
    (a suite started in the background has SIGINT ignored, which children inherit)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_BUDGET_S, CPU_BUDGET_S + 5))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BUDGET, MEMORY_BUDGET))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def evaluate(
    root: Path, reports: Path, *extra: str, colour: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """Run `assay evaluate` on the corpus at `root` (its `runs/` and `scenarios/`), from
    `root` as working directory; output kept as bytes, exactly as printed."""
    command = [
        *assay_command(),
        "evaluate",
        "--trajectories",
        str(root / "runs"),
        "--scenarios",
        str(root / "scenarios"),
        "--reports-dir",
        str(reports),
        *extra,
    ]
    return subprocess.run(
        command,
        cwd=root,
        env=environment(root, colour=colour),
        capture_output=True,
        timeout=HANG_GUARD_S,
        check=False,
        preexec_fn=limit_resources,
    )


def explain(proc: subprocess.CompletedProcess[bytes]) -> str:
    """A finished command, for an assertion message (output cut to a readable length)."""
    out = proc.stdout.decode("utf-8", "backslashreplace")[-3000:]
    err = proc.stderr.decode("utf-8", "backslashreplace")[-3000:]
    return f"exit {proc.returncode}\n--- stdout (end)\n{out}\n--- stderr (end)\n{err}"


# --- the tree around the reports ----------------------------------------------------------------


def snapshot(root: Path, skip: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under `root` but `skip` (the reports directory): its type, size and
    modification time, without following links or opening anything (FIFOs stay shut)."""
    entries: dict[str, tuple[int, int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if Path(dirpath, d) != skip]
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            status = path.lstat()
            # A directory's own time changes when an entry is added (the reports directory
            # itself): what is in it is compared entry by entry instead.
            mtime = 0 if stat.S_ISDIR(status.st_mode) else status.st_mtime_ns
            entries[os.fspath(path.relative_to(root))] = (status.st_mode, status.st_size, mtime)
    return entries


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two snapshots: entries added, removed or rewritten."""
    return sorted(
        [f"added {p!r}" for p in after.keys() - before.keys()]
        + [f"removed {p!r}" for p in before.keys() - after.keys()]
        + [f"changed {p!r}" for p in before.keys() & after.keys() if before[p] != after[p]]
    )


# --- the terminal -------------------------------------------------------------------------------


def strict_control_problems(output: bytes) -> list[str]:
    """Control characters in printed output other than a line feed: C0 and DEL as bytes, C1
    and the bidirectional controls as characters."""
    problems = []
    for index, byte in enumerate(output):
        if (byte < 0x20 and byte != 0x0A) or byte == 0x7F:
            name = {0x1B: "ESC", 0x0D: "CR", 0x00: "NUL", 0x07: "BEL"}.get(byte, hex(byte))
            problems.append(f"{name} at {index}: {output[max(0, index - 30):index + 30]!r}")
    text = output.decode("utf-8", "replace")
    for index, char in enumerate(text):
        if "\x80" <= char <= "\x9f" or char in BIDI_CONTROLS:
            context = text[max(0, index - 30) : index + 30]
            problems.append(f"{unicodedata.name(char, hex(ord(char)))} at {index}: {context!r}")
    return problems[:20]


def coloured_control_problems(output: bytes) -> list[str]:
    """`strict_control_problems` of output printed in colour, once rich's own styling (SGR
    sequences, which the data's escapes here never are) is taken out."""
    return strict_control_problems(SGR.sub(b"", output))


# --- the reports --------------------------------------------------------------------------------


@dataclass
class Reports:
    """What an evaluation wrote into its reports directory."""

    directory: Path
    aggregate: dict[str, Any]
    lines: list[dict[str, Any]]
    problems: list[str] = field(default_factory=list)
    """What breaks the promises of the reports (empty when all is well)."""

    def entries(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """`(kind, source, entry)` for every run and input the reports mention: each
        `results.jsonl` line by its score's status, each not-scored entry by its list."""
        for line in self.lines:
            yield line["score"]["status"], str(line.get("source") or ""), line
        for kind, items in self.aggregate.get("not_scored", {}).items():
            if kind in ("unscored", "errors"):
                continue  # these are results.jsonl lines too
            for item in items:
                yield kind, str(item.get("source") or ""), item
        for item in self.aggregate.get("scenario_problems", []):
            yield "scenario_problem", str(item.get("source") or ""), item


def read_reports(
    directory: Path, *, finished: bool = True, with_aggregate: bool = True
) -> Reports:
    """Read and check a reports directory.

    Every `results.jsonl` line must be a JSON object naming (in `report_file`) a report that
    exists in the directory, each report named once. With `_aggregate.json` there, its totals
    must add up and count exactly the lines, and every input not scored must have a reason.
    A `finished` evaluation leaves no temporary file and always an aggregate. Without
    `with_aggregate` (a killed evaluation leaves the aggregate of an earlier one, if any),
    `_aggregate.json` is not read.
    """
    problems: list[str] = []
    lines: list[dict[str, Any]] = []
    results = directory / "results.jsonl"
    data = results.read_bytes() if results.exists() else b""
    if data and not data.endswith(b"\n"):
        problems.append(f"results.jsonl ends in a cut line: {data[-80:]!r}")
    named: dict[str, int] = {}
    for number, raw in enumerate(data.splitlines(), 1):
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            problems.append(f"results.jsonl:{number} is not JSON ({exc}): {raw[:80]!r}")
            continue
        if not isinstance(line, dict):
            problems.append(f"results.jsonl:{number} is not an object")
            continue
        lines.append(line)
        report = line.get("report_file")
        if not isinstance(report, str) or "/" in report or report in ("", ".", ".."):
            problems.append(f"results.jsonl:{number} names no report file: {report!r}")
        elif not (directory / report).is_file():
            problems.append(f"results.jsonl:{number} names {report!r}, which does not exist")
        elif report in named:
            problems.append(f"results.jsonl:{number} names {report!r}, as line {named[report]}")
        else:
            named[report] = number
        score = line.get("score") or {}
        if score.get("status") != "scored" and not str(score.get("rationale") or "").strip():
            problems.append(f"results.jsonl:{number}: {score.get('status')} without a reason")
        problems += ops_problems(line.get("ops") or {}, f"results.jsonl:{number}")
    aggregate: dict[str, Any] = {}
    aggregate_file = directory / "_aggregate.json"
    if aggregate_file.exists() and with_aggregate:
        try:
            aggregate = orjson.loads(aggregate_file.read_bytes())
        except orjson.JSONDecodeError as exc:
            problems.append(f"_aggregate.json is not JSON: {exc}")
        else:
            problems += aggregate_problems(aggregate, len(lines))
    elif finished:
        problems.append("no _aggregate.json")
    if finished:
        left = [p.name for p in directory.iterdir() if p.name.startswith(".assay-")]
        if left:
            problems.append(f"temporaries left behind: {left[:5]}")
    return Reports(directory, aggregate, lines, problems)


def aggregate_problems(aggregate: dict[str, Any], line_count: int) -> list[str]:
    """What is wrong with the totals and lists of an `_aggregate.json` written beside
    `line_count` lines of `results.jsonl`."""
    problems = []
    totals = aggregate.get("totals", {})
    parts = ("scored", "unscored", "errors", "skipped")
    if sum(totals.get(k, 0) for k in parts) != totals.get("runs_read"):
        problems.append(f"scored + unscored + errors + skipped != runs_read: {totals}")
    if totals.get("skipped") != totals.get("unreadable", 0) + totals.get("no_scenario", 0):
        problems.append(f"skipped != unreadable + no_scenario: {totals}")
    lines_counted = sum(totals.get(k, 0) for k in ("scored", "unscored", "errors"))
    if lines_counted != line_count:
        problems.append(
            f"totals count {lines_counted} scored/unscored/errors, results.jsonl has "
            f"{line_count} lines"
        )
    not_scored = aggregate.get("not_scored", {})
    for kind in (*NOT_SCORED_KINDS, "no_run"):
        expected = totals.get(
            {"no_run": "scenarios_without_runs"}.get(kind, kind), len(not_scored.get(kind, []))
        )
        if len(not_scored.get(kind, [])) != expected:
            problems.append(f"not_scored.{kind} lists {len(not_scored.get(kind, []))}, "
                            f"totals say {expected}")
        for item in not_scored.get(kind, []):
            if not str(item.get("reason") or "").strip():
                problems.append(f"not_scored.{kind}: no reason for {item}")
    for item in aggregate.get("scenario_problems", []):
        if not str(item.get("reason") or "").strip():
            problems.append(f"scenario_problems: no reason for {item}")
    return problems


def ops_problems(ops: dict[str, Any], where: str) -> list[str]:
    """Operational figures no run can have: token counts past 10^12 or below 0, durations and
    costs that are not finite and positive."""
    problems = []
    for key in ("tokens_in", "tokens_out"):
        value = ops.get(key)
        if value is not None and not (isinstance(value, int) and 0 <= value <= 10**12):
            problems.append(f"{where}: ops.{key} = {value!r}")
    for key in ("duration_ms", "est_cost_usd"):
        value = ops.get(key)
        if value is not None and not (isinstance(value, int | float) and 0 <= value < 1e300):
            problems.append(f"{where}: ops.{key} = {value!r}")
    return problems


# --- what was expected of each input ------------------------------------------------------------


def input_files(runs: Path, skip: Iterable[Path] = ()) -> list[Path]:
    """The files a directory walk must take as input, as the README says: `*.json`,
    `*.jsonl`, `*.ndjson`, `*.eval`, `*.traj` (any case), recursively, hidden entries
    skipped, directory links not followed (a linked folder is an expectation of its own)."""
    skipped = {os.path.realpath(p) for p in skip}
    found = []
    for dirpath, dirnames, filenames in os.walk(runs):
        dirnames[:] = [
            d for d in dirnames
            if not d.startswith(".") and os.path.realpath(Path(dirpath, d)) not in skipped
        ]
        found += [
            Path(dirpath, name)
            for name in filenames
            if not name.startswith(".")
            and name.lower().endswith((".json", ".jsonl", ".ndjson", ".eval", ".traj"))
        ]
    return sorted(found)


def _from(source: str, path: str) -> bool:
    """Whether a report's `source` is `path` itself, or a line (`:LINE`) or an item (`#...`)
    of it."""
    if not source.startswith(path):
        return False
    rest = source[len(path) :]
    return not rest or rest[0] == "#" or (rest[0] == ":" and rest[1:2].isdigit())


def expectation_problems(
    root: Path, reports: Reports, expects: Iterable[Expect], *, skip: Iterable[Path] = ()
) -> list[str]:
    """What in `reports` breaks the expectations of the corpus at `root`, which input file no
    report mentions (skipped in silence), and what was read from the `skip` directories (the
    reports directory, when it sits inside the runs)."""
    entries = list(reports.entries())
    problems = []
    exempt = {os.fspath(root / e.path) for e in expects if e.outcome is Outcome.NOT_A_RUN}
    skipped = [os.fspath(p) + os.sep for p in skip]
    problems += [
        f"read from a directory never read as input: {source}"
        for _, source, _ in entries
        if any(source.startswith(prefix) for prefix in skipped)
    ]
    for path in input_files(root / "runs", skip):
        text = path_text(path)  # as reports show it: undecodable bytes as \xNN
        if os.fspath(path) not in exempt and not any(_from(s, text) for _, s, _ in entries):
            problems.append(f"{path.relative_to(root)!s}: read in silence, in no report")
    for expect in expects:
        path = path_text(root / expect.path)
        found = [(kind, entry) for kind, source, entry in entries if _from(source, path)]
        kinds = sorted({kind for kind, _ in found})
        outcome = expect.outcome
        if outcome is Outcome.LISTED:
            bad = [k for k in kinds if k == "scored"]
            if not found or bad:
                problems.append(f"{expect.path!r}: expected listed with a reason, got {kinds}")
        elif outcome is Outcome.ACCOUNTED:
            if not found:
                problems.append(f"{expect.path!r}: in no report")
        elif outcome is Outcome.SCORED:
            if not found or kinds != ["scored"]:
                problems.append(f"{expect.path!r}: expected scored, got {kinds}")
        elif outcome is Outcome.NOT_PASSED:
            passed = [e for k, e in found if k == "scored" and e["score"].get("passed")]
            if not found or passed:
                problems.append(f"{expect.path!r}: expected not passed, got {kinds} {passed[:1]}")
        elif outcome is Outcome.NOT_A_RUN:
            read = [k for k in kinds if k in ("scored", "unscored", "error")]
            if read:
                problems.append(f"{expect.path!r}: read back as a run ({kinds})")
        elif outcome is Outcome.PROBLEM:
            named = [
                kind
                for kind, source, _ in entries
                if kind != "scored" and (_from(source, path) or source.startswith(path + os.sep))
            ]
            if not named:
                problems.append(f"{expect.path!r}: no scenario problem or listed entry names it")
        elif outcome is Outcome.FOLLOWED_OR_LISTED:
            named = [
                kind
                for kind, source, _ in entries
                if source == path or source.startswith(path + os.sep)
            ]
            if not named:
                problems.append(f"{expect.path!r}: a linked folder neither read nor listed")
        elif outcome is Outcome.EXACT_ID:
            ids = [e.get("run_id") for k, e in found if k in ("scored", "unscored", "error")]
            listed = [k for k in kinds if k in ("unreadable", "no_scenario")]
            if not listed and ids != [expect.detail]:
                problems.append(f"{expect.path!r}: run id {ids} in the reports, written as "
                                f"{expect.detail}")
    return problems
