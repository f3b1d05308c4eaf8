"""`assay` and `evaluate` entry points.

Only argparse and the subcommand modules load at start-up; each subcommand imports the
machinery it needs when it runs, so `assay --help` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from assay._signals import exit_code_of
from assay.cli import bench as bench_command
from assay.cli import cache as cache_command
from assay.cli import compare as compare_command
from assay.cli import convert as convert_command
from assay.cli import evaluate as evaluate_command
from assay.cli import report as report_command
from assay.cli import rescore as rescore_command
from assay.cli import run as run_command
from assay.cli import schema as schema_command
from assay.cli import scorers as scorers_command
from assay.cli import view as view_command
from assay.cli._parser import Parser
from assay.cli.messages import error
from assay.exit_codes import ExitCode

_SUBCOMMANDS = {
    "evaluate": evaluate_command,
    "run": run_command,
    "bench": bench_command,
    "rescore": rescore_command,
    "report": report_command,
    "view": view_command,
    "compare": compare_command,
    "convert": convert_command,
    "cache": cache_command,
    "schema": schema_command,
    "scorers": scorers_command,
}


_RUNS_AGENTS = frozenset({"run", "bench"})
"""The commands that run the user's agent: it gets no standard input (`withhold_stdin`)."""


def build_parser() -> tuple[Parser, dict[str, Parser]]:
    """The `assay` argument parser, and each subcommand's own parser by name."""
    parser = Parser(
        prog="assay",
        description="Score what AI agents did: saved runs against ground truth.",
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in _SUBCOMMANDS.items():
        module.add_parser(commands, name)
    return parser, commands.choices


def main(argv: Sequence[str] | None = None) -> int:
    """Run `assay` with `argv` (default: the process arguments); returns the exit code."""
    parser, subcommands = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return ExitCode.USAGE_ERROR
    if args.command in _RUNS_AGENTS:
        withhold_stdin()
    # A subcommand's own usage errors name it (`assay evaluate: error: ...`).
    try:
        result: int = _SUBCOMMANDS[args.command].run(args, subcommands[args.command])
    except KeyboardInterrupt as stopped:  # where the command saves nothing of its own
        error("interrupted")
        return exit_code_of(stopped)
    except Exception as exc:  # the commands that do not say it themselves
        if getattr(args, "verbose", False):
            raise
        error(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)")
        return ExitCode.INTERNAL_ERROR
    return result


def withhold_stdin() -> None:
    """Point standard input (file descriptor 0) at the null device, unless it is a regular
    file: whatever reads it then gets end of file at once.

    An agent that reads standard input (`input()`, `sys.stdin.read()`) would otherwise wait
    on the terminal, or on a pipe that stays open, until its run timed out; its thread,
    abandoned there, held stdin's lock, and the interpreter died at exit (`Fatal Python
    error: _enter_buffered_busy`, exit 134) after the reports were written. A regular file
    is left as it is: nothing blocks on it, and it may be the eval set
    (`assay run agent.py:agent /dev/stdin < cases.jsonl`), read after this. A closed
    descriptor 0 is opened on the null device too, so that no file assay opens takes it.

    Example:
        >>> import os, stat
        >>> saved = os.dup(0)
        >>> withhold_stdin()
        >>> stat.S_ISREG(os.fstat(0).st_mode) or os.read(0, 10) == b""
        True
        >>> os.dup2(saved, 0); os.close(saved)
        0
    """
    try:
        if stat.S_ISREG(os.fstat(0).st_mode):
            return
    except OSError:  # closed
        pass
    null = os.open(os.devnull, os.O_RDONLY)
    if null != 0:
        os.dup2(null, 0)
        os.close(null)


def evaluate_main(argv: Sequence[str] | None = None) -> int:
    """The `evaluate` console script: the same as `assay evaluate`."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = Parser(
        prog="evaluate",
        description=evaluate_command.DESCRIPTION,
        epilog=evaluate_command.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate_command.configure(parser)
    args = parser.parse_args(arguments)
    result: int = evaluate_command.run(args, parser)
    return result


def console_main() -> NoReturn:
    """The `assay` console script."""
    code = _as_console_script(main)
    loop_module = sys.modules.get("assay.live._loop")
    if loop_module is not None and loop_module.left_behind():
        # An agent's task outlived the evaluation (it refused to stop). Ending the normal way
        # would close it, running its code once more, for as long as it likes: the reports
        # are written and the output flushed, so end here.
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
        os._exit(code)
    sys.exit(code)


def console_evaluate() -> NoReturn:
    """The `evaluate` console script."""
    sys.exit(_as_console_script(evaluate_main))


def _as_console_script(command: Callable[[], int]) -> int:
    """Run `command` and flush what it printed; a reader that went away early
    (`assay ... | head`) ends the command quietly with code 1 (what rich, which prints the
    summary, and Python's own tools do) instead of with a traceback."""
    try:
        code = command()
        if sys.stdout is not None:  # None when the process started with stdout closed
            sys.stdout.flush()
    except BrokenPipeError:
        # The interpreter flushes stdout again on the way out: point it at the null device so
        # that this second flush cannot fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked for (package metadata is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from assay.schema import assay_version

        print(f"assay {assay_version()}")  # on standard output, as tools print versions
        parser.exit()
