"""Dataset checks against cheap ways to earn credit: loose ``ask`` cues and stuffable evidence.

Part of ``pbench validate`` (warnings). At each session's start, on the
scratch world the replay of the reference solutions walks
(:func:`~proactive_bench.validation.reference_replay.replay_references`, as in
a run: clock, timed app rows, the earlier sessions' references replayed):

- **loose cues** (:mod:`proactive_bench.validation.cues`): every intent's
  ``ask`` regexes against bare probes, the off-target corpus and convention
  questions about the files then in the workspace;
- **stuffable evidence**: before the session's reference solution is
  replayed, every file it writes, and the agent's memory, are filled with what
  an agent could copy without doing any work: the words of the request and of
  the workspace files with a generic work vocabulary (once all on one line,
  once one word per line), and the user's earlier sentences (the earlier
  sessions' reveals, which the agent has heard) with every ID code and date
  they and the request hold, one per line (and in memory one per entry). Each
  file is written in its own format, as an agent would write it (a document
  the graders can read: ``stuffed_call``). An intent's evidence or a rule item
  that holds on that, and did not hold before, is satisfied by copying. The
  files are then put back byte for byte and the folders the stuffing made go.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import (
    GraderResolver,
    LoadedEpisode,
    Problem,
    Session,
    evaluate,
)
from proactive_bench.env import REGISTRY, TOOL_FAILURES, Memory, PathEscapeError, SteadyWorkspace, ToolEnv, Workspace, jail
from proactive_bench.scaffolds import (
    WORK_DIMENSIONS,
    stuffed_call,
    stuffing_words,
    workspace_texts,
    written_paths,
)
from proactive_bench.validation.cues import loose_cues
from proactive_bench.validation.reference_replay import replay_references

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_CODE = re.compile(r"\b(?:\d{4}-\d{2}-\d{2}|[A-Z0-9]*\d[A-Z0-9]*(?:[-./:][A-Z0-9]+)+|[A-Z]{2,}[-.]?\d+[A-Z0-9]*|\d+[A-Z]{2,}\d*)\b")
MEMORY_KEY = "notes"


@dataclass
class SessionStart:
    """A session at its start on the scratch world: what an agent could copy, and how to judge evidence."""

    session: Session
    rel: str
    env: ToolEnv
    evidence: Evidence
    earlier_reveals: list[str]

    @property
    def workspace(self) -> Workspace:
        return self.env.workspace

    @property
    def memory(self) -> Memory:
        return self.env.memory


class GamingChecks:
    """Both checks of one episode, run at each session's start (:meth:`at_start`, the replay's ``at_start``).

    ``cues``: False leaves the loose-cue checks out (stuffable evidence only).
    """

    def __init__(self, episode: LoadedEpisode, root: Path, cues: bool = True) -> None:
        self.episode, self.cues = episode, cues
        self.resolver = GraderResolver(root)
        self.reveals: list[str] = []
        self.found: list[Problem] = []
        self.started: set[str] = set()

    def at_start(self, session: Session, env: ToolEnv) -> None:
        rel = f"episodes/{self.episode.episode.id}/sessions/{session.id}.yaml"
        evidence = Evidence([], [], SteadyWorkspace(env.workspace), env.memory, self.resolver, env.apps, env.require_apps().snapshot())
        start = SessionStart(session, rel, env, evidence, list(self.reveals))
        self.started.add(session.id)
        if self.cues:
            self.found += loose_cues(session, rel, workspace_files=evidence.workspace.files())
        self.found += stuffable_session(start)
        self.reveals += [i.reveal for i in session.intents if i.reveal]

    def problems(self) -> list[Problem]:
        """What the walk found, then the cues of the sessions that never started (their world is broken, reported
        elsewhere: their cues are still checked)."""
        unstarted = [s for s in self.episode.sessions if s.id not in self.started] if self.cues else []
        return self.found + [p for s in unstarted for p in loose_cues(s, f"episodes/{self.episode.episode.id}/sessions/{s.id}.yaml")]


def stuffable_evidence(episode: LoadedEpisode, root: Path) -> list[Problem]:
    """Warnings for intent evidence and rule items that copying satisfies (see the module docstring)."""
    checks = GamingChecks(episode, root, cues=False)
    replay_references(episode, root, at_start=checks.at_start)
    return checks.problems()


def _checks(session: Session) -> list[tuple[str, Any]]:
    return [(f"intents[{n}].evidence", i.evidence) for n, i in enumerate(session.intents) if i.evidence is not None] + [
        (f"checklist[{n}].check", c.check) for n, c in enumerate(session.checklist) if c.check is not None
    ]


def copied_sentences(request: str, reveals: list[str]) -> list[str]:
    """The earlier reveals' sentences, then every ID code and date of the request and of those sentences.

    The request's own sentences are left out: a session may ask for the user's approved wording
    verbatim (a recall notice's scope line), which copying then rightly satisfies.
    """
    sentences = [s.strip() for text in reveals for line in text.splitlines() for s in _SENTENCE_END.split(line) if s.strip()]
    codes = [c for s in (request, *sentences) for c in _CODE.findall(s)]
    return list(dict.fromkeys([*sentences, *codes]))


def _layouts(start: SessionStart) -> list[tuple[str, str, dict[str, str]]]:
    """(name, file content, memory entries) for each way of copying."""
    texts = workspace_texts(start.evidence.workspace)
    words = [*stuffing_words(start.session.trigger.message, texts), *WORK_DIMENSIONS]
    sentences = copied_sentences(start.session.trigger.message, start.earlier_reveals)
    one_line, per_word, per_sentence = " ".join(words), "\n".join(words), "\n".join(sentences)
    return [
        ("on one line", one_line, {MEMORY_KEY: one_line}),
        ("one word per line", per_word, {MEMORY_KEY: per_word}),
        ("one sentence or ID code per line", per_sentence, {f"{MEMORY_KEY}_{n}": s for n, s in enumerate(sentences)}),
    ]


def stuffable_session(start: SessionStart) -> list[Problem]:
    workspace, memory = start.workspace, start.memory
    paths = _stuffable_paths(workspace, start.session)
    checks = _checks(start.session)
    unstuffed = replace(start.evidence, memo={})  # one memo per state of the world: its walk and texts are shared by the checks
    before = {field: _value(check, unstuffed) for field, check in checks}
    view = unstuffed.workspace  # the world as the session starts (a steady view: walked once)
    saved = {p: workspace.read_bytes(p, limit=SAVED_BYTES) if view.glob_files(p) else None for p in paths}
    made = [folder for p in paths if (folder := _first_missing_folder(workspace, p)) is not None]
    saved_memory = memory.as_dict()
    flagged: dict[str, str] = {}
    wrote: set[str] = set()
    try:
        for layout, content, entries in _layouts(start):
            for path in paths:
                try:
                    _write_stuffed(start.env, path, content)
                except TOOL_FAILURES:  # no file can be there (a file on its way): the replay reports the reference's step
                    continue
                wrote.add(path)
            for key, _ in memory.items():
                memory.delete(key)
            for key, text in {**saved_memory, **entries}.items():
                memory.write(key, text)
            stuffed = replace(start.evidence, workspace=SteadyWorkspace(workspace), memo={})
            for field, check in checks:
                if field not in flagged and not before[field] and _value(check, stuffed):
                    flagged[field] = layout
    finally:
        for path, original in saved.items():
            if original is not None:
                workspace.write_bytes(path, original)
            elif path in wrote:
                workspace.resolve(path).unlink(missing_ok=True)
        for folder in dict.fromkeys(made):
            jail.remove_tree(workspace.resolve(folder))
        for key, _ in memory.items():
            memory.delete(key)
        for key, text in saved_memory.items():
            memory.write(key, text)
    return [
        Problem(
            start.rel,
            field,
            f"holds on files and memory stuffed with what the agent can copy from the request, the workspace and earlier reveals ({layout}): "
            "require what only the work produces",
            "warning",
        )
        for field, layout in flagged.items()
    ]


SAVED_BYTES = 1 << 30
"""The largest file the stuffing check saves to put back (a reference's file is far smaller)."""


def _stuffable_paths(workspace: Workspace, session: Session) -> list[str]:
    """The paths the session's reference writes that can name a file in the workspace: inside it and not a folder (a
    reference step writing anywhere else fails in the replay, which reports it; stuffing cannot go there either)."""
    paths = []
    for path in written_paths(session):
        try:
            if not workspace.resolve(path).is_dir():
                paths.append(path)
        except PathEscapeError:
            continue
    return paths


def _write_stuffed(env: ToolEnv, path: str, content: str) -> None:
    """Fill ``path`` with ``content`` in the file's own format, through the tool an agent would call (its jail, its writer)."""
    tool, args = stuffed_call(path, content)
    spec = REGISTRY[tool]
    spec.func(env, spec.args_model.model_validate(args))


def _first_missing_folder(workspace: Workspace, path: str) -> str | None:
    """The outermost folder on ``path``'s way that does not exist yet (writing the file would make it), or None."""
    parts = path.split("/")[:-1]
    for n in range(1, len(parts) + 1):
        folder = "/".join(parts[:n])
        if not workspace.resolve(folder).exists():
            return folder
    return None


def _value(check: Any, evidence: Evidence) -> bool:
    try:
        return evaluate(check, evidence)
    except Exception:  # a grader that fails on garbage is not satisfied by it
        return False
