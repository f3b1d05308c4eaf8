"""The hostile corpus through the real `assay evaluate`: nothing lost, nothing outside, never hung.

Each input of `corpus.py` is evaluated alone, and all of them (but those still marked xfail)
together, by the installed command in a subprocess, and each evaluation is held to every
promise in `verify.py`: an exit code of 0, 1 or 3 and no traceback; totals that add up and
count exactly the `results.jsonl` lines; every line valid and naming a report that exists;
every input in some report, every bad one with its reason; no file changed outside the
reports directory; and no control character from the data on the terminal.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import ESCAPES, GENERATORS, MARKUP, Expect, whole_corpus_names, write_corpus
from verify import (
    SGR,
    changed,
    coloured_control_problems,
    evaluate,
    expectation_problems,
    explain,
    read_reports,
    snapshot,
    strict_control_problems,
)

pytestmark = pytest.mark.slow

ALLOWED_EXIT_CODES = (0, 1, 3)
"""Finished (1: below --fail-under, 3: no run in the input); never 2 or 4 on data."""


def _restore_permissions(root: Path) -> None:
    # Inputs made unreadable on purpose; pytest must be able to remove them afterwards.
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            if not path.is_symlink() and path.exists() and path.stat().st_mode & 0o777 == 0:
                path.chmod(0o700)
                if path.is_dir():
                    _restore_permissions(path)


@pytest.fixture
def corpus_root(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "corpus"
    root.mkdir()
    yield root
    _restore_permissions(root)


def _evaluated(
    root: Path,
    expects: list[Expect],
    *extra: str,
    colour: bool = False,
    reports: Path | None = None,
) -> tuple[list[str], bytes]:
    """Evaluate the corpus at `root` (reports beside it, or in `reports`); every problem
    found, and what was printed."""
    reports = reports or root.parent / "reports"
    (root / "home").mkdir(exist_ok=True)  # the command's home: a stray write shows there
    before = snapshot(root.parent, reports)
    proc = evaluate(root, reports, *extra, colour=colour)
    problems: list[str] = []
    if proc.returncode not in ALLOWED_EXIT_CODES:
        problems.append(f"exit code {proc.returncode}")
    if b"Traceback" in proc.stderr or b"internal error" in proc.stderr:
        problems.append("a traceback or an internal error on stderr")
    after = snapshot(root.parent, reports)
    problems += [f"outside the reports directory: {c}" for c in changed(before, after)]
    if reports.is_dir():
        found = read_reports(reports)
        problems += found.problems
        if found.aggregate:
            problems += expectation_problems(root, found, expects, skip=[reports])
    else:
        problems.append("no reports directory")
    output = proc.stdout + proc.stderr
    check = coloured_control_problems if colour else strict_control_problems
    problems += [f"on the terminal: {p}" for p in check(output)]
    if problems:
        problems.append(explain(proc))
    return problems, output


def _params() -> Iterator[object]:
    for generator in GENERATORS.values():
        marks = []
        if generator.xfail is not None:
            marks.append(pytest.mark.xfail(strict=False, reason=generator.xfail))
        if (why := generator.available()) is not None:
            marks.append(pytest.mark.skip(reason=why))
        yield pytest.param(generator.name, marks=marks, id=generator.name)


@pytest.mark.parametrize("name", list(_params()))
def test_each_hostile_input_alone(corpus_root: Path, name: str) -> None:
    expects = write_corpus(corpus_root, [name])
    problems, _ = _evaluated(corpus_root, expects, "--workers", "1")
    assert not problems, "\n".join(problems)


def test_the_whole_corpus_at_once_with_workers(corpus_root: Path) -> None:
    expects = write_corpus(corpus_root, whole_corpus_names())
    problems, output = _evaluated(corpus_root, expects, "--workers", "2", "-v")
    assert not problems, "\n".join(problems)
    # Markup in the data prints as written, never read as markup (nor dropped).
    text = output.decode("utf-8", "replace")
    missing = [m for m in MARKUP if m not in text]
    assert not missing, f"markup not shown as written: {missing}"


def test_reports_inside_the_runs_tree_are_never_read_back(corpus_root: Path) -> None:
    # The README allows --reports-dir inside --trajectories: a second evaluation into it
    # must find exactly what the first found, none of its own reports read as runs.
    expects = write_corpus(corpus_root, whole_corpus_names())
    reports = corpus_root / "runs" / "reports"
    for _ in range(2):
        problems, _ = _evaluated(corpus_root, expects, "--workers", "2", reports=reports)
        assert not problems, "\n".join(problems)


def test_the_whole_corpus_in_colour_shows_the_data_escaped(corpus_root: Path) -> None:
    expects = write_corpus(corpus_root, whole_corpus_names())
    problems, output = _evaluated(corpus_root, expects, "--workers", "1", "-v", colour=True)
    assert not problems, "\n".join(problems)
    assert SGR.search(output), "no colour in the output: the check above proved nothing"
    text = output.decode("utf-8", "replace")
    # The data's own escapes are on the terminal as text: \x1b[2J, not a cleared screen.
    for escape in ESCAPES:
        if escape < " " or "\x7f" <= escape[0] <= "\x9f":
            shown = escape.encode("unicode_escape").decode()
            assert shown in text, f"{escape!r} not shown escaped as {shown!r}"


def test_every_input_has_a_generator_that_writes_something(tmp_path: Path) -> None:
    # A generator that writes nothing, or expects nothing, proves nothing.
    for name, generator in GENERATORS.items():
        if generator.available() is not None or generator.xfail is not None:
            continue
        root = tmp_path / name
        expects = write_corpus(root, [name])
        assert expects, f"{name} expects nothing of its input"
        written = [p for p in root.rglob("*") if p.is_file() and "scenario_" not in p.parent.name]
        assert written or any((root / "runs" / name).iterdir()), f"{name} wrote no input"
