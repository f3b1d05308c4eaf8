"""A small tool-using agent in plain Python, for `assay run` (no model, no key, deterministic).

It reads the user's last message, calls its tools (`get_weather`, `convert_currency`) and
answers from what they return. The tools are decorated with assay's `tool`, so every call,
arguments and result, lands in the trajectory of the case that is running.

It has two faults on purpose, so the eval set next to it shows a failure and a timeout:
- asked about Tokyo, it looks up Kyoto instead, and answers wrongly;
- asked to plan a trip, it hangs for a minute (`--timeout 2` records a timeout).

Run it:
    assay run examples/agents/agent.py:agent examples/agents/evalset.jsonl --timeout 2
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from assay.live.capture import tool

WEATHER = {
    "paris": "sunny, 21°C",
    "london": "rainy, 14°C",
    "tokyo": "cloudy, 18°C",
    "oslo": "snowing, -3°C",
    "kyoto": "sunny, 24°C",
}

# Units of the second currency for one unit of the first.
RATES = {
    ("USD", "EUR"): 0.92,
    ("EUR", "USD"): 1.09,
    ("GBP", "EUR"): 1.16,
    ("GBP", "USD"): 1.27,
}


@tool
def get_weather(city: str) -> str:
    """Today's weather in `city`."""
    return WEATHER.get(city.lower(), "unknown")


@tool
def convert_currency(amount: float, from_currency: str, to_currency: str) -> float:
    """`amount` of `from_currency` in `to_currency`, rounded to cents."""
    return round(amount * RATES[(from_currency, to_currency)], 2)


_WEATHER = re.compile(r"weather in ([A-Za-z]+)", re.IGNORECASE)
_CONVERT = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Z]{3})\s+(?:to|in)\s+([A-Z]{3})")


async def agent(messages: list[dict[str, Any]]) -> str:
    """Answer the last user message of the conversation."""
    question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    if "plan" in question.lower() and "trip" in question.lower():
        await asyncio.sleep(60)  # the fault the timeout case catches
        return "Here is your trip."
    answers = []
    if weather := _WEATHER.search(question):
        city = weather.group(1).title()
        looked_up = "Kyoto" if city == "Tokyo" else city  # the fault the failing case catches
        answers.append(f"The weather in {city} is {get_weather(looked_up)}.")
    if convert := _CONVERT.search(question):
        text, source, target = convert.groups()
        amount = float(text) if "." in text else int(text)
        converted = convert_currency(amount, source, target)
        answers.append(f"{text} {source} is {converted:.2f} {target}.")
    return " ".join(answers) or "I can tell the weather in a city and convert currencies."
