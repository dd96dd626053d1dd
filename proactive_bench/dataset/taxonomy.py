"""The task category codes a session's ``category`` takes (described in docs/taxonomy.md)."""

from __future__ import annotations

CATEGORY_CODES: tuple[str, ...] = tuple("ABCDEFGHIJKLMNOPQRS")
"""A-R: the π-Bench task categories; S on: pbench's additions. docs/taxonomy.md has one table row per code."""
