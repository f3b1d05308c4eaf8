"""The manners of every `assay` command: a usage error is one line, a "did you mean" and where
the help is; `--version` on standard output; `-q` and `-v` everywhere; flags that equal `-S`
options take the same values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from _cli import assay, explain
from assay._suggest import closest, did_you_mean
from assay.cli._parser import Parser
from assay.cli.main import build_parser


def _one_error(stderr: str, prog: str) -> str:
    """The error line of a usage error, checked to be followed by the way to the help only."""
    said, way_on = stderr.splitlines()
    assert said.startswith(f"{prog}: error: "), stderr
    assert way_on == f"try '{prog} --help'", stderr
    return said


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "prog", "expected"),
    [
        (["evalute"], "assay", "no command 'evalute'; did you mean 'evaluate'?"),
        (["comapre"], "assay", "did you mean 'compare'?"),
        (["zzz"], "assay", "no command 'zzz'; the commands: evaluate, run,"),
        (["evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json", "--fail-undr",
          "0.5"], "assay evaluate",
         "unrecognized argument '--fail-undr'; did you mean '--fail-under'?"),
        (["evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json", "--scorer",
          "static_jsn"], "assay evaluate",
         "unknown scorer 'static_jsn'; did you mean 'static_json'?"),
        (["evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json", "--list-order",
          "positon"], "assay evaluate",
         "argument --list-order: invalid choice 'positon'; did you mean 'position'?"),
        (["evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json", "--scorer",
          "trajectory", "--trajectory-mode", "strikt"], "assay evaluate",
         "unknown trajectory mode 'strikt'; did you mean 'strict'?"),
        (["report", "out", "--junt", "j.xml"], "assay report",
         "unrecognized argument '--junt'; did you mean '--junit'?"),
    ],
)
def test_a_usage_error_is_one_line_with_a_suggestion(
    tmp_path: Path, argv: list[str], prog: str, expected: str
) -> None:
    (tmp_path / "r.jsonl").write_text('{"run_id": "a", "scenario_id": "1", "answer": "x"}\n')
    (tmp_path / "s.json").write_text('[{"id": "1", "expected_answer": "x"}]')
    proc = assay(*argv, cwd=tmp_path)
    assert proc.returncode == 2, explain(proc)
    assert expected in _one_error(proc.stderr, prog)
    assert not (tmp_path / "reports").exists()


@pytest.mark.slow
def test_version_is_printed_on_standard_output(tmp_path: Path) -> None:
    proc = assay("--version", cwd=tmp_path)
    assert proc.returncode == 0, explain(proc)
    assert proc.stdout.startswith("assay ") and proc.stderr == ""


def test_every_command_takes_quiet_and_verbose() -> None:
    _, commands = build_parser()
    for name, parser in commands.items():
        options = {flag for action in parser._actions for flag in action.option_strings}
        if "-q" not in options:  # a command of actions (`assay cache`): each action has them
            subs = [a for a in parser._actions if isinstance(a.choices, dict)]
            assert subs, name
            for action_parser in subs[0].choices.values():
                flags = {f for a in action_parser._actions for f in a.option_strings}
                assert {"-q", "--quiet", "-v", "--verbose"} <= flags, name
            continue
        assert {"-q", "--quiet", "-v", "--verbose"} <= options, name


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["IN_ORDER", "in_order", "subsequence"])
def test_trajectory_mode_takes_what_the_option_takes(tmp_path: Path, mode: str) -> None:
    calls = [{"name": "lookup", "input": {}}, {"name": "other", "input": {}},
             {"name": "answer", "input": {}}]
    (tmp_path / "r.jsonl").write_text(json.dumps({
        "run_id": "a", "scenario_id": "1", "answer": "x",
        "trajectory": {"turns": [{"tool_calls": [call]} for call in calls]},
    }) + "\n")
    # The expected calls in order, another between them: a pass in order, not strict.
    (tmp_path / "s.json").write_text(json.dumps([
        {"id": "1", "expected_trajectory": ["lookup", "answer"]}]))
    by_flag = assay("evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json",
                    "--scorer", "trajectory", "--trajectory-mode", mode, "--reports-dir", "f",
                    cwd=tmp_path)
    by_option = assay("evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json",
                      "--scorer", "trajectory", "-S", f"trajectory.mode={mode}",
                      "--reports-dir", "o", cwd=tmp_path)
    assert by_flag.returncode == by_option.returncode == 0, explain(by_flag)
    flag = json.loads((tmp_path / "f" / "_aggregate.json").read_text())
    option = json.loads((tmp_path / "o" / "_aggregate.json").read_text())
    assert flag["totals"]["passed"] == option["totals"]["passed"] == 1  # a subsequence
    strict = assay("evaluate", "--trajectories", "r.jsonl", "--scenarios", "s.json",
                   "--scorer", "trajectory", "--reports-dir", "s", cwd=tmp_path)
    assert strict.returncode == 0, explain(strict)
    assert json.loads((tmp_path / "s" / "_aggregate.json").read_text())["totals"]["passed"] == 0


def test_the_parser_explains_only_what_it_can_and_keeps_the_rest() -> None:
    parser = Parser(prog="assay demo")
    parser.add_argument("--mode", choices=["strict", "subset"])
    assert parser.explained("the following arguments are required: --x") == (
        "the following arguments are required: --x"
    )
    # No near choice: argparse's own message, with the choices listed.
    said = "argument --mode: invalid choice: 'zzz' (choose from 'strict', 'subset')"
    assert parser.explained(said) == said
    assert parser.unrecognized(["stray"]) == "unrecognized arguments: stray"
    assert parser.unrecognized(["--a", "--b"]) == "unrecognized arguments: --a --b"


def test_suggestions_ignore_case_and_keep_the_known_spelling() -> None:
    assert closest("IN_ORDER", ["in_order", "strict"]) == ["in_order"]
    assert did_you_mean("static_jsn", ["static_json", "trajectory"]) == (
        "; did you mean 'static_json'?"
    )
    assert did_you_mean("", ["a"]) == ""


@given(st.text(max_size=30), st.lists(st.text(max_size=30), max_size=10))
def test_suggestions_never_raise_and_only_name_known_names(word: str, known: list[str]) -> None:
    found = closest(word, known)
    assert set(found) <= set(known) and len(found) <= 3
    hint = did_you_mean(word, known)
    assert hint == "" or hint.startswith("; did you mean ")


@given(st.text(max_size=60))
def test_any_message_is_explained_without_raising(message: str) -> None:
    parser = Parser(prog="assay demo")
    parser.add_argument("--mode", choices=["strict", "subset"])
    assert isinstance(parser.explained(message), str)
    assert isinstance(parser.explained(f"argument --mode: invalid choice: {message!r} "
                                       "(choose from 'strict')"), str)
