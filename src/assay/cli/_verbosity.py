"""`-q` / `-v`, the same two flags on every command.

`-q` (`--quiet`) prints nothing but errors (the exit code still says how it went); `-v`
(`--verbose`) says more: what the command says more of is its own (every run not scored, a
traceback of an internal error), given as `verbose`.

Example:
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_verbosity(parser, verbose="list every run not scored")
    >>> parser.parse_args(["-q"]).quiet, parser.parse_args(["-v"]).verbose
    (True, True)
"""

from __future__ import annotations

import argparse

QUIET = "print nothing but errors"
TRACEBACK = "show the traceback of an internal error"


def add_verbosity(
    parser: argparse.ArgumentParser, *, verbose: str = TRACEBACK, quiet: str = QUIET
) -> None:
    """Add `-v/--verbose` and `-q/--quiet` to a command (they exclude each other)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="store_true", help=verbose)
    group.add_argument("-q", "--quiet", action="store_true", help=quiet)
