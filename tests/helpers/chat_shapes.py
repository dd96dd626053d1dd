"""The structured-output schema and the tool the transport tests bind to a chat model (one of each, shared)."""

from __future__ import annotations

from langchain_core.tools import tool
from pydantic import BaseModel


class Verdict(BaseModel):
    """A structured answer: a label and a score."""

    label: str
    score: int


@tool
def read_list(name: str) -> str:
    """Read a shopping list by name."""
    return name
