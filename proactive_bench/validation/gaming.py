"""Dataset checks against cheap ways to earn credit: loose ``ask`` cues and stuffable evidence.

Part of ``pbench validate`` (warnings):

- **loose cues**: every intent's ``ask`` regexes run over a shipped corpus of
  generic and off-target questions from other lines of work
  (``data/offtarget_questions.txt``); a cue that fires on a question the
  targeted-question screen lets through would credit a question that is not
  about the intent;
- **stuffable evidence**: the sessions start in order on a scratch world as
  in a run (clock, timed app rows); before each session's reference solution
  is replayed, every file it writes is filled with the words an agent could
  collect without doing any work (the request, the workspace files, a generic
  work vocabulary), once all on one line and once one word per line; an
  intent's evidence or a rule item that holds on that, and did not hold
  before, is satisfied by keyword stuffing.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import (
    GraderResolver,
    LoadedEpisode,
    Problem,
    Session,
    compile_pattern,
    evaluate,
)
from proactive_bench.env import SeedError, Workspace, WorkspaceSeedError
from proactive_bench.scaffolds import (
    WORK_DIMENSIONS,
    stuffing_words,
    workspace_texts,
    written_paths,
)
from proactive_bench.user import screen_questions
from proactive_bench.validation.scratch_world import (
    scratch_world,
    start_scratch_session,
)

CORPUS = "offtarget_questions.txt"


@cache
def offtarget_questions() -> tuple[str, ...]:
    """The shipped corpus of off-target questions, each one the screen lets through."""
    text = (Path(__file__).resolve().parent / "data" / CORPUS).read_text(encoding="utf-8")  # importlib.resources fails on an editable namespace package
    lines = [line.strip() for line in text.splitlines()]
    return tuple(q for q in lines if q and not q.startswith("#") and screen_questions(q).admissible)


def loose_cues(session: Session, rel: str, questions: tuple[str, ...] | None = None) -> list[Problem]:
    """One warning per ``ask`` regex that matches an off-target question."""
    corpus = offtarget_questions() if questions is None else questions
    problems = []
    for n, intent in enumerate(session.intents):
        for k, pattern in enumerate(intent.ask):
            regex = compile_pattern(pattern)
            hits = [q for q in corpus if regex.search(q)]
            if hits:
                problems.append(Problem(
                    rel, f"intents[{n}].ask[{k}]",
                    f"fires on {len(hits)} off-target question(s), e.g. {hits[0]!r}: a question not about {intent.id} would count", "warning",
                ))
    return problems


def stuffable_evidence(episode: LoadedEpisode, root: Path) -> list[Problem]:
    """Warnings for intent evidence and rule items that a keyword-stuffed file satisfies (see the module docstring)."""
    problems: list[Problem] = []
    resolver = GraderResolver(root)
    with ExitStack() as stack:
        try:
            env = stack.enter_context(scratch_world(episode))
        except (SeedError, WorkspaceSeedError):
            return []  # reported by the replay of the references
        for session in episode.sessions:
            try:
                box = start_scratch_session(env, episode, session)
            except SeedError:
                break  # reported by the replay of the references; later sessions would start on the wrong rows
            except KeyError:
                continue  # reported by the session checks
            rel = f"episodes/{episode.episode.id}/sessions/{session.id}.yaml"
            start = env.require_apps().snapshot()
            problems += _stuffing_session(session, rel, env.workspace, Evidence([], [], env.workspace, env.memory, resolver, env.apps, start))
            for step in session.reference:
                if step.tool is not None:
                    box.call(step.tool, step.args)
    return problems


def _checks(session: Session) -> list[tuple[str, Any]]:
    return [(f"intents[{n}].evidence", i.evidence) for n, i in enumerate(session.intents) if i.evidence is not None] + [
        (f"checklist[{n}].check", c.check) for n, c in enumerate(session.checklist) if c.check is not None
    ]


def _stuffing_session(session: Session, rel: str, workspace: Workspace, evidence: Evidence) -> list[Problem]:
    paths = written_paths(session)
    if not paths:
        return []
    checks = _checks(session)
    before = {field: _value(check, evidence) for field, check in checks}
    words = [*stuffing_words(session.trigger.message, workspace_texts(workspace)), *WORK_DIMENSIONS]
    saved = {p: workspace.read_text(p) if workspace.glob_files(p) else None for p in paths}
    flagged: dict[str, str] = {}
    try:
        for layout, content in (("on one line", " ".join(words)), ("one word per line", "\n".join(words))):
            for path in paths:
                workspace.write_text(path, f"# {path}\n\n{content}\n")
            for field, check in checks:
                if field not in flagged and not before[field] and _value(check, evidence):
                    flagged[field] = layout
    finally:
        for path, text in saved.items():
            if text is None:
                workspace.resolve(path).unlink(missing_ok=True)
            else:
                workspace.write_text(path, text)
    return [
        Problem(rel, field, f"holds on files stuffed with the request's and the workspace's words ({layout}): require what only the work produces", "warning")
        for field, layout in flagged.items()
    ]


def _value(check: Any, evidence: Evidence) -> bool:
    try:
        return evaluate(check, replace(evidence, memo={}))
    except Exception:  # noqa: BLE001 (a grader that fails on garbage is not satisfied by it)
        return False


def gaming_problems(episode: LoadedEpisode, root: Path) -> list[Problem]:
    """Both checks for one episode."""
    problems = [p for s in episode.sessions for p in loose_cues(s, f"episodes/{episode.episode.id}/sessions/{s.id}.yaml")]
    return problems + stuffable_evidence(episode, root)
