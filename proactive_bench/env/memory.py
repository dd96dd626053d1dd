"""The agent's memory: named notes that persist across the sessions of an episode."""

from __future__ import annotations


class Memory:
    """A small key -> text store; the store persists it at each session end."""

    def __init__(self, entries: dict[str, str] | None = None) -> None:
        self._entries: dict[str, str] = dict(entries or {})

    def write(self, key: str, text: str) -> None:
        self._entries[key] = text

    def delete(self, key: str) -> bool:
        return self._entries.pop(key, None) is not None

    def get(self, key: str) -> str | None:
        return self._entries.get(key)

    def items(self) -> list[tuple[str, str]]:
        return sorted(self._entries.items())

    def as_dict(self) -> dict[str, str]:
        return dict(sorted(self._entries.items()))

    def render(self) -> str:
        """The memory as text for a prompt."""
        if not self._entries:
            return "(empty)"
        return "\n".join(f"- {key}: {text}" for key, text in self.items())
