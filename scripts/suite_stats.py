"""The shipped suites' size and shape beside their papers' (issue 38): one function per suite, ``main()`` prints each section.

    PYTHONPATH=. python scripts/suite_stats.py [SUITE ...]

``odyssey()``: tasks by split and by 1/2/3-app group (with the paper's
proportions), and the histories as the agent gets them (distractors
included): sessions, turns and tokens per history, per split, beside the
paper's table 4. Tokens are counted by the suite's default counter, named.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites.odyssey import SUITE as ODYSSEY, default_token_counter, render_history

ODYSSEY_PAPER = {
    "tasks": 602,
    "by_split": {"plus": 300, "neo": 302},
    "by_group": {"1-app": 153, "2-app": 166, "3-app": 283},
    "history_tokens": {"plus": 3468.9, "neo": 5169.9},
    "sessions": {"plus": 27.9, "neo": 5.0},
    "min_turns": 100,
}
"""OdysseyBench's own figures (seed paper 002, table 4 and appendix A)."""


def odyssey() -> dict[str, Any]:
    """The odyssey suite's figures (see the module docstring)."""
    counter = default_token_counter()
    rows = []
    for name in ODYSSEY.names(DEFAULT_DATA_ROOT):
        task, problems = ODYSSEY.tasks.read(DEFAULT_DATA_ROOT, name)
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


def odyssey_lines(stats: dict[str, Any]) -> list[str]:
    paper = stats["paper"]
    total, paper_total = stats["tasks"] or 1, paper["tasks"]
    lines = [
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


SECTIONS: dict[str, tuple[Callable[[], dict[str, Any]], Callable[[dict[str, Any]], list[str]]]] = {
    "odyssey": (odyssey, odyssey_lines),
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
