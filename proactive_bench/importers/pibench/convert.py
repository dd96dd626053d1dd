"""Map π-Bench records to pbench models: persona, episode, sessions, and the files to copy.

- persona from ``profile.yaml`` (id and name = the persona folder, i.e. the user_id);
- sessions in episode order, moved where needed so that each follows its
  ``depends_on`` (stable); dependencies on unknown tasks and cycles are dropped;
- per task: trigger ``user`` or ``env`` (an ``event`` whose source is the JSON
  payload's ``source``), hidden intents ``h1``... without rule annotations,
  checklist criteria as rubric items ``c1``..., the grader script as rule items
  ``t1``... (one per criterion ``score([])`` returns, see ``scripts``);
- tools: the agent's built-in groups plus the ``tools.yaml`` tools pbench has
  (and ``web`` when the release has an offline corpus);
- task files are placed when their session starts (``session_files/<task id>/``),
  at the paths π-Bench copies them to (the workspace root; a later task's file
  replaces an earlier one at the same path, as there);
- the app accounts the requests state are seeded, and what cannot be reproduced
  is flagged on the sessions it affects (``world``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from proactive_bench.dataset import (
    ID_PATTERN,
    NO_CATEGORY,
    PIBENCH_CATEGORY_CODES,
    ChecklistItem,
    Episode,
    HiddenIntent,
    Persona,
    PibenchScript,
    PibenchScriptArgs,
    RubricEvidence,
    Session,
    SessionEntry,
    Trigger,
    dependency_units,
)
from proactive_bench.env import REGISTRY, app_tables, resolve_tool_names
from proactive_bench.importers.pibench.reader import (
    TASK_FILE,
    EpisodeEntry,
    PiBench,
    PiPersona,
    PiTask,
)
from proactive_bench.importers.pibench.report import ImportReport, PersonaCounts
from proactive_bench.importers.pibench.scripts import ScriptError, discover_criteria
from proactive_bench.importers.pibench.world import (
    ACCOUNT_TABLES,
    Gap,
    Login,
    account_rows,
    corpus_urls,
    served,
    stated_logins,
    task_urls,
)
from proactive_bench.yaml_files import YamlFileError, read_yaml_file

AGENT_GROUPS = ("workspace", "memory", "shell")
"""pbench's counterparts of the π-Bench (nanobot) agent's own tools: files, memory, a shell."""
USER_TRIGGERS = frozenset({"user", "user_query", "user_request", "human"})
EVENT_TRIGGERS = frozenset(
    {"env", "environment", "environmental", "environmental_signal", "environment_signal", "env_signal", "event", "system"}
)
"""Trigger spellings, compared lower-cased with ``-`` and spaces read as ``_``."""
KNOWN_TASK_TYPES = frozenset({"long_term", "short_term_contextual", "short_term_independent"})
JUDGE_TOOLS = ["*"]
"""π-Bench's judge reads the whole trace, tool calls included; ours sees every tool record."""


@dataclass
class ConvertedPersona:
    persona: Persona
    episode: Episode
    sessions: list[Session]
    counts: PersonaCounts
    files: dict[str, Path] = field(default_factory=dict)
    """Destination (relative to the dataset root) -> source file."""
    seeds: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict)
    """App seed files to write (relative to the dataset root) -> table -> rows."""


def convert_pibench(source: PiBench, report: ImportReport) -> list[ConvertedPersona]:
    """Every persona that has at least one importable task."""
    resolve_tool_names([])  # registers every built-in tool and app
    converted = [c for c in (_Converter(source, p, report).run() for p in source.personas) if c is not None]
    report.counts = [c.counts for c in converted]
    return converted


class _Converter:
    def __init__(self, source: PiBench, pi: PiPersona, report: ImportReport) -> None:
        self.source = source
        self.pi = pi
        self.report = report
        self.files: dict[str, Path] = {}
        self.gaps: dict[tuple[str, str], Gap] = {}
        self.corpus: set[str] = set()
        self.login_apps = frozenset(app for app, table in ACCOUNT_TABLES.items() if table in app_tables())
        self.seeded_apps: set[str] = set()

    def rel(self, path: Path) -> str:
        return path.relative_to(self.source.data_dir).as_posix()

    def task_rel(self, task: PiTask) -> str:
        return self.rel(task.directory / TASK_FILE)

    def run(self) -> ConvertedPersona | None:
        name = self.pi.name
        if not _valid_id(name):
            self.report.add(name, "", f"persona folder name {name!r} is not a valid pbench id; persona not imported")
            return None
        self.base_tools = self._base_tools()
        self._copy_web()
        sessions = {}
        for task_id, task in self.pi.tasks.items():
            session = self._session(task)
            if session is not None:
                sessions[task_id] = session
        order = self._order(set(sessions))
        if not order:
            self.report.add(name, "", "no importable tasks; persona not imported")
            return None
        self._copy_skills()
        self._report_ignored_fields([self.pi.tasks[t] for t, _ in order])
        needed = {dep for _, deps in order for dep in deps}
        for task_id, _ in order:
            if not sessions[task_id].checklist and task_id not in needed:
                self.report.add(
                    self.task_rel(self.pi.tasks[task_id]),
                    "objectives",
                    "no criteria, and no later task depends on it: π-Bench leaves it out of Proc and Comp; left out here too",
                )
        order = [(t, deps) for t, deps in order if sessions[t].checklist or t in needed]
        seeds = self._seed_accounts([self.pi.tasks[t] for t, _ in order])
        for task_id, _ in order:
            self._flag_world(self.pi.tasks[task_id])
        kept = {t for t, _ in order}
        flags: dict[str, list[str]] = {}
        for gap in self.gaps.values():
            gap.tasks = [t for t in gap.tasks if t in kept]
            if gap.tasks:
                self.report.gaps.append((name, gap.flag(), gap.tasks))
            for task_id in gap.tasks:
                flags.setdefault(task_id, []).append(gap.flag())
        for task_id, _ in order:
            sessions[task_id] = sessions[task_id].model_copy(update={"gaps": flags.get(task_id, [])})
        placed = f"episodes/{name}/session_files/"
        self.files = {d: p for d, p in self.files.items() if not d.startswith(placed) or d[len(placed) :].split("/")[0] in kept}
        episode = Episode(
            id=name,
            persona=name,
            title=f"π-Bench {self.pi.episode_id or name}",
            sessions=[SessionEntry(id=t, depends_on=deps) for t, deps in order],
        )
        ordered = [sessions[t] for t, _ in order]
        source_tasks = [self.pi.tasks[t] for t, _ in order]
        counts = PersonaCounts(
            persona=name,
            source_intents=sum(len(t.hidden_intents) for t in source_tasks),
            source_criteria=sum(len(t.criteria) + (t.script is not None) for t in source_tasks),
            sessions=len(ordered),
            intents=sum(len(s.intents) for s in ordered),
            checklist_items=sum(c.grader == "rubric" for s in ordered for c in s.checklist),
            scripts=sum(self.pi.tasks[s.id].script is not None for s in ordered),
            script_items=sum(c.grader == "rule" for s in ordered for c in s.checklist),
            dependency_groups=sum(len(u) > 1 for u in dependency_units(episode)),
            event_sessions=sum(s.trigger.type == "event" for s in ordered),
            assets=sum(d.startswith(f"episodes/{name}/session_files/") for d in self.files),
            skills=len({d.split("/")[3] for d in self.files if d.startswith(f"episodes/{name}/skills/")}),
        )
        return ConvertedPersona(self._persona(), episode, ordered, counts, self.files, seeds)

    # ---- persona ------------------------------------------------------------------------------
    def _persona(self) -> Persona:
        pi = self.pi
        role = pi.role.strip()
        if not role:
            self.report.add(f"{pi.name}/profile.yaml", "role", "no role text; the simulated user knows only its name")
            role = f"π-Bench persona {pi.name}."
        return Persona(
            id=pi.name,
            name=pi.name,
            role=role,
            preferences=[f"{k}: {v}" for k, v in pi.preferences.items()],
            long_term_goals=pi.long_term_goals,
            language=str(pi.preferences.get("language") or "en"),
        )

    def _base_tools(self) -> list[str]:
        groups = {spec.group for spec in REGISTRY.values()}
        tools = [g for g in AGENT_GROUPS if g in groups]
        if self.pi.skills and "skills" in groups:
            tools.append("skills")
        if self.pi.web is not None and "web" in groups:
            tools.append("web")
        for n, tool in enumerate(self.pi.tool_names):
            if tool in REGISTRY:
                tools.append(tool)
            else:
                self.report.add(f"{self.pi.name}/tools.yaml", f"tool_names[{n}]", f"{tool!r} is not a pbench tool; not offered")
        return list(dict.fromkeys(tools))

    def _copy_skills(self) -> None:
        for folder in self.pi.skills:
            files = [p for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()]
            for path in files:
                self.files[f"episodes/{self.pi.name}/skills/{folder.name}/{path.relative_to(folder).as_posix()}"] = path
            if not (folder / "SKILL.md").is_file():
                self.report.add(self.rel(folder), "", "no SKILL.md: copied, but list_skills does not offer it")

    def _report_ignored_fields(self, tasks: list[PiTask]) -> None:
        ignored = sorted({f for t in tasks for f in t.ignored_fields})
        if ignored:
            self.report.add(f"{self.pi.name}/tasks", "", f"task fields {', '.join(ignored)} have no pbench counterpart; not converted")

    # ---- order --------------------------------------------------------------------------------
    def _order(self, importable: set[str]) -> list[tuple[str, list[str]]]:
        """Importable episode tasks, each after its dependencies (stable); bad edges dropped and reported."""
        rel = f"{self.pi.name}/episode.yaml"
        entries: list[EpisodeEntry] = []
        for entry in self.pi.order:
            where = f"tasks[{entry.index}]"
            if entry.task_id not in self.pi.tasks:
                self.report.add(rel, where, f"no readable task {entry.task_id!r} under tasks/; skipped")
            elif any(e.task_id == entry.task_id for e in entries):
                self.report.add(rel, where, f"{entry.task_id!r} is listed twice; the first entry is used")
            elif entry.task_id in importable:
                entries.append(entry)
        known = {e.task_id for e in entries}
        index = {e.task_id: e.index for e in entries}
        deps_of: dict[str, list[str]] = {}
        for entry in entries:
            task_id = entry.task_id
            kept: list[str] = []
            for dep in entry.depends_on:
                reason = None
                if dep == task_id:
                    reason = "the task itself"
                elif dep not in known:
                    reason = "a task that was not imported" if dep in self.pi.tasks else "not a task of this episode"
                if reason:
                    self.report.add(rel, f"tasks[{entry.index}].depends_on", f"{dep!r} is {reason}; dependency dropped")
                elif dep not in kept:
                    kept.append(dep)
            deps_of[task_id] = kept
        placed: list[str] = []
        remaining = [e.task_id for e in entries]
        while remaining:
            ready = next((t for t in remaining if set(deps_of[t]) <= set(placed)), None)
            if ready is None:
                ready = remaining[0]
                cyclic = [d for d in deps_of[ready] if d not in placed]
                self.report.add(rel, f"tasks[{index[ready]}].depends_on", f"{cyclic} form a cycle with {ready!r}; dropped")
                deps_of[ready] = [d for d in deps_of[ready] if d in placed]
            remaining.remove(ready)
            placed.append(ready)
        if placed != [e.task_id for e in entries]:
            self.report.add(rel, "tasks", "sessions moved so that each follows the tasks it depends on")
        return [(t, deps_of[t]) for t in placed]

    # ---- sessions -----------------------------------------------------------------------------
    def _session(self, task: PiTask) -> Session | None:
        rel = self.task_rel(task)
        if not _valid_id(task.task_id):
            self.report.add(rel, "task_id", f"{task.task_id!r} is not a valid pbench id; task not imported")
            return None
        if not task.initial_input.strip():
            self.report.add(rel, "intent.initial_input", "empty; task not imported")
            return None
        if not task.hidden_intents:
            self.report.add(rel, "intent.hidden_intent", "no hidden intents; task not imported (π-Bench rejects it too)")
            return None
        tools = list(self.base_tools)
        for tool in task.tools:
            if tool not in REGISTRY:
                self.report.add(rel, "objectives.tools", f"{tool!r} is not a pbench tool; the agent cannot call it")
                self._gap(task, "tools", f"{tool} has no pbench counterpart: the agent cannot call it")
            elif tool not in tools:
                tools.append(tool)
        checklist = [
            ChecklistItem(
                id=f"c{n}", text=text, grader="rubric", weight=weight, evidence=RubricEvidence(files=task.files_read, tools=JUDGE_TOOLS)
            )
            for n, (text, weight) in enumerate(task.criteria, start=1)
        ]
        checklist += self._script_items(task, tools)
        if task.task_type not in KNOWN_TASK_TYPES:
            self.report.add(
                rel,
                "task_type",
                f"unknown task type {task.task_type!r} (known: {', '.join(sorted(KNOWN_TASK_TYPES))}); task types are not converted",
            )
        try:
            return Session(
                id=task.task_id,
                title=task.title or task.task_id,
                category=self._category(task),
                trigger=self._trigger(task),
                tools=tools,
                files=self._copy_assets(task),
                intents=self._intents(task),
                checklist=checklist,
            )
        except ValidationError as exc:
            self.report.add(rel, "", f"cannot be converted: {exc.errors()[0]['msg']}; task not imported")
            return None

    def _category(self, task: PiTask) -> str:
        """The paper's category (A-R) when the release gives one, else ``unavailable``: never guessed from the task type."""
        code = task.category.upper()
        if code in PIBENCH_CATEGORY_CODES:
            return code
        if task.category:
            self.report.add(
                self.task_rel(task),
                "category",
                f"{task.category!r} is not one of the paper's categories A-R (table 5); table 8 counts the task as {NO_CATEGORY}",
            )
        return NO_CATEGORY

    def _trigger(self, task: PiTask) -> Trigger:
        rel = self.task_rel(task)
        kind = task.trigger_type.strip().lower().replace("-", "_").replace(" ", "_")
        if kind in EVENT_TRIGGERS:
            try:
                payload = json.loads(task.initial_input)
            except json.JSONDecodeError:
                payload = None
            source = payload.get("source") if isinstance(payload, dict) else None
            if not isinstance(source, str) or not source.strip():
                self.report.add(
                    rel, "intent.initial_input", "the env trigger's payload is not JSON with a 'source'; the event has no source"
                )
                source = None
            return Trigger(type="event", source=source, message=task.initial_input)
        if kind not in USER_TRIGGERS:
            self.report.add(rel, "trigger.type", f"unknown trigger type {task.trigger_type!r}; a user request is assumed")
        return Trigger(type="user", message=task.initial_input)

    def _intents(self, task: PiTask) -> list[HiddenIntent]:
        """The task's hidden intents ``h1``...; one that repeats the request word for word is left out (validation rejects it), with a report line."""
        request = _plain(task.initial_input)
        intents: list[HiddenIntent] = []
        for n, text in enumerate(task.hidden_intents, start=1):
            if _plain(text) in request and len(intents) + (len(task.hidden_intents) - n) > 0:
                self.report.add(
                    self.task_rel(task),
                    f"intent.hidden_intent[{n - 1}]",
                    f"h{n} repeats the initial request word for word; left out (π-Bench counts it)",
                )
                continue
            intents.append(HiddenIntent(id=f"h{n}", text=text))
        return intents

    def _script_items(self, task: PiTask, offered: list[str]) -> list[ChecklistItem]:
        """One rule item per criterion of the task's grader script; one for the whole script when they are unknown."""
        if task.script is None:
            return []
        rel = self.task_rel(task)
        script = self.source.script_path(task.script)
        target = f"{self.pi.name}/{script.name}"
        criteria: list[str | None] = [None]
        if not script.is_file():
            self.report.add(rel, "objectives.tools_evaluation_path", f"{task.script}: no such file; its item will be graded as an error")
            self._gap(task, "grader", f"a grader script the release names is missing ({task.script}): its item is errored, never a pass")
        else:
            self.files[f"graders/{target}"] = script
            try:
                criteria = list(discover_criteria(script))
            except ScriptError as exc:
                self.report.add(rel, "objectives.tools_evaluation_path", f"score([]) failed ({exc}); one item stands for the whole script")
                self._gap(task, "grader", "a grader script failed at import (score([])): its item is errored wherever it fails again")
        unreachable = [t for t in task.tools if t not in offered]
        if task.tools and len(unreachable) == len(task.tools):
            self.report.add(
                rel,
                "objectives.tools",
                f"the script checks calls of {', '.join(unreachable)}, none of which the agent can make: its {len(criteria)} item(s) can never pass",
            )
        return [
            ChecklistItem(
                id=f"t{n}",
                text=f"[tools] {criterion}" if criterion is not None else f"[tools] every check of {script.name}",
                grader="rule",
                check=PibenchScript(pibench_script=PibenchScriptArgs(path=target, criterion=criterion, tools=tuple(task.tools))),
            )
            for n, criterion in enumerate(criteria, start=1)
        ]

    def _copy_assets(self, task: PiTask) -> list[str]:
        """The task's files, placed when its session starts at their π-Bench workspace paths (``session_files/<task id>/``)."""
        for asset in task.assets:
            self.files[f"episodes/{self.pi.name}/session_files/{task.task_id}/{asset}"] = task.directory / asset
        return list(task.assets)

    # ---- the world beyond the files -------------------------------------------------------------
    def _gap(self, task: PiTask, kind: str, reason: str) -> None:
        """Flag the task: the import cannot reproduce this part of its world."""
        gap = self.gaps.setdefault((kind, reason), Gap(kind, reason))
        if task.task_id not in gap.tasks:
            gap.tasks.append(task.task_id)

    def _seed_accounts(self, tasks: list[PiTask]) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """``apps/accounts.yaml``: every login the requests state, once per app and user name (the first password)."""
        seen: dict[tuple[str, str], tuple[Login, str]] = {}
        for task in tasks:
            logins, unread = stated_logins(task, self.login_apps)
            for reason in unread:
                self.report.add(self.task_rel(task), "intent.initial_input", f"states {reason}; not seeded")
                self._gap(task, "apps", f"the request states {reason}: the agent cannot log in as in π-Bench")
            for login in logins:
                first = seen.setdefault((login.app, login.username), (login, task.task_id))
                if first[0].password != login.password:
                    self.report.add(
                        self.task_rel(task),
                        "intent.initial_input",
                        f"its {login.app} password for {login.username} differs from {first[1]}'s; the first is seeded",
                    )
                    self._gap(task, "apps", f"its {login.app} password differs from an earlier task's for the same account")
        self.seeded_apps = {app for app, _ in seen}
        if not seen:
            return {}
        return {f"episodes/{self.pi.name}/apps/accounts.yaml": account_rows([login for login, _ in seen.values()], self.pi.name)}

    def _flag_world(self, task: PiTask) -> None:
        """Flag what the task needs of π-Bench's world that the import cannot reproduce: AppWorld's records, the live web."""
        logins, _ = stated_logins(task, self.login_apps)
        apps = sorted({t.split("__", 1)[0] for t in task.tools if "__" in t} | {login.app for login in logins})
        for app in apps:
            self._gap(
                task,
                "apps",
                f"AppWorld's {app} records (its own database, not in the release) are absent; "
                "only the accounts the requests state are seeded",
            )
            if app in self.login_apps and app not in self.seeded_apps:
                self._gap(task, "apps", f"no task states a {app} login: no {app} account is seeded, so the agent cannot log in")
        missing = [url for url in task_urls(task) if not served(url, self.corpus)]
        if missing:
            self.report.add(self.task_rel(task), "", f"names {len(missing)} URL(s) no offline page serves (first: {missing[0]})")
            self._gap(task, "web", "it names web pages the release has no offline copy of (π-Bench's agent browses the live web)")

    def _copy_web(self) -> None:
        """The release's offline corpus, as ``episodes/<p>/web/`` (served by the ``web`` tools)."""
        web = self.pi.web
        if web is None:
            return
        for path in sorted(p for p in web.rglob("*") if p.is_file() and not p.is_symlink()):
            self.files[f"episodes/{self.pi.name}/web/{path.relative_to(web).as_posix()}"] = path
        index: dict[str, Any] = {}
        if (web / "index.yaml").is_file():
            try:
                loaded = read_yaml_file(web / "index.yaml")
            except YamlFileError as exc:
                self.report.add(self.rel(web / "index.yaml"), exc.where, f"{exc.reason}; its URLs are not served")
            else:
                index = loaded if isinstance(loaded, dict) else {}
        self.corpus = corpus_urls(web, index)


def _plain(text: str) -> str:
    """Lower-case text with whitespace collapsed, for comparing wordings."""
    return " ".join(text.lower().split())


def _valid_id(value: str) -> bool:
    return re.fullmatch(ID_PATTERN, value) is not None
