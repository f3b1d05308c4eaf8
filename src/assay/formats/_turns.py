"""The turns of a multi-turn scenario folder: `scenario_<id>/turns/<NN>/`.

AssetOpsBench lays a dialog out as one folder per user turn under `turns/`, each holding the
turn's `question.txt` and its `groundtruth.txt` (or a `characteristic_form.txt` where a judge
grades the turn). The first turn often lives in the scenario folder itself: its own
`question.txt` (and `groundtruth.txt`) is turn 1 when `turns/` starts later (`02`, `03`, ...).

    scenario_4/question.txt                  turn 1
    scenario_4/turns/02/question.txt         turn 2
    scenario_4/turns/02/groundtruth.txt
    scenario_4/turns/05/characteristic_form.txt

Turn folders are ordered by their number. As everywhere at the edge, nothing raises: a layout
that cannot be read as turns (a turn folder whose name is no number, two folders for one turn,
turn 1 both in the folder and in `turns/`, no turn with anything to grade) is a `ReadProblem`.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp()) / "scenario_4"
    >>> (folder / "turns" / "02").mkdir(parents=True)
    >>> _ = (folder / "question.txt").write_text("Which work order waits?")
    >>> _ = (folder / "groundtruth.txt").write_text("1000045")
    >>> _ = (folder / "turns" / "02" / "groundtruth.txt").write_text("Chiller 6\\n")
    >>> [(turn.question, turn.expected_answer) for turn in read_turns(str(folder))]
    [('Which work order waits?', '1000045'), (None, 'Chiller 6')]
"""

from __future__ import annotations

import os

from assay.formats._common import ReadProblem, read_bytes
from assay.records import CaseTurn

__all__ = ["TURNS_DIR", "read_turns"]

TURNS_DIR = "turns"
"""The folder of a scenario folder that holds one folder per turn."""

_QUESTION = "question.txt"
_ANSWER = "groundtruth.txt"
_FORM = "characteristic_form.txt"


def read_turns(folder: str) -> list[CaseTurn] | ReadProblem:
    """The turns of the scenario folder `folder`, in order, or why they cannot be read."""
    turns_dir = os.path.join(folder, TURNS_DIR)  # noqa: PTH118
    try:
        names = os.listdir(turns_dir)  # noqa: PTH208
    except OSError as error:
        return ReadProblem(turns_dir, f"cannot list directory: {error.strerror or error}")
    numbered: dict[int, str] = {}
    for name in sorted(names):
        if name.startswith("."):
            continue
        path = os.path.join(turns_dir, name)  # noqa: PTH118
        if not os.path.isdir(path):  # noqa: PTH112
            continue  # a README or notes beside the turn folders
        if not (name.isascii() and name.isdigit()):
            return ReadProblem(path, f"turn folder name {name!r} is not a turn number")
        number = int(name)
        if number in numbered:
            return ReadProblem(path, f"turn {number} is also {numbered[number]}")
        numbered[number] = path
    if not numbered:
        return ReadProblem(turns_dir, "no turn folders (turns/01, turns/02, ...)")
    own = _turn(folder)
    if isinstance(own, ReadProblem):
        return own
    if own is not None and min(numbered) <= 1:
        return ReadProblem(
            folder,
            f"turn 1 is both the folder's own {_QUESTION} / {_ANSWER} and "
            f"{numbered[min(numbered)]}",
        )
    turns = [] if own is None else [own]
    for number in sorted(numbered):
        turn = _turn(numbered[number])
        if isinstance(turn, ReadProblem):
            return turn
        turns.append(turn or CaseTurn())
    if all(turn.expected_answer is None and turn.characteristic_form is None for turn in turns):
        return ReadProblem(
            turns_dir, f"no turn has a {_ANSWER} (or a {_FORM}): nothing to score"
        )
    return turns


def _turn(folder: str) -> CaseTurn | ReadProblem | None:
    """The turn in `folder`'s files; None when it has none of them."""
    texts: list[str | None] = []
    for name in (_QUESTION, _ANSWER, _FORM):
        path = os.path.join(folder, name)  # noqa: PTH118
        text = _optional_text(path)
        if isinstance(text, ReadProblem):
            return text
        if text == "" and name == _ANSWER:
            # An empty answer would fail every run for a reason not the run's fault.
            return ReadProblem(path, f"{_ANSWER} is empty")
        texts.append(text or None)
    if all(text is None for text in texts):
        return None
    question, answer, form = texts
    return CaseTurn(question=question, expected_answer=answer, characteristic_form=form)


def _optional_text(path: str) -> str | ReadProblem | None:
    if not os.access(path, os.F_OK):
        return None
    data = read_bytes(path)
    if isinstance(data, ReadProblem):
        return data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return ReadProblem(path, f"not UTF-8: undecodable byte at offset {error.start}")
    # Surrounding whitespace is editor residue (a final newline), not part of the text.
    return text.strip()
