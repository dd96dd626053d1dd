"""The shipped suites' data beside their papers' numbers: sizes, shares, attachments, deliverables.

One section per suite, each a function that measures the data (``<suite>_stats``:
a dict of numbers a test can assert on) and one that prints it beside the
paper (``<suite>_lines``); :data:`SECTIONS` lists them, so a suite's section is
added by writing its two functions and one entry.

    python scripts/suite_stats.py [--root pbench_data] [--suite agentif] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites.agentif.copy_check import deliverables
from proactive_bench.suites.agentif.loading import read_task, task_names
from proactive_bench.suites.agentif.task import CATEGORIES, DOMAINS, AgentIFTask

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


SECTIONS: dict[str, tuple[Callable[[Path], Stats], Callable[[Stats], list[str]]]] = {
    "agentif": (agentif_stats, agentif_lines),
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
