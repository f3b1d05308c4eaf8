"""JSON documents written one after another, as the OpenTelemetry SDK's `ConsoleSpanExporter`
writes spans to a file: each span pretty-printed, then a line break (not a list, not one
document per line). Such a file is not one JSON document; `split_concatenated` reads it as the
list of its documents, which the `otel` reader then reads as a list of spans.

This module imports nothing of assay's, so that the JSON loading of `assay.formats._common`
can ask it on its failure path without an import cycle.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["split_concatenated"]

# Concatenated documents beyond this many are not a console exporter's file worth reading
# whole; the split gives up (None) rather than build a huge list.
_MAX_DOCUMENTS = 1_000_000


def split_concatenated(data: bytes) -> list[Any] | None:
    """JSON documents written one after another (the SDK's `ConsoleSpanExporter` writing
    pretty-printed spans to a file), as a list; None when `data` is not two or more such
    documents (a single document, text that is not JSON, or more than `_MAX_DOCUMENTS`).

    For `load_json`'s failure path: a file that does not parse as one JSON document is tried
    as several before it is called invalid.

    Example:
        >>> split_concatenated(b'{\\n  "name": "a"\\n}\\n{\\n  "name": "b"\\n}\\n')
        [{'name': 'a'}, {'name': 'b'}]
        >>> split_concatenated(b'{"name": "a"}'), split_concatenated(b'{"a": 1} oops')
        (None, None)
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    position, end = 0, len(text)
    while True:
        while position < end and text[position] in " \t\r\n":
            position += 1
        if position == end:
            break
        if len(documents) >= _MAX_DOCUMENTS:
            return None
        try:
            value, position = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            return None
        documents.append(value)
    return documents if len(documents) > 1 else None
