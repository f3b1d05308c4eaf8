"""Lazy re-exports (PEP 562): a package names its public API and loads each module on first use.

Example:
    >>> get, names = lazy_exports("demo", {"sqrt": "math"}, {}, ["sqrt"])
    >>> get("sqrt")(9.0), names()
    (3.0, ['sqrt'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any], names: list[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`: `exports` maps each name to its module, and
    a name once loaded is kept in `namespace` (the package's globals) so it is looked up once.
    """

    def load(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def listing() -> list[str]:
        return names

    return load, listing
