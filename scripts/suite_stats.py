"""The shipped suites' data beside their papers' numbers: sizes, shares, attachments, deliverables.

One section per suite, each a function that measures the data (``<suite>_stats``:
a dict of numbers a test can assert on) and one that prints it beside the
paper (``<suite>_lines``); :data:`SECTIONS` lists them, so a suite's section is
added by writing its two functions and one entry.

    python scripts/suite_stats.py [--root pbench_data] [--suite agentif] [--json]

The trainee section reads its templates from the package (they are code, not
files under the root): templates by the paper's four domains and by
difficulty, those with inter-task dependencies (a task announced in a meeting,
a scenario-wide colleague holding clues of several tasks), with image clues (a
picture the agent must look at) and with web pages (website monitoring), and
the default benchmark's scenarios. Each template's features are read from what
it draws (seeds 1..3), not declared.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites.agentif.copy_check import deliverables
from proactive_bench.suites.agentif.kinds import CATEGORIES, DOMAINS
from proactive_bench.suites.agentif.loading import read_task, task_names
from proactive_bench.suites.agentif.task import AgentIFTask
from proactive_bench.suites.odyssey import SUITE as ODYSSEY, default_token_counter, render_history
from proactive_bench.suites.trainee import TEMPLATES, compose_scenario, default_names
from proactive_bench.suites.trainee.model import DOMAINS as TRAINEE_DOMAINS, TaskDraft

Stats = dict[str, Any]

AGENTIF_PAPER: Stats = {
    "tasks": 104,
    "points": 767,
    "category_share": {"workflow": 0.538, "latent": 0.25, "refinement": 0.212},
    "domain_share": {"work": 0.596, "study": 0.231, "life": 0.173},
    "without_attachments": 42,
    "penalty_item_share": 0.272,
}
"""AgentIF-OneDay's statistics (its section 3.3 and Figure 3)."""


def _extension(path: str) -> str:
    return PurePosixPath(path).suffix.lower().lstrip(".") or "(none)"


def _shares(counts: Counter[str], keys: tuple[str, ...], total: int) -> dict[str, float]:
    return {key: counts[key] / total if total else 0.0 for key in keys}


def agentif_stats(root: Path) -> Stats:
    """The shipped AgentIF tasks counted: tasks, points, category and domain shares, attachments and deliverables by type."""
    tasks: list[AgentIFTask] = []
    broken = []
    for name in task_names(root):
        task, problems = read_task(root, name)
        if task is None:
            broken.append(f"{name}: {problems[0] if problems else 'does not load'}")
        else:
            tasks.append(task)
    total = len(tasks)
    items = [i for t in tasks for i in t.rubric]
    return {
        "tasks": total,
        "broken": broken,
        "points": sum(i.points for i in items),
        "category_count": dict(Counter(t.category for t in tasks)),
        "category_share": _shares(Counter(t.category for t in tasks), CATEGORIES, total),
        "domain_count": dict(Counter(t.domain for t in tasks)),
        "domain_share": _shares(Counter(t.domain for t in tasks), DOMAINS, total),
        "category_by_domain": {d: dict(Counter(t.category for t in tasks if t.domain == d)) for d in DOMAINS},
        "without_attachments": sum(not t.attachments for t in tasks),
        "attachments_per_task": dict(sorted(Counter(len(t.attachments) for t in tasks).items())),
        "max_attachments": max((len(t.attachments) for t in tasks), default=0),
        "attachment_types": dict(Counter(_extension(p) for t in tasks for p in t.attachments).most_common()),
        "deliverable_types": dict(Counter(_extension(p) for t in tasks for p in deliverables(t)).most_common()),
        "penalty_item_share": sum(i.polarity == "penalty" for i in items) / len(items) if items else 0.0,
        "rule_graded_share": sum(i.grader == "rule" for i in items) / len(items) if items else 0.0,
    }


def _pct(value: float) -> str:
    return f"{value * 100:.1f} %"


def _counts(counts: dict[Any, int]) -> str:
    return ", ".join(f"{key}: {n}" for key, n in counts.items()) or "-"


def agentif_lines(stats: Stats) -> list[str]:
    """The AgentIF section: each measure, the paper's value beside ours."""
    paper = AGENTIF_PAPER
    rows = [
        ("tasks", paper["tasks"], stats["tasks"]),
        ("rubric points", paper["points"], stats["points"]),
        *(
            (f"category {c}", _pct(paper["category_share"][c]), f"{_pct(stats['category_share'][c])} ({stats['category_count'].get(c, 0)})")
            for c in CATEGORIES
        ),
        *(
            (f"domain {d}", _pct(paper["domain_share"][d]), f"{_pct(stats['domain_share'][d])} ({stats['domain_count'].get(d, 0)})")
            for d in DOMAINS
        ),
        ("tasks without attachments", paper["without_attachments"], stats["without_attachments"]),
        ("attachments per task", "0-10", _counts(stats["attachments_per_task"])),
        ("attachment types", "pdf, png, html, py, xlsx, csv, jpg, srt ...", _counts(stats["attachment_types"])),
        ("deliverable types", "pptx, html, docx, xlsx, md ...", _counts(stats["deliverable_types"])),
        ("penalty items", _pct(paper["penalty_item_share"]), _pct(stats["penalty_item_share"])),
        ("rule-graded items", "- (all judged)", _pct(stats["rule_graded_share"])),
    ]
    width, middle = max(len(str(r[0])) for r in rows), max(len(str(r[1])) for r in rows)
    lines = ["AgentIF-OneDay", f"  {'':{width}}  {'paper':{middle}}  pbench"]
    lines += [f"  {name:{width}}  {paper_value!s:{middle}}  {ours}" for name, paper_value, ours in rows]
    lines += [f"  by domain: {d}: {_counts(stats['category_by_domain'][d])}" for d in DOMAINS]
    lines += [f"  does not load: {line}" for line in stats["broken"]]
    return lines


ODYSSEY_PAPER = {
    "tasks": 602,
    "by_split": {"plus": 300, "neo": 302},
    "by_group": {"1-app": 153, "2-app": 166, "3-app": 283},
    "history_tokens": {"plus": 3468.9, "neo": 5169.9},
    "sessions": {"plus": 27.9, "neo": 5.0},
    "min_turns": 100,
}
"""OdysseyBench's own figures (seed paper 002, table 4 and appendix A)."""


def odyssey_stats(root: Path) -> Stats:
    """The odyssey suite's figures: tasks by split and by 1/2/3-app group, and the histories as the agent gets them
    (distractors included): sessions, turns and tokens per history, per split, counted by the suite's default counter."""
    counter = default_token_counter()
    rows = []
    for name in ODYSSEY.names(root):
        task, problems = ODYSSEY.tasks.read(root, name)
        if task is None:
            raise SystemExit(f"odyssey/{name}: {problems[0].reason if problems else 'does not load'}")
        days = task.days()
        rows.append(
            {
                "split": task.split,
                "group": f"{task.group}-app",
                "sessions": len(days),
                "turns": sum(len(d.turns) for d in days),
                "tokens": counter.count(render_history(days)),
                "distractors": task.distractors is not None,
            }
        )

    def history(part: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "tasks": len(part),
            "sessions": round(statistics.mean(r["sessions"] for r in part), 1),
            "turns_mean": round(statistics.mean(r["turns"] for r in part), 1),
            "turns_min": min(r["turns"] for r in part),
            "tokens_mean": round(statistics.mean(r["tokens"] for r in part)),
            "tokens_per_session": round(sum(r["tokens"] for r in part) / sum(r["sessions"] for r in part)),
        }

    groups = Counter(r["group"] for r in rows)
    return {
        "tasks": len(rows),
        "by_split": dict(sorted(Counter(r["split"] for r in rows).items())),
        "by_group": {g: groups.get(g, 0) for g in ("1-app", "2-app", "3-app")},
        "with_distractors": sum(r["distractors"] for r in rows),
        "history": {
            split: history(part) for split in ("plus", "neo", "all") if (part := [r for r in rows if split in ("all", r["split"])])
        },
        "token_counter": counter.name,
        "paper": ODYSSEY_PAPER,
    }


def odyssey_lines(stats: Stats) -> list[str]:
    paper = stats["paper"]
    total, paper_total = stats["tasks"] or 1, paper["tasks"]
    lines = [
        "OdysseyBench",
        f"tasks: {stats['tasks']} (paper {paper_total}); with distractors: {stats['with_distractors']}",
        "by split: " + ", ".join(f"{s} {n}" for s, n in stats["by_split"].items()) + " (paper: plus 300, neo 302)",
        "by app group: "
        + ", ".join(
            f"{g} {n} ({100 * n / total:.1f} %, paper {100 * paper['by_group'][g] / paper_total:.1f} %)"
            for g, n in stats["by_group"].items()
        ),
    ]
    for split, h in stats["history"].items():
        beside = (
            f" (paper {paper['sessions'][split]} sessions, {paper['history_tokens'][split]:,.0f} tokens)"
            if split in paper["sessions"]
            else ""
        )
        lines.append(
            f"histories, {split}: {h['tasks']} tasks, {h['sessions']} sessions, turns mean {h['turns_mean']} / min {h['turns_min']}, "
            f"tokens mean {h['tokens_mean']:,} ({h['tokens_per_session']:,} a session){beside}"
        )
    lines.append(f"tokens counted by {stats['token_counter']}")
    return lines


TRAINEE_FEATURE_SEEDS = range(1, 4)
TRAINEE_PAPER: Stats = {"templates": 181, "domains": 4, "default_scenarios": 50, "tasks_per_scenario": "2-6"}
"""Trainee-Bench's own figures (seed paper 003, section 2.2 and 3.1)."""


def _trainee_drafts(template: str) -> list[TaskDraft]:
    return [compose_scenario(f"s{seed}-n2", 1, templates=[template]).days[0].tasks[0].draft for seed in TRAINEE_FEATURE_SEEDS]


def has_dependency(draft: TaskDraft) -> bool:
    """A task announced during a meeting (a clue said from a minute on) or a clue held by a colleague shared with other tasks."""
    shared = {n.handle for n in draft.npcs if n.shared}
    return any(c.from_minute is not None or c.holder in shared for c in draft.clues)


def has_image_clue(draft: TaskDraft) -> bool:
    return any(c.in_image for c in draft.clues)


def trainee_stats(root: Path) -> Stats:
    """The trainee suite's figures (see the module docstring); ``root`` is unused, the templates ship in the package."""
    del root
    drafts = {name: _trainee_drafts(name) for name in sorted(TEMPLATES)}
    names = default_names()
    return {
        "templates": len(TEMPLATES),
        "by_domain": {d: sum(TEMPLATES[n].domain == d for n in TEMPLATES) for d in TRAINEE_DOMAINS},
        "by_difficulty": dict(sorted(Counter(t.difficulty for t in TEMPLATES.values()).items())),
        "with_dependencies": sorted(n for n, ds in drafts.items() if any(has_dependency(d) for d in ds)),
        "with_image_clues": sorted(n for n, ds in drafts.items() if any(has_image_clue(d) for d in ds)),
        "with_web_pages": sorted(n for n, ds in drafts.items() if any(d.pages for d in ds)),
        "default_scenarios": len(names),
        "tasks_per_scenario": dict(sorted(Counter(int(n.rsplit("-n", 1)[1]) for n in names).items())),
        "paper": TRAINEE_PAPER,
    }


def trainee_lines(stats: Stats) -> list[str]:
    paper = stats["paper"]
    return [
        "Trainee-Bench",
        f"meta-task templates: {stats['templates']} (paper {paper['templates']})",
        "by domain: " + ", ".join(f"{d} {n}" for d, n in stats["by_domain"].items()) + f" (paper: {paper['domains']} domains)",
        "by difficulty: " + _counts(stats["by_difficulty"]),
        f"with inter-task dependencies: {len(stats['with_dependencies'])} ({', '.join(stats['with_dependencies']) or '-'})",
        f"with image clues: {len(stats['with_image_clues'])} ({', '.join(stats['with_image_clues']) or '-'})",
        f"with web pages (website monitoring): {len(stats['with_web_pages'])} ({', '.join(stats['with_web_pages']) or '-'})",
        f"default scenarios: {stats['default_scenarios']} (paper {paper['default_scenarios']}), tasks per scenario "
        + _counts(stats["tasks_per_scenario"]),
    ]


SECTIONS: dict[str, tuple[Callable[[Path], Stats], Callable[[Stats], list[str]]]] = {
    "agentif": (agentif_stats, agentif_lines),
    "odyssey": (odyssey_stats, odyssey_lines),
    "trainee": (trainee_stats, trainee_lines),
}
"""Each suite's measuring and printing functions."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_DATA_ROOT, help="the dataset root (default: the shipped pbench_data)")
    parser.add_argument("--suite", choices=sorted(SECTIONS), action="append", help="only this suite (repeatable; default: every suite)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON instead of the tables")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not root.is_dir():
        print(f"{root}: not a folder", file=sys.stderr)
        return 2
    stats = {name: SECTIONS[name][0](root) for name in args.suite or SECTIONS}
    if args.json:
        print(json.dumps(stats, indent=2, sort_keys=True))
    else:
        print("\n\n".join("\n".join(SECTIONS[name][1](numbers)) for name, numbers in stats.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
