"""`assay` and `evaluate` entry points.

Only argparse and the subcommand modules load at start-up; each subcommand imports the
machinery it needs when it runs, so `assay --help` stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from assay._gc import collect_rarely
from assay._io import flush_standard_streams
from assay.cli import cache as cache_command
from assay.cli import convert as convert_command
from assay.cli import evaluate as evaluate_command
from assay.cli.exit_codes import ExitCode

_SUBCOMMANDS = {"evaluate": evaluate_command, "convert": convert_command, "cache": cache_command}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The `assay` argument parser, and each subcommand's own parser by name."""
    parser = argparse.ArgumentParser(
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
    # A subcommand's own errors show its own usage line (`usage: assay evaluate ...`).
    result: int = _SUBCOMMANDS[args.command].run(args, subcommands[args.command])
    return result


def evaluate_main(argv: Sequence[str] | None = None) -> int:
    """The `evaluate` console script: the same as `assay evaluate`."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
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
    """The `assay` console script: `main`, then a quick exit."""
    _exit_quickly(main)


def console_evaluate() -> NoReturn:
    """The `evaluate` console script: `evaluate_main`, then a quick exit."""
    _exit_quickly(evaluate_main)


def _exit_quickly(command: Callable[[], int]) -> NoReturn:
    """Run `command` as a batch process and end it without the interpreter's teardown.

    The garbage collector runs rarely from the start (imports included): the command's
    objects are nearly all freed by reference counting, and the process is short-lived.

    Freeing every module and object on the way out takes some 20 ms after an evaluation,
    for nothing: commands close their files themselves (reports are written atomically and
    closed before `command` returns). Only the standard streams still hold output, and they
    are flushed here. An exception leaves the normal way, with its traceback.
    """
    collect_rarely()
    code = command()
    try:
        flush_standard_streams()
    except BrokenPipeError:  # the reader went away (`assay ... | head`): nothing to lose
        code = code or ExitCode.INTERNAL_ERROR
    os._exit(code)


class _VersionAction(argparse.Action):
    """`--version`, looked up only when asked for (package metadata is slow to import)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("assay")
        except PackageNotFoundError:
            found = "unknown"
        parser.exit(message=f"assay {found}\n")
