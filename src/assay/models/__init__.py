"""Model clients for judges: OpenAI-compatible HTTP, limits, budgets and usage.

Names are loaded on first use (PEP 562): importing `assay.models`, or only its request and
reply types, does not load the HTTP stack.

Example:
    >>> from assay import models
    >>> hi = ({"role": "user", "content": "Hi"},)
    >>> request = models.ChatRequest(model="vllm/qwen", messages=hi)
    >>> request.model_name
    'qwen'
    >>> models.Budget(max_tokens=1000).exhausted
    False
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_exports

if TYPE_CHECKING:
    from assay.models.budget import Budget, JudgeUsage, ModelUsage
    from assay.models.cache import (
        CachedClient,
        CacheError,
        ResponseCache,
        default_cache_dir,
        request_key,
    )
    from assay.models.config import (
        OPENAI_DEFAULT_BASE_URL,
        client_for,
        endpoint_for,
        provider_env_names,
    )
    from assay.models.openai_compat import RETRY_STATUSES, OpenAICompatibleClient
    from assay.models.types import (
        BudgetExceeded,
        CacheMiss,
        ChatRequest,
        ChatResponse,
        ModelClient,
        ModelConfigError,
        ModelError,
        ModelHTTPError,
        ModelRateLimited,
        ModelResponseError,
        ModelTimeout,
        TokenUsage,
    )

_EXPORTS = {
    "BudgetExceeded": "assay.models.types",
    "CacheMiss": "assay.models.types",
    "ChatRequest": "assay.models.types",
    "ChatResponse": "assay.models.types",
    "ModelClient": "assay.models.types",
    "ModelConfigError": "assay.models.types",
    "ModelError": "assay.models.types",
    "ModelHTTPError": "assay.models.types",
    "ModelRateLimited": "assay.models.types",
    "ModelResponseError": "assay.models.types",
    "ModelTimeout": "assay.models.types",
    "TokenUsage": "assay.models.types",
    "RETRY_STATUSES": "assay.models.openai_compat",
    "OpenAICompatibleClient": "assay.models.openai_compat",
    "OPENAI_DEFAULT_BASE_URL": "assay.models.config",
    "client_for": "assay.models.config",
    "endpoint_for": "assay.models.config",
    "provider_env_names": "assay.models.config",
    "Budget": "assay.models.budget",
    "JudgeUsage": "assay.models.budget",
    "ModelUsage": "assay.models.budget",
    "CacheError": "assay.models.cache",
    "CachedClient": "assay.models.cache",
    "ResponseCache": "assay.models.cache",
    "default_cache_dir": "assay.models.cache",
    "request_key": "assay.models.cache",
}

__all__ = [
    "OPENAI_DEFAULT_BASE_URL",
    "RETRY_STATUSES",
    "Budget",
    "BudgetExceeded",
    "CacheError",
    "CacheMiss",
    "CachedClient",
    "ChatRequest",
    "ChatResponse",
    "JudgeUsage",
    "ModelClient",
    "ModelConfigError",
    "ModelError",
    "ModelHTTPError",
    "ModelRateLimited",
    "ModelResponseError",
    "ModelTimeout",
    "ModelUsage",
    "OpenAICompatibleClient",
    "ResponseCache",
    "TokenUsage",
    "client_for",
    "default_cache_dir",
    "endpoint_for",
    "provider_env_names",
    "request_key",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
