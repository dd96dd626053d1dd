"""Evaluation protocols: pbench's default rules, or π-Bench's where they differ.

One option (``--protocol``) selects every rule at once; the table in
docs/metrics.md (Protocols) lists them with the reason pbench differs. Scoring rules live in
:mod:`proactive_bench.scoring.metrics` (:class:`~proactive_bench.scoring.metrics.Scoring`); the
rest is how runs are made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from proactive_bench.scoring.metrics import DEFAULT_SCORING, PIBENCH_SCORING, Scoring

DEFAULT_JUDGE = "rubric"
"""The judge of rubric items when a run names none (``JUDGES``: :class:`~proactive_bench.scoring.judge.RubricJudge`)."""

ProtocolName = Literal["pbench", "pibench"]
PROTOCOL_NAMES: tuple[ProtocolName, ...] = ("pbench", "pibench")


@dataclass(frozen=True)
class EvalProtocol:
    name: ProtocolName
    scoring: Scoring
    rubric_any_turn: bool
    """Rubric items are judged after every agent turn and credited if any turn meets them."""
    needs_models: bool
    """The LLM user simulator and a judge model are required."""
    default_runs: int
    max_turns: int | None = None
    """The agent turns a session may take, fixed by the protocol (None: ``--max-turns``, 30 unless given)."""


PIBENCH_MAX_TURNS = 30
"""The release's runner stops a task after 30 agent replies."""

PROTOCOLS: dict[str, EvalProtocol] = {
    "pbench": EvalProtocol("pbench", DEFAULT_SCORING, rubric_any_turn=False, needs_models=False, default_runs=1),
    "pibench": EvalProtocol(
        "pibench", PIBENCH_SCORING, rubric_any_turn=True, needs_models=True, default_runs=3, max_turns=PIBENCH_MAX_TURNS
    ),
}


def protocol(name: str) -> EvalProtocol:
    """The protocol of that name; ValueError naming the known ones."""
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; known: {', '.join(PROTOCOL_NAMES)}")
    return PROTOCOLS[name]


def default_user(name: str) -> str:
    """The user simulator a run of this protocol gets when it names none: the LLM user where the protocol needs it (π-Bench's
    user, as the release has it), else the rules user."""
    rules = PROTOCOLS.get(name)
    return "llm" if rules is not None and rules.needs_models else "rules"


def protocol_problem(name: str, user: str, judge_model: str | None, max_turns: int | None = None) -> str | None:
    """Why these run settings break the protocol (one line), or None."""
    rules = protocol(name)
    if rules.needs_models and user != "llm":
        return (
            f"--protocol {name} plays π-Bench's LLM user, not --user {user}: leave --user out (or --user llm) and give --user-model MODEL"
        )
    if rules.needs_models and not judge_model:
        return f"--protocol {name} needs a judge for the rubric items: give --judge-model MODEL"
    if rules.max_turns is not None and max_turns is not None and max_turns != rules.max_turns:
        return f"--protocol {name} plays at most {rules.max_turns} agent turns a session, as the release does; leave --max-turns out (got {max_turns})"
    return None
