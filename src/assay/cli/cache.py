"""`assay cache`: what the judge-reply cache holds, and emptying it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode

if TYPE_CHECKING:
    from datetime import datetime

    from assay.models.cache import CacheStats, ResponseCache

DESCRIPTION = """\
Show or clear the cache of judge replies.

Every reply a judge model gives is stored in judge-cache.sqlite3 in the cache directory, so
re-scoring a run makes no model call it has made before. The directory is --cache-dir when
given, else $ASSAY_CACHE_DIR, else $XDG_CACHE_HOME/assay, else ~/.cache/assay.
"""

EPILOG = """examples:
  assay cache stats
  assay cache clear --model openai/gpt-4.1-mini --yes
  assay cache clear --cache-dir .assay-cache --yes

exit codes: 0 ok, 2 bad arguments (or clear without --yes when not on a terminal),
3 the cache file is not a usable cache.
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="show or clear the cache of judge replies",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the actions of `cache` and their options to a parser."""
    actions = parser.add_subparsers(dest="cache_action", metavar="ACTION")
    stats = actions.add_parser(
        "stats",
        help="entries, size, and entries and tokens per model",
        description="Show what the cache holds: entries, size on disk, entries and tokens per "
        "model, and when the oldest and newest entries were stored.",
    )
    _cache_dir_option(stats)
    add_verbosity(stats, quiet="print nothing but errors (the exit code says whether the "
                  "cache could be read)")
    clear = actions.add_parser(
        "clear",
        help="delete cached replies (all, or one model's)",
        description="Delete cached replies: all of them, or those of one model. Asks first "
        "unless --yes is given; when not on a terminal, --yes is required.",
    )
    _cache_dir_option(clear)
    clear.add_argument(
        "--model",
        metavar="MODEL",
        help="delete only the replies of this model (as `provider/model`, see `assay cache stats`)",
    )
    clear.add_argument("-y", "--yes", action="store_true", help="do not ask for confirmation")
    add_verbosity(clear, quiet="print nothing but errors and the question (none with --yes)")


def _cache_dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="the cache directory (default: $ASSAY_CACHE_DIR, $XDG_CACHE_HOME/assay or "
        "~/.cache/assay)",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run `assay cache ACTION`; returns the exit code."""
    action = getattr(args, "cache_action", None)
    if action is None:
        error("choose an action: stats or clear (see `assay cache --help`)")
        return ExitCode.USAGE_ERROR
    if action == "clear" and not args.yes and not sys.stdin.isatty():
        error("refusing to clear the cache without --yes: not on a terminal, so cannot ask")
        return ExitCode.USAGE_ERROR

    from assay.models.cache import CacheError, ResponseCache, cache_file

    path = cache_file(args.cache_dir)
    cache = ResponseCache(path)
    try:
        if action == "stats":
            stats = cache.stats()
            if not args.quiet:
                _print_stats(stats)
            return ExitCode.OK
        return _clear(cache, args.model, ask=not args.yes, say=_silent if args.quiet else print)
    except CacheError as exc:
        error(str(exc))
        return ExitCode.INPUT_ERROR
    finally:
        try:
            cache.close()
        except CacheError as exc:
            error(str(exc))


def _silent(*_: object) -> None:
    """What `-q` says."""


def _clear(
    cache: ResponseCache, model: str | None, *, ask: bool, say: Callable[[str], None]
) -> int:
    stats = cache.stats()
    what = "cached replies" if model is None else f"cached replies of {model}"

    def replies(count: int) -> str:
        return what.replace("replies", "reply", 1) if count == 1 else what

    if not stats.exists:
        say(f"no cache at {cache.path}: nothing to clear")
        return ExitCode.OK
    count = (
        stats.entries if model is None else sum(m.entries for m in stats.models if m.model == model)
    )
    if count == 0:
        known = ", ".join(m.model for m in stats.models)
        hint = f" (models in the cache: {known})" if model is not None and known else ""
        say(f"no {what} in {cache.path}: nothing to clear{hint}")
        return ExitCode.OK
    if ask:
        try:
            answer = input(f"delete {count} {replies(count)} from {cache.path}? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            say("nothing deleted")
            return ExitCode.OK
    deleted = cache.clear(model)
    say(f"deleted {deleted} {replies(deleted)} from {cache.path}")
    return ExitCode.OK


def _print_stats(stats: CacheStats) -> None:
    if not stats.exists:
        print(f"no cache at {stats.path} (it is created when a judge reply is first stored)")
        return
    from rich.console import Console
    from rich.table import Table

    on_terminal = sys.stdout is not None and sys.stdout.isatty()
    console = Console(highlight=False, width=None if on_terminal else 140)
    overview = Table(title="assay cache", show_header=False, title_justify="left")
    overview.add_column("what")
    overview.add_column("value", overflow="fold")
    overview.add_row("file", str(stats.path))
    overview.add_row("entries", f"{stats.entries:,}")
    overview.add_row("size", _size(stats.size_bytes))
    overview.add_row("oldest", _time(stats.oldest))
    overview.add_row("newest", _time(stats.newest))
    console.print(overview)
    if not stats.models:
        return
    per_model = Table(title="per model", title_justify="left")
    per_model.add_column("model", overflow="fold")
    per_model.add_column("entries", justify="right")
    per_model.add_column("input tokens", justify="right")
    per_model.add_column("output tokens", justify="right")
    per_model.add_column("cost when made", justify="right")
    for entry in stats.models:
        cost = "n/a" if entry.cost_usd is None else f"${entry.cost_usd:,.4f}"
        per_model.add_row(
            entry.model,
            f"{entry.entries:,}",
            f"{entry.input_tokens:,}",
            f"{entry.output_tokens:,}",
            cost,
        )
    console.print(per_model)


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"


def _time(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S UTC")
