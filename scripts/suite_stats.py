"""The shipped suites' size and shape beside their papers' (issue 38): one function per suite, ``main()`` prints each section.

    PYTHONPATH=. python scripts/suite_stats.py [SUITE ...]

``trainee()``: meta-task templates by the paper's four domains and by
difficulty, those with inter-task dependencies (a task announced in a meeting,
a scenario-wide colleague holding clues of several tasks), with image clues
(a picture the agent must look at) and with web pages (website monitoring),
and the default benchmark's scenarios. Each template's features are read from
what it draws (seeds 1..3), not declared.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from proactive_bench.suites.trainee import TEMPLATES, compose_scenario, default_names
from proactive_bench.suites.trainee.model import DOMAINS, TaskDraft

FEATURE_SEEDS = range(1, 4)
TRAINEE_PAPER = {"templates": 181, "domains": 4, "default_scenarios": 50, "tasks_per_scenario": "2-6"}
"""Trainee-Bench's own figures (seed paper 003, section 2.2 and 3.1)."""


def _drafts(template: str) -> list[TaskDraft]:
    return [compose_scenario(f"s{seed}-n2", 1, templates=[template]).days[0].tasks[0].draft for seed in FEATURE_SEEDS]


def has_dependency(draft: TaskDraft) -> bool:
    """A task announced during a meeting (a clue said from a minute on) or a clue held by a colleague shared with other tasks."""
    shared = {n.handle for n in draft.npcs if n.shared}
    return any(c.from_minute is not None or c.holder in shared for c in draft.clues)


def has_image_clue(draft: TaskDraft) -> bool:
    return any(c.in_image for c in draft.clues)


def trainee() -> dict[str, Any]:
    """The trainee suite's figures (see the module docstring)."""
    drafts = {name: _drafts(name) for name in sorted(TEMPLATES)}
    names = default_names()
    return {
        "templates": len(TEMPLATES),
        "by_domain": {d: sum(TEMPLATES[n].domain == d for n in TEMPLATES) for d in DOMAINS},
        "by_difficulty": dict(sorted(Counter(t.difficulty for t in TEMPLATES.values()).items())),
        "with_dependencies": sorted(n for n, ds in drafts.items() if any(has_dependency(d) for d in ds)),
        "with_image_clues": sorted(n for n, ds in drafts.items() if any(has_image_clue(d) for d in ds)),
        "with_web_pages": sorted(n for n, ds in drafts.items() if any(d.pages for d in ds)),
        "default_scenarios": len(names),
        "tasks_per_scenario": dict(sorted(Counter(int(n.rsplit("-n", 1)[1]) for n in names).items())),
        "paper": TRAINEE_PAPER,
    }


def trainee_lines(stats: dict[str, Any]) -> list[str]:
    paper = stats["paper"]
    return [
        f"meta-task templates: {stats['templates']} (paper {paper['templates']})",
        "by domain: " + ", ".join(f"{d} {n}" for d, n in stats["by_domain"].items()) + f" (paper: {paper['domains']} domains)",
        "by difficulty: " + ", ".join(f"{d} {n}" for d, n in stats["by_difficulty"].items()),
        f"with inter-task dependencies: {len(stats['with_dependencies'])} ({', '.join(stats['with_dependencies']) or '-'})",
        f"with image clues: {len(stats['with_image_clues'])} ({', '.join(stats['with_image_clues']) or '-'})",
        f"with web pages (website monitoring): {len(stats['with_web_pages'])} ({', '.join(stats['with_web_pages']) or '-'})",
        f"default scenarios: {stats['default_scenarios']} (paper {paper['default_scenarios']}), tasks per scenario "
        + ", ".join(f"{k}: {v}" for k, v in stats["tasks_per_scenario"].items()),
    ]


SECTIONS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], list[str]]]] = {
    "trainee": (trainee, trainee_lines),
}


def main(argv: list[str] | None = None) -> int:
    chosen = (argv if argv is not None else sys.argv[1:]) or list(SECTIONS)
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        print(f"suite_stats: no section {', '.join(unknown)}; known: {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    for name in chosen:
        compute, lines = SECTIONS[name]
        print(f"## {name}")
        print("\n".join(lines(compute())))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
