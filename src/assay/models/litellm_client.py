"""Judges on any provider LiteLLM knows (Anthropic, Bedrock, Vertex, Mistral, ...), through the
optional `litellm` extra (`pip install litellm`).

Name such a judge `litellm/<model as LiteLLM names it>`, e.g. `litellm/anthropic/claude-3-5-haiku-
latest`; LiteLLM reads the provider's own environment variables (`ANTHROPIC_API_KEY`, ...).
This is the LiteLLM library in this process; a LiteLLM *proxy* is an OpenAI-compatible server
and is reached over HTTP as `litellm_proxy/<model>` instead.

LiteLLM makes the call and its own retries; this client keeps to the same contract as the
HTTP client: a per-model concurrency cap, the evaluation's budget, usage and cost accounting,
a bound on the whole call (`call_timeout`, LiteLLM's retries and waits included), and every
failure turned into a `ModelError` of the right kind.

Example:
    >>> import asyncio
    >>> from types import SimpleNamespace as Obj
    >>> async def fake_completion(**kwargs):  # stands in for litellm.acompletion
    ...     message = Obj(content='{"ok": true}')
    ...     return Obj(choices=[Obj(message=message)], model=kwargs["model"],
    ...                usage=Obj(prompt_tokens=12, completion_tokens=3))
    >>> client = LiteLLMClient(completion=fake_completion)
    >>> hi = ({"role": "user", "content": "Say OK"},)
    >>> reply = asyncio.run(client.complete(
    ...     ChatRequest(model="litellm/anthropic/claude-3-5-haiku-latest", messages=hi)))
    >>> reply.text, reply.model, reply.usage.total
    ('{"ok": true}', 'anthropic/claude-3-5-haiku-latest', 15)
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from importlib import import_module
from importlib.util import find_spec
from typing import Any

from assay.limits import JUDGE_CALL_TIMEOUT_S, MAX_TOKEN_COUNT
from assay.models._tool_calls import read_tool_calls
from assay.models.budget import Budget, JudgeUsage
from assay.models.pricing import estimate_cost_usd
from assay.models.types import (
    ChatRequest,
    ChatResponse,
    ModelConfigError,
    ModelError,
    ModelHTTPError,
    ModelRateLimited,
    ModelResponseError,
    ModelTimeout,
    TokenUsage,
)
from assay.records import ToolCall

__all__ = ["PREFIX", "LiteLLMClient"]

PREFIX = "litellm/"
"""Model names that go through the LiteLLM library start with this."""

INSTALL_HINT = "pip install litellm"


def require_litellm() -> None:
    """Raise `ModelConfigError` now, before any run is scored, when LiteLLM is not installed
    (found without importing it: the import takes seconds)."""
    if find_spec("litellm") is None:
        raise ModelConfigError(f"judges named {PREFIX}... need the LiteLLM library: {INSTALL_HINT}")

Completion = Callable[..., Awaitable[Any]]


def _litellm_completion() -> Completion:
    """`litellm.acompletion`, imported on first use (it takes seconds to import)."""
    # Without this LiteLLM fetches its price map from the internet on import: no network
    # call may happen unless a model is being asked something.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        litellm = import_module("litellm")  # an optional extra: no stubs needed for it
    except ImportError:
        raise ModelConfigError(
            f"judges named {PREFIX}... need the LiteLLM library: {INSTALL_HINT}"
        ) from None
    completion: Completion = litellm.acompletion
    return completion


class LiteLLMClient:
    """A `ModelClient` that asks through `litellm.acompletion`."""

    def __init__(
        self,
        *,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        call_timeout: float | None = JUDGE_CALL_TIMEOUT_S,
        max_retries: int = 4,
        max_concurrency: int = 8,
        prices: Mapping[str, tuple[float, float]] | None = None,
        budget: Budget | None = None,
        usage: JudgeUsage | None = None,
        completion: Completion | None = None,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, not {timeout}")
        if call_timeout is not None and not call_timeout > 0:
            raise ValueError(f"call_timeout must be > 0 seconds, not {call_timeout}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, not {max_retries}")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, not {max_concurrency}")
        self.api_base = api_base
        self._api_key = api_key
        self.timeout = float(timeout)
        self.call_timeout = None if call_timeout is None else float(call_timeout)
        self.max_retries = max_retries
        self.max_concurrency = max_concurrency
        self.prices = prices
        self.budget = budget
        self.usage = usage if usage is not None else JudgeUsage()
        self._completion = completion
        self._slots: dict[str, asyncio.Semaphore] = {}

    def __repr__(self) -> str:
        key = "<set>" if self._api_key else "None"
        return f"LiteLLMClient(api_base={self.api_base!r}, api_key={key})"

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Ask LiteLLM; the reply, or a `ModelError` of the kind that failed."""
        model = request.model
        if self.budget is not None:
            self.budget.check()
        completion = self._completion or _litellm_completion()
        slot = self._slots.setdefault(model, asyncio.Semaphore(self.max_concurrency))
        async with slot:
            if self.budget is not None:
                self.budget.check()  # it may have run out while this call waited
            started = time.perf_counter()
            try:
                try:
                    async with asyncio.timeout(self.call_timeout):
                        reply = await completion(**self._arguments(request))
                except TimeoutError:
                    raise ModelTimeout(
                        f"{model}: call gave up after {time.perf_counter() - started:.1f} s: "
                        f"no time left of the {self.call_timeout:g} s call bound"
                    ) from None
                text, usage, served_by, tool_calls = _read(model, reply)
            except ModelError as err:
                self.usage.record_error(model, err, 1)
                raise
            except Exception as exc:
                failure = _as_model_error(model, exc)
                self.usage.record_error(model, failure, 1)
                raise failure from None
            response = ChatResponse(
                text=text,
                usage=usage,
                model=served_by,
                cost_usd=estimate_cost_usd(
                    model, usage.input_tokens, usage.output_tokens, self.prices
                ),
                latency_ms=(time.perf_counter() - started) * 1000.0,
                tool_calls=tool_calls,
            )
            self.usage.record(model, response)
            if self.budget is not None:
                self.budget.record(response.usage, response.cost_usd)
        return response

    async def aclose(self) -> None:
        """Nothing to release: LiteLLM keeps its own connections."""

    def _arguments(self, request: ChatRequest) -> dict[str, Any]:
        name = request.model[len(PREFIX) :] if request.model.startswith(PREFIX) else request.model
        arguments: dict[str, Any] = {
            "model": name,
            "messages": [dict(message) for message in request.messages],
            "timeout": self.timeout,
            "num_retries": self.max_retries,
        }
        if request.tools:
            arguments["tools"] = [dict(tool) for tool in request.tools]
        if request.tool_choice is not None:
            arguments["tool_choice"] = request.tool_choice
        if request.json_schema is not None:
            arguments["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": request.schema_name,
                    "schema": dict(request.json_schema),
                    "strict": True,
                },
            }
        for key, value in (
            ("temperature", request.temperature),
            ("max_tokens", request.max_tokens),
            ("seed", request.seed),
            ("api_base", self.api_base),
            ("api_key", self._api_key),
        ):
            if value is not None:
                arguments[key] = value
        return arguments


def _read(model: str, reply: Any) -> tuple[str, TokenUsage, str, tuple[ToolCall, ...]]:
    choices = getattr(reply, "choices", None)
    first = choices[0] if isinstance(choices, list) and choices else None
    message = getattr(first, "message", None)
    content = getattr(message, "content", None)
    tool_calls = read_tool_calls(model, _plain_calls(getattr(message, "tool_calls", None)))
    if content is None and tool_calls:
        content = ""  # a reply that only asks for tool calls has no content
    if not isinstance(content, str):
        raise ModelResponseError(f"{model}: reply has no choices[0].message.content")
    usage = getattr(reply, "usage", None)
    tokens = TokenUsage(
        _count(getattr(usage, "prompt_tokens", 0)), _count(getattr(usage, "completion_tokens", 0))
    )
    served_by = getattr(reply, "model", "")
    return content, tokens, served_by if isinstance(served_by, str) else "", tool_calls


def _plain_calls(items: Any) -> Any:
    """LiteLLM's tool call objects as the dicts of a chat-completions reply."""
    if not isinstance(items, list):
        return items
    plain = []
    for item in items:
        function = getattr(item, "function", None)
        plain.append(
            {
                "id": getattr(item, "id", None),
                "function": {
                    "name": getattr(function, "name", None),
                    "arguments": getattr(function, "arguments", None),
                },
            }
        )
    return plain


def _count(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_TOKEN_COUNT:
        return value
    return 0  # absent, not a count, or past MAX_TOKEN_COUNT (a broken figure)


def _as_model_error(model: str, exc: Exception) -> ModelError:
    """LiteLLM's exceptions (named after OpenAI's) as assay's kinds, without importing them."""
    kind = type(exc).__name__
    message = f"{model}: {kind}: {exc}"[:500]
    if kind == "RateLimitError":
        return ModelRateLimited(message)
    if "Timeout" in kind:
        return ModelTimeout(message)
    status = getattr(exc, "status_code", None)
    return ModelHTTPError(message, status=status if isinstance(status, int) else None)
