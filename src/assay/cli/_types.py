"""Argument types shared by the commands.

Example:
    >>> size("2M"), size("512")
    (2097152, 512)
"""

from __future__ import annotations

import argparse

__all__ = ["size"]


def size(text: str) -> int:
    """An argument type: a size such as `512`, `64K`, `2M` or `1G` (`assay.limits.parse_size`)."""
    from assay.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
