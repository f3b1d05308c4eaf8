"""The summary printed by a forked helper: the same output as printing here, or printing here."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

import assay.reports.console as console
from assay.reports.aggregate import SummaryBuilder
from assay.reports.printer import SummaryPrinter
from assay.results import CaseResult, NotScored, OpsMetrics, RunSummary, Score

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the helper is a forked process")


def _summary() -> RunSummary:
    builder = SummaryBuilder()
    for runner in ("plan-execute", "direct"):
        builder.add_result(
            CaseResult(
                "1",
                f"{runner}-1",
                runner,
                "model",
                None,
                "{}",
                Score.scored("static_json", 0.5, passed=False, rationale="1 of 2 gold keys exact"),
                OpsMetrics(),
            )
        )
    for n in range(5):
        builder.add_not_scored(NotScored("unreadable", "invalid JSON", source=f"x{n}.json"))
    return builder.finish()


def _started(monkeypatch: pytest.MonkeyPatch) -> SummaryPrinter:
    """A helper for this process's own standard output, which capfd still captures at its
    descriptor. (Called in the test itself: capture is put in place after the fixtures.)"""
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    printer = SummaryPrinter.start()
    assert printer is not None
    return printer


def _printed_here(summary: RunSummary, capfd: pytest.CaptureFixture[str]) -> str:
    console.print_summary(summary, Path("reports"), verbose=True)
    return capfd.readouterr().out


def test_start_gives_none_when_standard_output_is_replaced(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A forked helper would write into its own copy of the replacement, which nobody reads.
    assert SummaryPrinter.start() is None


def test_the_helper_prints_what_print_summary_prints(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _summary()
    expected = _printed_here(summary, capfd)
    assert "by runner and model" in expected and "… and 2 more" not in expected  # -v: all

    printer = _started(monkeypatch)
    # Printing here from now on would be a fallback: the helper must have printed.
    monkeypatch.setattr(console, "print_summary", _must_not_be_called)
    printer.print(summary, Path("reports"), verbose=True)
    assert capfd.readouterr().out == expected


def _must_not_be_called(*_: object, **__: object) -> None:
    raise AssertionError("printed in the parent: the helper did not print")


def test_a_helper_that_fails_before_writing_leaves_the_printing_here(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _summary()
    expected = _printed_here(summary, capfd)

    def broken(*_: object, **__: object) -> str:
        raise RuntimeError("cannot render")

    monkeypatch.setattr(console, "render_summary", broken)  # inherited by the helper
    printer = _started(monkeypatch)
    printer.print(summary, Path("reports"), verbose=True)
    assert capfd.readouterr().out == expected  # once, from here


def test_close_lets_the_helper_go_without_printing(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    printer = _started(monkeypatch)
    helper = printer._pid
    printer.close()
    printer.close()  # a second time does nothing
    assert capfd.readouterr().out == ""
    with pytest.raises(ChildProcessError):  # waited for already: no process left behind
        os.waitpid(helper, os.WNOHANG)


def test_the_helper_goes_on_its_message_not_on_the_end_of_the_pipe(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Worker processes forked after the helper hold copies of the pipe's write end; the
    # helper must not wait for them to end before it prints and leaves.
    summary = _summary()
    expected = _printed_here(summary, capfd)
    printer = _started(monkeypatch)
    holder = os.fork()
    if holder == 0:  # holds every descriptor of the parent, the pipe's write end included
        time.sleep(5)
        os._exit(0)
    try:
        printer.print(summary, Path("reports"), verbose=True)
        assert os.waitpid(holder, os.WNOHANG) == (0, 0), "print waited for the holder to end"
    finally:
        os.kill(holder, 9)
        os.waitpid(holder, 0)
    assert capfd.readouterr().out == expected


def test_what_this_process_wrote_before_comes_before_the_summary(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = _summary()
    expected = _printed_here(summary, capfd)
    # A block-buffered standard output, as a pipe or a file gets (pytest's writes through).
    buffered = io.TextIOWrapper(open(1, "wb", closefd=False), encoding="utf-8")  # noqa: SIM115
    monkeypatch.setattr(sys, "__stdout__", buffered)
    printer = _started(monkeypatch)
    sys.stdout.write("written first\n")  # still in this process's buffer
    printer.print(summary, Path("reports"), verbose=True)
    assert capfd.readouterr().out == "written first\n" + expected
