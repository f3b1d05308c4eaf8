"""OTLP JSON as an exporter writes it, for the tests of the conventions the `otel` reader
reads (OpenInference, OpenLLMetry): attributes, spans of one trace, an export of them."""

from __future__ import annotations

from typing import Any

from assay.formats import ReadProblem
from assay.records import Trajectory


def attr(key: str, value: Any) -> dict[str, Any]:
    """An OTLP attribute (an int as text: int64 in JSON)."""
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(
    span_id: str,
    name: str,
    start_ms: int,
    end_ms: int,
    attributes: dict[str, Any],
    parent: str = "",
    *,
    trace: str = "t",
) -> dict[str, Any]:
    """A span of the trace `trace`, its times in milliseconds."""
    return {
        "traceId": trace,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": str(start_ms * 1_000_000),
        "endTimeUnixNano": str(end_ms * 1_000_000),
        "attributes": [attr(key, value) for key, value in attributes.items()],
    }


def export(*spans: dict[str, Any]) -> dict[str, Any]:
    """The spans as one OTLP export of the service `chiller-agent`."""
    resource = {"attributes": [attr("service.name", "chiller-agent")]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": list(spans)}]}]}


def only_run(items: list[Trajectory | ReadProblem]) -> Trajectory:
    """The one run read, checked to be one."""
    (run,) = items
    assert isinstance(run, Trajectory), run
    return run


def prefixes_rebuilt(monkeypatch: Any, module: Any) -> list[str]:
    """The prefixes `module` rebuilds with `nested` from now on, in order (a spy on it)."""
    from assay.formats._otel_convention import nested

    read: list[str] = []

    def counted(attributes: Any, prefix: str) -> Any:
        read.append(prefix)
        return nested(attributes, prefix)

    monkeypatch.setattr(module, "nested", counted)
    return read
