"""Ground truth: scenario folders and scenario files in, `Case` records out.

Two layouts are in use and both are read:

- Scenario folders: `scenario_<id>/` (or `scenario-<id>/`) holding `groundtruth.txt` (the
  expected answer as text), optionally `question.txt`, `groundtruth_eval.json` (per-key
  answer rules) and `expected_trajectory.json` (the expected steps as a list, or an object
  with `expected_trajectory` (or `steps`), `expected_tools`, `expected_turns` (or `turns`),
  `mode`, `args`, `overrides` and `threshold`); a folder with only `expected_trajectory.json`
  is a scenario for trajectory checks. A multi-turn scenario
  keeps one folder per turn in `turns/<NN>/` (see `assay.formats._turns`); its case has
  `turns`, and its expected answer is the last turn's.
- Scenario files: `.json` (a list of scenario objects, an object with a `"scenarios"` list, or
  one scenario object) and `.jsonl` (one scenario object per line); evaluator-catalog files
  (`.yaml` / `.yml`, or `.json` with `"jobs"`) are read by `assay.formats.catalog`; Google
  ADK eval sets (`*.evalset.json`, `*.test.json`, with the `test_config.json` beside them) by
  `assay.formats.adk`; agentevals eval sets by `assay.formats.agentevals_sets`; Inspect AI
  logs (`.json` and `.eval`), a case per sample with its target, by
  `assay.formats.inspect_log`. A scenario object has `id`, `text`, `expected_answer`,
  `characteristic_form`, `type`, `category`, `scoring_method`, `groundtruth_eval`, and the
  trajectory expectation `expected_tools`, `expected_trajectory`, `expected_turns`,
  `trajectory_mode`, `trajectory_args`, `trajectory_overrides` and `trajectory_threshold`
  (the `Case` fields of those names); any other field is kept in `Case.metadata`.

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
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from assay._jsonable import json_type
from assay._text import escape_surrogates, path_text
from assay.formats._adk_criteria import CONFIG_FILE as ADK_CONFIG_FILE
from assay.formats._common import (
    InexactId,
    ReadProblem,
    id_text,
    inexact_id_reason,
    jsonl_lines,
    parse_json,
    read_bytes,
)
from assay.formats._scenario_fields import EXPECTATION_FIELDS, RULES_FIELD, Where, apply_fields
from assay.formats._scenario_trajectory import SHORT_NAMES, Expectation, read_expectation
from assay.formats._turns import TURNS_DIR, read_turns
from assay.formats.adk import load_adk_cases
from assay.formats.agentevals_sets import cases_from_agentevals, looks_like_agentevals
from assay.formats.evalset import eval_case, is_eval_case
from assay.formats.ids import scenario_key
from assay.records import Case, CaseTurn, StepType
from assay.schema.answer_rules import AnswerRules, RulesError, parse_rules

if TYPE_CHECKING:
    from assay.schema.evalset import EvalCase

__all__ = ["ScenarioIndex", "case_from_object", "index_scenarios", "load_scenarios"]

_SCENARIO_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml")
_CATALOG_SUFFIXES = (".yaml", ".yml")
_FOLDER_PREFIXES = ("scenario_", "scenario-")
_FOLDER_PREFIX_LEN = len("scenario_")

GROUNDTRUTH_FILE = "groundtruth.txt"
QUESTION_FILE = "question.txt"
RULES_FILE = "groundtruth_eval.json"
TRAJECTORY_FILE = "expected_trajectory.json"

ADK_SUFFIXES = (".evalset.json", ".test.json")
"""Google ADK eval sets, read as cases by `assay.formats.adk`."""

INSPECT_ARCHIVE_SUFFIX = ".eval"
"""Inspect AI's `.eval` logs, whose samples' targets are read as cases when the log is given
as scenarios (`assay.formats.inspect_log`)."""

_TEXT_FIELDS = ("text", "question", "characteristic_form", "type", "category", "scoring_method")
"""Scenario-object fields that are text (a number is its text); any other value is kept in
`Case.metadata` under its own name, with a problem."""

_PLAIN_FIELDS = frozenset({"id", "expected_answer", RULES_FIELD, *_TEXT_FIELDS})
"""The scenario-object fields a case takes without the models."""

_DIGITS = re.compile(r"(\d+)")


class ScenarioIndex:
    """Ground-truth cases by join key; scenario folders are read only when a run needs them.

    Indexing a folder tree costs a directory walk and one `stat` per scenario folder; the
    folder's files are read on first use (and a few recent ones kept), so an unread folder
    costs its key and its path. Cases from JSON/JSONL scenario files are held as loaded.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> (root / "scenario_11").mkdir()
        >>> _ = (root / "scenario_11" / "groundtruth.txt").write_text("{'energy': 14}")
        >>> index = index_scenarios([root])
        >>> "11" in index, index.get("11").expected_answer
        (True, "{'energy': 14}")
    """

    _RECENT = 64

    def __init__(self) -> None:
        self._entries: dict[str, Case | _Folder | _Directory] = {}
        """Every scenario by join key, in load order: a case, or a folder not read yet (by
        its path, or for the usual `scenario_<key>` name by the directory holding it)."""
        self._directories: dict[str, _Directory] = {}
        """One `_Directory` per directory of such folders, shared by their entries."""
        self._unanswered: dict[str, None] = {}
        """The keys no run answered yet, in load order. Answering removes a key rather than
        adding it to a set: a key from a worker process is a new string each time, and a set
        of answered keys would keep thousands of copies."""
        self._recent: OrderedDict[str, Case | ReadProblem] = OrderedDict()
        self.problems: list[ReadProblem] = []
        """Problems found while indexing (and, as they are met, while loading folders)."""

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __iter__(self) -> Iterator[str]:
        """Every join key, in load order."""
        return iter(self._entries)

    def keys(self) -> Iterator[str]:
        """Every join key, in load order."""
        return iter(self)

    def source(self, key: str) -> str:
        """Where the scenario `key` comes from."""
        return self.source_of(self._entry(key))

    def case_id(self, key: str) -> str:
        """The scenario's id as written (the folder name's id, or the file's `id`)."""
        entry = self._entry(key)
        return entry.id if isinstance(entry, Case) else _folder_id_of(entry)

    def _entry(self, key: str) -> Case | _Folder:
        entry = self._entries[key]
        return entry.folder(key) if isinstance(entry, _Directory) else entry

    def get(self, key: str, *, with_question: bool = True) -> Case | ReadProblem:
        """The case for `key`, reading its folder if needed; a ReadProblem if it is unusable.

        Args:
            key: A join key (`scenario_key` of an id).
            with_question: Read the folder's `question.txt` too. Runs usually carry their own
                question, and one file read less per run adds up.

        Raises:
            KeyError: no scenario has that key.
        """
        entry = self._entry(key)
        if isinstance(entry, Case):
            return entry
        loaded = self._recent.get(key)
        if loaded is None:
            loaded = _load_folder(entry, _folder_id_of(entry), self.problems, with_question)
            self._recent[key] = loaded
            if len(self._recent) > self._RECENT:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(key)
            if with_question and isinstance(loaded, Case) and loaded.question is None:
                loaded.question = _read_question(entry, self.problems)
        return loaded

    def mark_answered(self, key: str) -> None:
        """Note that a run answered the scenario `key`."""
        if key not in self._entries:
            raise KeyError(key)
        self._unanswered.pop(key, None)

    def unanswered(self) -> Iterator[str]:
        """Keys of the scenarios no run answered, in load order."""
        return iter(list(self._unanswered))

    def _add(self, key: str, entry: Case | _Folder) -> None:
        """Add a case or a folder; of two with one key, the first loaded wins."""
        if key in self._entries:
            name = entry.id if isinstance(entry, Case) else _folder_id_of(entry)
            self.problems.append(
                ReadProblem(
                    self.source_of(entry),
                    f"duplicate scenario id {name!r} (key {key!r}): already loaded "
                    f"from {self.source(key)}; this one is ignored",
                )
            )
            return
        if isinstance(entry, str):
            # Thousands of folders named scenario_<key> in one directory are the usual layout:
            # their entries share the directory instead of holding a path each.
            parent, name = os.path.split(entry)
            if name == f"{_FOLDER_PREFIXES[0]}{key}":
                directory = self._directories.get(parent)
                if directory is None:
                    directory = self._directories[parent] = _Directory(parent)
                self._entries[key] = directory
                self._unanswered[key] = None
                return
        self._entries[key] = entry
        self._unanswered[key] = None

    @staticmethod
    def source_of(entry: Case | _Folder) -> str:
        return entry.source if isinstance(entry, Case) else path_text(entry)


def _plain_number(key: str) -> int | None:
    """The key as an integer if it is one written plainly ("11", not "011", "+1" or "1e3")."""
    if key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and len(key) < 19:
        return int(key)
    return None


_Folder = str
"""A scenario folder not read yet: its path."""


class _Directory:
    """The directory of scenario folders named `scenario_<key>`, standing for each of them."""

    __slots__ = ("parent",)

    def __init__(self, parent: str) -> None:
        self.parent = parent

    def folder(self, key: str) -> _Folder:
        return os.path.join(self.parent, f"{_FOLDER_PREFIXES[0]}{key}")  # noqa: PTH118


class _FoundFolder(NamedTuple):
    """A scenario folder as the directory scan finds it, with the join key it worked out."""

    path: _Folder
    key: str


def _folder_id_of(folder: _Folder) -> str:
    # The id as shown (an undecodable byte of the name as `\xNN`, see `assay._text`): the
    # folder's key was made from that text too.
    return escape_surrogates(_folder_id(os.path.basename(folder)) or "")  # noqa: PTH119


def index_scenarios(paths: Sequence[Path]) -> ScenarioIndex:
    """Index ground truth from scenario folders and scenario files (folders read lazily).

    Paths are handled as `load_scenarios` describes; problems go to `index.problems`.
    """
    index = ScenarioIndex()
    for path in paths:
        for item in _load_path(Path(path)):
            if isinstance(item, _FoundFolder):  # its key already known
                index._add(item.key, item.path)
                continue
            if isinstance(item, ReadProblem):
                index.problems.append(item)
                continue
            # Every case as report text, whichever loader made it (a file, a catalog, an ADK
            # eval set): its id may come from a file name, and its source is one.
            item.id = escape_surrogates(item.id)
            item.source = path_text(item.source)
            key = scenario_key(item.id)
            if key is None:  # ids are checked before an entry is built; kept for safety
                index.problems.append(ReadProblem(item.source, "unusable scenario id"))
                continue
            index._add(key, item)
    return index


def load_scenarios(paths: Sequence[Path]) -> tuple[dict[str, Case], list[ReadProblem]]:
    """Load ground-truth cases from scenario folders and scenario files.

    Each path may be a directory (searched recursively for `scenario_<id>` folders and for
    `.json` / `.jsonl` scenario files outside such folders; hidden entries are skipped), a
    scenario folder itself, or a scenario file. Entries in a directory are read in natural
    order (`scenario_2` before `scenario_10`).

    Nothing raises on bad input. A case that cannot be used (no or unusable id, no or
    undecodable `groundtruth.txt`) is left out with a problem; a case whose answer rules are
    broken is loaded anyway with `answer_rules_problem` set, so that every run of that
    scenario can say why its rules were not applied. A scenario object's field that fails
    its check (`assay.schema.scenario`) is a problem naming the file and the field's path
    (`scenarios.json: [3].trajectory_mode: ...`); the case keeps its other fields, and
    `Case.problems` (or `trajectory_problem`, `answer_rules_problem`) says what is missing.
    When two cases share a key the first one wins and the second is reported.

    Args:
        paths: Directories and files to load, in order.

    Returns:
        The cases keyed by `scenario_key(id)` in load order, and every problem found.

    Example:
        >>> import tempfile
        >>> scenarios = Path(tempfile.mkdtemp()) / "scenarios.json"
        >>> _ = scenarios.write_text('[{"id": "scenario_7", "expected_answer": 3}]')
        >>> cases, problems = load_scenarios([scenarios])
        >>> cases["7"].id, cases["7"].expected_answer, problems
        ('scenario_7', 3, [])
    """
    index = index_scenarios(paths)
    cases: dict[str, Case] = {}
    for key in index:
        case = index.get(key)
        if isinstance(case, Case):
            cases[key] = case
    return cases, index.problems


def case_from_object(obj: Any, source: str = "scenario") -> tuple[Case | None, list[ReadProblem]]:
    """The case of one scenario object, read as a scenario file's item is.

    Args:
        obj: The scenario object as parsed from JSON.
        source: Where it comes from, for problems.

    Returns:
        The case (None when it has no usable id, or is no object) and the problems found.

    Example:
        >>> case, problems = case_from_object({"id": 1, "should_escalate": "no"})
        >>> case.should_escalate, case.problem("should_escalate")
        (None, 'scenario: should_escalate: Input should be a valid boolean, got string')
    """
    case: Case | None = None
    problems: list[ReadProblem] = []
    for item in _object_case(obj, source, Where(source)):
        if isinstance(item, Case):
            case = item
        else:
            problems.append(item)
    return case, problems


def case_of(case: EvalCase, source: str = "eval set") -> tuple[Case, list[ReadProblem]]:
    """The `Case` of an eval case, and the problems of its fields (a field with a problem is
    left out of the case, and the scorers that need it say so).

    `assay run` scores a live run against this case, and `assay evaluate --scenarios
    evalset.jsonl` (or `assay rescore`) scores the runs it saved against the same one. The
    case's fields are checked as a scenario object's are (`eval_id` the id, the first user
    message the question, the last turn's expected response the expected answer, the tool and
    node steps of `expected_trajectory` the expected calls and nodes, an empty
    `expected_trajectory` an empty one, the catalog's fields as written); the turns are put on
    it.

    Example:
        >>> from assay.schema.evalset import EvalCase
        >>> case, problems = case_of(EvalCase(
        ...     eval_id="m1", turns=[("Hi", "Hello"), ("Bye", "Bye!")], expected_tools=["s"]))
        >>> case.id, case.question, case.expected_answer, [t.question for t in case.turns]
        ('m1', 'Hi', 'Bye!', ['Hi', 'Bye'])
        >>> problems
        []
    """

    users = case.user_messages()
    expected = case.expected_responses()
    steps = case.expected_trajectory or []
    calls = [step.call for step in steps if step.type is StepType.TOOL and step.call is not None]
    nodes = [step.name for step in steps if step.type is StepType.NODE]
    scenario: dict[str, Any] = {
        **case.extra_fields(),
        "id": case.eval_id,
        "text": users[0],
        "expected_answer": expected[-1],
    }
    if case.expected_tools is not None:
        scenario["expected_tools"] = case.expected_tools
    if calls or case.expected_trajectory == []:
        # An explicitly empty trajectory is kept: under EXACT it says "call no tools".
        scenario["expected_trajectory"] = [
            {"name": call.name, "args": call.args} if call.args is not None else call.name
            for call in calls
        ]
    if nodes:
        scenario["expected_nodes"] = nodes
    if case.rubrics is not None:
        scenario["rubrics"] = [
            {"rubric_id": r.rubric_id, "content": r.content, "weight": r.weight}
            for r in case.rubrics
        ]
    built, problems = case_from_object(scenario, source)
    if built is None:  # the id was checked by the model; a reader bug, not the user's
        raise ValueError(f"eval case {case.eval_id!r} could not be read as a scenario")
    built.metadata.pop("eval_id", None)
    built.metadata.update(case.metadata)
    if case.turns is not None:
        built.turns = [CaseTurn(user, answer) for user, answer in case.turns]
        built.conversation = list(users)
    return built, problems



# --- paths ---------------------------------------------------------------------------------


def _load_path(path: Path) -> Iterator[Case | _FoundFolder | ReadProblem]:
    try:
        is_dir = path.is_dir()
        exists = is_dir or path.exists()
    except OSError as error:  # e.g. a parent directory that cannot be searched
        yield ReadProblem(str(path), f"cannot access: {error.strerror or error}")
        return
    if not exists:
        yield ReadProblem(str(path), "no such file or directory")
    elif is_dir:
        if _folder_id(path.name) is not None:
            source = str(path)
            yield _scenario_folder(source, path.name)
        else:
            yield from _load_dir(path)
    else:
        yield from _load_file(path)


def _load_dir(root: Path) -> Iterator[Case | _FoundFolder | ReadProblem]:
    # Streamed directory by directory (entries of each in natural order, then its
    # subdirectories), so that a tree of many thousand scenario folders is never listed whole.
    errors: list[OSError] = []
    found_any = False
    for dirpath, dirnames, filenames in os.walk(root, onerror=errors.append):
        # Names only, sorted in place: building a Path or a tuple per entry here would cost
        # more memory than the index itself for a folder of many thousand scenarios.
        files = {
            name
            for name in filenames
            if not name.startswith(".") and name.lower().endswith(_SCENARIO_SUFFIXES)
        }
        if ADK_CONFIG_FILE in files and any(n.lower().endswith(ADK_SUFFIXES) for n in files):
            files.discard(ADK_CONFIG_FILE)  # read with the ADK eval sets beside it
        names = [name for name in dirnames if not name.startswith(".")]
        names.extend(files)
        names.sort(key=_natural_key)
        descend: list[str] = []
        for name in names:
            full = os.path.join(dirpath, name)  # noqa: PTH118
            if name in files:
                found_any = True
                yield from _load_file(Path(full))
                continue
            if _folder_id(name) is None:
                descend.append(name)
            else:
                # A scenario folder is one case: its own JSON files (groundtruth_eval.json)
                # belong to it and must not be read as scenario files.
                found_any = True
                yield _scenario_folder(full, name)
        dirnames[:] = descend
    if not found_any and not errors:
        # Most likely a wrong path: say so rather than load nothing without a word.
        yield ReadProblem(str(root), "no scenario folders or scenario files in directory")
    for error in errors:
        reason = error.strerror or str(error)
        yield ReadProblem(error.filename or str(root), f"cannot list directory: {reason}")


def _folder_id(name: str) -> str | None:
    if name[:_FOLDER_PREFIX_LEN].lower() in _FOLDER_PREFIXES:
        return name[_FOLDER_PREFIX_LEN:]
    return None


def _numbered_folder(name: str) -> int | None:
    """n for a folder named `scenario_<n>` with n a plain number (its key is then `str(n)`)."""
    if name.startswith(_FOLDER_PREFIXES[0]):
        return _plain_number(name[_FOLDER_PREFIX_LEN:])
    return None


def _natural_key(name: str) -> str:
    # Runs of digits are zero-padded so that scenario_2 sorts before scenario_10, and
    # "scenario-" sorts with "scenario_"; the name itself, after a NUL, breaks ties between
    # "011" and "11".
    folded = name.lower().replace("-", "_")
    return _DIGITS.sub(lambda digits: digits.group().zfill(20), folded) + "\0" + name


# --- scenario folders ----------------------------------------------------------------------


def _scenario_folder(folder: str, name: str) -> _FoundFolder | ReadProblem:
    """A folder named `scenario_<id>` as the index takes it (found, with its join key), or a
    problem."""
    number = _numbered_folder(name)
    # The key of the id as shown (see `_folder_id_of`), so that ids join as they are shown.
    shown = escape_surrogates(name[_FOLDER_PREFIX_LEN:])
    key = str(number) if number is not None else scenario_key(shown)
    if key is None:
        return ReadProblem(folder, f"no usable scenario id in folder name {name!r}")
    if not _has_case_files(folder):
        return ReadProblem(folder, f"no {GROUNDTRUTH_FILE} (and no {TRAJECTORY_FILE})")
    return _FoundFolder(folder, key)


def _has_case_files(folder: str) -> bool:
    """Whether a scenario folder has the file a case needs: its answer or its trajectory."""
    # os.access: no exception per absent file, for thousands of folders at start-up. Should
    # one of these names be a directory, reading it reports that later.
    return (
        os.access(_inside(folder, GROUNDTRUTH_FILE), os.F_OK)
        or os.access(_inside(folder, TRAJECTORY_FILE), os.F_OK)
        or os.access(_inside(folder, TURNS_DIR), os.F_OK)  # a multi-turn scenario
    )


def _load_folder(
    folder: str | Path, folder_id: str, problems: list[ReadProblem], with_question: bool = True
) -> Case | ReadProblem:
    """Read a scenario folder; problems that leave the case usable are appended to `problems`."""
    # Plain strings, not Path: this runs once per scored run. The optional files are asked
    # for with os.access, which answers "absent" without raising (isfile raises and catches
    # an exception per absent file); one that exists but is no regular file is then reported
    # by its read rather than skipped.
    source = os.fspath(folder)
    expectation = Expectation()
    trajectory_path = _inside(source, TRAJECTORY_FILE)
    has_trajectory = os.access(trajectory_path, os.F_OK)
    if has_trajectory:
        expectation = _read_trajectory_file(trajectory_path, problems)

    # A multi-turn scenario: its answer is the last turn's (see assay.formats._turns).
    turns: list[CaseTurn] | None = None
    if os.access(_inside(source, TURNS_DIR), os.F_OK):
        found = read_turns(source)
        if isinstance(found, ReadProblem):
            problems.append(found)
            return found
        turns = found

    groundtruth_path = _inside(source, GROUNDTRUTH_FILE)
    expected: str | None = None
    if turns is not None:
        expected = turns[-1].expected_answer
    elif not has_trajectory or os.path.isfile(groundtruth_path):  # noqa: PTH113
        groundtruth = _read_text(groundtruth_path)
        if isinstance(groundtruth, ReadProblem):
            problems.append(groundtruth)
            return groundtruth
        # Surrounding whitespace is editor residue (a final newline), not part of the answer.
        expected = groundtruth.strip()
        if not expected:
            # An empty answer would make every run fail for a reason not the run's fault.
            problem = ReadProblem(groundtruth_path, f"{GROUNDTRUTH_FILE} is empty")
            problems.append(problem)
            return problem

    question = _read_question(folder, problems) if with_question else None

    answer_rules: AnswerRules | None = None
    rules_problem: str | None = None
    rules_path = _inside(source, RULES_FILE)
    if os.access(rules_path, os.F_OK):
        raw, reason = _read_rules(rules_path)
        if reason is None:
            answer_rules, reason = checked_rules(raw)
        if reason is not None:
            problems.append(ReadProblem(rules_path, reason))
            rules_problem = f"{RULES_FILE}: {reason}"

    case = Case(
        id=folder_id,
        question=question,
        expected_answer=expected,
        answer_rules=answer_rules,
        answer_rules_problem=rules_problem,
        source=path_text(source),
        characteristic_form=turns[-1].characteristic_form if turns else None,
        turns=turns,
    )
    return expectation.apply(case)


def _inside(folder: str, name: str) -> str:
    # os.path.join without its checks: `name` is one of this module's plain file names.
    return f"{folder}{os.sep}{name}"


def _read_trajectory_file(path: str, problems: list[ReadProblem]) -> Expectation:
    """The trajectory expectation in `expected_trajectory.json`.

    The file holds the expected steps (a list), or an object with the scenario fields of the
    expectation, or their shorter names (`steps`, `turns`, `mode`, `args`, `overrides`,
    `threshold`).
    """
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        value: Any = None
        reason: str | None = data.reason
    else:
        value, reason = parse_json(data)
    if reason is None and not isinstance(value, list | dict):
        reason = f"expected a list of steps or an object, got {json_type(value)}"
    if reason is not None:
        problems.append(ReadProblem(path, reason))
        return Expectation(problem=f"{TRAJECTORY_FILE}: {reason}")
    if isinstance(value, list):
        value = {"expected_trajectory": value}
    else:
        value = dict(value)
        for short, full in SHORT_NAMES.items():
            if short in value and full not in value:
                value[full] = value.pop(short)
    return read_expectation(value, path, problems)


def _read_question(folder: str | Path, problems: list[ReadProblem]) -> str | None:
    question_path = os.path.join(folder, QUESTION_FILE)  # noqa: PTH118
    if not os.path.isfile(question_path):  # noqa: PTH113
        return None
    text = _read_text(question_path)
    if isinstance(text, ReadProblem):
        problems.append(text)  # the case is still usable without its question
        return None
    return text.strip() or None


def _read_text(path: str | Path) -> str | ReadProblem:
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return ReadProblem(str(path), f"not UTF-8: undecodable byte at offset {error.start}")


def checked_rules(raw: Any) -> tuple[AnswerRules | None, str | None]:
    """Answer rules as written, checked: `(rules, None)`, or `(None, why)` when they cannot be
    used (checked once here, so that no scorer checks them again for every run).

    Example:
        >>> checked_rules({"keys": {"rate": {"rel_tol": -1}}})
        (None, 'rate: rel_tol must be a non-negative number')
    """
    if raw is None:
        return None, None
    try:
        return parse_rules(raw), None
    except RulesError as error:
        return None, str(error)


def _read_rules(path: str | Path) -> tuple[dict[str, Any] | None, str | None]:
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
    if path.suffix.lower() in _CATALOG_SUFFIXES:
        yield from _catalog(path)
        return
    if path.name.lower().endswith(ADK_SUFFIXES):
        yield from load_adk_cases(source)
        return
    if path.suffix.lower() == INSPECT_ARCHIVE_SUFFIX:
        from assay.formats.inspect_log import cases_from_inspect, load_eval_archive

        log, problem = load_eval_archive(path)
        yield from [problem] if problem is not None else cases_from_inspect(log, source)
        return
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
                yield from _object_case(value, line_source, Where(line_source))
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
    if isinstance(value, dict) and "jobs" in value:
        yield from _catalog(path)
        return
    if path.name == ADK_CONFIG_FILE and isinstance(value, dict) and "criteria" in value:
        yield ReadProblem(
            source,
            f"an ADK {ADK_CONFIG_FILE} holds the criteria of the eval sets beside it "
            "(*.evalset.json, *.test.json), not scenarios; it is read with those eval sets "
            "(give them, or their folder)",
        )
        return
    if isinstance(value, dict) and isinstance(value.get("eval"), dict):
        # Imported here, as readers are: scenario files of assay's own never need it.
        from assay.formats.inspect_log import cases_from_inspect, is_inspect_log

        if is_inspect_log(value):  # its samples' targets as expected answers
            yield from cases_from_inspect(value, source)
            return
    if looks_like_agentevals(value):  # ADK-like, its cases named by `case_id`
        yield from cases_from_agentevals(value, source)
        return
    if isinstance(value, dict) and "scenarios" in value:
        items = value["scenarios"]
        prefix = "scenarios"
        if not isinstance(items, list):
            yield ReadProblem(source, f'"scenarios" must be a list, got {json_type(items)}')
            return
    elif isinstance(value, dict) and isinstance(value.get("cases"), list):  # an eval set
        items = value["cases"]
        prefix = "cases"
    elif isinstance(value, dict) and ("id" in value or is_eval_case(value)):
        yield from _object_case(value, source, Where(source))
        return
    elif isinstance(value, list):
        items = value
        prefix = ""
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
        yield from _object_case(item, f"{source}#{index}", Where(source, f"{prefix}[{index}]"))


def _catalog(path: Path) -> Iterator[Case | ReadProblem]:
    """The scenarios of an evaluator-catalog file (`jobs` of `scenarios`, YAML or JSON)."""
    from assay.formats.catalog import load_catalog  # only when such a file is met

    cases, problems = load_catalog(path)
    yield from problems
    yield from cases


def _object_case(obj: Any, source: str, where: Where) -> Iterator[Case | ReadProblem]:
    if is_eval_case(obj):  # a case of an eval set (`assay run`'s input)
        yield from _eval_case(obj, source)
        return
    if not isinstance(obj, dict):
        yield ReadProblem(source, f"expected a scenario object, got {json_type(obj)}")
        return
    raw_id = obj.get("id")
    case_id = id_text(raw_id)
    if case_id is None or scenario_key(case_id) is None:
        if raw_id is None:
            reason = "scenario has no id"
        elif isinstance(case_id, InexactId):
            reason = inexact_id_reason("scenario id", case_id)
        elif isinstance(raw_id, str):
            shown = raw_id if len(raw_id) <= 60 else raw_id[:57] + "..."
            reason = f"unusable scenario id {shown!r}" if raw_id.strip() else "scenario id is empty"
        else:
            reason = f"scenario id must be a string or a number, got {json_type(raw_id)}"
        yield ReadProblem(source, reason)
        return

    if _is_plain(obj):
        case = _plain_case(obj, case_id, source)
        yield from _check_rules(case, obj.get(RULES_FIELD), where)
        yield case
        return

    from assay.schema.scenario import Scenario, check  # pydantic: only for expectations

    found, errors = check(Scenario, obj)
    # No copy of the values: metadata shares them with the parsed object, which nothing else
    # holds on to. A text field that is not text stays in metadata rather than being lost.
    fields = Scenario.model_fields
    metadata = {key: value for key, value in obj.items() if key not in fields}
    bad = {loc[0] for loc, _ in errors if loc}
    for name in _TEXT_FIELDS:
        if name in bad:
            metadata[name] = obj[name]
    question = None
    answer_rules = None
    if found is not None:
        question = found.text
        if question is None:
            question = found.question
        elif found.question is not None:
            metadata["question"] = obj["question"]
        answer_rules = found.groundtruth_eval
    case = Case(
        id=case_id,
        question=question,
        expected_answer=obj.get("expected_answer"),
        characteristic_form=found.characteristic_form if found is not None else None,
        type=found.type if found is not None else None,
        category=found.category if found is not None else None,
        scoring_method=found.scoring_method if found is not None else None,
        source=source,
        metadata=metadata,
    )
    problems: list[ReadProblem] = []
    apply_fields(case, found, errors, where, problems)
    problems += _check_rules(case, answer_rules, where)
    yield from problems
    yield case


def _eval_case(obj: dict[str, Any], source: str) -> Iterator[Case | ReadProblem]:
    """The case of an eval set's case object (`assay run`'s input), and its problems."""
    read = eval_case(obj, source)
    if isinstance(read, ReadProblem):
        yield read
        return
    case, problems = case_of(read, source)
    yield from problems
    yield case


def _check_rules(case: Case, raw: Any, where: Where) -> list[ReadProblem]:
    """Put the checked answer rules `raw` on `case`, or say why they cannot be used."""
    rules, reason = checked_rules(raw)
    case.answer_rules = rules
    if reason is None:
        return []
    text = f"{where.field((RULES_FIELD,))}: {reason}"
    case.answer_rules_problem = f"{where.file}: {text}"
    return [ReadProblem(where.file, text)]


def _is_plain(obj: dict[str, Any]) -> bool:
    """Whether the object has only a question, an answer and text fields that are text: what
    most scenario files hold, read without the models (importing pydantic costs more than
    reading thousands of such scenarios)."""
    if not EXPECTATION_FIELDS.isdisjoint(obj):
        return False
    rules = obj.get(RULES_FIELD)
    if rules is not None and not isinstance(rules, dict):
        return False
    for name in _TEXT_FIELDS:
        value = obj.get(name)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, str | int | float)
        ):
            return False
    return True


def _plain_case(obj: dict[str, Any], case_id: str, source: str) -> Case:
    """The case of an object `_is_plain` accepted: the same as the model would give."""
    metadata = {key: value for key, value in obj.items() if key not in _PLAIN_FIELDS}
    question = _text(obj.get("text"))
    if question is None:
        question = _text(obj.get("question"))
    elif obj.get("question") is not None:
        metadata["question"] = obj["question"]
    return Case(
        id=case_id,
        question=question,
        expected_answer=obj.get("expected_answer"),
        characteristic_form=_text(obj.get("characteristic_form")),
        type=_text(obj.get("type")),
        category=_text(obj.get("category")),
        scoring_method=_text(obj.get("scoring_method")),
        source=source,
        metadata=metadata,
    )


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else str(value)
