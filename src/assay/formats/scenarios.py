"""Ground truth: scenario folders and scenario files in, `Case` records out.

Two layouts are in use and both are read:

- Scenario folders: `scenario_<id>/` (or `scenario-<id>/`) holding `groundtruth.txt` (the
  expected answer as text), optionally `question.txt` and `groundtruth_eval.json` (per-key
  answer rules).
- Scenario files: `.json` (a list of scenario objects, an object with a `"scenarios"` list, or
  one scenario object) and `.jsonl` (one scenario object per line). A scenario object has `id`,
  `text`, `expected_answer`, `characteristic_form`, `type`, `category`, `scoring_method` and
  `groundtruth_eval`; any other field is kept in `Case.metadata`.

Cases are keyed by `scenario_key` so that runs written with `11`, `"011"` or `"scenario_11"`
all find scenario 11. As everywhere at the edge, bad input becomes a `ReadProblem` and loading
goes on.

Example:
    >>> cases, problems = load_scenarios([Path("no/such/dir")])
    >>> (cases, [p.reason for p in problems])
    ({}, ['no such file or directory'])
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from assay.formats.assetopsbench import (
    ReadProblem,
    json_type,
    jsonl_lines,
    parse_json,
    read_bytes,
)
from assay.formats.ids import scenario_key
from assay.records import Case

__all__ = ["load_scenarios"]

_SCENARIO_SUFFIXES = (".json", ".jsonl")
_FOLDER_PREFIXES = ("scenario_", "scenario-")
_FOLDER_PREFIX_LEN = len("scenario_")

GROUNDTRUTH_FILE = "groundtruth.txt"
QUESTION_FILE = "question.txt"
RULES_FILE = "groundtruth_eval.json"

ANSWER_RULES_ERROR = "answer_rules_error"
"""Metadata key set on a case whose answer rules could not be used, with the reason."""

# Fields a scenario object maps onto Case attributes; everything else goes to metadata.
_CASE_FIELDS = frozenset(
    {
        "id",
        "text",
        "question",
        "expected_answer",
        "characteristic_form",
        "type",
        "category",
        "scoring_method",
        "groundtruth_eval",
    }
)

_DIGITS = re.compile(r"(\d+)")


def load_scenarios(paths: Sequence[Path]) -> tuple[dict[str, Case], list[ReadProblem]]:
    """Load ground-truth cases from scenario folders and scenario files.

    Each path may be a directory (searched recursively for `scenario_<id>` folders and for
    `.json` / `.jsonl` scenario files outside such folders; hidden entries are skipped), a
    scenario folder itself, or a scenario file. Entries in a directory are read in natural
    order (`scenario_2` before `scenario_10`).

    Nothing raises on bad input. A case that cannot be used (no or unusable id, no or
    undecodable `groundtruth.txt`) is left out with a problem; a case whose answer rules are
    broken is loaded anyway with `metadata["answer_rules_error"]` set, so that every run of
    that scenario can say why its rules were not applied. When two cases share a key the
    first one wins and the second is reported.

    Args:
        paths: Directories and files to load, in order.

    Returns:
        The cases keyed by `scenario_key(id)` in load order, and every problem found.

    Example:
        >>> cases, problems = load_scenarios([Path("examples/scenarios")])  # doctest: +SKIP
        >>> cases["11"].expected_answer  # doctest: +SKIP
        "{'energy': 14, 'material': 48}"
    """
    cases: dict[str, Case] = {}
    problems: list[ReadProblem] = []
    for path in paths:
        for item in _load_path(Path(path)):
            if isinstance(item, ReadProblem):
                problems.append(item)
                continue
            key = scenario_key(item.id)
            if key is None:  # ids are checked before a Case is built; kept for safety
                problems.append(ReadProblem(item.source, f"unusable scenario id {item.id!r}"))
                continue
            first = cases.get(key)
            if first is not None:
                problems.append(
                    ReadProblem(
                        item.source,
                        f"duplicate scenario id {item.id!r} (key {key!r}): already loaded "
                        f"from {first.source}; this one is ignored",
                    )
                )
                continue
            cases[key] = item
    return cases, problems


# --- paths ---------------------------------------------------------------------------------


def _load_path(path: Path) -> Iterator[Case | ReadProblem]:
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists()
    except OSError as error:  # e.g. a parent directory that cannot be searched
        yield ReadProblem(str(path), f"cannot access: {error.strerror or error}")
        return
    if not exists:
        yield ReadProblem(str(path), "no such file or directory")
    elif is_dir:
        folder_id = _folder_id(path.name)
        if folder_id is not None:
            yield from _folder_case(path, folder_id)
        else:
            yield from _load_dir(path)
    else:
        yield from _load_file(path)


def _load_dir(root: Path) -> Iterator[Case | ReadProblem]:
    entries: list[tuple[Path, str | None]] = []  # (path, folder id or None for a file)
    errors: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append):
        descend: list[str] = []
        for name in dirnames:
            if name.startswith("."):
                continue
            folder_id = _folder_id(name)
            if folder_id is None:
                descend.append(name)
            else:
                # A scenario folder is one case: its own JSON files (groundtruth_eval.json)
                # belong to it and must not be read as scenario files.
                entries.append((Path(dirpath, name), folder_id))
        dirnames[:] = descend
        entries.extend(
            (Path(dirpath, name), None)
            for name in filenames
            if not name.startswith(".") and name.lower().endswith(_SCENARIO_SUFFIXES)
        )
    if not entries and not errors:
        # Most likely a wrong path: say so rather than load nothing without a word.
        yield ReadProblem(str(root), "no scenario folders or scenario files in directory")
        return
    entries.sort(key=lambda entry: _natural_key(entry[0]))
    for path, folder_id in entries:
        if folder_id is None:
            yield from _load_file(path)
        else:
            yield from _folder_case(path, folder_id)
    for error in errors:
        reason = error.strerror or str(error)
        yield ReadProblem(error.filename or str(root), f"cannot list directory: {reason}")


def _folder_id(name: str) -> str | None:
    if name[:_FOLDER_PREFIX_LEN].lower() in _FOLDER_PREFIXES:
        return name[_FOLDER_PREFIX_LEN:]
    return None


def _natural_key(path: Path) -> tuple[tuple[tuple[str, int], ...], str]:
    # Each name is split into (text, number) pairs so that scenario_2 sorts before
    # scenario_10, and "scenario-" sorts with "scenario_"; the full path breaks ties between
    # "011" and "11".
    parts = tuple(
        (chunks[i], int(chunks[i + 1]) if i + 1 < len(chunks) else -1)
        for part in path.parts
        for chunks in [_DIGITS.split(part.lower().replace("-", "_"))]
        for i in range(0, len(chunks), 2)
    )
    return parts, str(path)


# --- scenario folders ----------------------------------------------------------------------


def _folder_case(folder: Path, folder_id: str) -> Iterator[Case | ReadProblem]:
    source = str(folder)
    if scenario_key(folder_id) is None:
        yield ReadProblem(source, f"no usable scenario id in folder name {folder.name!r}")
        return
    groundtruth_path = folder / GROUNDTRUTH_FILE
    if not groundtruth_path.is_file():
        yield ReadProblem(source, f"no {GROUNDTRUTH_FILE}")
        return
    groundtruth = _read_text(groundtruth_path)
    if isinstance(groundtruth, ReadProblem):
        yield groundtruth
        return
    # Surrounding whitespace is editor residue (a final newline), not part of the answer.
    expected = groundtruth.strip()
    if not expected:
        # An empty answer would make every run fail for a reason that is not the run's fault.
        yield ReadProblem(str(groundtruth_path), f"{GROUNDTRUTH_FILE} is empty")
        return

    question: str | None = None
    question_path = folder / QUESTION_FILE
    if question_path.is_file():
        text = _read_text(question_path)
        if isinstance(text, ReadProblem):
            yield text  # the case is still usable without its question
        else:
            question = text.strip() or None

    answer_rules: dict[str, Any] | None = None
    metadata: dict[str, Any] = {}
    rules_path = folder / RULES_FILE
    if rules_path.is_file():
        rules, reason = _read_rules(rules_path)
        if reason is not None:
            yield ReadProblem(str(rules_path), reason)
            metadata[ANSWER_RULES_ERROR] = f"{RULES_FILE}: {reason}"
        else:
            answer_rules = rules

    yield Case(
        id=folder_id,
        question=question,
        expected_answer=expected,
        answer_rules=answer_rules,
        source=source,
        metadata=metadata,
    )


def _read_text(path: Path) -> str | ReadProblem:
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return ReadProblem(str(path), f"not UTF-8: undecodable byte at offset {error.start}")


def _read_rules(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return None, data.reason
    if not data or data.isspace():
        return None, "empty file"
    value, reason = parse_json(data)
    if reason is not None:
        return None, reason
    if not isinstance(value, dict):
        return None, f"answer rules must be a JSON object, got {json_type(value)}"
    return value, None


# --- scenario files ------------------------------------------------------------------------


def _load_file(path: Path) -> Iterator[Case | ReadProblem]:
    source = str(path)
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        yield data
        return
    if path.suffix.lower() == ".jsonl":
        empty = True
        for number, line in jsonl_lines(data):
            empty = False
            value, reason = parse_json(line)
            line_source = f"{source}:{number}"
            if reason is not None:
                yield ReadProblem(line_source, reason)
            else:
                yield from _object_case(value, line_source)
        if empty:
            yield ReadProblem(source, "empty file")
        return

    if not data or data.isspace():
        yield ReadProblem(source, "empty file")
        return
    value, reason = parse_json(data)
    if reason is not None:
        yield ReadProblem(source, reason)
        return
    if isinstance(value, dict) and "scenarios" in value:
        items = value["scenarios"]
        if not isinstance(items, list):
            yield ReadProblem(source, f'"scenarios" must be a list, got {json_type(items)}')
            return
    elif isinstance(value, dict) and "id" in value:
        yield from _object_case(value, source)
        return
    elif isinstance(value, list):
        items = value
    else:
        yield ReadProblem(
            source,
            'expected a list of scenarios, an object with a "scenarios" list or a scenario '
            f"object with an id, got {json_type(value)}"
            + (" without an id" if isinstance(value, dict) else ""),
        )
        return
    if not items:
        yield ReadProblem(source, "empty list: no scenarios")
    for index, item in enumerate(items):
        yield from _object_case(item, f"{source}#{index}")


def _object_case(obj: Any, source: str) -> Iterator[Case | ReadProblem]:
    if not isinstance(obj, dict):
        yield ReadProblem(source, f"expected a scenario object, got {json_type(obj)}")
        return
    raw_id = obj.get("id")
    case_id = _id_text(raw_id)
    if case_id is None or scenario_key(case_id) is None:
        if raw_id is None:
            reason = "scenario has no id"
        elif isinstance(raw_id, str):
            shown = raw_id if len(raw_id) <= 60 else raw_id[:57] + "..."
            reason = f"unusable scenario id {shown!r}" if raw_id.strip() else "scenario id is empty"
        else:
            reason = f"scenario id must be a string or a number, got {json_type(raw_id)}"
        yield ReadProblem(source, reason)
        return

    # No copy of the values: metadata shares them with the parsed object, which nothing else
    # holds on to.
    metadata = {key: value for key, value in obj.items() if key not in _CASE_FIELDS}

    question = _text_field(obj, "text", metadata)
    if question is None:
        question = _text_field(obj, "question", metadata)
    elif "question" in obj:
        metadata["question"] = obj["question"]

    answer_rules: dict[str, Any] | None = None
    rules = obj.get("groundtruth_eval")
    if isinstance(rules, dict):
        answer_rules = rules
    elif rules is not None:
        reason = f"groundtruth_eval must be a JSON object, got {json_type(rules)}"
        yield ReadProblem(source, reason)
        metadata[ANSWER_RULES_ERROR] = reason

    yield Case(
        id=case_id,
        question=question,
        expected_answer=obj.get("expected_answer"),
        characteristic_form=_text_field(obj, "characteristic_form", metadata),
        type=_text_field(obj, "type", metadata),
        category=_text_field(obj, "category", metadata),
        scoring_method=_text_field(obj, "scoring_method", metadata),
        answer_rules=answer_rules,
        source=source,
        metadata=metadata,
    )


def _id_text(value: Any) -> str | None:
    # The id as written; numbers become their text (11 -> "11"), the join key normalises.
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return None


def _text_field(obj: dict[str, Any], key: str, metadata: dict[str, Any]) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    # Not text (a list, an object, a boolean): the Case field stays empty, and the value is
    # kept in metadata under its own name rather than dropped.
    metadata[key] = value
    return None
