"""The simulated user: two-stage intent tracking and the next user message.

``base`` holds the decision types and the priority rule shared by every
backend; ``rules`` is the deterministic backend driven by intent annotations;
``llm`` judges with a chat model. Prompts live in ``prompts/`` as versioned
files whose hash is stored with each decision.
"""
