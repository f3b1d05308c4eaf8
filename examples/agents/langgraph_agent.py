"""The same agent as `agent.py`, as a LangGraph graph (needs `pip install 'assay[langchain]'`).

An `agent` node asks a chat model what to do and a `ToolNode` runs the tools it asks for,
until the model answers. The model is scripted (a langchain-core fake chat model that decides
from the conversation, as `agent.py` does), so it runs with no key and gives the same tool
calls, the same answers and the same two faults (Tokyo looked up as Kyoto, a trip plan that
hangs).

assay passes its callback handler into the graph, so node entries, model calls (with token
counts) and tool calls are captured with no change to the graph:
    assay run examples/agents/langgraph_agent.py:graph examples/agents/evalset.jsonl --timeout 2
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

WEATHER = {
    "paris": "sunny, 21°C",
    "london": "rainy, 14°C",
    "tokyo": "cloudy, 18°C",
    "oslo": "snowing, -3°C",
    "kyoto": "sunny, 24°C",
}

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


TOOLS = [get_weather, convert_currency]

_WEATHER = re.compile(r"weather in ([A-Za-z]+)", re.IGNORECASE)
_CONVERT = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Z]{3})\s+(?:to|in)\s+([A-Z]{3})")


class ScriptedModel(FakeMessagesListChatModel):
    """A fake chat model whose reply follows from the conversation (so concurrent cases each
    get their own): the tool calls the last user message needs, one at a time, then an
    answer from their results."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if _hangs(messages):
            time.sleep(60)
        return _result(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        if _hangs(messages):
            await asyncio.sleep(60)  # the fault the timeout case catches
        return _result(messages)


def _hangs(messages: list[BaseMessage]) -> bool:
    last = messages[-1]
    text = str(last.content).lower()
    return isinstance(last, HumanMessage) and "plan" in text and "trip" in text


def _result(messages: list[BaseMessage]) -> ChatResult:
    reply = _reply(messages)
    words = sum(len(str(m.content).split()) for m in messages)
    written = len(str(reply.content).split()) + 5 * len(reply.tool_calls)
    reply.usage_metadata = {
        "input_tokens": words,
        "output_tokens": written,
        "total_tokens": words + written,
    }
    return ChatResult(generations=[ChatGeneration(message=reply)])


def _reply(messages: list[BaseMessage]) -> AIMessage:
    """One tool call at a time for the last user message, then the answer from the results."""
    turn = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    question = str(messages[turn[-1]].content)
    since = messages[turn[-1] + 1 :]
    planned = _calls_for(question)
    if not planned:
        return AIMessage("I can tell the weather in a city and convert currencies.")
    results = [m for m in since if isinstance(m, ToolMessage)]
    if len(results) < len(planned):
        call_id = f"call-{len(turn)}-{len(results)}"
        return AIMessage("", tool_calls=[{**planned[len(results)], "id": call_id}])
    answers = []
    for call, result in zip(planned, results, strict=True):
        args = call["args"]
        if call["name"] == "get_weather":
            city = "Tokyo" if args["city"] == "Kyoto" else args["city"]
            answers.append(f"The weather in {city} is {result.content}.")
        else:
            amount, source, target = args["amount"], args["from_currency"], args["to_currency"]
            answers.append(f"{amount} {source} is {float(str(result.content)):.2f} {target}.")
    return AIMessage(" ".join(answers))


def _calls_for(question: str) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    if weather := _WEATHER.search(question):
        city = weather.group(1).title()
        looked_up = "Kyoto" if city == "Tokyo" else city  # the fault the failing case catches
        calls.append({"name": "get_weather", "args": {"city": looked_up}})
    if convert := _CONVERT.search(question):
        text, source, target = convert.groups()
        amount = float(text) if "." in text else int(text)
        args = {"amount": amount, "from_currency": source, "to_currency": target}
        calls.append({"name": "convert_currency", "args": args})
    return calls


def _build() -> Any:
    model = ScriptedModel(responses=[]).bind_tools(TOOLS)

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile()


graph = _build()
"""The compiled graph `assay run` drives."""
