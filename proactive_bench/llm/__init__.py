"""The LLM layer: chat-model factory, structured output with fallbacks, call records."""
