"""`EvalSet`: the cases of a live evaluation, from code or from a file.

Files: assay's own (JSON: a case, a list, or `{"cases": [...]}`; JSON Lines: a case per line;
CSV: a header row, then a single-turn case per row, see `assay.formats.evalset.csv_eval_cases`)
and Google ADK eval sets (`*.evalset.json`, `*.test.json`): each ADK eval case becomes a case
with its user turns and expected final responses, its expected tool calls (all turns' calls
in order) as the expected trajectory, and the calls turn by turn with the set's trajectory
criterion (`test_config.json`), so a live run is checked turn by turn as ADK checks it.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "cases.jsonl"
    >>> EvalSet(cases=[EvalCase.single_turn("a", "Hi", expected_response="Hello")]).to_file(path)
    >>> [case.eval_id for case in EvalSet.from_file(path).cases]
    ['a']
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from assay.formats._common import ReadProblem
from assay.records import Case, ToolCall, TrajectoryStep
from assay.schema.evalset import EvalCase

__all__ = ["EvalCase", "EvalSet", "EvalSetError"]

ADK_SUFFIXES = (".evalset.json", ".test.json")


class EvalSetError(ValueError):
    """An eval-set file that cannot be used: each problem names its line or case and field."""

    def __init__(self, problems: list[ReadProblem]) -> None:
        self.problems = problems
        shown = "; ".join(f"{p.source}: {p.reason}" for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(shown + more)


class EvalSet(BaseModel):
    """A collection of `EvalCase`s."""

    model_config = ConfigDict(extra="forbid")

    cases: list[EvalCase]
    """The cases, in order."""

    eval_set_id: str | None = None
    """The set's name, if it has one."""

    @classmethod
    def from_jsonl(cls, path: str | Path) -> EvalSet:
        """Read a JSON Lines file of cases (one case object per line).

        Raises:
            EvalSetError: a line is not a valid case (each problem names the line and field).
        """
        return cls.from_file(path)

    @classmethod
    def from_file(cls, path: str | Path) -> EvalSet:
        """Read an eval set: assay's JSON, JSON Lines or CSV (`.csv`), or a Google ADK eval set.

        Raises:
            EvalSetError: the file, or a case in it, cannot be used; every problem is listed.
        """
        from assay.formats.evalset import read_eval_cases

        text = str(path)
        if text.lower().endswith(ADK_SUFFIXES):
            return cls(cases=_adk_cases(path))
        cases: list[EvalCase] = []
        problems: list[ReadProblem] = []
        for item in read_eval_cases(path):
            (problems if isinstance(item, ReadProblem) else cases).append(item)  # type: ignore[arg-type]
        if problems:
            raise EvalSetError(problems)
        return cls(cases=cases)

    def to_file(self, path: str | Path) -> None:
        """Write the cases: JSON Lines for `.jsonl`, else one JSON object `{"cases": [...]}`."""
        target = Path(path)
        if target.suffix.lower() in (".jsonl", ".ndjson"):
            target.write_text(
                "".join(case.model_dump_json(exclude_defaults=True) + "\n" for case in self.cases)
            )
        else:
            target.write_text(self.model_dump_json(indent=2, exclude_defaults=True) + "\n")


def _adk_cases(path: str | Path) -> list[EvalCase]:
    from assay.formats.adk import load_adk_cases

    found = load_adk_cases(path)
    problems = [item for item in found if isinstance(item, ReadProblem)]
    if problems:
        raise EvalSetError(problems)
    return [_from_adk(case) for case in found if isinstance(case, Case)]


def _from_adk(case: Case) -> EvalCase:
    turns = case.metadata.get("turns")
    calls = [
        TrajectoryStep.tool(ToolCall(item["name"], item.get("args")))
        for turn in case.expected_turns or []
        for item in turn
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]
    metadata = {k: v for k, v in case.metadata.items() if k != "turns"}
    # The set's criterion and its calls turn by turn, read as a scenario's fields: a run
    # recorded turn by turn is then checked turn by turn, as ADK checks it.
    checks: dict[str, Any] = {
        name: value
        for name, value in (
            ("expected_turns", case.expected_turns),
            ("trajectory_mode", case.trajectory_mode),
            ("trajectory_args", case.trajectory_args),
            ("trajectory_threshold", case.trajectory_threshold),
        )
        if value is not None
    }
    if isinstance(turns, list) and len(turns) > 1:
        return EvalCase(
            eval_id=case.id,
            turns=[(t.get("user") or "", t.get("expected_answer")) for t in turns],
            expected_trajectory=calls or None,
            metadata=metadata,
            **checks,
        )
    return EvalCase(
        eval_id=case.id,
        user_query=case.question or "",
        expected_response=case.expected_answer,
        expected_trajectory=calls or None,
        metadata=metadata,
        **checks,
    )
