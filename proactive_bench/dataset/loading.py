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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar, get_origin

from pydantic import BaseModel, TypeAdapter, ValidationError

from proactive_bench.dataset.schema import ID_PATTERN, Episode, Persona, Session
from proactive_bench.dataset.timed_events import render_trigger
from proactive_bench.env import HistorySearch, PathEscapeError, resolve_inside, resolve_tool_names
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

if TYPE_CHECKING:  # the chat and clock apps (their tables, their tools) load with a run that uses them
    from proactive_bench.env import ClockRates, Colleagues

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
    """The file's model, or None and every problem of its schema."""
    parsed, _partial, problems = parse_partly(model, data, rel)
    return parsed, problems


@dataclass(frozen=True)
class PartialModel(Generic[M]):
    """What of a file with errors still validates, so that ``pbench validate`` checks its other fields; never run.

    In ``model`` a list element with a schema error is left out, a broken optional field is at its default and a
    broken required one at a neutral value (an empty text, an empty model); cross-field rules are not enforced.
    ``broken``: the field paths of the file's errors; ``kept``: per list field with elements left out, the file's
    index of each element kept.
    """

    model: M
    broken: tuple[str, ...] = ()
    kept: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def numbered(self, path: str) -> str:
        """A field path of ``model`` as the file numbers it."""
        found = _INDEXED.match(path)
        if found and found["name"] in self.kept:
            return f"{found['name']}[{self.kept[found['name']][int(found['index'])]}]{found['rest']}"
        return path

    def is_broken(self, path: str) -> bool:
        """Whether the file has an error at or under ``path`` (as the file numbers it)."""
        return any(_nested(b, path) for b in self.broken)

    def where(self, path: str, reads: Mapping[str, tuple[str, ...]] | None = None) -> str | None:
        """A field path of ``model`` as the file numbers it; None when it lies over or under a broken path (a
        problem there would only repeat the file's error, or count what was left out), or when the check behind it
        also read a broken field: ``reads`` maps a field path regex to the fields the checks reporting there read."""
        path = self.numbered(path)
        if path and any(_nested(path, b) or _nested(b, path) for b in self.broken):
            return None
        if any(re.fullmatch(key, path) and any(map(self.is_broken, fields)) for key, fields in (reads or {}).items()):
            return None
        return path


_INDEXED = re.compile(r"^(?P<name>\w+)\[(?P<index>\d+)\](?P<rest>.*)$")


def _nested(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith((f"{outer}.", f"{outer}["))


def parse_partly(model: type[M], data: Any, rel: str) -> tuple[M | None, PartialModel[M] | None, list[Problem]]:
    """The file's model, or None, what of the file still validates and every problem of it, all at once.

    Besides the schema's own errors (pydantic reports each field's), a model with a ``link_problems(cut)`` method
    (ids a file repeats or names without defining them) has each of those reported at its field, the ids of the
    elements left out excepted: what points at a broken part is its consequence, not another error (none is
    reported when a list with errors is not even a list: the ids it meant are not known).
    """
    if not isinstance(data, dict):
        return None, None, [Problem(rel, "", f"expected a mapping at the top level, got {type(data).__name__}")]
    try:
        return model.model_validate(data), None, []
    except ValidationError as exc:
        errors = exc.errors()
    partial = _salvage(model, data, errors)
    cut = _cut_ids(model, data, partial, errors) if partial is not None and hasattr(model, "link_problems") else None
    problems = [Problem(rel, format_loc(e["loc"]), _reason(e)) for e in errors if e["loc"] or cut is None]
    if partial is not None and cut is not None:
        problems += [Problem(rel, partial.numbered(where), reason) for where, reason in partial.model.link_problems(cut)]  # type: ignore[attr-defined]  # hasattr(model, 'link_problems') was checked above
    return None, partial, problems


def _salvage(model: type[M], data: dict[str, Any], errors: list[Any]) -> PartialModel[M] | None:
    """The valid parts of ``data`` as a (never validated as a whole) ``model``; None when a broken required field has no neutral value."""
    bad: dict[str, list[tuple[Any, ...]]] = {}
    for error in errors:
        if error["loc"]:
            bad.setdefault(str(error["loc"][0]), []).append(tuple(error["loc"][1:]))
    values: dict[str, Any] = {}
    kept: dict[str, tuple[int, ...]] = {}
    for name, info in model.model_fields.items():
        value, adapter = data.get(name, _MISSING), _field_adapter(model, name)
        try:
            if name in bad and isinstance(value, list) and all(rest and isinstance(rest[0], int) for rest in bad[name]):
                left_out = {rest[0] for rest in bad[name]}
                kept[name] = tuple(n for n in range(len(value)) if n not in left_out)
                values[name] = adapter.validate_python([value[n] for n in kept[name]])
            elif value is not _MISSING and name not in bad:
                values[name] = adapter.validate_python(value)
        except ValidationError:
            kept.pop(name, None)
        if name not in values and info.is_required():
            neutral = _neutral(info.annotation)
            if neutral is _MISSING:
                return None
            values[name] = neutral
    broken = tuple(dict.fromkeys(format_loc(e["loc"]) for e in errors if e["loc"]))
    return PartialModel(model.model_construct(**values), broken, kept)


_MISSING: Any = object()


@cache
def _field_adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    info = model.model_fields[name]
    form: Any = Annotated[info.annotation, info]  # a type form built at run time: no static type to give it
    return TypeAdapter(form)


def _neutral(annotation: Any) -> Any:
    """A stand-in for a broken required field: an empty text or list, a model of stand-ins; _MISSING for other types."""
    if annotation is str:
        return ""
    if get_origin(annotation) is list:
        return []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = {name: _neutral(info.annotation) for name, info in annotation.model_fields.items() if info.is_required()}
        return _MISSING if any(v is _MISSING for v in fields.values()) else annotation.model_construct(**fields)
    return _MISSING


def _cut_ids(model: type[BaseModel], data: dict[str, Any], partial: PartialModel[Any], errors: list[Any]) -> set[str] | None:
    """The ids of the list elements with errors (as the file spells them), every element's of a list lost whole;
    None when a list with errors is not even a list (the ids it meant are not known)."""
    cut: set[str] = set()
    for name in {str(e["loc"][0]) for e in errors if e["loc"]}:
        if name not in model.model_fields or get_origin(model.model_fields[name].annotation) is not list or name not in data:
            continue
        raw = data[name]
        if not isinstance(raw, list):
            return None
        kept = partial.kept.get(name, ())
        cut |= {e["id"] for n, e in enumerate(raw) if n not in kept and isinstance(e, dict) and isinstance(e.get("id"), str)}
    return cut


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
    suite: str = "personas"
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
    draft, problems = draft_episode(root, persona_name)
    return (draft.runnable() if draft is not None else None), problems


@dataclass
class EpisodeDraft:
    """An episode's files as far as they parse, for the checks of ``pbench validate``: nothing here is run."""

    episode: LoadedEpisode
    """Every session that parses, wholly or in part, in the episode's order; the persona as far as it loads."""
    broken: dict[str, PartialModel[Session]]
    """By session id: the sessions not to run or replay, with their files' errors (field paths and numbering): those
    whose files have errors, and every session when the episode file's ``sessions`` have errors (their order and
    dependencies are not known)."""
    complete: bool
    """Whether the episode and persona files loaded (else the episode cannot run, whatever its sessions)."""

    def runnable(self) -> LoadedEpisode | None:
        """The episode as runs see it, with the sessions that loaded; None when the episode or persona file did not load."""
        if not self.complete:
            return None
        return replace(self.episode, sessions=[s for s in self.episode.sessions if s.id not in self.broken])


def draft_episode(root: Path, persona_name: str) -> tuple[EpisodeDraft | None, list[Problem]]:
    """Every file of an episode read as far as it parses, and every problem found in one pass; None when the
    episode file does not parse at all. A file's errors do not hide those of its other fields or of other files."""
    root = root.resolve()
    directory = root / "episodes" / persona_name
    if not re.fullmatch(ID_PATTERN, persona_name):
        return None, [Problem("episodes", "", f"{persona_name!r} is not a persona id (letters, digits, '_', '.', '-')")]
    if not directory.is_dir():
        known = ", ".join(persona_names(root)) or "none"
        return None, [Problem(_rel(directory, root), "", f"no such episode; personas here: {known}")]
    episode_path = directory / "episode.yaml"
    data, problems = read_yaml(episode_path, root)
    if problems:
        return None, problems
    episode, partial_episode, problems = parse_partly(Episode, data, _rel(episode_path, root))
    if partial_episode is not None:
        episode = partial_episode.model.model_copy(update={"id": persona_name} if "id" in partial_episode.broken else {})
    if episode is None:
        return None, problems
    persona = None
    if partial_episode is None or "persona" not in partial_episode.broken:  # else its file name is not known
        persona, found = load_persona(root, episode.persona)
        problems += found
    sessions: list[Session] = []
    broken: dict[str, PartialModel[Session]] = {}
    for n, entry in enumerate(episode.sessions):
        path = directory / "sessions" / f"{entry.id}.yaml"
        if not path.is_file():
            where = f"sessions[{n}].id" if partial_episode is None else partial_episode.numbered(f"sessions[{n}].id")
            problems.append(Problem(_rel(episode_path, root), where, f"no file sessions/{entry.id}.yaml"))
            continue
        session, partial, found = _read_session(directory, path, root, entry.id)
        problems += found
        if session is not None and partial_episode is not None and partial_episode.is_broken("sessions"):
            partial = PartialModel(session)
        if partial is not None:
            broken[entry.id] = partial
        if session is not None:
            sessions.append(session)
        elif partial is not None:
            sessions.append(partial.model)
    complete = partial_episode is None and persona is not None
    stand_in = persona or Persona.model_construct(id=episode.persona, name="", role="")
    return EpisodeDraft(LoadedEpisode(episode, stand_in, sessions, directory), broken, complete), problems


def _read_session(
    directory: Path, path: Path, root: Path, session_id: str
) -> tuple[Session | None, PartialModel[Session] | None, list[Problem]]:
    """A session file: its model when it has no error, else what of it parses (None when nothing does), and its problems."""
    rel = _rel(path, root)
    data, problems = read_yaml(path, root)
    if problems:
        return None, None, problems
    session, partial, problems = parse_partly(Session, data, rel)
    candidate = session if session is not None else partial.model if partial is not None else None
    if candidate is None:
        return None, None, problems
    found = []
    if candidate.id != session_id and (partial is None or "id" not in partial.broken):
        found.append(Problem(rel, "id", f"is {candidate.id!r} but the file is named for {session_id!r}"))
    candidate, rendered = _with_rendered_trigger(directory, candidate.model_copy(update={"id": session_id}), rel)
    found += rendered + _unknown_tools(candidate, rel)
    if session is not None and not found:
        return candidate, None, []
    base = partial or PartialModel(candidate)
    return None, PartialModel(candidate, base.broken + tuple(p.field for p in found), base.kept), problems + found


def _with_rendered_trigger(directory: Path, session: Session, rel: str) -> tuple[Session, list[Problem]]:
    """The session with its trigger message rendered from its timed app row, if it names one."""
    if session.trigger.row is None:
        return session, []
    message, reason = render_trigger(directory, session)
    if message is None:
        return session, [Problem(rel, "trigger.row", reason or "cannot be rendered")]
    return session.model_copy(update={"trigger": session.trigger.model_copy(update={"message": message})}), []


def _unknown_tools(session: Session, rel: str) -> list[Problem]:
    """One problem per name of the session's ``tools`` that is no tool and no tool group."""
    problems = []
    for name in session.tools:
        try:
            resolve_tool_names([name])
        except KeyError:
            problems.append(Problem(rel, "tools", f"unknown tool or tool group {name!r}"))
    return problems


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
    drafts, problems = draft_dataset(root)
    return runnable_dataset(root, drafts), problems


def draft_dataset(root: Path) -> tuple[dict[str, EpisodeDraft], list[Problem]]:
    """Every episode under ``root`` as far as its files parse (:func:`draft_episode`), by persona, and every problem found."""
    root = root.resolve()
    drafts: dict[str, EpisodeDraft] = {}
    problems: list[Problem] = []
    for name in persona_names(root):
        draft, found = draft_episode(root, name)
        problems += found
        if draft is not None:
            drafts[name] = draft
    return drafts, problems


def runnable_dataset(root: Path, drafts: dict[str, EpisodeDraft]) -> Dataset:
    """The dataset of the drafts' episodes that can run, with the sessions that loaded."""
    dataset = Dataset(root.resolve())
    for name, draft in drafts.items():
        if (loaded := draft.runnable()) is not None:
            dataset.episodes[name] = loaded
    return dataset


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
