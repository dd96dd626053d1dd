"""``pbench validate``: lint a dataset beyond what the schema enforces.

Errors make a dataset unusable or its scores meaningless; warnings point at
annotations that weaken a session (e.g. intents the rules user cannot track).
"""

from __future__ import annotations

import fnmatch
import gc
import multiprocessing
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from proactive_bench.dataset import (
    Dataset,
    EpisodeDraft,
    FileExists,
    FileMatches,
    FileNear,
    GraderError,
    GraderResolver,
    LineCount,
    LoadedEpisode,
    PartialModel,
    PibenchScript,
    Problem,
    PythonCheck,
    Session,
    compile_pattern,
    dependency_units,
    draft_episode,
    persona_names,
    runnable_dataset,
    timed_files_dir,
    walk,
)
from proactive_bench.env import Workspace, app_tables, resolve_tool_names
from proactive_bench.suites import DEFAULT_SUITE, SUITES
from proactive_bench.validation.conventions import convention_problems
from proactive_bench.validation.cues import CueShape, cross_persona_cues, cue_shapes, learn_cue_shapes
from proactive_bench.validation.gaming import GamingChecks
from proactive_bench.validation.reference_replay import replay_references
from proactive_bench.validation.semantics import (
    is_unannotated,
    semantic_problems,
    unknown_name,
)

GENERIC_QUESTIONS = (
    "Do you have any other preferences?",
    "Is there anything else I should know?",
    "Anything else you would like me to do?",
    "Should I go ahead?",
)
LEAK_OVERLAP = 0.8
SESSION_READS = {r"reference\[\d+\]\.tool": ("tools",)}
"""A session check that reads another field than the one it reports on (``PartialModel.where``): the offered tools."""
_WORD = re.compile(r"[a-z0-9]{4,}")


@dataclass(frozen=True)
class EpisodeStats:
    persona: str
    sessions: int
    event_sessions: int
    dependency_groups: int
    intents_session: int
    intents_persistent: int
    rule_items: int
    rubric_items: int
    tools: int


def validate_dataset(dataset: Dataset) -> list[Problem]:
    problems: list[Problem] = []
    for episode in dataset.episodes.values():
        problems += validate_episode(episode, dataset.root)
    return problems + cross_persona_cues(dataset)


def validate_suites(root: Path) -> tuple[dict[str, LoadedEpisode], list[Problem]]:
    """The episodes and problems of every other suite's tasks under ``root`` (odyssey tasks), by episode name."""
    return _merged([_load_suite(name, root) for name in _other_suites()])


def validate_root(root: Path) -> tuple[Dataset, list[Problem]]:
    """Everything ``pbench validate`` finds under a dataset root, in one pass, each problem once.

    A file's errors do not hide the checks of its other fields: a session file
    with errors is checked as far as it parses (what repeats or counts around
    its errors is left out) but not replayed, nor are the sessions that depend
    on it; every other file is checked in full.
    """
    dataset, _, problems = _validate(root, suites=False)
    return dataset, problems


def validate_all(root: Path) -> tuple[Dataset, dict[str, LoadedEpisode], list[Problem]]:
    """:func:`validate_root` and :func:`validate_suites` at once (the problems of the first, then of the second):
    the other suites' tasks load in the workers that check the episodes."""
    return _validate(root, suites=True)


def _validate(root: Path, suites: bool) -> tuple[Dataset, dict[str, LoadedEpisode], list[Problem]]:
    """Each episode drafted and checked in one worker job (its draft comes back to build the dataset), the other
    suites' tasks loaded in others (in shares where a suite can: :func:`_suite_jobs`); the problems in the order of one pass: every episode's load problems, then
    its checks', then the cues across personas, then the tasks'."""
    personas = persona_names(root.resolve())
    suite_jobs = [job for name in _other_suites() for job in _suite_jobs(name, root)] if suites else []
    app_tables()  # every app's table models imported once, before the workers fork, not in each of them
    found = _streamed([partial(_checked_episode, root.resolve(), p) for p in personas] + suite_jobs)
    drafts: dict[str, EpisodeDraft] = {}
    problems: list[Problem] = []
    checked: list[Problem] = []
    for persona in personas:
        draft, load_problems, episode_problems, shapes = next(found)
        problems += load_problems
        checked += episode_problems
        learn_cue_shapes(shapes)
        if draft is not None:
            drafts[persona] = draft
    dataset = runnable_dataset(root, drafts)
    problems += checked + cross_persona_cues(dataset)  # here, while the workers go on with the suites' tasks
    tasks, task_problems = _merged(list(found))
    return dataset, tasks, list(dict.fromkeys(problems)) + task_problems


def _checked_episode(root: Path, persona: str) -> tuple[EpisodeDraft | None, list[Problem], list[Problem], dict[str, CueShape]]:
    """One episode as :func:`~proactive_bench.dataset.draft_episode` drafts it, its problems, its checks' problems, and
    the shapes of its ``ask`` patterns (the checks parsed them: the parent looks for the cues across personas)."""
    draft, problems = draft_episode(root, persona)
    if draft is None:
        return None, problems, [], {}
    asks = (pattern for session in draft.episode.sessions for intent in session.intents for pattern in intent.ask)
    return draft, problems, _draft_problems(draft, root), cue_shapes(asks)


def _other_suites() -> list[str]:
    return [name for name in SUITES.names() if name != DEFAULT_SUITE]


Loaded = tuple[dict[str, LoadedEpisode], list[Problem]]
"""Tasks by name and their problems, as :meth:`Suite.load_all` gives them."""


def _load_suite(name: str, root: Path) -> Loaded:
    return SUITES.get(name).load_all(root)


TASKS_PER_JOB = 10
"""The tasks of a suite one worker job checks, where the suite loads a few at a time (``load_some``)."""


def _suite_jobs(name: str, root: Path) -> list[Callable[[], Loaded]]:
    """A suite's tasks as worker jobs whose results, in order, are :meth:`Suite.load_all`'s in parts: shares of
    :data:`TASKS_PER_JOB` tasks (the suite loaded here, before the workers fork, not in each of them), or one job."""
    suite = SUITES.get(name)
    load_some = getattr(suite, "load_some", None)
    if load_some is None:
        return [partial(_load_suite, name, root)]
    names = suite.names(root.resolve())
    return [partial(_load_share, load_some, root, names[n : n + TASKS_PER_JOB]) for n in range(0, len(names), TASKS_PER_JOB)]


def _load_share(load_some: Callable[[Path, list[str]], Loaded], root: Path, names: list[str]) -> Loaded:
    """One share of a suite's tasks (:func:`_suite_jobs`)."""
    return load_some(root, names)


def _merged(loaded: list[Loaded]) -> Loaded:
    """Suites' tasks and problems, each as :meth:`Suite.load_all` gives them, as one: tasks by name, problems in order."""
    tasks: dict[str, LoadedEpisode] = {}
    problems: list[Problem] = []
    for suite_tasks, suite_problems in loaded:
        tasks.update(suite_tasks)
        problems += suite_problems
    return tasks, problems


_JOBS: list[Callable[[], Any]] = []
"""The jobs a forked worker of :func:`_in_workers` runs (inherited, not pickled)."""


def drafts_problems(drafts: list[EpisodeDraft], root: Path, workers: int | None = None) -> list[list[Problem]]:
    """Each draft's :func:`validate_episode` problems, in order, in forked workers (see :func:`_in_workers`)."""
    return _in_workers([partial(_draft_problems, d, root) for d in drafts], workers)


def _in_workers(jobs: list[Callable[[], Any]], workers: int | None = None) -> list[Any]:
    """Each job's result, in order (:func:`_streamed`)."""
    return list(_streamed(jobs, workers))


def _streamed(jobs: list[Callable[[], Any]], workers: int | None = None) -> Iterator[Any]:
    """Each job's result, in order, each as soon as it and those before it are done: the caller works on the first
    while the workers run the rest.

    Each episode replays on its own scratch world and the checks are CPU-bound,
    so several jobs run at once in forked processes, one per core (``workers``:
    how many; 1 runs them here, one after the other, as the results are asked for), the
    longest first: a suite's tasks loaded whole, then the episodes by their sessions (:func:`_size`),
    then the shares of a suite's tasks (short jobs, so the workers end together).
    """
    workers = min(len(jobs), workers or len(os.sched_getaffinity(0)))
    with _frozen_heap():
        if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
            yield from (_collected(job) for job in jobs)
            return
        order = sorted(range(len(jobs)), key=lambda n: -_size(jobs[n]))
        _JOBS[:] = jobs
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                done: dict[int, Any] = {}
                given = 0
                for n, result in zip(order, pool.map(_run_job, order), strict=True):
                    done[n] = result
                    while given in done:
                        yield done.pop(given)
                        given += 1
        finally:
            _JOBS.clear()


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects made so far (modules, models, the loaded data) left out of garbage collection while the jobs
    run: else every full collection walks them all again, in each forked worker (touching, so copying, their
    pages), a sixth of the jobs' CPU time. What the jobs make is collected once per job, when it ends
    (:func:`_collected`), not every few hundred objects as they are made (another eighth)."""
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def _collected(job: Callable[[], Any]) -> Any:
    """The job's result, the cycles it left behind (SQLAlchemy sessions, tracebacks) collected: the youngest
    generation only, the objects made since the last job ended (what earlier jobs kept is not walked again)."""
    try:
        return job()
    finally:
        gc.collect(0)


def _size(job: Callable[[], Any]) -> float:
    """How long a job runs, roughly: an episode's sessions (before it is drafted: the bytes of its session files,
    as the shipped episodes all have twenty sessions but not as many steps); a suite's tasks loaded whole longer
    than any episode, a share of them shorter (the shares even out the workers' ends)."""
    args: tuple[Any, ...] = getattr(job, "args", (None,))
    if getattr(job, "func", None) is _checked_episode:
        root, persona = args
        sessions = (root / "episodes" / persona / "sessions").glob("*.yaml")
        return sum(path.lstat().st_size for path in sessions)  # lstat: a dangling link is not an error here
    if getattr(job, "func", None) is _load_share:
        return 0
    return len(args[0].episode.sessions) if isinstance(args[0], EpisodeDraft) else float("inf")


def _run_job(index: int) -> Any:
    return _collected(_JOBS[index])


def _draft_problems(draft: EpisodeDraft, root: Path) -> list[Problem]:
    return validate_episode(draft.episode, root, draft.broken)


def validate_episode(episode: LoadedEpisode, root: Path, broken: Mapping[str, PartialModel[Session]] | None = None) -> list[Problem]:
    """Every problem of a loaded episode. ``broken``: its sessions whose files have errors, as far as they parse
    (an ``EpisodeDraft``'s): their other fields are checked, numbered as in the file; they are not replayed."""
    broken = broken or {}
    problems = _renumbered(_field_problems(episode, root, broken), episode, broken)
    runnable = replace(episode, sessions=[s for s in episode.sessions if s.id not in broken])
    named = {(p.file, p.field) for p in problems if p.level == "error"}  # a replay failure there is its consequence
    gaming = GamingChecks(runnable, root)
    replayed = replay_references(runnable, root, at_start=gaming.at_start)
    return [p for p in replayed if (p.file, p.field) not in named] + problems + gaming.problems()


def _field_problems(episode: LoadedEpisode, root: Path, broken: Mapping[str, PartialModel[Session]]) -> list[Problem]:
    """The semantic checks of every session's fields and of the episode's annotations."""
    problems: list[Problem] = semantic_problems(episode)
    seed_files = set(Workspace(episode.workspace_seed).files()) if episode.workspace_seed.is_dir() else set()
    produced: set[str] | None = set()
    for session in episode.sessions:
        partial = broken.get(session.id)
        timed = timed_files_dir(episode.directory, session.id)
        seed_files |= set(Workspace(timed).files()) if timed.is_dir() else set()  # placed when the session starts, there from then on
        if produced is not None:
            produced |= {str(s.args["path"]) for s in session.reference if s.tool in ("write_file", "edit_file") and "path" in s.args}
        if partial is not None and partial.is_broken("reference"):
            produced = None  # from here on, which files the reference solutions write is not known
        known_files = None if produced is None else seed_files | produced
        problems += _check_session(session, _session_file(episode, session.id), root, known_files, episode)
    unannotated = [f"{s.id}/{i.id}" for s in episode.sessions for i in s.intents if is_unannotated(i)]
    if unannotated:
        total = sum(len(s.intents) for s in episode.sessions)
        problems.append(
            Problem(
                f"episodes/{episode.episode.id}/episode.yaml",
                "intents",
                f"{len(unannotated)} of {total} intents have no evidence, ask, question or reveal (first: {', '.join(unannotated[:3])}): "
                "the rules user cannot track them (use --user llm)",
                "warning",
            )
        )
    problems += convention_problems(episode)
    return problems


def _renumbered(problems: list[Problem], episode: LoadedEpisode, broken: Mapping[str, PartialModel[Session]]) -> list[Problem]:
    """The problems of sessions with file errors at the file's numbering, those about or around a broken field left out."""
    by_file = {_session_file(episode, session_id): partial for session_id, partial in broken.items()}
    out = []
    for problem in problems:
        partial = by_file.get(problem.file)
        if partial is None:
            out.append(problem)
        elif (where := partial.where(problem.field, SESSION_READS)) is not None:
            out.append(replace(problem, field=where))
    return out


def _session_file(episode: LoadedEpisode, session_id: str) -> str:
    """A session's file as problems name it."""
    return f"episodes/{episode.episode.id}/sessions/{session_id}.yaml"


def _check_session(session: Session, rel: str, root: Path, known_files: set[str] | None, episode: LoadedEpisode) -> list[Problem]:
    """The session's own checks. ``known_files``: the seed's and the reference solutions' files so far (None: not
    known, as after a reference step with errors: the file checks are skipped)."""
    out: list[Problem] = []

    def err(field: str, reason: str, level: str = "error") -> None:
        out.append(Problem(rel, field, reason, level))

    if not session.intents:
        err("intents", "a session needs at least one hidden intent")
    if not session.checklist and not any(session.id in e.depends_on for e in episode.episode.sessions):
        err("checklist", "a session needs at least one checklist item (unless a later session depends on it)")
    offered = _offered(session.tools)
    for n, step in enumerate(session.reference):
        if offered is not None and step.tool is not None and step.tool not in offered:
            err(f"reference[{n}].tool", f"{step.tool!r} is not among the session's tools")
    for path in session.files:
        if known_files is not None and path not in known_files:
            err(
                "files",
                f"{path!r} is neither in the workspace seed, nor placed by this or an earlier session, nor written by an earlier reference solution",
            )
    request_words = _words(session.trigger.message)
    for n, intent in enumerate(session.intents):
        where = f"intents[{n}]"
        words = _words(intent.text)
        if _norm(intent.text) in _norm(session.trigger.message) or (
            intent.reveal and _norm(intent.reveal) in _norm(session.trigger.message)
        ):
            err(where, "the intent is stated in the initial request")
        elif words and len(words & request_words) / len(words) >= LEAK_OVERLAP:
            err(where, f"the intent's wording overlaps the initial request by {len(words & request_words)}/{len(words)} words", "warning")
        if not intent.has_rules and not is_unannotated(intent):
            missing = [f for f in ("evidence", "ask", "question", "reveal") if not getattr(intent, f)]
            err(where, f"no {', '.join(missing)}: the rules user cannot track it (use --user llm)", "warning")
        if intent.question and intent.ask:
            if not any(compile_pattern(p).search(intent.question) for p in intent.ask):
                err(f"{where}.ask", "no ask regex matches the intent's own example question")
            generic = [q for q in GENERIC_QUESTIONS if any(compile_pattern(p).search(q) for p in intent.ask)]
            if generic:
                err(f"{where}.ask", f"an ask regex matches the generic question {generic[0]!r}")
        if intent.source_session is not None and intent.source_session not in [s.id for s in episode.episode.sessions]:
            err(f"{where}.source_session", f"{intent.source_session!r} is not a session of this episode")
        if intent.evidence is not None:
            out += [Problem(rel, f"{where}.evidence", p) for p in _predicate_problems(intent.evidence, root, known_files)]
    unproduced: dict[str, None] = {}
    for n, item in enumerate(session.checklist):
        if item.check is not None:
            out += [Problem(rel, f"checklist[{n}].check", p) for p in _predicate_problems(item.check, root, known_files)]
            out += [Problem(rel, f"checklist[{n}].check", p, "warning") for p in _script_problems(item.check, root)]
        for path in item.evidence.files:
            if known_files is None or any(fnmatch.fnmatch(f, path) for f in known_files):
                continue
            if session.reference:
                err(f"checklist[{n}].evidence.files", f"{path!r} matches no seed file and no file a reference solution writes")
            else:
                unproduced[path] = None
    if unproduced:
        err(
            "checklist",
            f"evidence files {', '.join(map(repr, unproduced))} match no seed file; the session has no reference solution to check that they are the agent's to write",
            "warning",
        )
    return out


def _offered(tools: list[str]) -> set[str] | None:
    """The tool names a session offers; None when it names an unknown one (the loader reports it; which tools
    a typo meant is not known, so its reference steps are not held to them)."""
    try:
        return {spec.name for spec in resolve_tool_names(tools)}
    except KeyError:
        return None


def _predicate_problems(predicate: object, root: Path, known_files: set[str] | None) -> list[str]:
    """Unknown names, grader functions and (``known_files`` given) paths no seed or reference file matches."""
    problems = []
    for node in walk(predicate):  # type: ignore[arg-type]  # a parsed predicate: a pydantic model of dataset.predicates
        path = None
        if isinstance(node, FileExists):
            path = node.file_exists
        elif isinstance(node, FileMatches):
            path = node.file_matches.path
        elif isinstance(node, FileNear):
            path = node.file_near.path
        elif isinstance(node, LineCount):
            path = node.line_count.path
        if path is not None and known_files is not None and not any(fnmatch.fnmatch(f, path) for f in known_files):
            problems.append(f"{path!r} matches no seed file and no file a reference solution writes")
        if (reason := unknown_name(node)) is not None:
            problems.append(reason)
        if isinstance(node, PythonCheck):
            try:
                GraderResolver(root).resolve(node.python)
            except GraderError as exc:
                problems.append(str(exc))
    return problems


def _script_problems(predicate: object, root: Path) -> list[str]:
    """Missing π-Bench scripts: their items will be graded as errors, so the dataset still runs."""
    problems = []
    for node in walk(predicate):  # type: ignore[arg-type]  # a parsed predicate: a pydantic model of dataset.predicates
        if isinstance(node, PibenchScript):
            try:
                GraderResolver(root).file(node.pibench_script.path)
            except GraderError as exc:
                problems.append(f"{exc}: its items will be graded as errors")
    return problems


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def episode_stats(episode: LoadedEpisode) -> EpisodeStats:
    scopes = Counter(i.scope.value for s in episode.sessions for i in s.intents)
    graders = Counter(c.grader for s in episode.sessions for c in s.checklist)
    tools = {step.tool for s in episode.sessions for step in s.reference if step.tool}
    return EpisodeStats(
        persona=episode.persona.id,
        sessions=len(episode.sessions),
        event_sessions=sum(s.trigger.type == "event" for s in episode.sessions),
        dependency_groups=sum(len(u) > 1 for u in dependency_units(episode.episode)),
        intents_session=scopes["session"],
        intents_persistent=scopes["persistent"],
        rule_items=graders["rule"],
        rubric_items=graders["rubric"],
        tools=len(tools),
    )
