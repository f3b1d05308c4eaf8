"""What a model client takes and gives back, and how a call can fail.

Judges speak to models through one small protocol, `ModelClient`: an async `complete` that
takes a `ChatRequest` and returns a `ChatResponse`, or raises a `ModelError` subclass. The
HTTP client, the cache and test doubles all implement it, so a judge never knows which one it
has.

Example:
    >>> request = ChatRequest(
    ...     model="openai/gpt-4.1-mini",
    ...     messages=({"role": "user", "content": "Say OK"},),
    ...     json_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}},
    ... )
    >>> request.provider, request.model_name
    ('openai', 'gpt-4.1-mini')
    >>> ChatResponse(text='{"ok": true}', usage=TokenUsage(12, 3)).usage.total
    15
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from assay.records import ToolCall


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat-completions request, everything that decides the reply included.

    Two requests that are equal ask for the same reply: the cache keys on all of these fields
    (plus the sample index), so nothing that changes the answer may live outside them.
    """

    model: str
    """`provider/model`, e.g. `openai/gpt-4.1-mini` or `litellm_proxy/Azure/gpt-5-mini`."""

    messages: Sequence[Mapping[str, Any]]
    """Chat messages (`{"role", "content"}`), sent as given."""

    json_schema: Mapping[str, Any] | None = None
    """When set, the reply must be JSON matching this schema; sent as `response_format` of
    type `json_schema` (strict)."""

    schema_name: str = "verdict"
    """Name of the schema in `response_format`."""

    temperature: float | None = 0.0
    """Sampling temperature; None leaves it to the server."""

    max_tokens: int | None = None
    """Reply length limit; None leaves it to the server."""

    seed: int | None = None
    """Sampling seed, for servers that honour one."""

    sample: int = 0
    """Which sample this is when a judge asks the same question several times (`num_samples`):
    part of the cache key, so that samples are not served from one another's replies."""

    tools: Sequence[Mapping[str, Any]] = ()
    """Tools the model may call, as OpenAI function tools (`{"type": "function", "function":
    {"name", "description", "parameters"}}`), sent as given; empty for none. Part of the cache
    key only when not empty, so that the keys of requests without tools stay what they were."""

    tool_choice: str | Mapping[str, Any] | None = None
    """`auto`, `none`, `required` or `{"type": "function", "function": {"name": ...}}`; None
    leaves it to the server."""

    @property
    def provider(self) -> str:
        """The part before the first `/` (`openai` when there is none)."""
        head, sep, _ = self.model.partition("/")
        return head if sep else "openai"

    @property
    def model_name(self) -> str:
        """The model as the provider's server knows it: everything after the provider."""
        _, sep, rest = self.model.partition("/")
        return rest if sep else self.model


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens one call used, as the server reported them."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """A model's reply to one request."""

    text: str
    """The reply's content (the JSON text, when a schema was asked for); "" when the model
    only asked for tool calls."""

    usage: TokenUsage = field(default_factory=TokenUsage)
    """Tokens the call used (from the server, or recorded with the cached reply)."""

    model: str = ""
    """The model that answered, as the server named it."""

    cost_usd: float | None = None
    """Estimated cost of the call; None when the model is not in the price table."""

    cached: bool = False
    """True when the reply came from the cache: no call was made, nothing was spent."""

    latency_ms: float = 0.0
    """Wall time of the call, retries and waits included (0 for a cached reply)."""

    attempts: int = 1
    """HTTP attempts the call took (retries after 429, 5xx or timeouts count)."""

    tool_calls: tuple[ToolCall, ...] = ()
    """The tool calls the model asked for, in order (`message.tool_calls`): each with its
    name, its arguments (a dict when they are a JSON object, else the raw text) and its id;
    no `result`. Empty when it asked for none."""

    on_confirm: Callable[[bool], Awaitable[None]] | None = field(
        default=None, compare=False, repr=False
    )
    """Set by a client that keeps replies (the cache): called by `confirm`. None: there is
    nothing to keep or drop."""

    async def confirm(self, usable: bool) -> None:
        """Say whether the reply was usable, once its user has checked it.

        Only the user of a reply knows whether it is any good (a judge: whether it parsed
        into a verdict), so a caching client stores a new reply only when it is confirmed
        usable, and drops a stored one confirmed unusable. Any other reply ignores this.

        Example:
            >>> import asyncio
            >>> asyncio.run(ChatResponse("OK").confirm(True))  # nothing to keep: no-op
        """
        if self.on_confirm is not None:
            await self.on_confirm(usable)


class ModelError(Exception):
    """A model call that gave no usable reply. Judges turn it into an unscored result."""

    kind = "model_error"
    """Short machine-readable name, recorded in a score's details."""


class ModelTimeout(ModelError):  # noqa: N818 (reads as the condition it reports)
    """Every attempt timed out, or the call's time bound ran out during one."""

    kind = "timeout"


class ModelRateLimited(ModelError):  # noqa: N818
    """The server kept answering 429 until the retries ran out, or asked to wait (`Retry-After`)
    longer than the call's time bound allows."""

    kind = "rate_limited"


class ModelHTTPError(ModelError):
    """The server answered with an error status that retrying cannot fix, or kept failing."""

    kind = "http_error"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ModelResponseError(ModelError):
    """The server answered, but the reply cannot be used: a body that is not JSON, neither
    `choices[0].message.content` nor tool calls, a tool call without a name, a refusal, or a
    body over the client's size limit."""

    kind = "bad_response"


class ModelConfigError(ModelError):
    """The client cannot be set up: no base URL or key for the provider, an unknown provider."""

    kind = "config"


class BudgetExceeded(ModelError):  # noqa: N818
    """The evaluation's token or cost budget is spent; no new call is made."""

    kind = "budget"


class CacheMiss(ModelError):  # noqa: N818
    """Replay mode: the reply is not in the cache, and calling the model is not allowed."""

    kind = "cache_miss"


@runtime_checkable
class ModelClient(Protocol):
    """Anything that can answer a chat request: the HTTP client, the cache around it, a fake."""

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """The reply to `request`.

        Raises:
            ModelError: no usable reply (after the client's own retries).
        """
        ...

    async def aclose(self) -> None:
        """Release connections and files."""
        ...
