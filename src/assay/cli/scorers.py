"""`assay scorers`: every scorer there is (built in or installed), and its options."""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode

if TYPE_CHECKING:
    from assay.scorers.info import OptionInfo, ScorerInfo

DESCRIPTION = """\
List the scorers, built in or installed by other packages (entry points in the
group "assay.scorers"), by what they look at: answers, trajectories, rule
checks, judges, and other (a scorer that declares no group). Each comes with
what it checks and needs, and its options with their types and defaults;
options only code can give (functions, objects: a judge's client_factory) only
with -v. Give a NAME to see one scorer in full. Set an option when evaluating
with -S NAME.OPTION=VALUE.
"""

EPILOG = """examples:
  assay scorers
  assay scorers -q            # the names alone, one a line
  assay scorers llm_judge
  assay scorers --json        # every scorer, with its group and every option
  assay evaluate --trajectories runs/ --scenarios gt/ \\
      -S static_json.list_order=position

exit codes: 0 ok, 2 no scorer of that NAME, 3 an installed scorer could not be
loaded (the others are still listed).
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="list the scorers and their options",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the options of `scorers` to a parser."""
    parser.add_argument("name", nargs="?", metavar="NAME", help="show this scorer in full")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON (what scripts read) instead of text: every scorer and option, "
        "whatever -q or -v say",
    )
    # -q keeps the command's product, shortened to what a script or a shell loop wants.
    add_verbosity(
        parser,
        quiet="print the names alone, one a line (with NAME: the name, if there is one)",
        verbose="show every option, those only code can give too (client_factory, ...)",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """List the scorers (or show one); returns the exit code."""
    try:
        return _run(args, parser)
    except BrokenPipeError:  # the reader went away (`assay scorers | head`): nothing to lose
        return ExitCode.OK


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    import orjson

    from assay.scorers.registry import UnknownScorerError, all_scorers, scorer_info

    if args.name is not None:
        try:
            info = scorer_info(args.name)
        except UnknownScorerError as exc:
            parser.error(str(exc))  # exits with USAGE_ERROR
        except Exception as exc:  # an installed scorer that does not import
            error(f"cannot load scorer {args.name!r}: {type(exc).__name__}: {exc}")
            return ExitCode.INPUT_ERROR
        if args.json:
            print(orjson.dumps(info.to_json(), option=orjson.OPT_INDENT_2).decode())
        elif args.quiet:
            print(info.name)
        else:
            print(describe(info, width=width(), verbose=args.verbose))
        return ExitCode.OK
    infos, problems = all_scorers()
    if args.json:
        document = {
            "scorers": [info.to_json() for info in infos],
            "problems": [{"name": name, "reason": why} for name, why in problems.items()],
        }
        print(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
    elif args.quiet:
        for info in infos:
            print(info.name)
    else:
        print(grouped(infos, width=width(), verbose=args.verbose))
    for name, why in problems.items():
        error(f"cannot load scorer {name!r}: {why}")
    return ExitCode.INPUT_ERROR if problems else ExitCode.OK


MAX_WIDTH = 100
"""The widest the text is set, however wide the terminal: longer lines read badly."""


def width() -> int:
    """The width to set the text in: the terminal's (`COLUMNS` when set, 80 when output is
    not a terminal), at most `MAX_WIDTH`."""
    import shutil

    return max(40, min(shutil.get_terminal_size().columns, MAX_WIDTH))


def grouped(infos: Iterable[ScorerInfo], *, width: int = 80, verbose: bool = False) -> str:
    """The scorers under the heading of the group each declared, in the order of
    `SCORER_GROUPS` (a group with no scorer left out), as `assay scorers` lists them.

    Example:
        >>> from assay.scorers.info import read_info
        >>> def short(*, limit: int = 3) -> None:
        ...     "Checks the run was short."
        >>> def mine() -> None:
        ...     "Checks something of its own, having declared no group."
        >>> print(grouped([read_info("mine", mine),
        ...                read_info("short", short, group="checks")]))
        RULE CHECKS: budgets, escalation, confirmation, retries, tool errors
        <BLANKLINE>
        short - Checks the run was short.
            limit: int = 3
        <BLANKLINE>
        OTHER: scorers that declare no group
        <BLANKLINE>
        mine - Checks something of its own, having declared no group.
    """
    from assay.scorers.registry import SCORER_GROUPS

    by_group: dict[str, list[ScorerInfo]] = {}
    for info in infos:
        group = info.group if info.group in SCORER_GROUPS else "other"
        by_group.setdefault(group, []).append(info)
    sections = []
    for group, (title, meaning) in SCORER_GROUPS.items():
        if group in by_group:
            heading = _wrap(f"{title.upper()}: {meaning}", width, indent="  ")
            entries = [listing(info, width=width, verbose=verbose) for info in by_group[group]]
            sections.append("\n\n".join([heading, *entries]))
    return "\n\n".join(sections)


def listing(info: ScorerInfo, *, width: int = 80, verbose: bool = False) -> str:
    """A scorer's name, description and options (those only code can give with `verbose`
    alone), set in `width` columns, as `assay scorers` lists it.

    Example:
        >>> from collections.abc import Callable
        >>> from assay.scorers.info import read_info
        >>> def short(*, limit: int | None = None, log: Callable[[str], None] = print) -> None:
        ...     "Checks the run took no more than `limit` turns, or the scenario's max_turns."
        >>> print(listing(read_info("short", short), width=60))
        short - Checks the run took no more than `limit` turns, or
          the scenario's max_turns.
            limit: int | None = null
        >>> print(listing(read_info("short", short), width=60, verbose=True))
        short - Checks the run took no more than `limit` turns, or
          the scenario's max_turns.
            limit: int | None = null
            log: Callable = "builtins.print" (only code can give it)
    """
    # Under the judges' heading, that a judge asks a model goes without saying.
    asks = info.is_async and info.group != "judges"
    head = info.name + (" (asks a model)" if asks else "")
    lines = [_wrap(f"{head} - {info.description}" if info.description else head, width, "  ")]
    lines.extend(_options(info, width, verbose=verbose, indent="    "))
    return "\n".join(lines)


def describe(info: ScorerInfo, *, width: int = 80, verbose: bool = False) -> str:
    """One scorer in full: where it comes from, its documentation and its options (those
    only code can give with `verbose` alone).

    Example:
        >>> from assay.scorers.info import read_info
        >>> def short(*, limit: int) -> None:
        ...     "Checks the run was short."
        >>> print(describe(read_info("short", short, group="checks")))
        short (rule checks; offline; from assay.cli.scorers)
        <BLANKLINE>
        Checks the run was short.
        <BLANKLINE>
        options:
          limit: int (required)
        <BLANKLINE>
        set one with: assay evaluate -S short.OPTION=VALUE
    """
    from assay.scorers.registry import SCORER_GROUPS

    kind = "asks a model" if info.is_async else "offline"
    title = SCORER_GROUPS.get(info.group, SCORER_GROUPS["other"])[0]
    lines = [f"{info.name} ({title}; {kind}; from {info.module})", ""]
    if info.doc:
        lines.extend([info.doc, ""])
    options = _options(info, width, verbose=verbose, indent="  ")
    lines.append("options:" if options else "options: none")
    lines.extend(options)
    if options:
        lines.extend(["", f"set one with: assay evaluate -S {info.name}.OPTION=VALUE"])
    return "\n".join(lines)


def _options(info: ScorerInfo, width: int, *, verbose: bool, indent: str) -> list[str]:
    """The option lines of a scorer: only code can give the hidden ones (unless `verbose`)."""
    lines = []
    for option in info.options:
        if option.code_only and not verbose:
            continue
        line = option_line(option) + (" (only code can give it)" if option.code_only else "")
        lines.append(_wrap(line, width, indent + "    ", first=indent))
    if info.takes_any_option:
        lines.append(f"{indent}(and any other option)")
    return lines


def _wrap(text: str, width: int, indent: str, first: str = "") -> str:
    """`text` in lines of at most `width` columns, the first indented by `first`, the rest by
    `indent`; words are split only when one is longer than a line."""
    import textwrap

    return textwrap.fill(
        text,
        width,
        initial_indent=first,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=True,
    )


def option_line(option: OptionInfo) -> str:
    """`name: type = default` (the default as JSON, as -S would take it), or `(required)`.

    Example:
        >>> from assay.scorers.info import OptionInfo
        >>> option_line(OptionInfo("tools", tuple[str, ...], ("escalate", "handoff")))
        'tools: tuple[str, ...] = ["escalate", "handoff"]'
    """
    import json

    if option.required:
        return f"{option.name}: {option.type_name} (required)"
    default = option.to_json()["default"]
    try:  # spaced after commas, so that a long list wraps between its items
        shown = json.dumps(default, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        shown = repr(default)
    return f"{option.name}: {option.type_name} = {shown}"
