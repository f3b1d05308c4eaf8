"""Argument types shared by the commands.

Example:
    >>> size("2M"), size("512")
    (2097152, 512)
"""

from __future__ import annotations

import argparse
import math
from typing import Any

__all__ = ["seconds", "size", "whole"]


def size(text: str) -> int:
    """An argument type: a size such as `512`, `64K`, `2M` or `1G` (`assay.limits.parse_size`)."""
    from assay.limits import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def whole(minimum: int) -> Any:
    """An argument type: a whole number of at least `minimum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def seconds(text: str) -> float:
    """An argument type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value
