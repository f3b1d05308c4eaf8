"""Rough cost estimates from token counts, for the `est_cost_usd` figure in reports.

The figure is an estimate for comparing runs, not a bill: it ignores cached-input discounts,
batch pricing and provider mark-ups. Models not in the table get no estimate (None) rather
than a guess.

Example:
    >>> estimate_cost_usd("litellm_proxy/Azure/gpt-5-mini-2025-08-07", 1_000_000, 100_000)
    0.45
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

__all__ = ["PRICES_PER_MILLION", "estimate_cost_usd", "model_price_key"]

# List prices as published, check before relying on them: providers change them, and the
# table is only as current as its last edit.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}
"""USD per one million (input, output) tokens, keyed by `model_price_key`."""

# Snapshot suffixes: "-2025-08-07" and "-20250807". A snapshot is priced like its model.
_DATE_SUFFIX = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")


def model_price_key(model: str) -> str:
    """The price-table key of a model name.

    Routing prefixes (`litellm_proxy/Azure/...`) and snapshot dates are dropped and the
    name is lower-cased, since they do not change the list price.

    Args:
        model: A model name as a run records it, e.g. `provider/model-2025-08-07`.

    Returns:
        The key to look up in a price table.

    Example:
        >>> model_price_key("litellm_proxy/Azure/GPT-5-mini-2025-08-07")
        'gpt-5-mini'
        >>> model_price_key("openai/gpt-4o-mini-20240718")
        'gpt-4o-mini'
    """
    name = model.strip().rsplit("/", 1)[-1].strip().lower()
    return _DATE_SUFFIX.sub("", name)


def estimate_cost_usd(
    model: str | None,
    tokens_in: int,
    tokens_out: int,
    prices: Mapping[str, tuple[float, float]] | None = None,
) -> float | None:
    """Estimated cost of a run in USD, or None when it cannot be estimated.

    Args:
        model: The model that drove the run; None or a model not in the table gives None.
        tokens_in: Input (prompt) tokens; negative counts are treated as 0.
        tokens_out: Output (completion) tokens; negative counts are treated as 0.
        prices: USD per million (input, output) tokens keyed by `model_price_key`; defaults
            to `PRICES_PER_MILLION`.

    Returns:
        The estimate, or None when the model is unknown or the run recorded no tokens (a
        run without usage data did not cost nothing; it is unknown).

    Example:
        >>> estimate_cost_usd("gpt-4.1", 2_000, 500)
        0.008
        >>> estimate_cost_usd("some-local-model", 2_000, 500) is None
        True
    """
    if not model:
        return None
    tokens_in = max(tokens_in, 0)
    tokens_out = max(tokens_out, 0)
    if tokens_in == 0 and tokens_out == 0:
        return None
    table = PRICES_PER_MILLION if prices is None else prices
    price = table.get(_cached_price_key(model))
    if price is None:
        # A caller's own table may be keyed by the exact name it records.
        price = table.get(model)
    if price is None:
        return None
    price_in, price_out = price
    return (tokens_in * price_in + tokens_out * price_out) / 1_000_000


# Every run of an evaluation names one of a few models: work each key out once. (The key, not
# the price, is cached: the price table is a dict callers may change.)
_cached_price_key = lru_cache(maxsize=1024)(model_price_key)
