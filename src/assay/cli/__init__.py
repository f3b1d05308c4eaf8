"""The command line: one module per subcommand, argument handling only."""

from assay.exit_codes import ExitCode

__all__ = ["ExitCode"]
