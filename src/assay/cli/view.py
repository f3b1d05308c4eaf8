"""`assay view DIR`: open a reports directory's page in the browser, served on 127.0.0.1."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any

from assay.cli._types import whole
from assay.cli._verbosity import add_verbosity
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Serve the report page of a reports directory on this machine (127.0.0.1) and open it in the
browser: the static page of --html, with every run's transcript, read from the run's own
report when the run is opened. Stop it with Ctrl-C.
"""

EPILOG = """examples:
  assay view reports
  assay view reports --port 8765 --no-browser

exit codes: 0 stopped with Ctrl-C, 2 bad arguments or the port is taken, 3 not a readable
reports directory
"""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="open a reports directory's page in the browser, every transcript included",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `view` to a parser."""
    parser.add_argument("reports_dir", type=Path, metavar="DIR", help="a reports directory")
    parser.add_argument(
        "--port", type=whole(0), default=0, metavar="N",
        help="the port on 127.0.0.1 (default: a free one)",
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="print the address, do not open a browser"
    )
    add_verbosity(parser, quiet="print nothing but errors (not even the address)")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Serve until Ctrl-C; returns the exit code."""
    import webbrowser

    from assay.cli.messages import error
    from assay.reports.console import shown
    from assay.reports.html.serve import ReportServer
    from assay.reports.load import ReportsError, load_reports

    try:
        loaded = load_reports(args.reports_dir)
    except ReportsError as problem:
        error(shown(str(problem)))
        return ExitCode.INPUT_ERROR
    try:
        server = ReportServer(loaded, args.port)
    except OSError as exc:
        parser.error(f"--port {args.port}: {exc.strerror or exc}")
    with server:
        if not args.quiet:
            print(f"serving {shown(str(loaded.directory))} at {server.url} (Ctrl-C to stop)",
                  flush=True)
        if not args.no_browser:
            webbrowser.open(server.url)
        with contextlib.suppress(KeyboardInterrupt):  # how a server stops: not a failure
            server.serve_forever()
    return ExitCode.OK
