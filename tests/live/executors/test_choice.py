"""Choosing an executor: by name, by object, and the usage errors of the CLI flags (no
cluster needed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from _cli import assay, explain
from assay.live.executors import LocalExecutor, executor_of
from assay.live.executors.ray import RayExecutor, ray_missing


def test_executors_by_name_and_as_given() -> None:
    assert isinstance(executor_of(None), LocalExecutor)
    assert isinstance(executor_of("local"), LocalExecutor)
    given = LocalExecutor()
    assert executor_of(given) is given
    assert isinstance(executor_of("ray", workers=3), RayExecutor)
    with pytest.raises(ValueError, match="no executor named 'dask'; choose one of local, ray"):
        executor_of("dask")


def test_ray_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="workers must be at least 1"):
        RayExecutor(workers=0)
    with pytest.raises(ValueError, match="must not be negative"):
        RayExecutor(num_gpus=-1)


def test_without_ray_the_executor_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.live.executors import ExecutorError

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    assert ray_missing() == (
        "the Ray executor needs Ray: pip install 'ray>=2.9' (the assay[ray] extra)"
    )
    with pytest.raises(ExecutorError, match=re.escape("pip install 'ray>=2.9'")):
        executor_of("ray")


@pytest.mark.slow
def test_cli_usage_errors_for_the_executor_flags(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("def agent(messages):\n    return 'hi'\n")
    (tmp_path / "cases.jsonl").write_text('{"eval_id": "a", "user_query": "q"}\n')
    proc = assay("run", "agent.py:agent", "cases.jsonl", "--ray-workers", "2", cwd=tmp_path)
    assert proc.returncode == 2, explain(proc)
    assert "--ray-workers needs --executor ray" in proc.stderr
    proc = assay("run", "agent.py:agent", "cases.jsonl", "--executor", "dask", cwd=tmp_path)
    assert proc.returncode == 2 and "invalid choice: 'dask'" in proc.stderr
    proc = assay("run", "agent.py:agent", "cases.jsonl", "--executor", "ray",
                 "--ray-num-gpus", "-1", cwd=tmp_path)
    assert proc.returncode == 2 and "must be a number of at least 0" in proc.stderr
    # Without Ray installed (its import made to fail), a usage error naming the package.
    (tmp_path / "ray.py").write_text("raise ImportError('not installed here')\n")
    proc = assay("run", "agent.py:agent", "cases.jsonl", "--executor", "ray", cwd=tmp_path,
                 env={"PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 2, explain(proc)
    assert "pip install 'ray>=2.9'" in proc.stderr
    assert not (tmp_path / "reports").exists()


def test_the_agents_folder_is_shipped_only_to_a_cluster_with_a_node_elsewhere() -> None:
    from types import SimpleNamespace

    from assay.live.executors.ray import _all_here

    def cluster(*addresses: str) -> SimpleNamespace:
        return SimpleNamespace(nodes=lambda: [{"NodeManagerAddress": a} for a in addresses])

    assert _all_here(cluster("127.0.0.1"))
    assert _all_here(cluster("127.0.0.1", "::1"))
    assert not _all_here(cluster("127.0.0.1", "203.0.113.9"))  # TEST-NET-3: not this machine
