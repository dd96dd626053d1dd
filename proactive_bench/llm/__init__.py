"""The LLM layer: chat-model factory, structured output with fallbacks, call records."""

from typing import Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "cache": ("CallCache",),
        "caps": ("ROLES", "UNCAPPED", "MaxTokens", "parse_max_tokens"),
        "context": ("CHARS_PER_TOKEN", "limit_from_error", "message_chars", "one_line", "prompt_budget_chars", "trim_history"),
        "costs": ("Budget", "PriceFileError", "PriceTable"),
        "embeddings": ("EmbeddingClient", "EmbeddingsError"),
        "endpoints": ("DEFAULT_PAUSE_AFTER", "EndpointError", "EndpointHealth", "check_reachable", "is_openai_model"),
        "ledger": ("CallRole", "LLMCallRecord", "Recorder", "ToolRole", "record_retries", "usage_fields"),
        "model_specs": ("ModelSpecError",),
        "models": ("DEFAULT_MAX_RETRIES", "DEFAULT_TIMEOUT_S", "ChatSettings", "make_chat_model"),
        "probe": ("probe_model", "probe_reports", "probe_table"),
        "prompts": ("Prompt", "load_prompt"),
        "retry_log": ("listen", "unlisten"),
        "sent": ("REQUEST_SENT", "note_request_sent"),
        "structured": ("METHODS", "RetryPolicy", "StructuredCaller", "StructuredOutputError"),
        "tool_models": ("ToolModels", "UsesToolModels"),
        "transport": ("ChatTransport", "is_context_length_error"),
    },
)

__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_PAUSE_AFTER",
    "DEFAULT_TIMEOUT_S",
    "METHODS",
    "REQUEST_SENT",
    "ROLES",
    "UNCAPPED",
    "Budget",
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
    "is_context_length_error",
    "is_openai_model",
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
    "record_retries",
    "trim_history",
    "unlisten",
    "usage_fields",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
