"""Shared test settings.

Hypothesis' timing checks are turned off: these machines are noisy, and a slow example is not a
wrong one. A property test without its own `max_examples` tries 25 examples in the `dev` profile
(the default, for a quick local run) and Hypothesis' full 100 in the `ci` profile, which CI
asks for with `--hypothesis-profile=ci`; a test's own `max_examples` holds in both.

`chat_server` is a real chat-completions server on 127.0.0.1 with replies each test programs
(tests/chat_server.py), for testing model clients and judges over a socket: one for the whole
session, reset before each test that asks for it.
"""

import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from chat_server import ChatServer
from report_schema import check_reports_under

# Python caches compiled modules in __pycache__ (which git ignores) unless told not to, as
# PYTHONDONTWRITEBYTECODE does on some CI and sandbox machines. Then every run would compile
# the project and its tests again: about 5 s of a run's start, on every run.
sys.dont_write_bytecode = False

settings.register_profile(
    "ci",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("dev", parent=settings.get_profile("ci"), max_examples=25)
settings.load_profile("dev")


@pytest.fixture(scope="session", autouse=True)
def _subprocesses_keep_their_bytecode() -> Iterator[None]:
    """The interpreters the tests start (the console script, `python -c`, pytest, pip) cache
    compiled modules too (see `sys.dont_write_bytecode` above): without it, each recompiles
    assay from source, a third of the time of a small `assay evaluate`."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        yield


@pytest.fixture(scope="session")
def _session_chat_server() -> Iterator[ChatServer]:
    with ChatServer() as server:
        yield server


@pytest.fixture
def chat_server(_session_chat_server: ChatServer) -> ChatServer:
    """The session's chat-completions server on 127.0.0.1 (see tests/chat_server.py), reset
    for this test: nothing queued or recorded, no handler, the default reply.

    Example::

        from chat_server import ChatServer, Reply

        def test_retries(chat_server: ChatServer) -> None:
            chat_server.enqueue(Reply.error(500), Reply.ok('{"score": 1}'))
            client = OpenAICompatibleClient(chat_server.base_url, sleep=no_wait)
            ...
            assert [r.status for r in chat_server.replies] == [500, 200]
    """
    _session_chat_server.reset()
    return _session_chat_server


@pytest.fixture(autouse=True)
def _reports_follow_the_schema(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every reports directory a test leaves in its `tmp_path` must validate against
    `assay schema` (tests that write broken reports on purpose are marked
    `reports_not_validated`)."""
    yield
    tmp_path = request.node.funcargs.get("tmp_path")
    if tmp_path is None or request.node.get_closest_marker("reports_not_validated"):
        return
    problems = check_reports_under(tmp_path)
    assert not problems, "reports break the schema:\n" + "\n".join(problems[:20])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "reports_not_validated: the test leaves reports broken on purpose"
    )


@pytest.fixture(autouse=True)
def _not_a_github_job(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests run as if not in a GitHub Actions job, wherever they run: a command under
    test must not append to the job's real summary, nor print annotations for it, because CI
    happens to be GitHub's. The tests of `--github` set the variables themselves."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
