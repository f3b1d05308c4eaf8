"""Chat-completions replies that ask for tool calls, for the local test server
(tests/chat_server.py), in the shape OpenAI's API sends them.

Example:
    >>> reply = tool_call_reply(("get_weather", {"city": "Paris"}))
    >>> import json
    >>> message = json.loads(reply.body)["choices"][0]["message"]
    >>> message["content"], message["tool_calls"][0]["function"]
    (None, {'name': 'get_weather', 'arguments': '{"city": "Paris"}'})
"""

from __future__ import annotations

import json
from typing import Any

from chat_server import Reply

__all__ = ["tool_call_reply"]


def tool_call_reply(
    *calls: tuple[str, Any] | tuple[str, Any, str],
    content: str | None = None,
    input_tokens: int = 20,
    output_tokens: int = 7,
    model: str = "test-model",
) -> Reply:
    """A reply whose message asks for `calls`: `(name, args)` or `(name, args, call id)`;
    args that are not a str are sent as JSON text, a str as it is (to send broken JSON)."""
    tool_calls = []
    for index, call in enumerate(calls):
        name, args = call[0], call[1]
        call_id = call[2] if len(call) > 2 else f"call_{index}"  # type: ignore[misc]
        tool_calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": name,
                    "arguments": args if isinstance(args, str) else json.dumps(args),
                },
            }
        )
    return Reply.json(
        {
            "id": "chatcmpl-tools",
            "object": "chat.completion",
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "tool_calls": tool_calls},
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {
                "prompt_tokens": input_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
            },
        }
    )
