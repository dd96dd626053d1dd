"""The LLM layer: chat-model factory, structured output with fallbacks, call records."""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "cache": ("CacheMode", "CallCache"),
        "caps": ("CHARS_PER_TOKEN", "ROLES", "UNCAPPED", "CallRole", "MaxTokens", "parse_max_tokens"),
        "context": (
            "TEMPLATE_TOKENS",
            "fit_counted",
            "history_text",
            "learn_overflow",
            "limit_from_error",
            "message_chars",
            "one_line",
            "prompt_budget_chars",
            "prompt_budget_tokens",
            "tokens_from_error",
            "trim_history",
        ),
        "costs": ("Budget", "PriceFileError", "PriceTable"),
        "embeddings": ("EmbeddingClient", "EmbeddingsError"),
        "endpoints": ("DEFAULT_PAUSE_AFTER", "EndpointError", "EndpointHealth", "check_reachable"),
        "faults": ("is_context_length_error",),
        "ledger": ("LLMCallRecord", "Recorder", "ToolRole", "record_retries", "usage_fields"),
        "model_specs": ("ModelSpecError", "is_openai_model"),
        "models": ("DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S", "ChatSettings", "make_chat_model"),
        "observers": ("has_handlers", "unobserved"),
        "probe": ("probe_model", "probe_reports", "probe_table"),
        "prompts": ("Prompt", "load_prompt"),
        "retry_log": ("listen", "unlisten"),
        "sent": ("REQUEST_SENT", "note_request_sent"),
        "structured": ("METHODS", "RetryPolicy", "StructuredCaller", "StructuredOutputError"),
        "tool_models": ("ToolModels",),
        "tool_users": ("UsesToolModels",),
        "transport": ("ChatTransport",),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.llm.cache import CacheMode, CallCache
    from proactive_bench.llm.caps import CHARS_PER_TOKEN, ROLES, UNCAPPED, CallRole, MaxTokens, parse_max_tokens
    from proactive_bench.llm.context import (
        TEMPLATE_TOKENS,
        fit_counted,
        history_text,
        learn_overflow,
        limit_from_error,
        message_chars,
        one_line,
        prompt_budget_chars,
        prompt_budget_tokens,
        tokens_from_error,
        trim_history,
    )
    from proactive_bench.llm.costs import Budget, PriceFileError, PriceTable
    from proactive_bench.llm.embeddings import EmbeddingClient, EmbeddingsError
    from proactive_bench.llm.endpoints import DEFAULT_PAUSE_AFTER, EndpointError, EndpointHealth, check_reachable
    from proactive_bench.llm.faults import is_context_length_error
    from proactive_bench.llm.ledger import LLMCallRecord, Recorder, ToolRole, record_retries, usage_fields
    from proactive_bench.llm.model_specs import ModelSpecError, is_openai_model
    from proactive_bench.llm.models import DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, ChatSettings, make_chat_model
    from proactive_bench.llm.observers import has_handlers, unobserved
    from proactive_bench.llm.probe import probe_model, probe_reports, probe_table
    from proactive_bench.llm.prompts import Prompt, load_prompt
    from proactive_bench.llm.retry_log import listen, unlisten
    from proactive_bench.llm.sent import REQUEST_SENT, note_request_sent
    from proactive_bench.llm.structured import METHODS, RetryPolicy, StructuredCaller, StructuredOutputError
    from proactive_bench.llm.tool_models import ToolModels
    from proactive_bench.llm.tool_users import UsesToolModels
    from proactive_bench.llm.transport import ChatTransport

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_PAUSE_AFTER",
    "DEFAULT_TIMEOUT_S",
    "METHODS",
    "REQUEST_SENT",
    "ROLES",
    "TEMPLATE_TOKENS",
    "UNCAPPED",
    "Budget",
    "CacheMode",
    "CallCache",
    "CallRole",
    "ChatSettings",
    "ChatTransport",
    "EmbeddingClient",
    "EmbeddingsError",
    "EndpointError",
    "EndpointHealth",
    "LLMCallRecord",
    "MaxTokens",
    "ModelSpecError",
    "PriceFileError",
    "PriceTable",
    "Prompt",
    "Recorder",
    "RetryPolicy",
    "StructuredCaller",
    "StructuredOutputError",
    "ToolModels",
    "ToolRole",
    "UsesToolModels",
    "check_reachable",
    "fit_counted",
    "has_handlers",
    "history_text",
    "is_context_length_error",
    "is_openai_model",
    "learn_overflow",
    "limit_from_error",
    "listen",
    "load_prompt",
    "make_chat_model",
    "message_chars",
    "note_request_sent",
    "one_line",
    "parse_max_tokens",
    "probe_model",
    "probe_reports",
    "probe_table",
    "prompt_budget_chars",
    "prompt_budget_tokens",
    "record_retries",
    "tokens_from_error",
    "trim_history",
    "unlisten",
    "unobserved",
    "usage_fields",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
