"""From a `provider/model` name to a client: where the server is and which key it takes.

| provider         | base URL                                         | API key                |
| ---------------- | ------------------------------------------------ | ---------------------- |
| `openai`         | `OPENAI_BASE_URL`, else `https://api.openai.com/v1` | `OPENAI_API_KEY`    |
| `litellm_proxy`  | `LITELLM_BASE_URL` (required)                    | `LITELLM_API_KEY`      |
| any other, `x`   | `X_BASE_URL` (required)                          | `X_API_KEY` (optional) |

A model without a `provider/` prefix is an `openai` model. Arguments win over the
environment. The key is needed only for OpenAI's own endpoint; local servers (vLLM, Ollama,
llama.cpp) usually take none. A key never appears in an error message or a repr.

Example:
    >>> client = client_for("vllm/Qwen2.5-7B", env={"VLLM_BASE_URL": "http://127.0.0.1:8000/v1"})
    >>> client.url
    'http://127.0.0.1:8000/v1/chat/completions'
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from assay.models.openai_compat import OpenAICompatibleClient
from assay.models.types import ModelConfigError

if TYPE_CHECKING:
    from assay.models.litellm_client import LiteLLMClient

__all__ = ["OPENAI_DEFAULT_BASE_URL", "client_for", "endpoint_for", "provider_env_names"]

OPENAI_DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
"""Where `openai/...` models go when `OPENAI_BASE_URL` is not set."""

# Providers whose variables do not follow the `<PROVIDER>_BASE_URL` rule.
_ENV_PREFIX: Final = {"litellm_proxy": "LITELLM"}


def provider_env_names(provider: str) -> tuple[str, str]:
    """The environment variables that hold a provider's base URL and API key.

    Args:
        provider: The part of a model name before the first `/`.

    Returns:
        `(base_url_variable, api_key_variable)`.

    Example:
        >>> provider_env_names("litellm_proxy")
        ('LITELLM_BASE_URL', 'LITELLM_API_KEY')
        >>> provider_env_names("my-vllm")
        ('MY_VLLM_BASE_URL', 'MY_VLLM_API_KEY')
    """
    key = provider.strip().lower()
    prefix = _ENV_PREFIX.get(key) or re.sub(r"[^A-Z0-9]+", "_", key.upper()).strip("_")
    return f"{prefix}_BASE_URL", f"{prefix}_API_KEY"


LITELLM_PREFIX = "litellm/"
"""Judge models named with this prefix are asked through the LiteLLM library."""


def client_for(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] | None = None,
    **options: Any,
) -> OpenAICompatibleClient | LiteLLMClient:
    """A client for `model`'s provider, configured from the arguments and the environment.

    `litellm/<model>` goes through the LiteLLM library (the `litellm` extra) for providers
    that do not speak the OpenAI protocol; every other name through the HTTP client.

    Args:
        model: `provider/model`, e.g. `openai/gpt-4.1-mini` or
            `litellm_proxy/Azure/gpt-5-mini-2025-08-07`; no prefix means `openai`.
        base_url: The server's API root; wins over the environment.
        api_key: The key; wins over the environment.
        env: Where to read variables; `os.environ` when None.
        **options: Passed to `OpenAICompatibleClient` (`timeout`, `call_timeout`,
            `max_retries`, `max_concurrency`, `prices`, `budget`, `usage`, ...).

    Returns:
        A client that makes no request until it is asked to complete one.

    Raises:
        ModelConfigError: the model name is empty, or no base URL (or, for OpenAI's own
            endpoint, no key) was found; the message names the variables to set.

    Example:
        >>> env = {"OPENAI_API_KEY": "sk-test"}
        >>> client_for("openai/gpt-4.1-mini", env=env).url
        'https://api.openai.com/v1/chat/completions'
        >>> client_for("ollama/llama3.1", env={})
        Traceback (most recent call last):
            ...
        assay.models.types.ModelConfigError: no base URL for provider 'ollama' (model \
'ollama/llama3.1'): set OLLAMA_BASE_URL (and OLLAMA_API_KEY if the server needs a key), \
or pass base_url=
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    if model.strip().startswith(LITELLM_PREFIX):
        # The LiteLLM library, in this process: it reads the provider's own variables.
        from assay.models.litellm_client import LiteLLMClient, require_litellm

        require_litellm()
        allowed = {
            "timeout",
            "call_timeout",
            "max_retries",
            "max_concurrency",
            "prices",
            "budget",
            "usage",
        }
        return LiteLLMClient(
            api_base=base_url,
            api_key=api_key,
            **{key: value for key, value in options.items() if key in allowed},
        )
    name, provider, url = _server(model, base_url, environ)
    key_var = provider_env_names(provider)[1]
    key = _given(api_key) or _given(environ.get(key_var))
    if key is None and url.rstrip("/") == OPENAI_DEFAULT_BASE_URL:
        raise ModelConfigError(
            f"no API key for {name!r} at {OPENAI_DEFAULT_BASE_URL}: set {key_var}, or pass api_key="
        )
    return OpenAICompatibleClient(url, api_key=key, **options)


def endpoint_for(
    model: str, *, base_url: str | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The base URL `client_for` would send `model`'s requests to, found the same way but
    needing no key: what tells one judge server from another (the cache keys on it).

    For `litellm/<model>` it is `base_url`, or "" when LiteLLM picks the provider's own.

    Raises:
        ModelConfigError: as `client_for`, when no base URL is found.

    Example:
        >>> endpoint_for("vllm/qwen", env={"VLLM_BASE_URL": "http://gpu-1:8000/v1"})
        'http://gpu-1:8000/v1'
        >>> endpoint_for("openai/gpt-4.1-mini", env={})
        'https://api.openai.com/v1'
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    if model.strip().startswith(LITELLM_PREFIX):
        return _given(base_url) or ""
    return _server(model, base_url, environ)[2]


def _server(
    model: str, base_url: str | None, environ: Mapping[str, str]
) -> tuple[str, str, str]:
    """`(model name, provider, base URL)` of an OpenAI-compatible `model`.

    Raises:
        ModelConfigError: a malformed model name, or no base URL for its provider.
    """
    name = model.strip()
    head, sep, rest = name.partition("/")
    provider = head.strip().lower() if sep else "openai"
    if not name or (sep and (not provider or not rest.strip())):
        raise ModelConfigError(
            f"model must be 'provider/model' (e.g. 'openai/gpt-4.1-mini'), not {model!r}"
        )
    url_var, key_var = provider_env_names(provider)
    url = _given(base_url) or _given(environ.get(url_var))
    if url is None and provider == "openai":
        url = OPENAI_DEFAULT_BASE_URL
    if url is None:
        raise ModelConfigError(
            f"no base URL for provider {provider!r} (model {name!r}): set {url_var} "
            f"(and {key_var} if the server needs a key), or pass base_url="
        )
    return name, provider, url


def _given(value: str | None) -> str | None:
    """`value` stripped, or None when it is missing or blank (an empty variable is unset)."""
    if value is None:
        return None
    value = value.strip()
    return value or None
