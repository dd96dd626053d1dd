"""A scenario as a pbench episode: its files and app rows written to a folder, one session per day.

The folder (under the system's temporary directory, named by scenario, days,
hint setting, layout version and a digest of its content) holds
``session_files/day<N>/`` (the files of day N's tasks, placed in the workspace
when day N starts: day 1 never sees day 2's files) and ``apps/day<N>/rows.yaml``
(rows that appear when day N starts); both are the dataset's timed events. ``web/`` holds the company's
sites (every day's pages, each on its own task's site; ``web_fetch`` reaches them). Each day is a session ``day<N>`` with no live user:
the mentor's opening, the day's tools, every task's checkpoints as rule items
and the oracle's steps as reference. Day 2 opens with the mentor's feedback on
the checkpoints missed on day 1 (``LoadedEpisode.opening_note``).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from proactive_bench.dataset import Episode, LoadedEpisode, Persona, Session, SessionEntry, Trigger, timed_files_dir, timed_rows_dir
from proactive_bench.env import ClockRates, Colleagues
from proactive_bench.suites.trainee.colleagues import rules_colleagues
from proactive_bench.suites.trainee.compose import Scenario, compose_scenario
from proactive_bench.suites.trainee.day_plan import DAY_TOOLS, app_rows, checklist, files, opening, oracle_steps, pages, reference

SUITE_NAME = FOLDER = "trainee"
CATEGORY = "trainee"


@dataclass(frozen=True)
class TraineeSettings:
    """The run settings of a trainee scenario."""

    days: int = 1
    hints: str = "none"
    rates: ClockRates = ClockRates()


def session_id(day: int) -> str:
    return f"day{day}"


def _write(path: Path, content: bytes) -> None:
    """Write atomically (two processes may materialise the same scenario at once)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file() and path.read_bytes() == content:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as out:
        out.write(content)
    os.replace(tmp, path)


def materialize(scenario: Scenario, hints: str, directory: Path) -> None:
    """Write each day's workspace files and app rows under ``directory``, as the timed events of that day's session."""
    for day in scenario.days:
        sid = session_id(day.day)
        for rel, content in files(day).items():
            _write(timed_files_dir(directory, sid) / rel, content if isinstance(content, bytes) else content.encode())
        rows = app_rows(scenario, day, hints)
        _write(timed_rows_dir(directory, sid) / "rows.yaml", yaml.safe_dump(rows, sort_keys=False, allow_unicode=True).encode())
    site = pages(scenario)
    index = {url: {"file": page_file(url)} for url in site}
    for url, html in site.items():
        _write(directory / WEB / page_file(url), html.encode())
    if index:
        _write(directory / WEB / "index.yaml", yaml.safe_dump(index, sort_keys=True).encode())


WEB = "web"
"""The scenario folder's offline web (the episode's ``web_root``)."""


def page_file(url: str) -> str:
    """Where a page's HTML lives under ``web/``: its host and path as folders (``status.acme.example/db.html``)."""
    return url.removeprefix("https://").strip("/") + ".html"


LAYOUT = "v2"
"""The folder layout's version, in the folder's name: a folder written by an older layout (every day's files in
``workspace/``, seen from day 1) is never reused."""


def scenario_directory(scenario: Scenario, hints: str) -> Path:
    """The scenario's folder, named after what is written into it (each day's files and app rows, the web pages): a
    template whose files change (a renamed picture) gets a new folder, never a stale one."""
    content = hashlib.sha256()
    for day in scenario.days:
        for rel, data in sorted(files(day).items()):
            content.update(rel.encode() + b"\0" + (data if isinstance(data, bytes) else data.encode()) + b"\0")
        content.update(repr(app_rows(scenario, day, hints)).encode())
    content.update(repr(sorted(pages(scenario).items())).encode())
    digest = content.hexdigest()[:12]
    return Path(tempfile.gettempdir()) / "pbench-trainee" / f"{scenario.name}-d{len(scenario.days)}-{hints}-{LAYOUT}-{digest}"


def feedback_note(scenario: Scenario):  # a closure over the scenario
    """The mentor's feedback on the missed checkpoints of the days before a session (``LoadedEpisode.opening_note``): as in the
    paper's daily feedback, each missed checkpoint said (what was not done) with the mentor's advice (what to do, never the answer)."""

    def note(session: Session, earlier: list[dict[str, bool]]) -> str | None:
        if not earlier:
            return None
        previous = scenario.days[len(earlier) - 1]
        verdicts = earlier[-1]
        lines = [
            f"- {task.key} ({task.draft.title}): not done: {c.text}. {c.feedback}"
            for task in previous.tasks
            for c in task.draft.checkpoints
            if not verdicts.get(f"{task.key}.{c.id}", False)
        ]
        if not lines:
            return "Feedback from your mentor on yesterday: every checkpoint was met. Keep working the same way."
        return "Feedback from your mentor on yesterday's missed checkpoints:\n" + "\n".join(lines)

    return note


def day_session(scenario: Scenario, n: int, settings: TraineeSettings) -> Session:
    day = scenario.days[n - 1]
    steps = oracle_steps(scenario, day, settings.rates)
    return Session(
        id=session_id(n),
        title=f"{scenario.name} day {n}",
        category=CATEGORY,
        trigger=Trigger(type="user", message=opening(scenario, day, settings.hints)),
        now=day.company.day_start,
        tools=DAY_TOOLS,
        intents=[],
        checklist=checklist(day),
        reference=reference(steps),
    )


ColleaguesFactory = Callable[[Scenario], Colleagues]


def load_scenario(name: str, settings: TraineeSettings, colleagues: ColleaguesFactory = rules_colleagues) -> LoadedEpisode:
    """The scenario as a loaded episode (one session per day); ScenarioNameError or TimelineError (one line) when it cannot be."""
    scenario = compose_scenario(name, settings.days)
    directory = scenario_directory(scenario, settings.hints)
    materialize(scenario, settings.hints, directory)
    sessions = [day_session(scenario, n, settings) for n in range(1, settings.days + 1)]
    entries = [SessionEntry(id=s.id, depends_on=[sessions[i - 1].id] if i else []) for i, s in enumerate(sessions)]
    intern = scenario.days[0].company.intern
    persona = Persona(id=name, name=intern.name, role=f"Intern at {scenario.days[0].company.name}.")
    episode = Episode(id=name, persona=name, title=f"Trainee scenario {name}", sessions=entries)
    return LoadedEpisode(
        episode,
        persona,
        sessions,
        directory,
        suite=SUITE_NAME,
        colleagues=colleagues(scenario),
        clock_rates=settings.rates,
        opening_note=feedback_note(scenario),
    )
