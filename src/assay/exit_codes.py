"""Exit codes of the `assay` command, a public contract for scripts and CI."""

from enum import IntEnum


class ExitCode(IntEnum):
    """How an `assay` command ended.

    Example:
        >>> int(ExitCode.THRESHOLD_NOT_MET)
        1
    """

    OK = 0
    """Finished; any threshold given was met."""

    THRESHOLD_NOT_MET = 1
    """Finished, but the pass rate is below `--fail-under`."""

    USAGE_ERROR = 2
    """Bad command-line arguments."""

    INPUT_ERROR = 3
    """An input path is missing or holds nothing to evaluate."""

    INTERNAL_ERROR = 4
    """assay itself failed; the message says where (`-v` for the traceback)."""

    INTERRUPTED = 130
    """Stopped by Ctrl-C (SIGINT): what finished is saved (`assay run --resume` goes on)."""

    TERMINATED = 143
    """Stopped by SIGTERM (`timeout`, a service manager, a CI job cancelled): what finished
    is saved, as with Ctrl-C."""
