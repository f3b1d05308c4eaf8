"""Paths to a value inside a file the user wrote, as problems name them (no pydantic here:
the readers import this for every scenario file).

Example:
    >>> path_text(("jobs", "billing", "scenarios", 0, "approval"))
    'jobs.billing.scenarios[0].approval'
"""

from __future__ import annotations

__all__ = ["FieldError", "Loc", "path_text"]

Loc = tuple[int | str, ...]
"""Where in a scenario a value is: keys and list indexes, as pydantic's error `loc`."""

FieldError = tuple[Loc, str]
"""One field that broke its model: where, and the message."""


def path_text(loc: Loc) -> str:
    """A `loc` as a path: `[3].success_criteria[0].max_turns`.

    Example:
        >>> path_text(("success_criteria", 0, "max_turns"))
        'success_criteria[0].max_turns'
        >>> path_text((3, "trajectory_mode"))
        '[3].trajectory_mode'
    """
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        else:
            parts.append(f".{part}" if parts else str(part))
    return "".join(parts)
