"""OpenTelemetry LLM traces: OTLP JSON spans in, one `Trajectory` per trace out.

Three semantic conventions are read, a span at a time, in this order: the OpenTelemetry GenAI
conventions (`gen_ai.operation.name`, below; its attributes and Google ADK's are read by
`assay.formats._otel_genai`), OpenInference (Arize Phoenix's instrumentors:
`openinference.span.kind`, `llm.*`, `input.value` / `output.value`, `tool.*`; see
`assay.formats._otel_openinference`) and OpenLLMetry (Traceloop's: `llm.request.type`,
`gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, `traceloop.span.kind`, `traceloop.entity.*`;
see `assay.formats._otel_openllmetry`). Whatever the convention, a span is a model call, a
tool call, an agent (whose name is the `Step.node` of the model calls under it) or structure
(a chain or workflow at the root, whose input and output stand for the question and answer
when nothing nearer records them), and the steps are built from them as below. A span of a
kind its convention names but assay does not read (OpenInference's `RETRIEVER`, `EMBEDDING`,
`RERANKER`, `GUARDRAIL`, ...; OpenLLMetry's `embedding`, `rerank`, `unknown`) is counted in
the run's notes, one line per kind (`not read: 2 spans of kind RETRIEVER`). A GenAI model
call without `gen_ai.input.messages` / `output.messages` but with OpenLLMetry's indexed
prompt and completion attributes is read from those.

The spans are as an OTLP exporter writes them: `{"resourceSpans": [{"resource":
{"attributes": [...]}, "scopeSpans": [{"spans": [{"traceId", "spanId", "parentSpanId",
"name", "startTimeUnixNano", "endTimeUnixNano", "attributes": [{"key", "value":
{"stringValue" | "intValue" | ...}}]}]}]}]}`. Also read: a list of such exports (a file
exporter's lines), a flat list of spans, snake_case field names, and the Python SDK's console
form (`context.trace_id`, `parent_id`, ISO `start_time`, and `attributes` as a plain object).
Ids in base64 (Tempo, protobuf's JSON) are read as the hex they stand for.

Other tools' trace exports are read through the same span model (`assay.formats._otel_spans`;
see `assay.formats._otel_exports` and `assay.formats._otel_openai_agents` for what each keeps):

- Grafana Tempo's trace by id, `{"batches": [{"resource", "scopeSpans" |
  "instrumentationLibrarySpans": [{"spans"}]}]}` (OTLP spans under another name), and its v2
  API's `{"trace": {"resourceSpans"}}`; Jaeger's v3 API's `{"result": {"resourceSpans"}}`.
- Jaeger JSON (the UI's "Download JSON", `/api/traces`): `{"data": [{"traceID", "spans":
  [{"spanID", "operationName", "references", "startTime", "duration", "tags", "processID"}],
  "processes"}]}`; tags are attributes, the process the resource.
- The OpenAI Agents SDK's export (`{"data": [trace, span, ...]}`, or the trace and span
  objects as a list or lines): `generation` / `response` spans are model calls, `function`
  spans tool calls, `agent` spans agents; other span types are noted in the run.
- MLflow's `Trace.to_json()` (`{"info", "data": {"spans"}}`): `mlflow.spanType` `LLM` /
  `CHAT_MODEL` a model call, `TOOL` a tool call, `AGENT` an agent, `CHAIN` structure; other
  types are noted in the run.

A problem in one of these names the export (`no spans found in the Jaeger JSON export`). The
console exporter writing to a file concatenates pretty-printed documents: `split_concatenated`
turns such bytes into the list of spans this reads.

How GenAI spans become a run, per `gen_ai.operation.name`:

- `chat`, `text_completion`, `generate_content` (a model call): one `Step` each, in start
  order. Model from `gen_ai.response.model` (else `gen_ai.request.model`), tokens from
  `gen_ai.usage.input_tokens` / `output_tokens`, duration from the span's timestamps, text from
  the `text` parts of `gen_ai.output.messages` when content was captured. A model span with
  the same reply (text, and calls by name and arguments) as a model span it lies within (as
  its child, or in time) is the same call recorded by a second instrumentor (LangChain's and
  the OpenAI SDK's, in any convention): no step of its own; its tokens stand in where the
  first span recorded none.
- `execute_tool`: a `ToolCall` (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
  `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) on the step of the model call it
  belongs to: a model-call ancestor if it has one, else the latest model call that started
  before it under the same agent, else the latest before it at all; a tool call before any
  model call is a step of its own. Arguments missing from the tool span are taken from the
  `tool_call` part with the same id in the model call's output messages; a model call with no
  tool spans gets the `tool_call` parts themselves (without results).
- `invoke_agent`: its `gen_ai.agent.name` is the `Step.node` of the model calls under it
  (a model call's own `gen_ai.agent.name` wins).

The question is the first user text of the first model call's `gen_ai.input.messages`
(unless that text is a prompt built around an outermost chain's or agent's input, as a RAG
chain builds it: then that input); the answer the last step text, else the output of the
outermost agent span. Older spellings are accepted where they are unambiguous:
`gen_ai.usage.prompt_tokens` / `completion_tokens` and message attributes recorded as JSON
text. Messages recorded in span events are read as the span's (the
`gen_ai.client.inference.operation.details` event's attributes, and the per-message events of
v1.36 and before, `gen_ai.user.message` ... `gen_ai.choice`, and v1.27's content events: see
`assay.formats._otel_genai_events`); another `gen_ai.*` event is noted as not read. The
same events recorded as OTLP log records (`resourceLogs`, in the same file as their spans, as
the collector's file exporter writes both) are read with the span each names; a log record of
a span not in the file is a problem line, any other log record a note.

A failed span (its status ERROR, or an `exception` event; see `assay.formats._otel_status`)
says so: a tool call's result is `{"error": MESSAGE}`; a failed root span fails the run
(`error`, never scored); any other failed span is a note of the run.

Where a model call has no tool spans, a call's result is taken from a later request: its
`tool_call_response` part in `gen_ai.input.messages`. Google ADK's spans carry the
conversation in their own attributes, read where the GenAI ones are absent: the request and
reply (`gcp.vertex.agent.llm_request` / `llm_response`, Gemini contents: the question, the
reply's text and `function_call` parts, `function_response` results) and a tool span's
`gcp.vertex.agent.tool_call_args` / `tool_response`.

Example:
    >>> def attr(key, value):
    ...     kind = "intValue" if isinstance(value, int) else "stringValue"
    ...     return {"key": key, "value": {kind: value}}
    >>> export = {"resourceSpans": [{"scopeSpans": [{"spans": [
    ...     {"traceId": "t1", "spanId": "a", "startTimeUnixNano": "1000000000",
    ...      "endTimeUnixNano": "1500000000", "attributes": [
    ...          attr("gen_ai.operation.name", "chat"), attr("gen_ai.request.model", "gpt-4o"),
    ...          attr("gen_ai.usage.input_tokens", 120)]},
    ...     {"traceId": "t1", "spanId": "b", "startTimeUnixNano": "1600000000", "attributes": [
    ...          attr("gen_ai.operation.name", "execute_tool"),
    ...          attr("gen_ai.tool.name", "get_sensor"),
    ...          attr("gen_ai.tool.call.arguments", '{"asset": "CH-12"}')]}]}]}]}
    >>> run = trajectories_from_otlp(export, "trace.json")[0]
    >>> (run.run_id, run.model, run.tool_names(), run.steps[0].usage.input_tokens)
    ('t1', 'gpt-4o', ['get_sensor'], 120)
    >>> (run.steps[0].tool_calls[0].args, run.steps[0].duration_ms)
    ({'asset': 'CH-12'}, 500.0)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay._jsonable import json_type
from assay.formats import _otel_exports as _exports
from assay.formats import _otel_openai_agents as _openai_agents
from assay.formats import _otel_openinference as _openinference
from assay.formats import _otel_openllmetry as _openllmetry
from assay.formats._common import ReadProblem, first_item, id_text, named, tool_args
from assay.formats._otel_concatenated import split_concatenated
from assay.formats._otel_convention import Reading, Role, json_or_text
from assay.formats._otel_genai import (
    ADK_RESPONSE,
    adk_calls,
    adk_contents,
    adk_parts,
    adk_question,
    adk_text,
    first_user_text,
    genai_messages,
    genai_parts,
    genai_usage,
    output_text,
    requested_calls,
)
from assay.formats._otel_genai_events import read_content_events
from assay.formats._otel_spans import EXPORT_FIELDS, LOG_FIELDS, Span, collect_spans
from assay.formats.registry import register_reader
from assay.records import Step, ToolCall, Trajectory, Usage

__all__ = ["split_concatenated", "trajectories_from_otlp"]


_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_TOOL_OPERATION = "execute_tool"
_AGENT_OPERATION = "invoke_agent"


def trajectories_from_otlp(data: Any, source: str) -> list[Trajectory | ReadProblem]:
    """One run per trace in an OTLP JSON export of GenAI, OpenInference or OpenLLMetry spans.

    Spans are grouped by trace id (traces in order of their first span) and ordered by start
    time within a trace; see the module notes for how spans become steps and calls. `run_id`
    is the trace id, `runner` the resource's `service.name`, `duration_ms` the trace's span
    from first start to last end, and `usage` the steps' sum (or the outermost agent spans'
    when the model calls carry none).

    Never raises: data with no spans, or a trace with no model call or tool span, becomes a
    `ReadProblem`; odd attribute values are read as far as they make sense.

    Args:
        data: The parsed JSON: an export (`{"resourceSpans": [...]}`), a list of exports, a
            list of spans, or another tool's export (see the module notes).
        source: Where it was read from; a trace's runs and problems are `source#TRACE_ID`.

    Returns:
        A `Trajectory` per trace with a model call or tool span, a `ReadProblem` per trace
        without.

    Example:
        >>> trajectories_from_otlp({"resourceSpans": []}, "empty.json")[0].reason
        'no spans found (expected OTLP JSON: resourceSpans, or a list of spans)'
    """
    spans, seen, lone_logs = collect_spans(data)
    if not spans:
        if lone_logs:
            reason = (
                f"no spans found, only {lone_logs} log record{'' if lone_logs == 1 else 's'} "
                "(OTLP logs): assay reads the GenAI events recorded as logs with the spans "
                "they belong to (export both to one file)"
            )
        elif seen:
            reason = f"no spans found in the {seen[0]}"
        elif isinstance(data, dict | list):
            reason = "no spans found (expected OTLP JSON: resourceSpans, or a list of spans)"
        else:
            reason = f"not an OTLP export: got {json_type(data)}"
        return [ReadProblem(source, reason)]
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    ordered = sorted(traces.items(), key=lambda item: min(_position(s) for s in item[1]))
    found = [_trace(trace_id, members, source) for trace_id, members in ordered]
    if seen:  # a problem in another tool's export says which export it was
        found = [
            ReadProblem(item.source, f"{seen[0]}: {item.reason}")
            if isinstance(item, ReadProblem)
            else item
            for item in found
        ]
    if lone_logs:
        s = "" if lone_logs == 1 else "s"
        found.append(
            ReadProblem(source, f"{lone_logs} log record{s} of spans not in the file: not read")
        )
    return found


# --- traces --------------------------------------------------------------------------------


def _trace(trace_id: str, spans: list[Span], source: str) -> Trajectory | ReadProblem:
    trace_source = f"{source}#{trace_id}" if trace_id else source
    spans.sort(key=_position)
    unread_events: dict[tuple[str, str], int] = {}
    for rank, span in enumerate(spans):
        span.rank = rank
        if span.events:
            for what in read_content_events(span):
                unread_events[what] = unread_events.get(what, 0) + 1
        span.role, span.reading = _convention(span)
    by_id = {span.span_id: span for span in spans if span.span_id is not None}

    model_spans = [s for s in spans if s.role == "model"]
    tool_spans = [s for s in spans if s.role == "tool"]
    agent_spans = [s for s in spans if s.role == "agent"]
    kinds = [s.reading.kind for s in spans if s.reading is not None]
    if not model_spans and not tool_spans:
        found = sorted({s.operation for s in spans if s.operation is not None})
        shown = [f"operations: {', '.join(found)}"] if found else []
        if kinds:
            shown.append(f"span kinds: {', '.join(sorted(set(kinds)))}")
            return ReadProblem(
                trace_source,
                f"no model call or tool span (GenAI, OpenInference or OpenLLMetry) "
                f"({'; '.join(shown)})",
            )
        detail = f" ({shown[0]})" if shown else ""
        return ReadProblem(trace_source, f"no GenAI model call or execute_tool span{detail}")

    # (position, step, agent scope, requested calls) per model call, in order.
    entries: list[tuple[int, Step, str | None, list[ToolCall]]] = []
    step_of: dict[str, int] = {}
    # Each step's span, its reply and its entry, by what the reply said (its text and the
    # names of the calls it asked for): a span looks only among those it could record again.
    replies: dict[_Said, list[tuple[Span, _Reply, int]]] = {}
    for span in model_spans:
        agent = _nearest(span, by_id, "agent")
        reading = span.reading
        if reading is not None:
            text, requested, usage = reading.text, reading.calls, reading.usage
            own_agent = span.text("gen_ai.agent.name") or reading.agent
        else:
            outputs = genai_messages(span.attributes.get("gen_ai.output.messages"), "assistant")
            adk_reply = adk_parts(span, ADK_RESPONSE)
            text = output_text(outputs) if outputs else adk_text(adk_reply)
            requested = requested_calls(outputs) if outputs else adk_calls(adk_reply)
            usage = genai_usage(span.attributes)
            own_agent = span.text("gen_ai.agent.name")
        reply = _reply(text, requested)
        twin = _twin(span, reply, replies, by_id)
        if twin is not None:  # the same call recorded again: no step of its own
            if not entries[twin][1].usage.recorded:
                entries[twin][1].usage = usage
            for kept, again in zip(entries[twin][3], requested, strict=True):
                kept.call_id = kept.call_id or again.call_id
            if span.span_id is not None:
                step_of[span.span_id] = twin
            continue
        if reply is not None:
            replies.setdefault(_said(reply), []).append((span, reply, len(entries)))
        step = Step(
            index=0,
            text=text,
            usage=usage,
            duration_ms=_duration(span),
            node=own_agent if own_agent else (_agent_name(agent) if agent else None),
        )
        if span.span_id is not None:
            step_of[span.span_id] = len(entries)
        entries.append((span.rank, step, _scope(agent), requested))

    tool_entries: list[tuple[int, Step, str | None, list[ToolCall]]] = []
    with_tool_spans: set[int] = set()
    for span in tool_spans:
        call = _tool_call(span)
        if span.error is not None and call.result is None:
            call.result = {"error": span.error}  # as a failed tool run reads elsewhere
        owner = _owning_step(span, by_id, step_of, entries)
        if owner is None:
            agent = _nearest(span, by_id, "agent")
            node = span.text("gen_ai.agent.name") or (_agent_name(agent) if agent else None)
            step = Step(index=0, tool_calls=[call], duration_ms=_duration(span), node=node)
            tool_entries.append((span.rank, step, None, []))
            continue
        _, step, _, requested = entries[owner]
        if call.args is None and call.call_id is not None:
            asked = next((c for c in requested if c.call_id == call.call_id), None)
            if asked is not None:
                call.args = asked.args
        step.tool_calls.append(call)
        with_tool_spans.add(owner)
    for position, (_, step, _, requested) in enumerate(entries):
        if position not in with_tool_spans:
            step.tool_calls = requested
    # Without tool spans, a call's result travels in a later request: a `tool_call_response`
    # part of `gen_ai.input.messages`, a tool message of another convention, or a
    # `function_response` part of ADK's request.
    waiting = [
        call
        for _, step, _, _ in entries
        for call in step.tool_calls
        if call.result is None and call.call_id is not None
    ]
    responses = _tool_responses(model_spans) if waiting else {}
    for call in waiting:
        if call.call_id in responses:
            call.result = responses[call.call_id]

    steps = [step for _, step, _, _ in sorted(entries + tool_entries, key=lambda e: e[0])]
    for index, step in enumerate(steps):
        step.index = index

    outermost = [a for a in agent_spans if _nearest(a, by_id, "agent") is None]
    # Chains, workflows and tasks at the root of the trace: their input and output stand for
    # the question and answer when nothing nearer records them.
    roots = [s for s in spans if s.role == "chain" and not _ancestors(s, by_id)]
    usage = Usage()
    for step in steps:
        usage = usage + step.usage
    if not usage.recorded:
        for agent in outermost:
            usage = usage + genai_usage(agent.attributes)

    answer = next((s.text for s in reversed(steps) if s.text and s.text.strip()), None)
    if answer is None:
        # Agents before root chains; the latest to end first.
        latest = sorted([*outermost, *roots], key=lambda s: (s.role == "agent", s.end or 0, s.rank))
        for outer in reversed(latest):
            said = outer.attributes.get("gen_ai.output.messages")
            answer = output_text(genai_messages(said, "assistant"))
            if answer is None and outer.reading is not None:
                answer = outer.reading.answer_text()
            if answer is not None:
                break

    question = None
    for span in [*model_spans, *agent_spans, *roots]:
        request = span.attributes.get("gen_ai.input.messages")
        question = first_user_text(genai_messages(request, "user"))
        if question is None and span.reading is not None:
            question = span.reading.question_text()
        if question is None:
            question = adk_question(span)
        if question is not None:
            break
    question = _asked_of_the_whole(question, spans, by_id)

    model = None
    for span in [*model_spans, *agent_spans]:
        model = span.text("gen_ai.response.model") or span.text("gen_ai.request.model")
        if model is None and span.reading is not None:
            model = span.reading.model
        if model is not None:
            break

    service = next((s.resource.get("service.name") for s in spans if s.resource), None)
    starts = [s.start for s in spans if s.start is not None]
    ends = [s.end for s in spans if s.end is not None]
    duration = (
        (max(ends) - min(starts)) / 1e6 if starts and ends and max(ends) >= min(starts) else None
    )
    run = Trajectory(
        run_id=trace_id or None,
        runner=service if isinstance(service, str) else None,
        model=model,
        question=question,
        answer=answer,
        steps=steps,
        usage=usage,
        duration_ms=duration,
        source=trace_source,
        notes=_unread_notes(spans)
        + [
            f"not read: {n} {kind}{'' if n == 1 else 's'} {name}".rstrip()
            for (kind, name), n in unread_events.items()
        ],
    )
    _failures(run, spans, by_id)
    return run


def _failures(run: Trajectory, spans: list[Span], by_id: dict[str, Span]) -> None:
    """A failed root span fails the run (never scored); other failed spans but tools (whose
    results say it) are noted, one line each."""
    for span in spans:
        if span.error is None or span.role == "tool":
            continue
        if not _ancestors(span, by_id) and run.error is None:
            run.error = f"trace error: span {span.name!r} failed: {span.error}"[:1000]
            run.error_kind = "agent_error"
        else:
            run.notes.append(f"span {span.name!r} failed: {span.error}"[:1000])


def _convention(span: Span) -> tuple[Role | None, Reading | None]:
    """What the span is, asking the conventions in turn: GenAI (`gen_ai.operation.name`),
    then OpenInference, then OpenLLMetry. A GenAI model call that records its messages in
    OpenLLMetry's indexed attributes rather than GenAI's is read as OpenLLMetry's."""
    operation = span.operation
    attributes = span.attributes
    if operation in _MODEL_OPERATIONS:
        if (
            "gen_ai.output.messages" not in attributes
            and "gen_ai.input.messages" not in attributes
            and ADK_RESPONSE not in attributes
            and _openllmetry.has_messages(attributes)
        ):
            return "model", _openllmetry.model_call(attributes, operation or "chat")
        return "model", None
    if operation == _TOOL_OPERATION:
        return "tool", None
    if operation == _AGENT_OPERATION:
        return "agent", None
    reading = _openinference.read(attributes, span.name) or _openllmetry.read(attributes, span.name)
    if reading is None:
        foreign = attributes.get(_exports.FOREIGN_KIND)
        if isinstance(foreign, str) and foreign:
            reading = Reading(None, foreign)
    return (None, None) if reading is None else (reading.role, reading)


def _unread_notes(spans: list[Span]) -> list[str]:
    """One note per kind of span a convention names but assay does not read."""
    unread: dict[str, int] = {}
    for span in spans:
        if span.reading is not None and span.role is None:
            unread[span.reading.kind] = unread.get(span.reading.kind, 0) + 1
    return [
        f"not read: {n} span{'' if n == 1 else 's'} of kind {kind}" for kind, n in unread.items()
    ]


def _agent_name(span: Span) -> str | None:
    name = span.text("gen_ai.agent.name")
    if name is None and span.reading is not None:
        name = span.reading.agent
    return name


def _position(span: Span) -> tuple[bool, int, int]:
    # Spans without a start time keep their file order, after the timed ones.
    return (span.start is None, span.start or 0, span.order)


def _ancestors(span: Span, by_id: dict[str, Span]) -> list[Span]:
    chain: list[Span] = []
    seen = {span.span_id}
    parent = span.parent_id
    while parent is not None and parent not in seen:  # a cycle in hostile data ends here
        seen.add(parent)
        found = by_id.get(parent)
        if found is None:
            break
        chain.append(found)
        parent = found.parent_id
    return chain


def _asked_of_the_whole(question: str | None, spans: list[Span], by_id: dict[str, Span]) -> (
    str | None
):
    """The input of an outermost chain or agent (none of its ancestors a span any convention
    reads) where the question found is a prompt built around it: a RAG chain fills its
    model's prompt with retrieved context, and what the user asked is the chain's input."""
    if question is None:
        return None
    for span in spans:
        if span.role not in ("chain", "agent") or span.reading is None:
            continue
        if any(ancestor.role is not None for ancestor in _ancestors(span, by_id)):
            continue
        asked = span.reading.question_text()
        if asked is not None and asked.strip() and asked != question and asked in question:
            return asked
    return question


_Reply = tuple[str | None, list[ToolCall]]
"""What a model call answered: its text and the calls it asked for."""


def _reply(text: str | None, requested: list[ToolCall]) -> _Reply | None:
    if not requested and not (text and text.strip()):
        return None  # an empty reply tells nothing apart
    return text, requested


_Said = tuple[str | None, tuple[str, ...]]
_TWIN_LOOKBACK = 8


def _said(reply: _Reply) -> _Said:
    return reply[0], tuple(call.name for call in reply[1])


def _same_reply(one: _Reply, other: _Reply) -> bool:
    """The same text and the same calls (names and arguments; ids where both recorded one:
    LangChain's instrumentor records none)."""
    if one[0] != other[0] or len(one[1]) != len(other[1]):
        return False
    try:
        return all(
            a.name == b.name
            and json_or_text(a.args) == json_or_text(b.args)
            and (None in (a.call_id, b.call_id) or a.call_id == b.call_id)
            for a, b in zip(one[1], other[1], strict=True)
        )
    except RecursionError:  # arguments nested past what `==` walks: not shown to be one call
        return False


def _twin(
    span: Span,
    reply: _Reply | None,
    replies: dict[_Said, list[tuple[Span, _Reply, int]]],
    by_id: dict[str, Span],
) -> int | None:
    """The entry of the model call this span records again, if it does: a call with the same
    reply that the span lies within, as its child or in time (two instrumentors, LangChain's
    and the OpenAI SDK's, each record the one call: a real trace nests them, or leaves the
    SDK's span beside LangChain's when their contexts are not linked)."""
    if reply is None:
        return None
    # The span recorded first starts just before its twin: only the latest few with the same
    # reply are looked at, so that a trace of many identical calls stays linear.
    for earlier, said, index in reversed(replies.get(_said(reply), [])[-_TWIN_LOOKBACK:]):
        if _same_reply(said, reply) and (
            earlier in _ancestors(span, by_id) or _within(span, earlier)
        ):
            return index
    return None


def _within(span: Span, outer: Span) -> bool:
    if None in (span.start, span.end, outer.start, outer.end):
        return False
    return outer.start <= span.start and span.end <= outer.end  # type: ignore[operator]


def _nearest(span: Span, by_id: dict[str, Span], role: Role) -> Span | None:
    return next((a for a in _ancestors(span, by_id) if a.role == role), None)


def _scope(agent: Span | None) -> str | None:
    return None if agent is None else (agent.span_id or f"#{agent.order}")


def _owning_step(
    span: Span,
    by_id: dict[str, Span],
    step_of: dict[str, int],
    entries: list[tuple[int, Step, str | None, list[ToolCall]]],
) -> int | None:
    for ancestor in _ancestors(span, by_id):
        if ancestor.span_id is not None and ancestor.span_id in step_of:
            return step_of[ancestor.span_id]
    scope = _scope(_nearest(span, by_id, "agent"))
    before = [i for i, (rank, _, _, _) in enumerate(entries) if rank < span.rank]
    same_agent = [i for i in before if entries[i][2] == scope]
    if same_agent:
        return same_agent[-1]
    return before[-1] if before else None


def _tool_call(span: Span) -> ToolCall:
    if span.reading is not None and span.reading.tool is not None:
        return span.reading.tool
    name = span.text("gen_ai.tool.name")
    if name is None and span.name.startswith("execute_tool "):
        name = span.name[len("execute_tool ") :].strip()
    arguments = span.attributes.get("gen_ai.tool.call.arguments")
    if arguments is None:
        arguments = span.attributes.get("gcp.vertex.agent.tool_call_args")
    result = span.attributes.get("gen_ai.tool.call.result")
    if result is None:
        result = json_or_text(span.attributes.get("gcp.vertex.agent.tool_response"))
    return ToolCall(
        name=name or "",
        args=tool_args(arguments),
        call_id=id_text(span.attributes.get("gen_ai.tool.call.id")),
        result=result,
    )


def _tool_responses(model_spans: list[Span]) -> dict[str, Any]:
    """Tool results by call id, as later requests carry them."""
    found: dict[str, Any] = {}
    for span in model_spans:
        if span.reading is not None:
            for answered_id, result in span.reading.tool_responses().items():
                found.setdefault(answered_id, result)
        for message in genai_messages(span.attributes.get("gen_ai.input.messages"), "user"):
            for part in genai_parts(message):
                if isinstance(part, dict) and part.get("type") == "tool_call_response":
                    call_id = id_text(part.get("id"))
                    if call_id is not None:
                        found.setdefault(call_id, part.get("response", part.get("result")))
        for content in adk_contents(span):
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                answered = part.get("function_response") if isinstance(part, dict) else None
                if isinstance(answered, dict):
                    call_id = id_text(answered.get("id"))
                    if call_id is not None:
                        found.setdefault(call_id, answered.get("response"))
    return found


def _duration(span: Span) -> float | None:
    if span.start is None or span.end is None or span.end < span.start:
        return None
    return (span.end - span.start) / 1e6


# --- reading files -------------------------------------------------------------------------

NAME = "otel"
"""The reader's name (`--from otel`)."""

_SPAN_FIELDS = ("traceId", "trace_id", "spanId", "span_id")


def _sniff(name: str, value: Any) -> bool:
    if isinstance(value, dict):
        if any(key in value for key in (*EXPORT_FIELDS, *LOG_FIELDS)) or _other_container(value):
            return True
        # A chat log may carry a trace id; its messages are for the chat readers. So does a
        # LangSmith run (`run_type`), which is the LangSmith reader's.
        return "messages" not in value and "run_type" not in value and (
            any(key in value for key in _SPAN_FIELDS) or ("context" in value and "name" in value)
        )
    first = first_item(value)
    return (
        isinstance(first, dict)
        and "run_type" not in first
        and (
            any(key in first for key in (*_SPAN_FIELDS, *EXPORT_FIELDS, *LOG_FIELDS))
            or _other_container(first)
            or _console_span(first)
        )
    )


def _console_span(value: dict[str, Any]) -> bool:
    """Whether an object is a span as the SDK's console exporter writes it (a list of them is
    what `split_concatenated` makes of its file)."""
    context = value.get("context")
    return "name" in value and isinstance(context, dict) and "trace_id" in context


def _other_container(value: dict[str, Any]) -> bool:
    """Tempo's `batches`, Jaeger's or the OpenAI Agents SDK's `data`, an MLflow trace, one
    exported Agents SDK trace or span, or an OTLP export wrapped by Tempo's or Jaeger's API."""
    if isinstance(value.get("batches"), list):
        return True
    inner = value.get("data")
    if _exports.is_jaeger(inner) or _openai_agents.is_export(inner) or _exports.is_jaeger([value]):
        return True
    if _exports.is_mlflow(value) or _openai_agents.is_item(value):
        return True
    return any(
        isinstance(value.get(wrapper), dict)
        and any(key in value[wrapper] for key in EXPORT_FIELDS)
        for wrapper in ("trace", "result")
    )


def _read(value: Any, source: str) -> Iterator[Trajectory | ReadProblem]:
    return named(trajectories_from_otlp(value, source))


register_reader(
    NAME,
    _sniff,
    _read,
    lines="together",
    description=(
        "OpenTelemetry spans (GenAI, OpenInference, OpenLLMetry) as OTLP JSON; Jaeger, Tempo, "
        "MLflow and OpenAI Agents SDK trace exports"
    ),
)
