"""End-to-end tests of `assay cache stats` and `assay cache clear`.

The real console script runs as a subprocess in a temporary directory (stdin is not a
terminal there); the confirmation prompt, which needs a terminal, is driven in-process.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

from _cli import assay as run_assay
from assay.cli.main import main
from assay.exit_codes import ExitCode
from assay.models.cache import CACHE_FILE_NAME, ResponseCache, request_key
from assay.models.types import ChatRequest, ChatResponse, TokenUsage


def assay(*args: Any, cwd: Path, env: dict[str, str] | None = None) -> Any:
    """The command without the cache directory this process may have been given."""
    return run_assay(*args, cwd=cwd, env={"ASSAY_CACHE_DIR": None, **(env or {})})


def fill(directory: Path) -> Path:
    """A cache in `directory` with 3 replies of one model and 1 of another."""
    path = directory / CACHE_FILE_NAME
    with ResponseCache(path) as cache:
        for model, count in (("openai/gpt-4.1-mini", 3), ("ollama/llama3", 1)):
            for i in range(count):
                request = ChatRequest(model, ({"role": "user", "content": f"question {i}"},))
                reply = ChatResponse('{"score": 1}', TokenUsage(100, 7), cost_usd=0.002)
                cache.put(request_key(request), request, reply)
    return path


def entries(path: Path) -> int:
    with ResponseCache(path) as cache:
        return cache.stats().entries


@pytest.mark.slow
def test_stats_without_a_cache(tmp_path: Path) -> None:
    done = assay("cache", "stats", "--cache-dir", "missing", cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    assert "no cache at" in done.stdout and "missing" in done.stdout
    assert not (tmp_path / "missing").exists(), "stats must not create the cache"


@pytest.mark.slow
def test_stats_after_entries_were_put(tmp_path: Path) -> None:
    fill(tmp_path / "cache")
    done = assay("cache", "stats", "--cache-dir", "cache", cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr
    out = done.stdout
    assert "entries" in out and "│ 4 " in out
    assert "KiB" in out
    gpt = next(line for line in out.splitlines() if "openai/gpt-4.1-mini" in line)
    assert [cell.strip() for cell in gpt.split("│")[2:6]] == ["3", "300", "21", "$0.0060"]
    llama = next(line for line in out.splitlines() if "ollama/llama3" in line)
    assert [cell.strip() for cell in llama.split("│")[2:6]] == ["1", "100", "7", "$0.0020"]
    assert "UTC" in out


@pytest.mark.slow
def test_the_cache_dir_comes_from_the_environment(tmp_path: Path) -> None:
    fill(tmp_path / "from-env")
    done = assay(
        "cache", "stats", cwd=tmp_path, env={"ASSAY_CACHE_DIR": str(tmp_path / "from-env")}
    )
    assert done.returncode == ExitCode.OK, done.stderr
    assert "ollama/llama3" in done.stdout
    xdg = assay("cache", "stats", cwd=tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert xdg.returncode == ExitCode.OK and "no cache at" in xdg.stdout
    assert str(tmp_path / "xdg" / "assay") in xdg.stdout


@pytest.mark.slow
def test_clear_with_yes(tmp_path: Path) -> None:
    path = fill(tmp_path / "cache")
    one_model = assay(
        "cache", "clear", "--cache-dir", "cache", "--model", "ollama/llama3", "--yes", cwd=tmp_path
    )
    assert one_model.returncode == ExitCode.OK, one_model.stderr
    assert "deleted 1 cached reply of ollama/llama3" in one_model.stdout
    assert entries(path) == 3
    everything = assay("cache", "clear", "--cache-dir", "cache", "--yes", cwd=tmp_path)
    assert everything.returncode == ExitCode.OK, everything.stderr
    assert "deleted 3 cached replies" in everything.stdout
    assert entries(path) == 0
    again = assay("cache", "clear", "--cache-dir", "cache", "-y", cwd=tmp_path)
    assert again.returncode == ExitCode.OK and "nothing to clear" in again.stdout


@pytest.mark.slow
def test_clear_an_unknown_model_names_the_known_ones(tmp_path: Path) -> None:
    path = fill(tmp_path / "cache")
    done = assay("cache", "clear", "--cache-dir", "cache", "--model", "x/y", "--yes", cwd=tmp_path)
    assert done.returncode == ExitCode.OK
    assert "nothing to clear" in done.stdout and "ollama/llama3" in done.stdout
    assert entries(path) == 4


@pytest.mark.slow
def test_clear_without_yes_off_a_terminal_refuses(tmp_path: Path) -> None:
    path = fill(tmp_path / "cache")
    done = assay("cache", "clear", "--cache-dir", "cache", cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE_ERROR
    assert "--yes" in done.stderr and "terminal" in done.stderr
    assert entries(path) == 4


@pytest.mark.slow
def test_a_corrupt_cache_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "cache").mkdir()
    path = tmp_path / "cache" / CACHE_FILE_NAME
    path.write_text("not a database at all\n" * 100)
    for args in (("stats",), ("clear", "--yes")):
        done = assay("cache", *args, "--cache-dir", "cache", cwd=tmp_path)
        assert done.returncode == ExitCode.INPUT_ERROR, done.stderr
        assert str(Path("cache") / CACHE_FILE_NAME) in done.stderr
        assert "not a valid assay cache" in done.stderr
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert path.read_text() == "not a database at all\n" * 100


@pytest.mark.slow
def test_cache_without_an_action(tmp_path: Path) -> None:
    done = assay("cache", cwd=tmp_path)
    assert done.returncode == ExitCode.USAGE_ERROR
    assert "stats or clear" in done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "left"), [("y\n", 0), ("n\n", 4), ("\n", 4), ("", 4)])
def test_clear_asks_on_a_terminal(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: str,
    left: int,
) -> None:
    path = fill(tmp_path / "cache")
    monkeypatch.setattr(sys, "stdin", _Terminal(answer))
    assert main(["cache", "clear", "--cache-dir", str(tmp_path / "cache")]) == ExitCode.OK
    out = capsys.readouterr().out
    assert "delete 4 cached replies" in out and "[y/N]" in out
    assert entries(path) == left
    assert ("nothing deleted" in out) == (left == 4)
