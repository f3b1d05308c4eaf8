"""`assay scorers`: every scorer there is (built in or installed), and its options."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from assay.cli.messages import error
from assay.exit_codes import ExitCode

if TYPE_CHECKING:
    from assay.scorers.info import OptionInfo, ScorerInfo

DESCRIPTION = """\
List the scorers: those built in and those installed by other packages (entry points in the
group "assay.scorers"), each with what it does and its options, with their types and
defaults. Give a NAME to see one scorer in full. Set an option when evaluating with
-S NAME.OPTION=VALUE.
"""

EPILOG = """examples:
  assay scorers
  assay scorers llm_judge
  assay scorers --json
  assay evaluate --trajectories runs/ --scenarios gt/ -S static_json.list_order=position

exit codes: 0 ok, 2 no scorer of that NAME, 3 an installed scorer could not be loaded (the
others are still listed).
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
        "--json", action="store_true", help="print JSON (what scripts read) instead of text"
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
        else:
            print(describe(info))
        return ExitCode.OK
    infos, problems = all_scorers()
    if args.json:
        document = {
            "scorers": [info.to_json() for info in infos],
            "problems": [{"name": name, "reason": why} for name, why in problems.items()],
        }
        print(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode())
    else:
        print("\n\n".join(listing(info) for info in infos))
    for name, why in problems.items():
        error(f"cannot load scorer {name!r}: {why}")
    return ExitCode.INPUT_ERROR if problems else ExitCode.OK


def listing(info: ScorerInfo) -> str:
    """A scorer's name, summary and options, as `assay scorers` lists it.

    Example:
        >>> from assay.scorers.info import read_info
        >>> def short(*, limit: int | None = None, unit: str = "turns") -> None:
        ...     "Pass when the run was short."
        >>> print(listing(read_info("short", short)))
        short - Pass when the run was short.
          limit: int | None = null
          unit: str = "turns"
    """
    head = info.name + (" (asks a model)" if info.is_async else "")
    lines = [f"{head} - {info.summary}" if info.summary else head]
    lines.extend(f"  {option_line(option)}" for option in info.options)
    if info.takes_any_option:
        lines.append("  (and any other option)")
    return "\n".join(lines)


def describe(info: ScorerInfo) -> str:
    """One scorer in full: where it comes from, its documentation and its options.

    Example:
        >>> from assay.scorers.info import read_info
        >>> def short(*, limit: int) -> None:
        ...     "Pass when the run was short."
        >>> print(describe(read_info("short", short)))
        short (offline; from assay.cli.scorers)
        <BLANKLINE>
        Pass when the run was short.
        <BLANKLINE>
        options:
          limit: int (required)
        <BLANKLINE>
        set one with: assay evaluate -S short.OPTION=VALUE
    """
    kind = "asks a model" if info.is_async else "offline"
    lines = [f"{info.name} ({kind}; from {info.module})", ""]
    if info.doc:
        lines.extend([info.doc, ""])
    lines.append("options:" if info.options else "options: none")
    lines.extend(f"  {option_line(option)}" for option in info.options)
    if info.takes_any_option:
        lines.append("  (and any other option)")
    if info.options:
        lines.extend(["", f"set one with: assay evaluate -S {info.name}.OPTION=VALUE"])
    return "\n".join(lines)


def option_line(option: OptionInfo) -> str:
    """`name: type = default` (the default as JSON, as -S would take it), or `(required)`.

    Example:
        >>> from assay.scorers.info import OptionInfo
        >>> option_line(OptionInfo("tools", tuple[str, ...], ("escalate",)))
        'tools: tuple[str, ...] = ["escalate"]'
    """
    import orjson

    if option.required:
        return f"{option.name}: {option.type_name} (required)"
    default = option.to_json()["default"]
    try:
        shown = orjson.dumps(default).decode()
    except TypeError:
        shown = repr(default)
    return f"{option.name}: {option.type_name} = {shown}"
