"""Finding the agent `assay run` names: `module:attribute` or `path/to/file.py:attribute`.

The named module is the user's own code, imported as Python imports it (its folder first on
the import path, so that its sibling modules import too); nothing else is executed.

Example:
    >>> load_agent("json:dumps").__name__
    'dumps'
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["AgentLoadError", "file_modules", "file_spec", "load_agent"]

_FILE_MODULE_PREFIX = "assay_agent_"


class AgentLoadError(Exception):
    """The agent cannot be loaded; the message says why."""


def load_agent(spec: str) -> Any:
    """The object `spec` names. Importing it writes no bytecode cache beside the user's code
    (`assay run` writes only into its reports directory).

    Raises:
        AgentLoadError: a malformed spec, a missing file, a module that fails to import (the
            original exception is the cause), or no such attribute.
    """
    previous = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        return _load(spec)
    finally:
        sys.dont_write_bytecode = previous


def file_spec(spec: str) -> tuple[Path, str] | None:
    """The file and attribute of a `path/to/file.py:attribute` spec; None for a module's.

    Example:
        >>> file_spec("agents/bot.py:agent"), file_spec("bot:agent")
        ((PosixPath('agents/bot.py'), 'agent'), None)
    """
    target, sep, attribute = spec.rpartition(":")
    if sep and target and attribute and _is_file(target):
        return Path(target), attribute
    return None


def file_modules() -> list[Any]:
    """The modules loaded from `file.py` specs so far (not importable by name elsewhere: a
    remote worker is sent them by value)."""
    return [
        module for name, module in list(sys.modules.items())
        if name.startswith(_FILE_MODULE_PREFIX)
    ]


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def _load(spec: str) -> Any:
    target, sep, attribute = spec.rpartition(":")
    if not sep or not target or not attribute:
        raise AgentLoadError(
            f"AGENT must be module:attribute or path/to/file.py:attribute, got {spec!r}"
        )
    if _is_file(target):
        module = _from_file(Path(target))
    else:
        here = str(Path.cwd())
        if here not in sys.path and "" not in sys.path:
            sys.path.insert(0, here)
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise AgentLoadError(f"cannot import {target!r}: {exc}") from exc
        except Exception as exc:
            raise AgentLoadError(
                f"importing {target!r} raised {type(exc).__name__}: {exc}"
            ) from exc
    found: Any = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise AgentLoadError(f"{target!r} has no attribute {attribute!r}") from None
    return found


def _from_file(path: Path) -> Any:
    if not path.is_file():
        raise AgentLoadError(f"no such file: {path}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = f"{_FILE_MODULE_PREFIX}{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AgentLoadError(f"cannot import {path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise AgentLoadError(f"importing {path} raised {type(exc).__name__}: {exc}") from exc
    return module
