"""The argument parser of every `assay` command: a usage error is one line and a way on.

argparse answers a mistyped command or flag with the whole usage block (twenty lines for
`assay evaluate`) and the error last. Here a usage error is the error, a "did you mean" when
a known name is near (a command, a flag, a choice; `assay._suggest`), and where the help is:

    assay: error: no command 'evalute'; did you mean 'evaluate'?
    try 'assay --help'

It still exits with `ExitCode.USAGE_ERROR` (2).

Example:
    >>> parser = Parser(prog="assay demo")
    >>> _ = parser.add_argument("--fail-under", type=float)
    >>> _ = parser.add_argument("--mode", choices=["strict", "subset"])
    >>> parser.explained("argument --mode: invalid choice: 'strikt' (choose from 'strict', "
    ...                  "'subset')")
    "argument --mode: invalid choice 'strikt'; did you mean 'strict'?"
    >>> parser.unrecognized(["--fail-undr", "0.5"])
    "unrecognized argument '--fail-undr'; did you mean '--fail-under'?"
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from assay._suggest import did_you_mean
from assay.exit_codes import ExitCode

__all__ = ["Parser"]

_INVALID_CHOICE = re.compile(
    r"^argument (?P<argument>.+?): invalid choice: (?P<value>'.*'|\".*\") \(choose from .*\)$",
    re.DOTALL,
)


class Parser(argparse.ArgumentParser):
    """An `ArgumentParser` whose usage errors are short (see the module docstring)."""

    def error(self, message: str) -> NoReturn:
        """Print the error, a suggestion if any and where the help is; exit 2."""
        sys.stderr.write(f"{self.prog}: error: {self.explained(message)}\n")
        sys.stderr.write(f"try '{self.prog} --help'\n")
        sys.exit(ExitCode.USAGE_ERROR)

    def explained(self, message: str) -> str:
        """argparse's message, with a suggestion where a known name is near."""
        found = _INVALID_CHOICE.match(message)
        if found is None:
            return message
        try:
            value = str(ast.literal_eval(found["value"]))
        except (ValueError, SyntaxError):
            return message
        action = self._action_named(found["argument"])
        choices = getattr(action, "choices", None)
        if action is None or not choices:
            return message
        hint = did_you_mean(value, [str(choice) for choice in choices])
        if isinstance(action, argparse._SubParsersAction):
            return f"no command {value!r}{hint or '; the commands: ' + ', '.join(choices)}"
        if not hint:
            return message
        return f"argument {found['argument']}: invalid choice {value!r}{hint}"

    def unrecognized(self, extras: Sequence[str]) -> str:
        """The error for arguments no option takes, with the flag nearest to the first."""
        flags = [word.split("=", 1)[0] for word in extras if word.startswith("-") and word != "-"]
        known = [option for option in self._option_string_actions if option.startswith("--")]
        hint = did_you_mean(flags[0], known) if flags else ""
        if len(flags) == 1:
            return f"unrecognized argument {flags[0]!r}{hint}"
        return f"unrecognized arguments: {' '.join(extras)}{hint}"

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> argparse.Namespace:
        """`parse_known_args`; then the command given says what no option took."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            owner = self._owner_of(parsed)
            owner.error(owner.unrecognized(extras))
        result: argparse.Namespace = parsed
        return result

    def _owner_of(self, parsed: argparse.Namespace) -> Parser:
        """The subcommand's parser when one was given (its flags are what was meant)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = getattr(parsed, action.dest, None)
                sub = action.choices.get(chosen) if isinstance(chosen, str) else None
                if isinstance(sub, Parser):
                    return sub
        return self

    def _action_named(self, argument: str) -> argparse.Action | None:
        """The action argparse names `argument` in its messages (`--flag/-f`, a metavar)."""
        for action in self._actions:
            names = [*action.option_strings, action.metavar, action.dest]
            shown = "/".join(action.option_strings)
            if argument == shown or argument in [str(name) for name in names if name]:
                return action
        return None
