"""End-to-end: a third-party scorer, installed as its own distribution, found by its entry
point, listed by `assay scorers`, configured with `-S` and recorded in the aggregate.

The distribution is built and installed by pip into a temporary directory (`--target`), and
that directory is put on `PYTHONPATH`: to `importlib.metadata` it is an installed
distribution like any other, and nothing is installed into the environment running the
tests, so there is nothing to undo.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from test_cli_evaluate_e2e import make_run, read_aggregate, reports_by_run_id, write_json

from _cli import assay as run_assay
from _cli import explain

pytestmark = pytest.mark.slow  # pip builds and installs a distribution

PLUGIN_MODULE = '''\
"""A scorer from outside assay: one module and an entry point."""

from assay.results import Score


def factory(*, threshold: float = 0.5, phrase: str = "pumps"):
    """Pass when the answer mentions `phrase`: half a point a mention, up to 1.

    Args:
        threshold: The score to pass at.
        phrase: The word to look for.
    """

    def score(case, run):
        words = str(run.answer or "").lower().split()
        hits = sum(1 for word in words if word.strip(".,:") == phrase)
        value = min(1.0, hits / 2)
        return Score.scored(
            "my_scorer",
            value,
            passed=value >= threshold,
            rationale=f"{hits} mention(s) of {phrase!r}",
            details={"threshold": threshold},
        )

    return score
'''

PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "my-assay-scorer"
version = "1.0.0"
dependencies = ["assay"]

[project.entry-points."assay.scorers"]
my_scorer = "my_pkg:factory"

[tool.hatch.build.targets.wheel]
packages = ["my_pkg"]
"""


def install_plugin(root: Path) -> Path:
    """The plugin's project under `root/project`, built and installed by pip into `root/site`
    (no network: the build backend is hatchling, installed with the dev extra); returns the site
    directory."""
    project = root / "project"
    (project / "my_pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (project / "my_pkg" / "__init__.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    site = root / "site"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    pip += ["--no-build-isolation", "--disable-pip-version-check", "--target", str(site)]
    installed = subprocess.run(
        [*pip, str(project)], capture_output=True, text=True, timeout=300, check=False
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return site


def assay(site: Path | None, *args: Any) -> subprocess.CompletedProcess[str]:
    """The command with the plugin's site directory as the only PYTHONPATH (None: without)."""
    return run_assay(*args, env={"PYTHONPATH": None if site is None else str(site)})


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return install_plugin(tmp_path / "plugin")


def test_the_installed_distribution_is_seen_with_its_entry_point(site: Path) -> None:
    code = textwrap.dedent(
        """
        from importlib.metadata import distribution, entry_points
        [ep] = entry_points(group="assay.scorers", name="my_scorer")
        print(ep.value, distribution("my-assay-scorer").version)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert proc.stdout.split() == ["my_pkg:factory", "1.0.0"]


def test_a_third_party_scorer_runs_with_its_options_and_is_recorded(
    site: Path, tmp_path: Path
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "1", "Three pumps failed: pumps P-1, P-2, P-3."))
    write_json(runs / "b.json", make_run("b", "1", "Two of the pumps failed."))
    write_json(gt / "s.json", [{"id": "1", "text": "Which pumps failed?"}])
    proc = assay(
        site, "evaluate", "--trajectories", runs, "--scenarios", gt,
        "--reports-dir", tmp_path / "out", "--scorer", "my_scorer",
        "-S", "my_scorer.threshold=0.7",
    )  # fmt: skip
    assert proc.returncode == 0, explain(proc)
    by_run = reports_by_run_id(tmp_path / "out")
    assert by_run["a"]["score"]["scorer"] == "my_scorer"
    assert by_run["a"]["score"]["details"]["threshold"] == 0.7
    assert by_run["a"]["score"]["passed"] is True  # two mentions: 1.0
    assert by_run["b"]["score"]["score"] == 0.5
    assert by_run["b"]["score"]["passed"] is False  # it would pass at the default of 0.5
    aggregate = read_aggregate(tmp_path / "out")
    assert aggregate["scorers"] == [
        {"name": "my_scorer", "options": {"threshold": 0.7, "phrase": "pumps"}}
    ]


def test_assay_scorers_lists_the_third_party_scorer(site: Path) -> None:
    listed = assay(site, "scorers")
    assert listed.returncode == 0, explain(listed)
    assert "my_scorer - Pass when the answer mentions `phrase`: half a point" in listed.stdout
    assert "  threshold: float = 0.5" in listed.stdout
    # It declares no group (it does not even call register_scorer): listed under "other".
    other = listed.stdout.index("\nOTHER: ")
    assert listed.stdout.index("\nmy_scorer - ") > other > listed.stdout.index("\nJUDGES: ")
    shown = assay(site, "scorers", "my_scorer", "--json")
    assert shown.returncode == 0, explain(shown)
    info = json.loads(shown.stdout)
    assert (info["name"], info["module"], info["is_async"]) == ("my_scorer", "my_pkg", False)
    assert info["group"] == "other"
    assert info["description"].startswith("Pass when the answer mentions `phrase`: half a")
    assert [o["name"] for o in info["options"]] == ["threshold", "phrase"]
    without = assay(None, "scorers")
    assert "my_scorer" not in without.stdout  # only where the distribution is installed


def test_a_bad_value_for_a_third_party_option_is_a_usage_error(
    site: Path, tmp_path: Path
) -> None:
    runs, gt = tmp_path / "runs", tmp_path / "gt"
    write_json(runs / "a.json", make_run("a", "1", "pumps"))
    write_json(gt / "s.json", [{"id": "1", "text": "?"}])
    proc = assay(
        site, "evaluate", "--trajectories", runs, "--scenarios", gt,
        "--reports-dir", tmp_path / "out", "--scorer", "my_scorer",
        "-S", "my_scorer.threshold=high",
    )  # fmt: skip
    assert proc.returncode == 2
    assert "-S my_scorer.threshold=high: expected a number; got 'high'" in proc.stderr
