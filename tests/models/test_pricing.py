"""Tests for `assay.models.pricing`: model names to price keys, tokens to estimated cost."""

from __future__ import annotations

import pytest

from assay.models.pricing import PRICES_PER_MILLION, estimate_cost_usd, model_price_key


@pytest.mark.parametrize(
    ("model", "key"),
    [
        ("gpt-4.1", "gpt-4.1"),
        ("openai/gpt-4o-mini", "gpt-4o-mini"),
        ("litellm_proxy/Azure/gpt-5-mini-2025-08-07", "gpt-5-mini"),
        ("GPT-4O-2024-08-06", "gpt-4o"),
        ("azure/gpt-4.1-nano-20250414", "gpt-4.1-nano"),
        (" openai/gpt-5 ", "gpt-5"),
        ("gpt-5-2025", "gpt-5-2025"),  # a year alone is not a snapshot date
        ("watsonx/meta-llama/llama-3-3-70b-instruct", "llama-3-3-70b-instruct"),
        ("", ""),
    ],
)
def test_model_price_key(model: str, key: str) -> None:
    assert model_price_key(model) == key


def test_every_table_key_is_its_own_price_key() -> None:
    for key in PRICES_PER_MILLION:
        assert model_price_key(key) == key


def test_estimate_uses_input_and_output_prices() -> None:
    # gpt-5-mini: 0.25 in, 2.00 out per million tokens.
    cost = estimate_cost_usd("litellm_proxy/Azure/gpt-5-mini-2025-08-07", 1_000_000, 100_000)
    assert cost == pytest.approx(0.25 + 0.20)


@pytest.mark.parametrize(
    ("model", "tokens_in", "tokens_out"),
    [
        (None, 100, 10),
        ("", 100, 10),
        ("watsonx/meta-llama/llama-3-3-70b-instruct", 100, 10),
        ("gpt-4o", 0, 0),
        ("gpt-4o", -5, 0),
    ],
)
def test_no_estimate(model: str | None, tokens_in: int, tokens_out: int) -> None:
    assert estimate_cost_usd(model, tokens_in, tokens_out) is None


def test_output_only_and_negative_counts() -> None:
    assert estimate_cost_usd("gpt-4o", 0, 1_000_000) == pytest.approx(10.0)
    assert estimate_cost_usd("gpt-4o", -100, 1_000_000) == pytest.approx(10.0)


def test_custom_price_table() -> None:
    prices = {"granite-3-8b": (0.2, 0.2), "My-Exact/Model": (1.0, 1.0)}
    assert estimate_cost_usd("ibm/granite-3-8b-20241201", 500_000, 500_000, prices) == (
        pytest.approx(0.2)
    )
    assert estimate_cost_usd("My-Exact/Model", 1_000_000, 0, prices) == pytest.approx(1.0)
    assert estimate_cost_usd("gpt-4o", 1_000, 1_000, prices) is None  # table replaced, not merged
