"""Versioned prompt files: text, a content hash stored with every decision, and rendering.

Prompts are Markdown files named ``<name>.v<N>.md`` inside the package. Placeholders
use ``$name`` (``string.Template``) so JSON examples with braces need no escaping.
A missing placeholder is an error, never an empty string.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from string import Template

PROMPT_HASH_CHARS = 12
PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Prompt:
    """One prompt file's text and identity."""

    name: str
    text: str

    @cached_property
    def hash(self) -> str:
        """A short sha256 of the text: changes whenever the prompt's wording changes (worked out once: the LLM user's
        every judgment stores its prompts' hashes)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:PROMPT_HASH_CHARS]

    def render(self, **values: str) -> str:
        """The text with every ``$placeholder`` filled; KeyError names a missing one."""
        return Template(self.text).substitute(values)


def load_prompt(folder: str, name: str) -> Prompt:
    """``load_prompt("user/prompts", "completion.v1")`` reads ``proactive_bench/user/prompts/completion.v1.md``."""
    text = (PACKAGE_ROOT / folder / f"{name}.md").read_text(encoding="utf-8")
    return Prompt(name, text)
