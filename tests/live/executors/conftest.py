"""A Ray cluster for the executor's tests: started once per session with `ray start --head`
on 127.0.0.1, as a user starts one, and stopped after the last test (its own processes only).

The tests that use it are slow (`.ci/run` runs them) and share one xdist group, so that one
worker process of the suite starts one cluster. The cluster listens on 127.0.0.1 only and runs
without Ray's token authentication (which a `~/.ray/auth_token` left by an earlier local
cluster would turn on): the session's drivers, in-process and in subprocesses, are told so
too.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

RAY = Path(sys.executable).parent / "ray"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Cluster:
    """A head node started with `ray start --head --block`; `stop()` ends its processes."""

    def __init__(self, cpus: int = 2) -> None:
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.temp = Path(tempfile.mkdtemp(prefix="ray-"))
        env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
        env.pop("RAY_ADDRESS", None)
        self.process = subprocess.Popen(
            [str(RAY), "start", "--head", "--block", f"--port={self.port}",
             "--node-ip-address=127.0.0.1", f"--num-cpus={cpus}", "--include-dashboard=false",
             "--disable-usage-stats", f"--temp-dir={self.temp}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while not _listening(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail("the Ray head did not start")
            time.sleep(0.2)

    def kill(self) -> None:
        """The cluster gone at once, as when its machine dies: SIGKILL to every process of
        its session (the head's, and the workers its raylet started)."""
        session = os.getsid(self.process.pid)
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if os.getsid(int(entry.name)) == session:
                    os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                continue
        self.process.wait()

    def stop(self) -> None:
        """End the head and everything it started (its process group)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Cluster]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_AUTH_MODE", "disabled")
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")
        patch.delenv("RAY_ADDRESS", raising=False)
        cluster = Cluster()
        try:
            yield cluster
        finally:
            cluster.stop()
