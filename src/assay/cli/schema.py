"""`assay schema`: the JSON Schema of what assay writes, and of the scenario files it reads."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from assay.cli._verbosity import add_verbosity
from assay.cli.messages import error
from assay.exit_codes import ExitCode

DESCRIPTION = """\
Print the JSON Schema of a report file, or of a scenario file:

  run        a per-run report (<run id>.json in the reports directory)
  line       a line of results.jsonl
  aggregate  _aggregate.json (its schema_version says which shape it has)
  scenario   a scenario object of a .json / .jsonl scenario file
  catalog    an evaluator-catalog file (jobs of scenarios, YAML or JSON)
  answer_rules  a scenario's answer rules (groundtruth_eval.json)
  compare    the comparison of two evaluations (assay compare --json FILE)
  evalset    an eval-set file of `assay run` ({"cases": [...]}; or a list, or JSON Lines)
  evalcase   one case of an eval set (a line of a JSON Lines eval set)
  evalconfig what is checked: `--config` of run, evaluate and rescore, and _config.json
"""

EPILOG = """examples:
  assay schema aggregate > aggregate.schema.json
  assay schema line
  assay schema scenario > scenario.schema.json
"""

_NAMES = (
    "aggregate",
    "answer_rules",
    "catalog",
    "compare",
    "evalcase",
    "evalconfig",
    "evalset",
    "line",
    "run",
    "scenario",
)
"""Kept here so that `assay --help` imports nothing from `assay.schema`; a test keeps it equal
to `assay.schema.schema_names()`."""


def add_parser(commands: Any, name: str) -> None:
    """Register the subcommand on the `assay` parser."""
    parser = commands.add_parser(
        name,
        help="print the JSON Schema of a report file or a scenario file",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    configure(parser)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `schema` to a parser."""
    parser.add_argument("name", choices=_NAMES, help="which file's (or object's) schema")
    # -q still prints the schema: it is the command's product, not talk about it; the command
    # says nothing else, so -q only means that errors alone go to standard error.
    add_verbosity(parser, quiet="print nothing but the schema and errors")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Print the schema asked for; returns the exit code."""
    import orjson

    from assay.schema import json_schema

    try:
        text = orjson.dumps(json_schema(args.name), option=orjson.OPT_INDENT_2).decode()
    except Exception as exc:  # a model that cannot be described is a bug of assay's
        if args.verbose:
            raise
        error(f"internal error: {type(exc).__name__}: {exc} (run with -v for the traceback)")
        return ExitCode.INTERNAL_ERROR
    sys.stdout.write(text)
    sys.stdout.write("\n")
    return ExitCode.OK
