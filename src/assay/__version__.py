"""The version of assay: the one place it is written (the package build reads it here)."""

__version__ = "0.1.0"
