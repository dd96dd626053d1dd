"""Replay every reference solution in order on a scratch copy of an episode's world (``pbench validate``).

Each session starts as in a run (clock, timed app rows) on what the earlier
sessions' replays left. Before its steps no intent evidence may hold; its
steps must all succeed (the first failing one is reported, and the session's
later checks are skipped, since they would only repeat it); after them every
intent's evidence and every rule item must hold. A session whose file did not
load or whose replay broke is not there for the sessions that depend on it:
those are not replayed (one note each) rather than failing in its wake.
The same walk serves the checks that need each session's starting world
(``at_start``: :mod:`~proactive_bench.validation.gaming`), so the references
are replayed once.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from proactive_bench.data_model import Evidence, Message
from proactive_bench.dataset import (
    GraderError,
    GraderResolver,
    LoadedEpisode,
    Problem,
    Session,
    evaluate,
    walk,
)
from proactive_bench.env import SeedError, SteadyWorkspace, ToolBox, ToolEnv, WorkspaceSeedError
from proactive_bench.validation.scratch_world import (
    scratch_world,
    start_scratch_session,
)
from proactive_bench.validation.semantics import unknown_name

SessionHook = Callable[[Session, ToolEnv], None]
"""Called with each session that starts, on its starting world, before its reference runs; leaves the world as it found it."""


def replay_references(episode: LoadedEpisode, root: Path, at_start: SessionHook | None = None) -> list[Problem]:
    problems: list[Problem] = []
    resolver = GraderResolver(root)
    loaded = {s.id: s for s in episode.sessions}
    broken = {e.id for e in episode.episode.sessions if e.id not in loaded}  # their load errors are reported
    with ExitStack() as stack:
        try:
            env = stack.enter_context(scratch_world(episode))
        except SeedError as exc:
            return [Problem(f"episodes/{episode.episode.id}/apps", "", str(exc))]
        except WorkspaceSeedError as exc:
            return [Problem(f"episodes/{episode.episode.id}/workspace", "", str(exc))]
        for position, entry in enumerate(episode.episode.sessions):
            session = loaded.get(entry.id)
            if session is None:
                continue
            rel = f"episodes/{episode.episode.id}/sessions/{session.id}.yaml"
            try:
                box = start_scratch_session(env, episode, session)
            except SeedError as exc:
                problems.append(Problem(f"episodes/{episode.episode.id}/apps/{session.id}", "", str(exc)))
                broken.add(session.id)
                continue
            except KeyError:
                broken.add(session.id)  # the unknown tool is reported by the session checks
                continue
            if at_start is not None:
                at_start(session, env)
            missing = [d for d in entry.depends_on if d in broken]
            if missing:
                problems.append(Problem(rel, "reference", f"not replayed: it depends on {missing[0]}, which has errors", "warning"))
                broken.add(session.id)
                continue
            earlier = next((e.id for e in episode.episode.sessions[:position] if e.id in broken), None)
            if not _replay_session(session, rel, box, resolver, problems, earlier):
                broken.add(session.id)
    return problems


def _replay_session(
    session: Session,
    rel: str,
    box: ToolBox,
    resolver: GraderResolver,
    problems: list[Problem],
    broken_before: str | None,
) -> bool:
    """Check one session's reference solution; False when a step failed (or cannot run).

    ``broken_before``: an earlier session with errors, named in a failure that may follow from it
    (a session that needs another's output should list it in ``depends_on``).
    """
    env = box.env
    start = env.require_apps().snapshot()
    before = Evidence([], [], SteadyWorkspace(env.workspace), env.memory, resolver, env.apps, start)
    for n, intent in enumerate(session.intents):
        if intent.evidence is not None and _holds(intent.evidence, before, problems, rel, f"intents[{n}].evidence"):
            problems.append(
                Problem(rel, f"intents[{n}].evidence", "already holds before the session starts (seed plus earlier reference solutions)")
            )
    if not session.reference:
        return True  # nothing to replay: the checks below judge a reference solution
    offered = {spec.name for spec in box.specs}
    if any(step.tool is not None and step.tool not in offered for step in session.reference):
        return False  # reported by the static checks (reference[n].tool)
    said = []
    for n, step in enumerate(session.reference):
        if step.tool is None:
            said.append(step.say or "")
            continue
        record = box.call(step.tool, step.args)
        if not record.ok:
            hint = f"; {broken_before} has errors: if this session needs its output, add it to depends_on" if broken_before else ""
            problems.append(
                Problem(
                    rel,
                    f"reference[{n}]",
                    f"{step.tool} failed: {record.result.get('error')} (the first failing step; the session's later checks are skipped{hint})",
                )
            )
            return False
    after = Evidence(
        [Message("agent", "\n\n".join(said), 1)], box.records, SteadyWorkspace(env.workspace), env.memory, resolver, env.apps, start
    )
    for n, intent in enumerate(session.intents):
        if intent.evidence is not None and _holds(intent.evidence, after, problems, rel, f"intents[{n}].evidence") is False:
            problems.append(Problem(rel, f"intents[{n}].evidence", "the reference solution does not satisfy it"))
    for n, item in enumerate(session.checklist):
        if item.check is not None and _holds(item.check, after, problems, rel, f"checklist[{n}].check") is False:
            problems.append(Problem(rel, f"checklist[{n}].check", "the reference solution does not pass it"))
    return True


def _holds(predicate: Any, evidence: Evidence, problems: list[Problem], rel: str, field: str) -> bool | None:
    """The predicate's value, or None when it raises (recorded, except for what the static checks already name)."""
    if any(unknown_name(node) for node in walk(predicate)):
        return None
    try:
        return evaluate(predicate, evidence)
    except GraderError:
        return None
    except Exception as exc:  # a grader bug is reported, not raised
        problems.append(Problem(rel, field, f"cannot be evaluated: {exc!r}"))
        return None
