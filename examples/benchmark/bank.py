"""A small bank benchmark that runs with no key: an environment with stateful tools, a
scripted customer, two agents (one careful, one that makes the classic mistake of moving
money the wrong way), and two evaluators (the final balances, and how the tools were used).

    assay bench examples/benchmark/bank.py:BankBenchmark examples/benchmark/tasks.jsonl --repeat 3

`--agent-data` chooses the agent: `{"agent": "careful"}` (the default) or `{"agent": "hasty"}`.
"""

from __future__ import annotations

import re
import time
from typing import Any

from assay.benchmark import (
    AgentAdapter,
    AgentError,
    Benchmark,
    Environment,
    Evaluator,
    ScriptedUser,
)


class Bank(Environment):
    """Accounts and their balances; tools to read and to move money."""

    def setup_state(self, environment_data: dict[str, Any]) -> dict[str, int]:
        return dict(environment_data["accounts"])

    def create_tools(self) -> dict[str, Any]:
        def balance(account: str) -> int:
            return self.state[account]

        def transfer(source: str, target: str, amount: int) -> dict[str, int]:
            if self.state[source] < amount:
                raise ValueError(f"{source} has only {self.state[source]}")
            self.state[source] -= amount
            self.state[target] += amount
            return dict(self.state)

        return {"balance": balance, "transfer": transfer}


class Teller(AgentAdapter):
    """A rule-based agent: reads "move N from A to B" and calls the tools. The hasty one
    swaps the accounts; any agent takes its time over a request marked "slowly"."""

    def __init__(self, bank: Bank, hasty: bool) -> None:
        super().__init__(None, "hasty" if hasty else "careful")
        self.bank = bank
        self.hasty = hasty

    def _run_agent(self, query: str) -> str:
        if "slowly" in query:
            time.sleep(30)
        found = re.search(r"move (\d+) from (\w+) to (\w+)", query)
        if found is None:
            balances = {name: self.bank.get_tool("balance")(name) for name in self.bank.state}
            return f"Your balances: {balances}"
        amount, source, target = int(found[1]), found[2], found[3]
        if source not in self.bank.state or target not in self.bank.state:
            raise AgentError(f"no such account in {query!r}", component=self.name)
        if self.hasty:
            source, target = target, source
        self.bank.get_tool("transfer")(source, target, amount)
        return f"Moved {amount} from {source} to {target}."


class FinalBalances(Evaluator):
    """Whether the accounts end as the task expects."""

    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return {}

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        expected = self.task.evaluation_data["balances"]
        actual = self.environment.state
        return {"passed": actual == expected, "expected": expected, "actual": actual}


class OneTransfer(Evaluator):
    """Whether the money moved in one transfer, and no more."""

    def filter_traces(self, traces: dict[str, Any]) -> dict[str, Any]:
        return traces.get("tools", {}).get("transfer", {})

    def __call__(self, traces: dict[str, Any], final_answer: Any = None) -> dict[str, Any]:
        calls = traces.get("invocations", [])
        wanted = self.task.evaluation_data.get("transfers", 1)
        return {"passed": len(calls) == wanted, "transfers": len(calls)}


class BankBenchmark(Benchmark):
    """The bank's lifecycle: a bank per task, the customer's script, one teller, two checks."""

    def setup_environment(self, agent_data: dict[str, Any], task: Any,
                          seed_generator: Any = None) -> Bank:
        return Bank(task.environment_data)

    def setup_user(self, agent_data: dict[str, Any], environment: Bank, task: Any,
                   seed_generator: Any = None) -> ScriptedUser:
        return ScriptedUser(task.user_data.get("replies", []), initial_query=task.query)

    def setup_agents(self, agent_data: dict[str, Any], environment: Bank, task: Any,
                     user: Any, seed_generator: Any = None) -> Any:
        teller = Teller(environment, hasty=agent_data.get("agent") == "hasty")
        return [teller], {teller.name: teller}

    def setup_evaluators(self, environment: Bank, task: Any, agents: Any, user: Any,
                         seed_generator: Any = None) -> list[Evaluator]:
        return [FinalBalances(task, environment, user), OneTransfer(task, environment, user)]

    def run_agents(self, agents: Any, task: Any, environment: Bank, query: str) -> Any:
        return agents[0].run(query)
