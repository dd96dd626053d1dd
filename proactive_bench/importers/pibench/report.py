"""The import report: what was imported per persona, and every item that could not be converted."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from proactive_bench.dataset import Problem

REPORT_FILE = "IMPORT_REPORT.md"


@dataclass(frozen=True)
class PersonaCounts:
    """What one persona became; the first five mirror the π-Bench source files."""

    persona: str
    source_intents: int
    """Hidden intents of the imported tasks as π-Bench counts them (before any repair)."""
    source_criteria: int
    """Checklist criteria as π-Bench's Proc evaluator counts them: criteria plus one per grader script."""
    sessions: int
    intents: int
    checklist_items: int
    scripts: int
    """Sessions whose task names a grader script (``tools_evaluation_path``)."""
    script_items: int
    """Rule items bound to those scripts (one per script criterion)."""
    dependency_groups: int
    event_sessions: int
    assets: int
    skills: int

    COLUMNS: ClassVar[dict[str, str]] = {
        "sessions": "sessions (tasks)",
        "source_intents": "π-Bench hidden intents",
        "intents": "hidden intents imported",
        "source_criteria": "π-Bench criteria (+1 per script)",
        "checklist_items": "checklist items (rubric)",
        "scripts": "tasks with a grader script",
        "script_items": "script-graded items (rule)",
        "dependency_groups": "dependency groups",
        "event_sessions": "env-triggered sessions",
        "assets": "task files copied",
        "skills": "skills copied",
    }


@dataclass
class ImportReport:
    """Collects problems while importing; never raises for them."""

    source: Path
    problems: list[Problem] = field(default_factory=list)
    counts: list[PersonaCounts] = field(default_factory=list)
    validation: list[Problem] = field(default_factory=list)
    """What ``pbench validate`` says of the written dataset."""
    gaps: list[tuple[str, str, list[str]]] = field(default_factory=list)
    """(persona, flag, tasks): what of π-Bench's world the import cannot reproduce, and the sessions flagged with it."""

    def add(self, file: str, field_path: str, reason: str) -> None:
        """Record one item that was skipped, changed or cannot work as in π-Bench."""
        self.problems.append(Problem(file, field_path, reason, level="warning"))

    def markdown(self) -> str:
        lines = [f"# π-Bench import of `{self.source}`", ""]
        if self.counts:
            lines += ["| | " + " | ".join(c.persona for c in self.counts) + " | total |", "|---|" + "---:|" * (len(self.counts) + 1)]
            for name, header in PersonaCounts.COLUMNS.items():
                values = [getattr(c, name) for c in self.counts]
                lines.append(f"| {header} | " + " | ".join(map(str, values)) + f" | {sum(values)} |")
            lines.append("")
        if self.gaps:
            flagged = {(persona, task) for persona, _, tasks in self.gaps for task in tasks}
            lines += [
                f"## Not reproduced: {len(flagged)} session(s) flagged in every result ({len(self.gaps)})",
                "",
                "Each session's `gaps` field holds its flags; its results show them (`gaps` in JSON, `‡` in the per-session table).",
                "",
            ]
            lines += [f"- {persona}: {flag} ({len(tasks)} task(s): {', '.join(tasks)})" for persona, flag, tasks in self.gaps] + [""]
        if self.validation:
            lines += [f"## `pbench validate` on the output ({len(self.validation)})", ""]
            lines += [f"- {p.level}: {p.file}: {p.field + ': ' if p.field else ''}{p.reason}" for p in self.validation] + [""]
        lines.append(f"## Not converted, or not as in π-Bench ({len(self.problems)})")
        if not self.problems:
            lines += ["", "Nothing: every item was converted."]
        current = None
        for problem in sorted(self.problems, key=lambda p: p.file):
            if problem.file != current:
                current = problem.file
                lines += ["", f"### `{current}`", ""]
            lines.append(f"- {problem.field + ': ' if problem.field else ''}{problem.reason}")
        return "\n".join(lines) + "\n"

    def write(self, out: Path) -> Path:
        path = out / REPORT_FILE
        path.write_text(self.markdown(), encoding="utf-8")
        return path
