"""What a ``@pytest.mark.pbench(...)`` marker asks for: the run (as ``run_episode`` takes it) and the thresholds it must meet.

Cheap to import: pytest loads the plugin in every session, and a session without the marker loads none of pbench.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

THRESHOLDS = ("min_proc", "min_comp")
"""The marker's pass marks: the episode's Proc and Comp must reach them (docs/metrics.md)."""
RUN_ARGUMENTS = frozenset(
    {
        "persona",
        "task",
        "agent",
        "model",
        "judge",
        "data",
        "sessions",
        "user",
        "user_model",
        "judge_model",
        "base_url",
        "max_turns",
        "agent_options",
        "protocol",
        "validate",
    }
)
"""The marker's own names for ``run_episode``'s parameters (``data`` is ``data_root``, as ``--data`` on the command line)."""
PLUGIN_OWNED = frozenset({"db", "answers_from", "on_progress", "data_root"})
"""``run_episode`` parameters the plugin sets itself (the database, the recorded answers, progress)."""


class GateError(ValueError):
    """A marker that cannot run: one line naming the field and the reason."""


@dataclass(frozen=True)
class Gate:
    """One marker: the keyword arguments of ``run_episode`` and the thresholds."""

    run: dict[str, Any]
    thresholds: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_marker(cls, args: tuple[Any, ...], kwargs: Mapping[str, Any], extra_settings: frozenset[str]) -> Gate:
        """Read ``@pytest.mark.pbench("pharmacist", sessions="1-5", agent=..., min_proc=0.4)``.

        ``extra_settings``: the further ``run_episode`` settings taken by name (``max_tokens``, ``suite``, ...).
        """
        if len(args) > 1:
            raise GateError(f"pbench marker: one positional argument (the persona) at most, got {len(args)}")
        given = dict(kwargs)
        if args:
            if "persona" in given:
                raise GateError("pbench marker: the persona is given twice (positionally and as persona=)")
            given["persona"] = args[0]
        owned = sorted(set(given) & PLUGIN_OWNED)
        if owned:
            raise GateError(
                f"pbench marker: {', '.join(owned)} is set by the plugin (--pbench-db, the recorded answers); give data= for the dataset root"
            )
        unknown = sorted(set(given) - RUN_ARGUMENTS - set(THRESHOLDS) - extra_settings)
        if unknown:
            known = sorted(RUN_ARGUMENTS | set(THRESHOLDS))
            raise GateError(f"pbench marker: unknown argument(s) {', '.join(unknown)}; known: {', '.join(known)} and run settings")
        if ("persona" in given) == ("task" in given):
            raise GateError("pbench marker: give persona (e.g. 'pharmacist') or task (a suite's task), one of them")
        thresholds = {name: _fraction(name, given.pop(name)) for name in THRESHOLDS if name in given}
        if "data" in given:
            given["data_root"] = str(given.pop("data"))
        sessions = given.get("sessions")
        if sessions is not None and not isinstance(sessions, str | list | tuple):
            raise GateError(f"pbench marker: sessions must be a string such as '1-5' or a list of session ids, not {sessions!r}")
        return cls(given, thresholds)

    def describe(self) -> str:
        """The run in a few words: ``pharmacist sessions 1-5, agent my_agent.py:Agent on openai:gpt-4o-mini, user rules``."""
        episode = self.run.get("persona") or self.run.get("task")
        sessions = self.run.get("sessions")
        chosen = f" sessions {sessions if isinstance(sessions, str) else ','.join(sessions)}" if sessions else ""
        agent = self.run.get("agent") or ("react" if self.run.get("model") else "")
        on_model = f" on {self.run['model']}" if self.run.get("model") else ""
        return f"{episode}{chosen}, agent {agent}{on_model}, user {self.run.get('user', 'rules')}"


def _fraction(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise GateError(f"pbench marker: {name} must be a number from 0 to 1, not {value!r}")
    return float(value)
