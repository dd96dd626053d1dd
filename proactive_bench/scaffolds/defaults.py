"""The agent of a run that names only a chat model, in a module that loads no agent (stored run settings read it)."""

from __future__ import annotations

DEFAULT_AGENT = "react"
"""The agent of a run that names only a chat model (``--model openai:gpt-4o``)."""
