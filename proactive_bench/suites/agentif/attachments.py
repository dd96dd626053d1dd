"""Run the AgentIF tasks' attachment generators: ``python -m proactive_bench.suites.agentif.attachments``.

Each task folder with attachments holds ``make_attachments.py``, a standalone
script that writes the task's attachments into ``--out DIR`` (default: its
``workspace/``). This runs them; with ``--check`` it runs each into a
temporary folder and compares every listed attachment byte for byte with the
committed one, so a generator that is not deterministic, or a committed file
edited by hand, is found; a generated task's copied attachments
(``attachments_from``) are checked against their recorded hashes. One line per problem; exit 1 if any. A generator
writes with the byte-stable writers of :mod:`.attachment_writers`.
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

from proactive_bench.suites.agentif.loading import FOLDER, read_task, task_names
from proactive_bench.suites.agentif.validity import GENERATOR, copied_problems

TIMEOUT_SECONDS = 120


def generate(task_folder: Path, out: Path) -> str | None:
    """Run one task's generator into ``out``; the reason it failed (one line), or None."""
    script = task_folder / GENERATOR
    if not script.is_file():
        return f"{script}: missing"
    try:
        done = subprocess.run(
            [sys.executable, str(script), "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"{script}: took longer than {TIMEOUT_SECONDS} s"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"{script}: exit {done.returncode}: {last}"
    return None


def check_task(root: Path, task_id: str, *, write: bool) -> list[str]:
    """Problems of one task's attachments: regenerated in place (``write``) or compared with the committed files."""
    task, problems = read_task(root, task_id)
    if task is None:
        return [str(p) for p in problems]
    if not task.attachments:
        return []
    folder = root / FOLDER / task_id
    if task.attachments_from and not (folder / GENERATOR).is_file():  # a generated task: copies, checked by their hashes
        return [f"{folder / 'task.yaml'}: {field}: {reason}" for field, reason in copied_problems(task, folder / "workspace")]
    if write:
        failure = generate(folder, folder / "workspace")
        return [failure] if failure else []
    with tempfile.TemporaryDirectory(prefix="pbench-attachments-") as tmp:
        failure = generate(folder, Path(tmp))
        if failure:
            return [failure]
        found = []
        for path in task.attachments:
            made, committed = Path(tmp) / path, folder / "workspace" / path
            if not made.is_file():
                found.append(f"{folder / GENERATOR}: does not write {path}")
            elif not committed.is_file():
                found.append(f"{committed}: not committed (run the generator)")
            elif not filecmp.cmp(made, committed, shallow=False):
                found.append(f"{committed}: differs from what {GENERATOR} writes (not deterministic, or edited by hand)")
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m proactive_bench.suites.agentif.attachments", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path("pbench_data"), help="the dataset root (default: pbench_data)")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: every task)")
    parser.add_argument("--check", action="store_true", help="compare regenerated attachments with the committed ones; write nothing")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    names = [t for t in args.tasks.split(",") if t] or task_names(root)
    problems = [p for name in names for p in check_task(root, name, write=not args.check)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(names)} task(s), {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
