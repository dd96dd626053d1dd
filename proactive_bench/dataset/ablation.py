"""Ablations: which sessions of an episode a run keeps.

``no-dependency-history`` is the paper's ablation (section 4.3): for every
dependency group, the earlier sessions are removed, so the group's final
session runs without their workspace changes, memory and transcripts. The
final sessions are then compared with the same sessions in a full run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # annotations only: reading a run's ablation loads no schema (and no tools)
    from proactive_bench.dataset.schema import Episode, Session

Ablation = Literal["none", "no-dependency-history"]
ABLATIONS: tuple[Ablation, ...] = ("none", "no-dependency-history")


def group_finals(episode: Episode, sessions: list[Session]) -> dict[str, list[str]]:
    """Final session id of each dependency group with more than one session -> the earlier ones."""
    return {unit[-1]: unit[:-1] for unit in dependency_units(episode, [s.id for s in sessions]) if len(unit) > 1}


def ablated_sessions(episode: Episode, sessions: list[Session], ablation: Ablation) -> list[Session]:
    """The sessions a run with this ablation keeps, in episode order."""
    if ablation == "none":
        return sessions
    removed = {sid for earlier in group_finals(episode, sessions).values() for sid in earlier}
    return [s for s in sessions if s.id not in removed]


def dependency_units(episode: Episode, session_ids: list[str] | None = None) -> list[list[str]]:
    """Connected components of ``depends_on`` (restricted to ``session_ids``), in episode order."""
    order = [s.id for s in episode.sessions if session_ids is None or s.id in session_ids]
    parent = {sid: sid for sid in order}

    def find(sid: str) -> str:
        while parent[sid] != sid:
            parent[sid] = parent[parent[sid]]
            sid = parent[sid]
        return sid

    for entry in episode.sessions:
        for dep in entry.depends_on:
            if entry.id in parent and dep in parent:
                parent[find(entry.id)] = find(dep)
    units: dict[str, list[str]] = {}
    for sid in order:
        units.setdefault(find(sid), []).append(sid)
    return list(units.values())


def depends_on_map(episode: Episode) -> dict[str, list[str]]:
    """Each session's direct dependencies."""
    return {s.id: list(s.depends_on) for s in episode.sessions}


def left_out_dependencies(episode: Episode, chosen: list[str]) -> dict[str, list[str]]:
    """Each chosen session -> the sessions it depends on, directly or not, that ``chosen`` leaves out (episode order)."""
    direct = depends_on_map(episode)
    order = [s.id for s in episode.sessions]
    missing: dict[str, list[str]] = {}
    for sid in chosen:
        seen: set[str] = set()
        stack = list(direct.get(sid, []))
        while stack:
            dep = stack.pop()
            if dep not in seen:
                seen.add(dep)
                stack.extend(direct.get(dep, []))
        if left_out := [d for d in order if d in seen and d not in chosen]:
            missing[sid] = left_out
    return missing
