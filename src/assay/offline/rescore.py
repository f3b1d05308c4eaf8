"""Score again the runs a reports directory holds: `assay rescore`.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> rescore_options(Path(tempfile.mkdtemp()), Path("out"))
    Traceback (most recent call last):
    ...
    assay.offline.rescore.RescoreError: ... is not a reports directory (no .assay_reports in it)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from assay._text import path_text
from assay.offline.pipeline import EvaluateOptions
from assay.results import RUN_FAILURES, Score

if TYPE_CHECKING:
    from assay.schema.evalconfig import EvalConfig

__all__ = ["RescoreError", "rescore_options"]


class RescoreError(ValueError):
    """A directory `rescore_options` cannot re-score: not a reports directory, or one that
    does not say what its runs are or what they were checked with."""


def rescore_options(
    directory: Path,
    reports_dir: Path,
    config: EvalConfig | None = None,
    *,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    workers: int = 0,
) -> EvaluateOptions:
    """The evaluation that scores again the runs a reports directory holds, into `reports_dir`.

    A live directory holds its runs (`runs.jsonl`) and its cases (`evalset.jsonl`); another
    names the runs and ground truth it read (in `_aggregate.json`). They are checked with
    `config`, else with the `_config.json` the directory recorded, so that the scores are
    the directory's own (timings aside); a live directory of an earlier assay, with no
    `_config.json`, is checked with the criteria its `_live.json` recorded. The verdicts of
    checks that drive the agent (a simulated user, a repeated call) cannot be made again from
    a saved run: they are kept from the directory's results, and so is every run that failed
    (an agent error, a timeout), whatever its saved form says.

    Raises:
        RescoreError: the directory cannot be re-scored (the message says why).

    Example:
        >>> import tempfile
        >>> rescore_options(Path(tempfile.mkdtemp()), Path("out"))
        Traceback (most recent call last):
        ...
        assay.offline.rescore.RescoreError: ... is not a reports directory (no .assay_reports in it)
    """
    from assay.formats.registry import REPORTS_MARKER
    from assay.reports.read import read_regular, read_results, result_of_line
    from assay.reports.store import AGGREGATE_FILE
    from assay.scoring import criteria_of

    shown = path_text(directory)
    if not (directory / REPORTS_MARKER).is_file():
        raise RescoreError(f"{shown} is not a reports directory (no {REPORTS_MARKER} in it)")
    benchmark = _benchmark_of(directory)
    if benchmark is not None:
        raise RescoreError(
            f"{shown} holds the runs of the benchmark {benchmark}: their verdicts come from "
            "its evaluators, which are its code, not a config; run it again with `assay bench "
            "... --reports-dir DIR`"
        )
    if config is None:
        config = _recorded_config(directory, shown)
    runs, cases = directory / "runs.jsonl", directory / "evalset.jsonl"
    scenarios: tuple[Path, ...]
    if runs.is_file() and cases.is_file():
        trajectories, scenarios = runs, (cases,)
    else:
        try:
            recorded = orjson.loads(read_regular(directory / AGGREGATE_FILE)).get("options")
            trajectories = Path(recorded["trajectories"])
            scenarios = tuple(Path(path) for path in recorded["scenarios"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            raise RescoreError(
                f"{shown} holds no runs (runs.jsonl and evalset.jsonl) and its "
                f"{AGGREGATE_FILE} does not name the runs and scenarios it read"
            ) from None
    criteria = criteria_of(config)
    kept: dict[str, dict[str, Score]] = {}
    failures: dict[str, Score] = {}
    driving = {c.name for c in criteria if c.kind != "scorer"}
    try:
        lines = read_results(directory).results
    except OSError:
        lines = []
    for line in lines:
        try:
            result = result_of_line(line)
        except ValueError:
            continue
        if not result.run_id:
            continue
        if result.score.details.get("reason") in RUN_FAILURES:
            failures[result.run_id] = result.score
        verdicts = {p.scorer: p for p in result.parts() if p.scorer in driving}
        if verdicts:
            kept[result.run_id] = verdicts
    return EvaluateOptions(
        trajectories,
        scenarios,
        reports_dir,
        scorer_default=config.scorer_default or "static_json",
        criteria=criteria,
        scorer_options=config.scorer_options,
        settings=settings or {},
        workers=workers,
        kept_verdicts=kept,
        kept_failures=failures,
    )


def _benchmark_of(directory: Path) -> str | None:
    """The benchmark that wrote the directory (`options.live.benchmark` of its aggregate), if
    one did."""
    from assay.reports.read import read_regular
    from assay.reports.store import AGGREGATE_FILE

    try:
        options = orjson.loads(read_regular(directory / AGGREGATE_FILE)).get("options") or {}
    except (OSError, orjson.JSONDecodeError, AttributeError):
        return None
    live = options.get("live") if isinstance(options, dict) else None
    name = live.get("benchmark") if isinstance(live, dict) else None
    return name if isinstance(name, str) else None


_EARLIER_SETTINGS = "_live.json"
"""Where a live directory of an earlier assay recorded its criteria (`{"criteria": ...}`)."""


def _recorded_config(directory: Path, shown: str) -> EvalConfig:
    """The config a reports directory recorded: its `_config.json`, or the criteria of an
    earlier live directory's `_live.json`."""
    from assay.reports.read import read_regular
    from assay.reports.store import CONFIG_FILE
    from assay.schema.evalconfig import EvalConfig

    for name in (CONFIG_FILE, _EARLIER_SETTINGS):
        try:
            data = read_regular(directory / name)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise RescoreError(f"{shown}/{name}: {exc.strerror or exc}") from None
        try:
            if name == CONFIG_FILE:
                return EvalConfig.model_validate_json(data)
            return EvalConfig.model_validate({"criteria": orjson.loads(data).get("criteria")})
        except (ValueError, AttributeError) as exc:
            raise RescoreError(f"{shown}/{name} is not a config: {exc}") from None
    raise RescoreError(
        f"{shown} records no config ({CONFIG_FILE}): give the criteria with --config"
    )
