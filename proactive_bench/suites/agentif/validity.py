"""Checks of ``pbench validate`` for an AgentIF task beyond its schema.

Every attachment must be in ``workspace/`` and made by the task's generator
script, or — for a generated task — copied from a corpus with its source and
SHA-256 recorded under ``attachments_from`` (a copy edited afterwards is
found); a latent rule's ``cue`` must match its source attachment (the rule can
be induced) and must not match the request (the request does not state it);
its ``ask`` cues must match its example question; its evidence must not
hold on deliverables that copy attachment lines verbatim
(:mod:`~proactive_bench.suites.agentif.copy_check`); every named checker a
check uses (``{checker: {name, args}}``, the deliverable checks of
:mod:`~proactive_bench.suites.agentif.deliverable_checks` among them) must
exist and take its arguments; a task's penalty share should lie in the paper's band. Schema-level rules (ids, categories, known
rule and follow-up references, evidence files of content/form rubric items)
are enforced by the model itself.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from proactive_bench.dataset import CheckerPredicate, Problem, walk
from proactive_bench.env import DocumentError, read_as_text
from proactive_bench.suites.agentif.copy_check import copied_line_problems
from proactive_bench.suites.agentif.task import AgentIFTask
from proactive_bench.suites.odyssey.checkers import parse_checker_args

GENERATOR = "make_attachments.py"
PENALTY_SHARE = (0.20, 0.35)
"""The band of penalty points / all points (the paper's rubrics: about a quarter are penalties)."""


def penalty_share(task: AgentIFTask) -> float:
    """Penalty points over all points of the task's rubric."""
    return task.penalty_points / (task.penalty_points + task.max_points)


def task_problems(task: AgentIFTask, folder: Path, rel: str) -> list[Problem]:
    """Attachment, rule and rubric-shape problems of one task (``folder``: its task folder; ``rel``: its file, for messages)."""
    seed = folder / "workspace"
    problems = [Problem(rel, field, reason) for field, reason in copied_problems(task, seed)]
    copied = {c.path for c in task.attachments_from}
    if any(path not in copied for path in task.attachments) and not (folder / GENERATOR).is_file():
        problems.append(
            Problem(
                rel,
                "attachments",
                f"no {GENERATOR} beside the task: attachments are made by a script in the repo (or copied, under attachments_from)",
            )
        )
    for n, path in enumerate(task.attachments):
        if not (seed / path).is_file():
            problems.append(Problem(rel, f"attachments[{n}]", f"{path!r} is not in workspace/ (run its {GENERATOR})"))
    for n in range(len(task.rules)):
        problems += _rule_problems(task, n, seed, rel)
    problems += copied_line_problems(task, folder, rel)
    problems += checker_problems(task, rel)
    if not any(i.grader == "rule" and i.polarity == "bonus" for i in task.rubric):
        problems.append(
            Problem(rel, "rubric", "no rule-graded bonus item: the oracle (no judge) cannot check the reference offline", "warning")
        )
    share = penalty_share(task)
    low, high = PENALTY_SHARE
    if not low <= share <= high:
        problems.append(Problem(rel, "rubric", f"penalty points are {share:.0%} of all points; aim for {low:.0%}-{high:.0%}", "warning"))
    return problems


def checker_problems(task: AgentIFTask, rel: str) -> list[Problem]:
    """A named checker that does not exist or refuses its arguments: in a rubric item's check, a rule's evidence, a follow-up's condition."""
    checks = [(f"rubric[{n}].check", i.check) for n, i in enumerate(task.rubric) if i.check is not None]
    checks += [(f"rules[{n}].evidence", r.evidence) for n, r in enumerate(task.rules)]
    checks += [(f"followups[{n}].after", f.after) for n, f in enumerate(task.followups)]
    problems = []
    for field, check in checks:
        for predicate in walk(check):
            if isinstance(predicate, CheckerPredicate):
                try:
                    parse_checker_args(predicate.checker.name, predicate.checker.args)
                except ValueError as exc:
                    problems.append(Problem(rel, field, str(exc)))
    return problems


def copied_problems(task: AgentIFTask, seed: Path) -> list[tuple[str, str]]:
    """(field, reason) of each copied attachment (``attachments_from``) whose file in ``seed`` is missing or not the recorded copy."""
    found = []
    for n, copied in enumerate(task.attachments_from):
        path = seed / copied.path
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() != copied.sha256:
            found.append(
                (
                    f"attachments_from[{n}].sha256",
                    f"workspace/{copied.path} is not the copy of {copied.source} recorded (edited afterwards?)",
                )
            )
    return found


def _rule_problems(task: AgentIFTask, n: int, seed: Path, rel: str) -> list[Problem]:
    rule = task.rules[n]
    problems = []
    source = seed / rule.source
    if source.is_file():
        try:
            text = read_as_text(source)
        except DocumentError as exc:
            text = ""
            problems.append(Problem(rel, f"rules[{n}].source", str(exc)))
        if text and not re.search(rule.cue, text, re.IGNORECASE):
            problems.append(
                Problem(rel, f"rules[{n}].cue", f"{rule.cue!r} matches nothing in {rule.source}: rule {rule.id!r} cannot be induced")
            )
    if re.search(rule.cue, task.request, re.IGNORECASE):
        problems.append(Problem(rel, f"rules[{n}].cue", f"{rule.cue!r} matches the request: rule {rule.id!r} is stated, not latent"))
    if not any(re.search(p, rule.question, re.IGNORECASE) for p in rule.ask):
        problems.append(Problem(rel, f"rules[{n}].ask", f"no ask cue matches the example question {rule.question!r}"))
    return problems
