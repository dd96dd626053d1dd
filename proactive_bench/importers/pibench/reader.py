"""Read a π-Bench checkout (or its ``data/`` folder) into plain records, tolerantly.

Layout: ``data/<persona>/{episode,profile,tools}.yaml``, ``tasks/<id>/task.yaml``
with the task's files beside it, ``scripts/*.py`` (grader scripts),
``skills/<name>/`` and, where a release has one, ``web/`` (an offline corpus). Every malformed piece is reported (file, field, reason)
and skipped or given π-Bench's own default; reading never raises for bad data.
Task files are listed, never parsed (one sample YAML asset is not valid YAML).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from proactive_bench.importers.pibench.report import ImportReport
from proactive_bench.importers.pibench.scripts import MCP_PREFIX
from proactive_bench.yaml_files import parse_yaml

TASK_FILE = "task.yaml"
NOT_ASSETS = frozenset({TASK_FILE, ".history", ".result", ".eval_result"})
"""Names π-Bench never copies into the workspace (``TASK_WORKSPACE_ASSET_BLACKLIST``)."""
OBJECTIVE_KEYS = frozenset({"checklist", "files_read", "tools", "tools_evaluation_path"})
CONVERTED_TASK_KEYS = frozenset(
    {"schema_version", "task_id", "user_id", "title", "task_type", "category", "trigger", "intent", "objectives"}
)


@dataclass
class PiTask:
    """One ``tasks/<id>/task.yaml`` and the files beside it."""

    task_id: str
    directory: Path
    title: str
    task_type: str
    trigger_type: str
    initial_input: str
    hidden_intents: list[str]
    criteria: list[tuple[str, float]] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    """``objectives.tools`` names without the ``mcp_appworld_`` prefix."""
    script: str | None = None
    """``objectives.tools_evaluation_path`` as written (repo-relative)."""
    files_read: list[str] = field(default_factory=list)
    assets: list[str] = field(default_factory=list)
    """Files to copy into the workspace, relative to the task folder."""
    ignored_fields: list[str] = field(default_factory=list)
    """Non-empty task fields with no pbench counterpart (description, metadata...)."""
    category: str = ""
    """The task's category as the release gives it (``category`` or ``metadata.category``); the public release gives none."""


@dataclass(frozen=True)
class EpisodeEntry:
    """One entry of ``episode.yaml``'s ``tasks``; ``index`` is its position there, for reports."""

    task_id: str
    depends_on: list[str]
    index: int


@dataclass
class PiPersona:
    """One ``data/<persona>/`` folder."""

    name: str
    directory: Path
    episode_id: str = ""
    role: str = ""
    preferences: dict[str, Any] = field(default_factory=dict)
    long_term_goals: list[str] = field(default_factory=list)
    order: list[EpisodeEntry] = field(default_factory=list)
    tool_names: list[str] = field(default_factory=list)
    tasks: dict[str, PiTask] = field(default_factory=dict)
    skills: list[Path] = field(default_factory=list)
    web: Path | None = None
    """``web/``: an offline corpus of the pages the tasks need (pbench's format), when the release has one."""


@dataclass
class PiBench:
    data_dir: Path
    personas: list[PiPersona]

    def script_path(self, written: str) -> Path:
        """Where a ``tools_evaluation_path`` points: repo-relative, or relative to ``data/`` when only that was given."""
        repo_relative = self.data_dir.parent / written
        if repo_relative.is_file():
            return repo_relative
        return self.data_dir / written.removeprefix("data/")


def find_data_dir(path: Path) -> Path:
    """``path/data`` for a checkout, else ``path`` itself (the ``data/`` folder)."""
    return path / "data" if (path / "data").is_dir() else path


def read_pibench(path: Path, report: ImportReport) -> PiBench:
    """Every persona folder under the checkout's data folder."""
    data_dir = find_data_dir(path).resolve()
    folders = sorted(p for p in data_dir.iterdir() if p.is_dir() and _is_persona(p)) if data_dir.is_dir() else []
    return PiBench(data_dir, [_read_persona(folder, data_dir, report) for folder in folders])


def _is_persona(folder: Path) -> bool:
    return any((folder / name).exists() for name in ("episode.yaml", "profile.yaml", "tasks"))


class _Reader:
    """Reads one persona's files, reporting problems relative to the data folder."""

    def __init__(self, data_dir: Path, report: ImportReport) -> None:
        self.data_dir = data_dir
        self.report = report

    def rel(self, path: Path) -> str:
        return path.relative_to(self.data_dir).as_posix()

    def mapping(self, path: Path) -> dict[str, Any] | None:
        """A YAML file's top-level mapping, or None (reported) when missing or malformed."""
        if not path.is_file():
            self.report.add(self.rel(path), "", "file not found")
            return None
        try:
            data = parse_yaml(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            self.report.add(self.rel(path), where, f"invalid YAML ({getattr(exc, 'problem', None) or exc}); not imported")
            return None
        except UnicodeDecodeError as exc:
            self.report.add(self.rel(path), "", f"not UTF-8 text ({exc}); not imported")
            return None
        if not isinstance(data, dict):
            self.report.add(self.rel(path), "", f"expected a mapping at the top level, got {type(data).__name__}; not imported")
            return None
        return data

    def strings(self, value: Any, path: Path, where: str) -> list[str]:
        """A list of non-empty strings; anything else is reported and dropped."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.report.add(self.rel(path), where, f"expected a list, got {type(value).__name__}; ignored")
            return []
        out = []
        for n, item in enumerate(value):
            if isinstance(item, (str, int, float)) and str(item).strip():
                out.append(str(item).strip())
            elif isinstance(item, dict) and len(item) == 1 and all(isinstance(x, (str, int, float)) for x in (*item, *item.values())):
                ((key, text),) = item.items()
                out.append(f"{key}: {text}")
                self.report.add(
                    self.rel(path),
                    f"{where}[{n}]",
                    "an unquoted 'text: more text' that YAML reads as a mapping; joined back into one string",
                )
            else:
                self.report.add(self.rel(path), f"{where}[{n}]", f"expected a non-empty string, got {item!r}; skipped")
        return out

    def text(self, data: dict[str, Any], key: str, path: Path, where: str | None = None) -> str:
        value = data.get(key)
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)):
            self.report.add(self.rel(path), where or key, f"expected text, got {type(value).__name__}; ignored")
            return ""
        return str(value)


def _read_persona(folder: Path, data_dir: Path, report: ImportReport) -> PiPersona:
    r = _Reader(data_dir, report)
    persona = PiPersona(folder.name, folder)
    profile_path = folder / "profile.yaml"
    profile = r.mapping(profile_path) or {}
    persona.role = r.text(profile, "role", profile_path)
    prefs = profile.get("preferences") or {}
    if isinstance(prefs, dict):
        persona.preferences = prefs
    else:
        report.add(r.rel(profile_path), "preferences", f"expected a mapping, got {type(prefs).__name__}; ignored")
    persona.long_term_goals = r.strings(profile.get("long_term_goals"), profile_path, "long_term_goals")
    _check_user_id(r, profile, profile_path, folder.name)

    tools_path = folder / "tools.yaml"
    tools = r.mapping(tools_path) or {}
    persona.tool_names = r.strings(tools.get("tool_names"), tools_path, "tool_names")

    tasks_dir = folder / "tasks"
    for task_dir in sorted(p for p in tasks_dir.iterdir() if p.is_dir()) if tasks_dir.is_dir() else []:
        task = _read_task(r, task_dir)
        if task is None:
            continue
        if task.task_id in persona.tasks:
            report.add(r.rel(task_dir / TASK_FILE), "task_id", f"{task.task_id!r} is also the id of another task; not imported")
            continue
        persona.tasks[task.task_id] = task

    episode_path = folder / "episode.yaml"
    episode = r.mapping(episode_path)
    if episode is None:
        persona.order = [EpisodeEntry(task_id, [], n) for n, task_id in enumerate(sorted(persona.tasks))]
        report.add(r.rel(episode_path), "", "no usable episode: tasks run in task-id order without dependencies")
    else:
        _check_user_id(r, episode, episode_path, folder.name)
        persona.episode_id = r.text(episode, "episode_id", episode_path)
        persona.order = _read_order(r, episode, episode_path)
    listed = {entry.task_id for entry in persona.order}
    for task_id in sorted(set(persona.tasks) - listed):
        report.add(
            r.rel(persona.tasks[task_id].directory / TASK_FILE),
            "task_id",
            "not listed in episode.yaml; not imported (π-Bench does not run it)",
        )

    skills_dir = folder / "skills"
    persona.skills = sorted(p for p in skills_dir.iterdir() if p.is_dir()) if skills_dir.is_dir() else []
    persona.web = folder / "web" if (folder / "web").is_dir() else None
    return persona


def _check_user_id(r: _Reader, data: dict[str, Any], path: Path, name: str) -> None:
    user_id = data.get("user_id")
    if user_id is not None and str(user_id) != name:
        r.report.add(r.rel(path), "user_id", f"is {user_id!r} but the folder is {name!r}; the folder name is used")


def _read_order(r: _Reader, episode: dict[str, Any], path: Path) -> list[EpisodeEntry]:
    tasks = episode.get("tasks")
    if not isinstance(tasks, list):
        r.report.add(r.rel(path), "tasks", f"expected a list, got {type(tasks).__name__}; no sessions from this episode")
        return []
    order = []
    for n, entry in enumerate(tasks):
        if not isinstance(entry, dict) or not str(entry.get("task_id") or "").strip():
            r.report.add(r.rel(path), f"tasks[{n}]", f"expected a mapping with a task_id, got {entry!r}; skipped")
            continue
        order.append(EpisodeEntry(str(entry["task_id"]).strip(), r.strings(entry.get("depends_on"), path, f"tasks[{n}].depends_on"), n))
    return order


def _read_task(r: _Reader, task_dir: Path) -> PiTask | None:
    path = task_dir / TASK_FILE
    data = r.mapping(path)
    if data is None:
        return None
    rel = r.rel(path)
    task_id = r.text(data, "task_id", path).strip()
    if not task_id:
        r.report.add(rel, "task_id", f"missing; the folder name {task_dir.name!r} is used")
        task_id = task_dir.name
    if str(data.get("schema_version", "")).strip() != "v2":
        r.report.add(rel, "schema_version", f"is {data.get('schema_version')!r}, not 'v2'; read as v2")
    trigger = data.get("trigger")
    if not isinstance(trigger, dict) or not trigger.get("type"):
        r.report.add(rel, "trigger", f"expected a mapping with a type, got {trigger!r}; a user trigger is assumed")
        trigger = {"type": "user"}
    intent = data.get("intent")
    if not isinstance(intent, dict):
        r.report.add(rel, "intent", f"expected a mapping, got {type(intent).__name__}; task not imported")
        return None
    task = PiTask(
        task_id=task_id,
        directory=task_dir,
        title=r.text(data, "title", path).strip(),
        task_type=r.text(data, "task_type", path).strip(),
        trigger_type=str(trigger["type"]).strip(),
        initial_input=r.text(intent, "initial_input", path, "intent.initial_input"),
        hidden_intents=_read_hidden_intents(r, intent.get("hidden_intent"), rel),
        assets=_assets(r, task_dir),
        ignored_fields=sorted(k for k, v in data.items() if k not in CONVERTED_TASK_KEYS and v not in (None, "", [], {})),
    )
    metadata = data.get("metadata")
    task.category = r.text(data, "category", path).strip() or (
        r.text(metadata, "category", path, "metadata.category").strip() if isinstance(metadata, dict) else ""
    )
    objectives = data.get("objectives")
    if isinstance(objectives, dict):
        _read_objectives(r, objectives, path, task)
    elif objectives is not None:
        r.report.add(rel, "objectives", f"expected a mapping, got {type(objectives).__name__}; no checklist imported")
    return task


def _read_hidden_intents(r: _Reader, value: Any, rel: str) -> list[str]:
    if not isinstance(value, list):
        r.report.add(rel, "intent.hidden_intent", f"expected a list, got {type(value).__name__}")
        return []
    out = []
    for n, item in enumerate(value):
        content = item.get("content") if isinstance(item, dict) else None
        if isinstance(content, (str, int, float)) and str(content).strip():
            out.append(str(content).strip())
        else:
            r.report.add(rel, f"intent.hidden_intent[{n}]", f"expected {{content: text}}, got {item!r}; skipped")
    return out


def _read_objectives(r: _Reader, objectives: dict[str, Any], path: Path, task: PiTask) -> None:
    rel = r.rel(path)
    for key in sorted(set(objectives) - OBJECTIVE_KEYS):
        r.report.add(rel, f"objectives.{key}", "unknown field; not converted")
    checklist = objectives.get("checklist")
    if checklist is not None and not isinstance(checklist, list):
        r.report.add(rel, "objectives.checklist", f"expected a list, got {type(checklist).__name__}; ignored")
        checklist = None
    for n, item in enumerate(checklist or []):
        criterion = str(item.get("criterion") or "").strip() if isinstance(item, dict) else ""
        if not criterion:
            r.report.add(rel, f"objectives.checklist[{n}]", f"expected {{criterion: text}}, got {item!r}; skipped")
            continue
        weight = item.get("weight", 1)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
            r.report.add(rel, f"objectives.checklist[{n}].weight", f"{weight!r} is not a positive number; weight 1 used")
            weight = 1
        task.criteria.append((criterion, float(weight)))
    tools = objectives.get("tools")
    if tools is not None and not isinstance(tools, list):
        r.report.add(rel, "objectives.tools", f"expected a list, got {type(tools).__name__}; ignored")
        tools = None
    for n, item in enumerate(tools or []):
        names = [k for k in item if k not in ("call", "result")] if isinstance(item, dict) else []
        if len(names) != 1:
            r.report.add(rel, f"objectives.tools[{n}]", f"expected a mapping with one tool name, got {item!r}; skipped")
            continue
        task.tools.append(str(names[0]).strip().removeprefix(MCP_PREFIX))
    script = objectives.get("tools_evaluation_path")
    if script is not None:
        if isinstance(script, str) and script.strip().endswith(".py"):
            task.script = script.strip()
        else:
            r.report.add(rel, "objectives.tools_evaluation_path", f"expected a path to a .py file, got {script!r}; ignored")
    task.files_read = r.strings(objectives.get("files_read"), path, "objectives.files_read")


def _assets(r: _Reader, task_dir: Path) -> list[str]:
    """Files beside task.yaml (recursively), as π-Bench copies them into the workspace."""
    out = []
    for path in sorted(task_dir.rglob("*")):
        rel = path.relative_to(task_dir)
        if rel.parts[0] in NOT_ASSETS:
            continue
        if path.is_symlink():
            r.report.add(r.rel(path), "", "a symbolic link; not copied")
        elif path.is_file():
            out.append(rel.as_posix())
    return out
