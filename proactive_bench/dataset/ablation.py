"""Ablations: which sessions of an episode a run keeps.

``no-dependency-history`` is the paper's ablation (section 4.3, figure 5): a
run plays only the final session of each dependency group (:func:`group_finals`:
a session with dependencies that no session depends on, its group the sessions
it depends on), and no other session. The groups' earlier sessions are removed from
the world: they never run (no workspace changes, memory, transcripts or app
changes of theirs, and their timed rows and files never appear), and the
seeded files that only they name in ``files`` are taken
out of the workspace before the first session (:func:`withheld_files`). The
final sessions are then compared with the same sessions in a full run.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # annotations only: reading a run's ablation loads no schema (and no tools)
    from proactive_bench.dataset.schema import Episode, Session

Ablation = Literal["none", "no-dependency-history"]
ABLATIONS: tuple[Ablation, ...] = ("none", "no-dependency-history")


def group_finals(episode: Episode, session_ids: list[str] | None = None) -> dict[str, list[str]]:
    """Each final session -> its dependency group's earlier sessions (episode order), among ``session_ids`` (default: all).

    A final depends on another session and no session depends on it; its group is the sessions it depends on,
    directly or not, as its trajectory is scored (docs/metrics.md). In a chain that is the chain's last session; where
    two sessions build on one earlier session, each is a final and both groups hold that session.
    """
    order = [s.id for s in episode.sessions if session_ids is None or s.id in session_ids]
    direct = {sid: [d for d in deps if d in order] for sid, deps in depends_on_map(episode).items() if sid in order}
    needed = {dep for deps in direct.values() for dep in deps}
    finals: dict[str, list[str]] = {}
    for sid in order:
        if sid in needed or not direct[sid]:
            continue
        seen: set[str] = set()
        stack = list(direct[sid])
        while stack:
            if (dep := stack.pop()) not in seen:
                seen.add(dep)
                stack.extend(direct[dep])
        finals[sid] = [d for d in order if d in seen]
    return finals


def ablated_sessions(episode: Episode, sessions: list[Session], ablation: Ablation) -> list[Session]:
    """The sessions a run with this ablation keeps, in episode order: all of them, or the final session of each dependency group."""
    if ablation == "none":
        return sessions
    finals = group_finals(episode, [s.id for s in sessions])
    return [s for s in sessions if s.id in finals]


def removed_sessions(episode: Episode, kept: list[str]) -> list[str]:
    """The sessions an ablated run removed: the earlier sessions of the dependency groups whose final it plays (episode order)."""
    finals = group_finals(episode)
    removed = {sid for final in kept for sid in finals.get(final, [])} - set(kept)
    return [s.id for s in episode.sessions if s.id in removed]


def withheld_files(sessions: list[Session], removed: list[str], present: list[str]) -> list[str]:
    """The files of ``present`` (workspace paths) that only removed sessions name in ``files``: a file another session of
    the episode names too (played or not, e.g. a formulary every task reads) belongs to the persona's world and stays.

    A ``files`` entry is a path, a glob or a folder (everything under it).
    """

    def named(entries: list[str], path: str) -> bool:
        return any(fnmatchcase(path, entry) or path.startswith(entry.rstrip("/") + "/") for entry in entries)

    gone = set(removed)
    removed_entries = [e for s in sessions if s.id in gone for e in s.files]
    other_entries = [e for s in sessions if s.id not in gone for e in s.files]
    return [p for p in present if named(removed_entries, p) and not named(other_entries, p)]


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
