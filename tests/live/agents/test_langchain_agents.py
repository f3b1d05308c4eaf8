"""Tests for `assay.live.agents.langchain` and `assay.live.capture.langchain`: real LangGraph
graphs on scripted chat models, captured by the callback handler and driven by
`RunnableAgent`."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool as lc_tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from typing_extensions import TypedDict

from assay.evaluation import AgentEvaluator, EvalCase, EvalSet
from assay.live.agents import AgentReply, AgentReplyError, as_agent
from assay.live.agents.langchain import GraphInputError, RunnableAgent
from assay.live.capture import TrajectoryCollector, capturing
from assay.live.capture.langchain import TrajectoryCallbackHandler, make_trajectory_callback
from assay.records import Usage
from assay.trajectory.spec import StepType

pytestmark = pytest.mark.slow


class ScriptedChatModel(FakeMessagesListChatModel):
    """langchain-core's list-of-messages fake model, bindable to tools (the binding is kept
    out of the script: the replies are given in order)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self


class ConversationModel(FakeMessagesListChatModel):
    """A fake model whose reply follows from the conversation, not from a shared counter, so
    that concurrent runs each get their own script: a question about a city asks for its
    weather; a tool result is answered with."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(f"Forecast: {last.content}.")
        else:
            city = re.findall(r"weather in (\w+)", str(last.content))[-1]
            reply = AIMessage(
                "",
                tool_calls=[{"name": "get_weather", "args": {"city": city}, "id": f"call-{city}"}],
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])


@lc_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@lc_tool
def broken_tool(query: str) -> str:
    """A tool that fails."""
    raise ValueError(f"no data for {query}")


def ask(model: Any, tools: Sequence[Any], *, agent: str = "agent", tool_node: str = "tools") -> Any:
    """A compiled ReAct-style graph: an agent node on `model`, a ToolNode running `tools`."""

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        await asyncio.sleep(0)  # let concurrent cases interleave
        return {"messages": [await model.bind_tools(tools).ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node(agent, RunnableLambda(call_model, afunc=acall_model, name=agent))
    builder.add_node(tool_node, ToolNode(list(tools), handle_tool_errors=True))
    builder.add_edge(START, agent)
    builder.add_conditional_edges(agent, tools_condition, {"tools": tool_node, END: END})
    builder.add_edge(tool_node, agent)
    return builder.compile()


def weather_script() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[
            AIMessage(
                "",
                tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}],
                usage_metadata={"input_tokens": 10, "output_tokens": 5, "total_tokens": 15},
            ),
            AIMessage(
                "It is sunny in Paris.",
                usage_metadata={"input_tokens": 20, "output_tokens": 7, "total_tokens": 27},
            ),
        ]
    )


def user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def respond(
    graph: Any, conversation: list[dict[str, Any]], config: dict[str, Any] | None = None
) -> tuple[AgentReply, TrajectoryCollector]:
    """One turn of `graph` inside a capture of its own: (reply, collector)."""
    collector = TrajectoryCollector()

    async def run() -> AgentReply:
        with capturing(collector):
            return await RunnableAgent(graph).respond(conversation, config or {})

    return asyncio.run(run()), collector


def steps_of(collector: TrajectoryCollector) -> list[tuple[Any, ...]]:
    return [
        (s.node, s.text, [(c.name, c.args, c.call_id, c.result) for c in s.tool_calls])
        for s in collector.to_steps()
    ]


def test_a_tool_calling_graph_is_captured_node_by_node() -> None:
    reply, collector = respond(ask(weather_script(), [get_weather]), user("Weather in Paris?"))

    assert reply.content == "It is sunny in Paris."
    assert [(s.type, s.name) for s in collector.trajectory] == [
        (StepType.NODE, "agent"),
        (StepType.NODE, "tools"),
        (StepType.TOOL, "get_weather"),
        (StepType.NODE, "agent"),
    ]
    assert collector.node_visits == ["agent", "tools", "agent"]
    [call] = collector.tool_calls
    assert (call.name, call.args, call.call_id, call.result) == (
        "get_weather",
        {"city": "Paris"},
        "c1",
        "sunny in Paris",
    )
    models = collector.model_calls
    assert [m.usage for m in models] == [Usage(10, 5), Usage(20, 7)]
    assert [(m.node, m.text, [c.name for c in m.tool_calls]) for m in models] == [
        ("agent", None, ["get_weather"]),
        ("agent", "It is sunny in Paris.", []),
    ]
    assert all(m.duration_ms is not None and m.duration_ms >= 0 for m in models)
    assert collector.usage() == Usage(30, 12)
    assert steps_of(collector) == [
        ("agent", None, [("get_weather", {"city": "Paris"}, "c1", "sunny in Paris")]),
        ("tools", None, []),
        ("agent", "It is sunny in Paris.", []),
    ]


def test_the_reply_carries_the_turns_messages_openai_style() -> None:
    reply, _ = respond(ask(weather_script(), [get_weather]), user("Weather in Paris?"))

    assert reply.messages == [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "type": "function",
                    "id": "c1",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "content": "sunny in Paris", "tool_call_id": "c1", "name": "get_weather"},
        {"role": "assistant", "content": "It is sunny in Paris."},
    ]


def test_a_later_turn_reports_only_its_own_messages() -> None:
    model = ScriptedChatModel(responses=[AIMessage("Still sunny.")])
    conversation = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "It is sunny in Paris."},
        {"role": "user", "content": "And tomorrow?"},
    ]
    reply, collector = respond(ask(model, [get_weather]), conversation)

    assert reply.content == "Still sunny."
    assert reply.messages == [{"role": "assistant", "content": "Still sunny."}]
    assert collector.node_visits == ["agent"]


def test_a_graph_with_only_invoke_runs_in_a_thread_with_the_cases_capture() -> None:
    graph = ask(weather_script(), [get_weather])

    class SyncOnly:
        name = "sync-only"

        def invoke(self, state: Any, config: RunnableConfig) -> Any:
            return graph.invoke(state, config)

    reply, collector = respond(SyncOnly(), user("Weather in Paris?"))

    assert reply.content == "It is sunny in Paris."
    assert collector.node_visits == ["agent", "tools", "agent"]
    assert [c.result for c in collector.tool_calls] == ["sunny in Paris"]


def test_the_cases_config_is_merged_into_the_invocation() -> None:
    seen: list[Any] = []

    def node(state: MessagesState, config: RunnableConfig) -> dict[str, Any]:
        seen.append(config["configurable"].get("user_id"))
        return {"messages": [AIMessage("ok")]}

    builder = StateGraph(MessagesState)
    builder.add_node("only", node)
    builder.add_edge(START, "only")
    graph = builder.compile()

    reply, collector = respond(graph, user("hi"), {"configurable": {"user_id": "u-7"}})

    assert (reply.content, seen, collector.node_visits) == ("ok", ["u-7"], ["only"])


def test_token_usage_and_model_name_from_llm_output() -> None:
    class ProviderModel(ScriptedChatModel):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None,
                      **kwargs: Any) -> ChatResult:
            return ChatResult(
                generations=[ChatGeneration(message=AIMessage("Hello."))],
                llm_output={
                    "token_usage": {"prompt_tokens": 3, "completion_tokens": 4},
                    "model_name": "scripted-1",
                },
            )

    collector = TrajectoryCollector()
    ProviderModel(responses=[]).invoke(
        "hi", config={"callbacks": [make_trajectory_callback(collector)]}
    )

    [call] = collector.model_calls
    assert (call.text, call.usage, call.model, call.node) == (
        "Hello.",
        Usage(3, 4),
        "scripted-1",
        None,
    )


def test_model_name_from_the_message_metadata() -> None:
    model = ScriptedChatModel(
        responses=[AIMessage("Hi.", response_metadata={"model_name": "gpt-test"})]
    )
    collector = TrajectoryCollector()
    model.invoke("hi", config={"callbacks": [make_trajectory_callback(collector)]})

    assert [c.model for c in collector.model_calls] == ["gpt-test"]


def test_a_subgraph_node_and_its_own_nodes_are_entered_once_each() -> None:
    inner_model = ScriptedChatModel(
        responses=[AIMessage("Plan: look outside."), AIMessage("Done: it is sunny.")]
    )

    def plan(state: MessagesState) -> dict[str, Any]:
        return {"messages": [inner_model.invoke(state["messages"])]}

    inner = StateGraph(MessagesState)
    inner.add_node("plan", plan)
    inner.add_node("act", plan)
    inner.add_edge(START, "plan")
    inner.add_edge("plan", "act")
    inner.add_edge("act", END)

    outer = StateGraph(MessagesState)
    outer.add_node("intake", lambda state: {"messages": []})
    outer.add_node("worker", inner.compile())
    outer.add_edge(START, "intake")
    outer.add_edge("intake", "worker")
    outer.add_edge("worker", END)

    reply, collector = respond(outer.compile(), user("What should I wear?"))

    assert reply.content == "Done: it is sunny."
    assert collector.node_visits == ["intake", "worker", "plan", "act"]
    assert [(m.node, m.text) for m in collector.model_calls] == [
        ("plan", "Plan: look outside."),
        ("act", "Done: it is sunny."),
    ]
    assert [step.node for step in collector.to_steps()] == ["intake", "worker", "plan", "act"]


def test_a_tool_that_runs_an_agent_is_captured_inside() -> None:
    expert_model = ScriptedChatModel(
        responses=[
            AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Oslo"},
                                       "id": "inner-1"}]),
            AIMessage("Oslo is sunny."),
        ]
    )
    expert = ask(expert_model, [get_weather], agent="expert", tool_node="expert_tools")

    @lc_tool
    def ask_expert(question: str) -> str:
        """Ask the weather expert (itself an agent)."""
        answer = expert.invoke({"messages": [HumanMessage(question)]})
        return str(answer["messages"][-1].content)

    model = ScriptedChatModel(
        responses=[
            AIMessage("", tool_calls=[{"name": "ask_expert", "args": {"question": "Oslo?"},
                                       "id": "outer-1"}]),
            AIMessage("The expert says Oslo is sunny."),
        ]
    )
    reply, collector = respond(ask(model, [ask_expert]), user("Weather in Oslo?"))

    assert reply.content == "The expert says Oslo is sunny."
    assert collector.node_visits == ["agent", "tools", "expert", "expert_tools", "expert", "agent"]
    assert [(c.name, c.args, c.call_id, c.result) for c in collector.tool_calls] == [
        ("ask_expert", {"question": "Oslo?"}, "outer-1", "Oslo is sunny."),
        ("get_weather", {"city": "Oslo"}, "inner-1", "sunny in Oslo"),
    ]
    assert [m.node for m in collector.model_calls] == ["agent", "expert", "expert", "agent"]
    calls = [call for step in collector.to_steps() for call in step.tool_calls]
    assert [(c.name, c.result) for c in calls] == [
        ("ask_expert", "Oslo is sunny."),
        ("get_weather", "sunny in Oslo"),
    ]


@pytest.mark.parametrize("shared", [False, True], ids=["handler-per-turn", "one-bound-handler"])
def test_fifty_concurrent_cases_never_mix_steps(shared: bool) -> None:
    graph = ask(ConversationModel(responses=[]), [get_weather])
    if shared:  # one handler bound to the graph serves every case, each into its own capture
        graph = graph.with_config(callbacks=[make_trajectory_callback()])
    agent = RunnableAgent(graph)
    cities = [f"City{i}" for i in range(50)]

    async def one(city: str) -> tuple[Any, TrajectoryCollector]:
        with capturing(TrajectoryCollector()) as collector:
            reply = await agent.respond(user(f"What is the weather in {city}?"), {})
        return reply, collector

    async def all_cases() -> list[tuple[Any, TrajectoryCollector]]:
        return await asyncio.gather(*(one(city) for city in cities))

    results = asyncio.run(all_cases())

    for city, (reply, collector) in zip(cities, results, strict=True):
        assert reply.content == f"Forecast: sunny in {city}."
        assert collector.node_visits == ["agent", "tools", "agent"]
        assert [(c.name, c.args, c.call_id, c.result) for c in collector.tool_calls] == [
            ("get_weather", {"city": city}, f"call-{city}", f"sunny in {city}")
        ]
        assert [m.text for m in collector.model_calls] == [None, f"Forecast: sunny in {city}."]


def test_a_raising_tool_is_the_calls_error_and_the_run_goes_on() -> None:
    model = ScriptedChatModel(
        responses=[
            AIMessage("", tool_calls=[{"name": "broken_tool", "args": {"query": "x"},
                                       "id": "b1"}]),
            AIMessage("Sorry, no data."),
        ]
    )
    reply, collector = respond(ask(model, [broken_tool]), user("Look up x"))

    assert reply.content == "Sorry, no data."
    [call] = collector.tool_calls
    assert (call.name, call.args, call.result) == (
        "broken_tool",
        {"query": "x"},
        {"error": "ValueError: no data for x"},
    )
    [step] = [s for s in collector.to_steps() if s.tool_calls]
    assert step.tool_calls[0].result == {"error": "ValueError: no data for x"}


def test_the_users_callbacks_are_kept_beside_the_recording_handler() -> None:
    class Counting(BaseCallbackHandler):
        def __init__(self) -> None:
            self.tools: list[str] = []

        def on_tool_start(self, serialized: dict[str, Any], input_str: str,
                          **kwargs: Any) -> None:
            self.tools.append(serialized["name"])

    mine = Counting()
    _, collector = respond(ask(weather_script(), [get_weather]), user("Weather?"),
                           {"callbacks": [mine]})
    assert mine.tools == ["get_weather"]
    assert [c.name for c in collector.tool_calls] == ["get_weather"]

    managed = Counting()
    manager = CallbackManager([managed], inheritable_handlers=[managed])
    _, collector = respond(ask(weather_script(), [get_weather]), user("Weather?"),
                           {"callbacks": manager})
    assert managed.tools == ["get_weather"]
    assert [c.name for c in collector.tool_calls] == ["get_weather"]


def test_a_handler_bound_to_a_collector_records_into_it_outside_a_live_run() -> None:
    wired = TrajectoryCollector()
    graph = ask(weather_script(), [get_weather]).with_config(
        callbacks=[make_trajectory_callback(wired)]
    )
    graph.invoke({"messages": [HumanMessage("Weather?")]})

    assert [c.name for c in wired.tool_calls] == ["get_weather"]
    assert wired.node_visits == ["agent", "tools", "agent"]


def test_no_second_handler_when_the_graph_already_records() -> None:
    wired = TrajectoryCollector()
    graph = ask(weather_script(), [get_weather]).with_config(
        callbacks=[make_trajectory_callback(wired)]
    )
    _, collector = respond(graph, user("Weather?"))

    # Inside a live run the case's own capture gets the record, once; the evaluator copies
    # it into the wired collector when the case ends.
    assert collector.node_visits == ["agent", "tools", "agent"]
    assert [c.name for c in collector.tool_calls] == ["get_weather"]
    assert wired.empty

    config_handler = make_trajectory_callback()
    _, collector = respond(ask(weather_script(), [get_weather]), user("Weather?"),
                           {"callbacks": [config_handler]})
    assert collector.node_visits == ["agent", "tools", "agent"]  # once, not twice


def test_outside_a_live_run_the_handler_records_nothing_and_does_not_fail() -> None:
    handler = make_trajectory_callback()
    graph = ask(weather_script(), [get_weather])
    out = graph.invoke({"messages": [HumanMessage("Weather?")]}, {"callbacks": [handler]})
    assert isinstance(handler, TrajectoryCallbackHandler)
    assert out["messages"][-1].content == "It is sunny in Paris."
    assert not handler._tools and not handler._models and not handler._tasks


def test_a_graph_without_messages_in_its_state_is_refused_clearly() -> None:
    class Form(TypedDict):
        question: str
        answer: str

    builder = StateGraph(Form)
    builder.add_node("reply", lambda state: {"answer": "42"})
    builder.add_edge(START, "reply")
    graph = builder.compile()

    with pytest.raises(GraphInputError) as raised:
        respond(graph, user("hi"))
    message = str(raised.value)
    assert "'question', 'answer'" in message
    assert "{'messages': [" in message
    assert "MessagesState" in message


def test_a_conversation_langchain_cannot_read_is_refused_clearly() -> None:
    with pytest.raises(GraphInputError, match="cannot be sent as LangChain messages"):
        respond(RunnableLambda(lambda state: "x"), [{"role": "tool", "content": "orphan"}])


def test_messages_that_are_not_chat_messages_are_an_unreadable_reply() -> None:
    with pytest.raises(AgentReplyError, match="not chat messages"):
        respond(RunnableLambda(lambda state: {"messages": [{"role": "robot"}]}), user("hi"))
    with pytest.raises(AgentReplyError, match="not a list of messages"):
        respond(RunnableLambda(lambda state: {"messages": 3}), user("hi"))


def test_an_output_without_a_reply_says_what_came_back() -> None:
    runnable = RunnableLambda(lambda state: {"answer": "42", "score": 1})
    with pytest.raises(AgentReplyError) as raised:
        respond(runnable, user("hi"))
    assert "'answer', 'score'" in str(raised.value)
    assert "`messages`" in str(raised.value)


@pytest.mark.parametrize(
    ("output", "content"),
    [
        (AIMessage([{"type": "text", "text": "from "}, {"type": "text", "text": "blocks"}]),
         "from blocks"),
        ("plain text", "plain text"),
        ({"output": "executor style", "input": "hi"}, "executor style"),
        ({"content": "dict style"}, "dict style"),
        ({"messages": [HumanMessage("hi"), AIMessage("state style"), ToolMessage(
            "x", tool_call_id="t")]}, "state style"),
        ({"messages": [HumanMessage("hi")]}, None),
    ],
)
def test_every_output_shape_gives_its_reply(output: Any, content: str | None) -> None:
    reply, _ = respond(RunnableLambda(lambda state: output), user("hi"))
    assert reply.content == content


def test_a_runnable_that_drops_its_callbacks_is_recorded_from_its_messages() -> None:
    class Opaque:
        name = "opaque"

        async def ainvoke(self, state: Any, config: Any = None) -> Any:
            return {
                "messages": [
                    *state["messages"],
                    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Rome"},
                                               "id": "r1"}]),
                    ToolMessage("sunny in Rome", tool_call_id="r1"),
                    AIMessage("Sunny in Rome."),
                ]
            }

    reply, collector = respond(Opaque(), user("Weather in Rome?"))
    assert reply.content == "Sunny in Rome."
    assert [(c.name, c.args, c.result) for c in collector.tool_calls] == [
        ("get_weather", {"city": "Rome"}, "sunny in Rome")
    ]


def test_as_agent_runs_a_compiled_graph_through_this_adapter() -> None:
    agent = as_agent(ask(weather_script(), [get_weather]))
    assert isinstance(agent, RunnableAgent)
    assert agent.name == "LangGraph"


def test_the_agent_protocol_imports_no_langchain() -> None:
    code = "import sys, assay.live.agents; print(any(m.startswith('lang') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_seeds_wiring_under_agent_evaluator_keeps_cases_apart() -> None:
    collector = TrajectoryCollector()
    app = ask(ConversationModel(responses=[]), [get_weather]).with_config(
        callbacks=[make_trajectory_callback(collector)]
    )
    cities = ["Paris", "Oslo", "Rome", "Lima", "Kyiv", "Bern"]
    cases = [
        EvalCase.single_turn(f"w-{city}", f"What is the weather in {city}?",
                             expected_response=f"sunny in {city}",
                             expected_tools=["get_weather"],
                             expected_trajectory=[{"name": "get_weather", "args": {"city": city}}])
        for city in cities
    ]
    evaluator = AgentEvaluator(graph=app, collector=collector, concurrency=6)
    report = asyncio.run(evaluator.evaluate(EvalSet(cases=cases)))

    assert (report.total_cases, report.passed_cases) == (6, 6)
    for result in report.cases:
        city = result.eval_id.removeprefix("w-")
        assert [(s.type, s.name) for s in result.actual_trajectory] == [
            (StepType.NODE, "agent"), (StepType.NODE, "tools"), (StepType.TOOL, "get_weather"),
            (StepType.NODE, "agent"),
        ]
        assert result.actual_trajectory[2].call.args == {"city": city}
    assert collector.node_visits == ["agent", "tools", "agent"]  # the last case's record


def test_parallel_tool_calls_of_one_model_turn_each_get_their_result() -> None:
    model = ScriptedChatModel(
        responses=[
            AIMessage("", tool_calls=[
                {"name": "get_weather", "args": {"city": "Paris"}, "id": "p1"},
                {"name": "get_weather", "args": {"city": "Oslo"}, "id": "p2"},
            ]),
            AIMessage("Both sunny."),
        ]
    )
    reply, collector = respond(ask(model, [get_weather]), user("Paris and Oslo?"))

    assert reply.content == "Both sunny."
    assert sorted((c.call_id, c.args["city"], c.result) for c in collector.tool_calls) == [
        ("p1", "Paris", "sunny in Paris"),
        ("p2", "Oslo", "sunny in Oslo"),
    ]
    [asked] = [s for s in collector.to_steps() if s.tool_calls]
    assert [(c.call_id, c.result) for c in asked.tool_calls] == [
        ("p1", "sunny in Paris"),
        ("p2", "sunny in Oslo"),
    ]


def test_a_graph_node_that_answers_after_its_deadline_is_a_timeout() -> None:
    async def stubborn(state: MessagesState) -> dict[str, Any]:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.sleep(0.5)  # catches the cancellation and answers anyway
        return {"messages": [AIMessage("yes")]}

    builder = StateGraph(MessagesState)
    builder.add_node("answer", stubborn)
    builder.add_edge(START, "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()
    case = EvalCase.single_turn("a", "question", expected_response="yes")
    report = AgentEvaluator(graph, timeout=0.2).evaluate_sync([case])
    score = report.cases[0].result.score
    assert (score.passed, score.details.get("reason")) == (None, "timeout")
