"""The model client a judge gets when none is given: the HTTP client for the model's provider,
behind the persistent cache.

Example:
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> make = default_client_factory("openai/gpt-4.1-mini", cache="replay", cache_dir=folder)
    >>> type(make()).__name__
    'CachedClient'
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.models.budget import Budget
from assay.models.types import ModelClient

if TYPE_CHECKING:
    from assay.scorers._judge import ClientFactory

CACHE_SETTINGS = ("read_write", "replay", "refresh", "off")


def default_client_factory(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    cache: str = "read_write",
    cache_dir: str | Path | None = None,
    timeout_s: float | None = None,
    call_timeout_s: float | None = None,
    max_retries: int | None = None,
    max_concurrency: int | None = None,
    budget: Budget | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
    env: Mapping[str, str] | None = None,
) -> ClientFactory:
    """A factory of clients for `model`, checked now: a missing base URL or key fails here,
    before any run is read, rather than once per run.

    Args:
        model: `provider/model`.
        base_url: The server's API root (default: from the provider's environment variables).
        api_key: The key (default: from the environment).
        cache: `read_write` (default), `replay` (a miss is an error, nothing is sent: for CI),
            `refresh` (always ask, overwrite) or `off`.
        cache_dir: Where the cache file lives (default: `assay.models.cache.default_cache_dir`).
        timeout_s: Seconds per HTTP attempt.
        call_timeout_s: Seconds one judge call may take in all, retries and waits included
            (default: `assay.models.openai_compat.DEFAULT_CALL_TIMEOUT`).
        max_retries: Retries after 429, 5xx and timeouts.
        max_concurrency: Calls open at once for this model.
        budget: Token and cost caps shared by every judge call of the evaluation.
        prices: USD per million (input, output) tokens, over the built-in price table.
        env: The environment to read (default: `os.environ`).

    Replies are cached per endpoint (the server's base URL), so `replay` needs the base URL
    too (not the key): the replies it may serve are those of that server.

    Raises:
        ModelConfigError: no base URL (or, unless `replay`, no key) for the model's provider.
        CacheError: the cache file cannot be used (read, or written unless `replay`).
        ValueError: an unknown cache setting or a bad client option.
    """
    from assay.models.cache import CachedClient, ResponseCache, cache_file
    from assay.models.config import client_for, endpoint_for

    if cache not in CACHE_SETTINGS:
        raise ValueError(f"cache must be one of {', '.join(CACHE_SETTINGS)}, not {cache!r}")
    options: dict[str, Any] = {}
    for key, value in (
        ("timeout", timeout_s),
        ("call_timeout", call_timeout_s),
        ("max_retries", max_retries),
        ("max_concurrency", max_concurrency),
        ("budget", budget),
        ("prices", prices),
    ):
        if value is not None:
            options[key] = value

    def inner() -> ModelClient:
        return client_for(model, base_url=base_url, api_key=api_key, env=env, **options)

    if cache != "replay":
        inner()  # the configuration is checked now; no connection is opened until a call
    path = cache_file(cache_dir)
    endpoint = ""
    if cache != "off":
        endpoint = endpoint_for(model, base_url=base_url, env=env)
        # A cache file that cannot be used stops the evaluation now, not on every run.
        with ResponseCache(path) as probe:
            probe.check(write=cache != "replay")

    def make() -> ModelClient:
        if cache == "off":
            return inner()
        sender = None if cache == "replay" else inner()
        return CachedClient(
            sender,
            ResponseCache(path),
            mode=cache,  # type: ignore[arg-type]
            endpoint=endpoint,
        )

    return make
