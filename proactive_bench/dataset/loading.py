"""Load a dataset root (``personas/``, ``episodes/``, ``graders/``) into schema models.

Every problem names the file, the field path and the reason; loading collects
all problems of a dataset before raising :class:`DatasetError`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from pydantic import BaseModel, ValidationError

from proactive_bench.dataset.schema import ID_PATTERN, Episode, Persona, Session
from proactive_bench.dataset.timed_events import render_trigger
from proactive_bench.env import ClockRates, Colleagues, HistorySearch, PathEscapeError, resolve_inside, resolve_tool_names
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    file: str
    field: str
    reason: str
    level: str = "error"

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else self.file
        return f"{where}: {self.reason}"


class DatasetError(Exception):
    """One or more problems that make a dataset unusable."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))

    def __reduce__(self) -> tuple[type[DatasetError], tuple[list[Problem]]]:
        """Pickled with its problems (a Ray worker's error reaches the driver pickled), not with its message."""
        return DatasetError, (self.problems,)


def format_loc(loc: tuple[Any, ...]) -> str:
    """Render a pydantic error location as ``intents[2].evidence.all[0]``."""
    out = ""
    previous: Any = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part != previous:  # a union tag repeats its field name
            out += ("." if out else "") + str(part)
        previous = part
    return out


def read_yaml(path: Path, root: Path) -> tuple[Any, list[Problem]]:
    try:
        return read_yaml_file(path), []
    except YamlFileError as exc:
        return None, [Problem(_rel(path, root), exc.where, exc.reason)]


def parse_model(model: type[M], data: Any, rel: str) -> tuple[M | None, list[Problem]]:
    if not isinstance(data, dict):
        return None, [Problem(rel, "", f"expected a mapping at the top level, got {type(data).__name__}")]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, [Problem(rel, format_loc(e["loc"]), _reason(e)) for e in exc.errors()]


def _reason(error: Any) -> str:
    msg = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        return "unknown field"
    return msg


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


@dataclass
class LoadedEpisode:
    episode: Episode
    persona: Persona
    sessions: list[Session]
    directory: Path
    history: HistorySearch | None = None
    """What ``search_history`` searches in this episode's runs (an odyssey task under a retrieval memory setting)."""
    memory_tokens: int | None = None
    """Tokens of the memory context the opening message carries (odyssey tasks); None for persona episodes."""
    suite: str = "pibench"
    """The suite the episode belongs to (``suites.SUITES``)."""
    colleagues: Colleagues | None = None
    """Who answers the ``chat`` app's messages in this episode's runs (trainee scenarios)."""
    clock_rates: ClockRates | None = None
    """How fast simulated time moves with tool calls and agent steps (trainee scenarios); None: it stands still."""
    opening_note: Callable[[Session, list[dict[str, bool]]], str | None] | None = None
    """What goes before a session's opening message given the checklist verdicts of the sessions before it
    (``{item id: passed}`` each, in order): a trainee day 2 opens with the mentor's feedback on day 1."""

    @property
    def workspace_seed(self) -> Path:
        return self.directory / "workspace"

    def session(self, session_id: str) -> Session:
        return next(s for s in self.sessions if s.id == session_id)

    def depends_on(self, session_id: str) -> list[str]:
        return next(e.depends_on for e in self.episode.sessions if e.id == session_id)


@dataclass
class Dataset:
    root: Path
    episodes: dict[str, LoadedEpisode] = field(default_factory=dict)

    @property
    def graders(self) -> GraderResolver:
        return GraderResolver(self.root)


def persona_file(root: Path, name: str) -> Path:
    return root / "personas" / f"{name}.yaml"


def load_persona(root: Path, name: str) -> tuple[Persona | None, list[Problem]]:
    path = persona_file(root, name)
    data, problems = read_yaml(path, root)
    if problems:
        return None, problems
    return parse_model(Persona, data, _rel(path, root))


def load_episode(root: Path, persona_name: str) -> LoadedEpisode:
    """Load one persona's episode and all its sessions; raise DatasetError listing every problem."""
    loaded, problems = load_episode_partly(root, persona_name)
    if problems or loaded is None:
        raise DatasetError(problems)
    return loaded


def load_episode_partly(root: Path, persona_name: str) -> tuple[LoadedEpisode | None, list[Problem]]:
    """Load what can be loaded of an episode, and every problem found.

    The episode holds the sessions that loaded (a session file with errors is
    left out); None when the episode file or the persona does not load.
    """
    root = root.resolve()
    directory = root / "episodes" / persona_name
    if not re.fullmatch(ID_PATTERN, persona_name):
        return None, [Problem("episodes", "", f"{persona_name!r} is not a persona id (letters, digits, '_', '.', '-')")]
    if not directory.is_dir():
        known = ", ".join(persona_names(root)) or "none"
        return None, [Problem(_rel(directory, root), "", f"no such episode; personas here: {known}")]
    problems: list[Problem] = []
    episode_path = directory / "episode.yaml"
    data, found = read_yaml(episode_path, root)
    problems += found
    episode = None
    if not found:
        episode, found = parse_model(Episode, data, _rel(episode_path, root))
        problems += found
    persona = None
    if episode is not None:
        persona, found = load_persona(root, episode.persona)
        problems += found
    sessions: list[Session] = []
    if episode is not None:
        for n, entry in enumerate(episode.sessions):
            path = directory / "sessions" / f"{entry.id}.yaml"
            if not path.is_file():
                problems.append(Problem(_rel(episode_path, root), f"sessions[{n}].id", f"no file sessions/{entry.id}.yaml"))
                continue
            data, found = read_yaml(path, root)
            session = None
            if not found:
                session, found = parse_model(Session, data, _rel(path, root))
            problems += found
            if session is None:
                continue
            session, found = _with_rendered_trigger(directory, session, _rel(path, root))
            found += _unknown_tools(session, _rel(path, root))
            if session.id != entry.id:
                found.append(Problem(_rel(path, root), "id", f"is {session.id!r} but the file is named for {entry.id!r}"))
            problems += found
            if not found:
                sessions.append(session)
    if episode is None or persona is None:
        return None, problems
    return LoadedEpisode(episode, persona, sessions, directory), problems


def _with_rendered_trigger(directory: Path, session: Session, rel: str) -> tuple[Session, list[Problem]]:
    """The session with its trigger message rendered from its timed app row, if it names one."""
    if session.trigger.row is None:
        return session, []
    message, reason = render_trigger(directory, session)
    if message is None:
        return session, [Problem(rel, "trigger.row", reason or "cannot be rendered")]
    return session.model_copy(update={"trigger": session.trigger.model_copy(update={"message": message})}), []


def _unknown_tools(session: Session, rel: str) -> list[Problem]:
    try:
        resolve_tool_names(session.tools)
    except KeyError as exc:
        return [Problem(rel, "tools", f"unknown tool or tool group {exc.args[0]!r}")]
    return []


def episode_files(root: Path, loaded: LoadedEpisode) -> list[Path]:
    """What under ``root`` the runs of a loaded episode read, relative to it: the episode's folder (when it lies
    under the root: a generated episode's does not), its persona's file (persona episodes) and the ``graders/``
    folder (grader modules may import each other)."""
    root = root.resolve()
    wanted = (loaded.directory, persona_file(root, loaded.episode.persona), root / "graders")
    return [path.relative_to(root) for path in wanted if path.exists() and path.is_relative_to(root)]


def persona_names(root: Path) -> list[str]:
    episodes = root / "episodes"
    return sorted(p.name for p in episodes.iterdir() if (p / "episode.yaml").is_file()) if episodes.is_dir() else []


def load_dataset(root: Path) -> Dataset:
    """Load every episode under ``root``; raise DatasetError with all problems found."""
    dataset, problems = load_dataset_partly(root)
    if problems:
        raise DatasetError(problems)
    return dataset


def load_dataset_partly(root: Path) -> tuple[Dataset, list[Problem]]:
    """Every episode under ``root`` that loads (with the sessions that load), and every problem found."""
    dataset = Dataset(root.resolve())
    problems: list[Problem] = []
    for name in persona_names(dataset.root):
        loaded, found = load_episode_partly(dataset.root, name)
        problems += found
        if loaded is not None:
            dataset.episodes[name] = loaded
    return dataset, problems


class GraderError(Exception):
    """A ``graders.<module>:<function>`` reference that cannot be resolved."""


@dataclass(frozen=True)
class GraderResolver:
    """Import grader functions from ``<root>/graders/`` by file path."""

    root: Path

    def __call__(self, ref: str) -> Callable[..., Any]:
        return self.resolve(ref)

    def resolve(self, ref: str) -> Callable[..., Any]:
        dotted, _, func_name = ref.partition(":")
        parts = dotted.split(".")
        if parts[0] != "graders" or len(parts) < 2 or not func_name:
            raise GraderError(f"{ref!r} is not of the form graders.<module>:<function>")
        path = self.root.joinpath(*parts).with_suffix(".py")
        if not path.is_file():
            raise GraderError(f"{ref!r}: no file {_rel(path, self.root)}")
        digest = hashlib.sha256(str(self.root).encode()).hexdigest()[:10]
        module_name = f"_pbench_graders_{digest}." + ".".join(parts[1:])
        module = sys.modules.get(module_name)
        if module is None:
            self._register_packages(module_name, path.parent)
            spec = importlib.util.spec_from_file_location(module_name, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
            except Exception as exc:  # a grader module's own bug must not crash the run
                raise GraderError(f"{ref!r}: importing {_rel(path, self.root)} failed: {exc!r}") from exc
            sys.modules[module_name] = module
        func = getattr(module, func_name, None)
        if not callable(func):
            raise GraderError(f"{ref!r}: {_rel(path, self.root)} has no function {func_name!r}")
        return func

    def _register_packages(self, module_name: str, folder: Path) -> None:
        """Make the module's folders packages, so grader modules can share helpers (``from .common import x``)."""
        parents = module_name.split(".")[:-1]
        for depth in range(len(parents), 0, -1):
            name = ".".join(parents[:depth])
            if name not in sys.modules:
                package = types.ModuleType(name)
                package.__path__ = [str(folder)]
                sys.modules[name] = package
            folder = folder.parent

    def file(self, relative: str) -> Path:
        """A file under ``<root>/graders/`` by relative path; GraderError if it is missing or lies outside."""
        try:
            path = resolve_inside((self.root / "graders").resolve(), relative, "graders folder")
        except PathEscapeError as exc:
            raise GraderError(str(exc)) from None
        if not path.is_file():
            raise GraderError(f"no file graders/{relative}")
        return path
