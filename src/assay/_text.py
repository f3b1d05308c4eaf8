"""How a path, or an id taken from a file name, is shown in reports and on the console.

A file name need not be UTF-8. Python reads such a name with each undecodable byte as a lone
surrogate (U+DC80..U+DCFF), which is no text at all: JSON cannot hold it and a terminal cannot
print it. One rule, used wherever a path or a name-derived id becomes report text: each
undecodable byte is shown as `\\xNN`, and any other lone surrogate (written as an escape in a
Python literal, say) as `\\uNNNN`. Text that is valid Unicode is left as it is.

Ids are compared as shown: a scenario folder whose name ends in the byte 0xff has the id
`\\xff` (four characters), which a run names by writing that text.

Example:
    >>> path_text(b"runs/\\xff.json"), escape_surrogates("a\\ud800b")
    ('runs/\\\\xff.json', 'a\\\\ud800b')
"""

from __future__ import annotations

import os

_UNDECODED = range(0xDC80, 0xDD00)
"""Where surrogateescape puts the bytes 0x80..0xff it could not decode."""


def escape_surrogates(text: str) -> str:
    """`text` with each lone surrogate shown as an escape (`\\xNN` for an undecodable byte).

    Example:
        >>> name = b"\\xff.json".decode(errors="surrogateescape")
        >>> escape_surrogates("caf\\xe9"), escape_surrogates(name)
        ('café', '\\\\xff.json')
    """
    if text.isascii():  # the usual text, without looking further
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escape(char) if "\ud800" <= char <= "\udfff" else char for char in text)
    return text


def path_text(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """A path as report text: `escape_surrogates` of its name, as the file system gave it.

    Example:
        >>> from pathlib import Path
        >>> path_text(Path("runs") / "11.json")
        'runs/11.json'
    """
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = name.decode("utf-8", "surrogateescape")
    return escape_surrogates(name)


def text_of(value: object) -> str:
    """`str(value)`; its `repr` when that raises; a note naming its type when both do (an
    agent's object with a broken `__str__` must not end the evaluation that shows it).

    Example:
        >>> class Odd:
        ...     def __str__(self) -> str:
        ...         raise RuntimeError("no")
        ...     def __repr__(self) -> str:
        ...         raise RuntimeError("no")
        >>> text_of(Odd()), text_of(3)
        ('<Odd whose text could not be read>', '3')
    """
    try:
        return str(value)
    except Exception:
        try:
            return repr(value)
        except Exception:
            return f"<{type(value).__name__} whose text could not be read>"


def _escape(char: str) -> str:
    code = ord(char)
    if code in _UNDECODED:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"
