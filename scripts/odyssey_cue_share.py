"""The share of each odyssey task's detail cues that its memory context holds, per setting, with context tokens.

For every task of the dataset and each setting (long-context; rag:raw-session and rag:raw-utterance at each
top-k; BM25 over the task intent, as an offline run retrieves), the context the agent would open with is built
and each detail's cue searched in it. Printed per split ("plus", "neo") and for all tasks: the mean share of
cues present, the share of tasks with every cue present, and the mean context tokens (the memory table's
token column). A share below 1 means retrieval at that top-k can miss what the task needs.

    python scripts/odyssey_cue_share.py [--data DIR] [--top-k 5,10,25,50] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from proactive_bench.dataset import DEFAULT_DATA_ROOT
from proactive_bench.suites.odyssey import SUITE, Coverage, detail_coverage, parse_memory_setting

RAW = ("rag:raw-session", "rag:raw-utterance")


def coverage_table(root: Path, top_ks: list[int]) -> list[dict[str, object]]:
    """One row per (setting, split) and per setting over all tasks: tasks, mean share, all-found share, mean tokens."""
    settings = [parse_memory_setting("long-context")] + [parse_memory_setting(m, k) for m in RAW for k in top_ks]
    tasks = []
    for name in SUITE.names(root):
        task, problems = SUITE.tasks.read(root, name)
        if task is None:
            raise SystemExit(f"{name}: {problems[0].reason if problems else 'does not load'}")
        tasks.append(task)
    rows = []
    for setting in settings:
        measured: list[tuple[str, Coverage]] = [(task.split, detail_coverage(task, setting)) for task in tasks]
        for split in ("plus", "neo", "all"):
            part = [cov for s, cov in measured if split in ("all", s)]
            if not part:
                continue
            rows.append(
                {
                    "setting": setting.label,
                    "split": split,
                    "tasks": len(part),
                    "cue_share": round(statistics.mean(c.share for c in part), 3),
                    "all_found": round(sum(c.found == c.details for c in part) / len(part), 3),
                    "tokens": round(statistics.mean(c.tokens for c in part)),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA_ROOT)
    parser.add_argument("--top-k", default="5,10,25,50", help="comma-separated top-k values")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = coverage_table(args.data.resolve(), [int(k) for k in args.top_k.split(",")])
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'setting':<26} {'split':<5} {'tasks':>5} {'cue share':>9} {'all found':>9} {'tokens':>7}")
    for row in rows:
        print(f"{row['setting']:<26} {row['split']:<5} {row['tasks']:>5} {row['cue_share']:>9} {row['all_found']:>9} {row['tokens']:>7}")


if __name__ == "__main__":
    main()
