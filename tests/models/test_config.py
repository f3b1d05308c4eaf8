"""Resolving `provider/model` to a client, and what importing the package loads."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import pytest

from assay.models import (
    OPENAI_DEFAULT_BASE_URL,
    Budget,
    ChatRequest,
    ModelConfigError,
    OpenAICompatibleClient,
    client_for,
    provider_env_names,
)
from chat_server import ChatServer, Reply

KEY = "sk-config-secret-42"


def test_openai_defaults_to_the_public_endpoint() -> None:
    client = client_for("openai/gpt-4.1-mini", env={"OPENAI_API_KEY": KEY})
    assert isinstance(client, OpenAICompatibleClient)
    assert client.base_url == OPENAI_DEFAULT_BASE_URL
    assert client._api_key == KEY


def test_a_model_without_a_provider_is_an_openai_model() -> None:
    client = client_for("gpt-4o-mini", env={"OPENAI_API_KEY": KEY})
    assert client.base_url == OPENAI_DEFAULT_BASE_URL


def test_openai_base_url_from_the_environment_needs_no_key() -> None:
    client = client_for("openai/gpt-4.1", env={"OPENAI_BASE_URL": "http://127.0.0.1:4000/v1"})
    assert client.url == "http://127.0.0.1:4000/v1/chat/completions"
    assert client._api_key is None


def test_openai_without_a_key_names_the_variable() -> None:
    with pytest.raises(ModelConfigError, match="set OPENAI_API_KEY"):
        client_for("openai/gpt-4.1-mini", env={})


def test_litellm_proxy_reads_the_litellm_variables() -> None:
    env = {"LITELLM_BASE_URL": "https://llm.internal/", "LITELLM_API_KEY": KEY}
    client = client_for("litellm_proxy/Azure/gpt-5-mini-2025-08-07", env=env)
    assert client.base_url == "https://llm.internal"
    assert client._api_key == KEY


def test_litellm_proxy_requires_a_base_url() -> None:
    with pytest.raises(ModelConfigError, match=r"set LITELLM_BASE_URL .*LITELLM_API_KEY"):
        client_for("litellm_proxy/Azure/gpt-5-mini", env={"LITELLM_API_KEY": KEY})


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("vllm/Qwen2.5-7B-Instruct", "VLLM_BASE_URL"),
        ("ollama/llama3.1:8b", "OLLAMA_BASE_URL"),
        ("llama-cpp/any", "LLAMA_CPP_BASE_URL"),
    ],
)
def test_other_providers_follow_the_naming_rule(model: str, variable: str) -> None:
    client = client_for(model, env={variable: "http://127.0.0.1:9000/v1"})
    assert client.base_url == "http://127.0.0.1:9000/v1"
    assert client._api_key is None
    with pytest.raises(ModelConfigError, match=f"set {variable}"):
        client_for(model, env={})


def test_provider_env_names() -> None:
    assert provider_env_names("openai") == ("OPENAI_BASE_URL", "OPENAI_API_KEY")
    assert provider_env_names("LiteLLM_Proxy") == ("LITELLM_BASE_URL", "LITELLM_API_KEY")
    assert provider_env_names("my.server") == ("MY_SERVER_BASE_URL", "MY_SERVER_API_KEY")


def test_arguments_win_over_the_environment() -> None:
    env = {"VLLM_BASE_URL": "http://env-host/v1", "VLLM_API_KEY": "from-env"}
    client = client_for("vllm/m", base_url="http://arg-host/v1", api_key=KEY, env=env)
    assert client.base_url == "http://arg-host/v1"
    assert client._api_key == KEY


def test_blank_variables_count_as_unset() -> None:
    with pytest.raises(ModelConfigError, match="set VLLM_BASE_URL"):
        client_for("vllm/m", env={"VLLM_BASE_URL": "  "})
    with pytest.raises(ModelConfigError, match="set OPENAI_API_KEY"):
        client_for("openai/m", env={"OPENAI_API_KEY": ""})


def test_options_are_passed_to_the_client() -> None:
    budget = Budget(max_tokens=10)
    client = client_for(
        "vllm/m",
        env={"VLLM_BASE_URL": "http://h/v1"},
        max_retries=1,
        timeout=2.5,
        max_concurrency=32,
        budget=budget,
    )
    assert (client.max_retries, client.timeout, client.max_concurrency) == (1, 2.5, 32)
    assert client.budget is budget


def test_the_process_environment_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_BASE_URL", "http://127.0.0.1:11434/v1")
    assert client_for("ollama/llama3.1").base_url == "http://127.0.0.1:11434/v1"


@pytest.mark.parametrize("model", ["", "  ", "/gpt-4.1", "openai/", "vllm/  "])
def test_a_malformed_model_name_is_refused(model: str) -> None:
    with pytest.raises(ModelConfigError, match="provider/model"):
        client_for(model, env={"OPENAI_API_KEY": KEY})


def test_a_malformed_base_url_is_refused() -> None:
    with pytest.raises(ModelConfigError, match="http:// or https://"):
        client_for("vllm/m", env={"VLLM_BASE_URL": "localhost:8000"})


def test_the_key_is_never_shown() -> None:
    texts: list[str] = []
    env = {"OPENAI_API_KEY": KEY, "LITELLM_API_KEY": KEY, "X_API_KEY": KEY}
    texts.append(repr(client_for("openai/gpt-4.1", env=env)))
    for model in ("litellm_proxy/gpt-4.1", "x/model", "/"):
        with pytest.raises(ModelConfigError) as raised:
            client_for(model, env=env)
        texts.append(str(raised.value))
    with pytest.raises(ModelConfigError) as raised:
        client_for("x/model", base_url="not a url", api_key=KEY)
    texts.append(str(raised.value))
    assert all(KEY not in text for text in texts), texts


def test_a_configured_client_talks_to_the_server(chat_server: ChatServer) -> None:
    chat_server.enqueue(Reply.ok('{"score": 1}'))
    env = {"VLLM_BASE_URL": chat_server.base_url, "VLLM_API_KEY": KEY}
    client = client_for("vllm/judge-model", env=env, timeout=5.0)

    async def go() -> str:
        async with client:
            messages: Any = ({"role": "user", "content": "Grade this"},)
            reply = await client.complete(ChatRequest(model="vllm/judge-model", messages=messages))
            return reply.text

    assert asyncio.run(go()) == '{"score": 1}'
    [sent] = chat_server.requests
    assert sent.body["model"] == "judge-model"
    assert sent.headers["authorization"] == f"Bearer {KEY}"


def test_importing_the_packages_does_not_load_httpx() -> None:
    code = (
        "import sys\n"
        "import assay, assay.models\n"
        "from assay.models import ChatRequest, ChatResponse, Budget, JudgeUsage, ModelError\n"
        "assert 'httpx' not in sys.modules, 'httpx was imported'\n"
        "from assay.models import client_for\n"
        "assert 'httpx' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_unknown_names_are_attribute_errors() -> None:
    import assay.models

    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = assay.models.Nope  # type: ignore[attr-defined]
    assert "OpenAICompatibleClient" in dir(assay.models)


def test_the_call_bound_is_passed_to_either_client(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"VLLM_BASE_URL": "http://h/v1"}
    assert client_for("vllm/m", env=env).call_timeout == 180.0
    assert client_for("vllm/m", env=env, call_timeout=2.0).call_timeout == 2.0
    # As if LiteLLM were installed (it is imported only when a judge is asked something).
    monkeypatch.setattr("assay.models.litellm_client.find_spec", lambda name: object())
    assert client_for("litellm/anthropic/x", env={}, call_timeout=3.0).call_timeout == 3.0


def test_a_litellm_judge_without_litellm_is_a_config_error_before_any_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("assay.models.litellm_client.find_spec", lambda name: None)
    with pytest.raises(ModelConfigError, match=r"need the LiteLLM library: pip install litellm$"):
        client_for("litellm/anthropic/x", env={})


def test_the_endpoint_is_found_as_the_client_finds_it_but_needs_no_key() -> None:
    from assay.models import endpoint_for

    env = {"VLLM_BASE_URL": "http://gpu-1:8000/v1", "OPENAI_BASE_URL": " "}
    assert endpoint_for("vllm/qwen", env=env) == client_for("vllm/qwen", env=env).base_url
    assert endpoint_for("vllm/qwen", env=env, base_url="http://gpu-2/v1") == "http://gpu-2/v1"
    assert endpoint_for("openai/gpt-4.1-mini", env=env) == OPENAI_DEFAULT_BASE_URL  # no key
    assert endpoint_for("litellm/anthropic/x", env={}) == ""
    assert endpoint_for("litellm/anthropic/x", env={}, base_url="http://p/v1") == "http://p/v1"
    with pytest.raises(ModelConfigError, match="set LOCAL_BASE_URL"):
        endpoint_for("local/judge", env={})
