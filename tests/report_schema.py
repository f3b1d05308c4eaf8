"""Validation of reports directories against `assay schema`, for the suite's own use.

`conftest.py` runs `check_reports_under` after every test on the test's temporary directory,
so every report any test writes, through the API or the CLI, is held to the schema.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from assay.schema.report import Aggregate, ResultLine, RunReport
from assay.schema.report import validate as validate_shape


def check_reports_dir(directory: Path) -> list[str]:
    """What in one reports directory (holding `_aggregate.json`) breaks the schema."""
    problems: list[str] = []

    def validate(model: type[Aggregate | ResultLine | RunReport], data: bytes, where: str) -> None:
        try:
            validate_shape(orjson.loads(data), model)
        except (ValueError, orjson.JSONDecodeError) as exc:
            problems.append(f"{where}: {exc}")

    validate(Aggregate, (directory / "_aggregate.json").read_bytes(), "_aggregate.json")
    marker = directory / ".assay_reports"  # what marks a reports directory; optional
    if marker.is_file():
        try:
            content = orjson.loads(marker.read_bytes())
        except orjson.JSONDecodeError as exc:
            content = {"error": str(exc)}
        if not (
            isinstance(content, dict)
            and content.get("assay_reports") == 1
            and isinstance(content.get("assay_version"), str)
        ):
            problems.append(f".assay_reports: not the marker assay writes: {content!r}")
    lines = directory / "results.jsonl"
    if lines.exists():
        for number, line in enumerate(lines.read_bytes().splitlines(), 1):
            validate(ResultLine, line, f"results.jsonl:{number}")
            try:
                report_file = orjson.loads(line).get("report_file")
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if isinstance(report_file, str) and (directory / report_file).is_file():
                validate(RunReport, (directory / report_file).read_bytes(), report_file)
    return problems


def check_reports_under(root: Path) -> list[str]:
    """`check_reports_dir` for every reports directory under `root`."""
    problems: list[str] = []
    for aggregate in sorted(root.rglob("_aggregate.json")):
        problems += [f"{aggregate.parent}/{p}" for p in check_reports_dir(aggregate.parent)]
    return problems
