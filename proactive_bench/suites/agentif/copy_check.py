"""The copy check of ``pbench validate``: a latent rule is not met by copying the attachments.

A latent rule is applied when the agent carries the example's logic over to
the new data; copying the example is not applying it. The check fills every
deliverable of the task (each path its reference solution writes that is not an
attachment) with attachment lines copied verbatim, as ``read_file`` shows them
(documents extracted): none (empty files), then each attachment's lines alone,
then every attachment's lines together, one line per line, paragraph or row, in the
deliverable's format (a copy with the same lines as an earlier one, as with one attachment, is not made again). A rule whose ``evidence``, or a rule-graded bonus item
tied to a rule, holds on such files is flagged: it rewards the rule's wording
or the example's own lines, not what applying the rule produces.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path, PurePosixPath

from proactive_bench.data_model import Evidence
from proactive_bench.dataset import GraderResolver, Predicate, Problem, evaluate
from proactive_bench.env import DocumentError, Memory, SteadyWorkspace, Workspace, read_as_text, scratch_directory
from proactive_bench.suites.agentif.task import AgentIFTask

EMPTY = "empty"
EVERYTHING = "every attachment's lines copied verbatim"


def deliverables(task: AgentIFTask) -> list[str]:
    """The paths the task's reference solution names that are not attachments: the files it produces, in order."""
    paths = (str(step.args["path"]) for step in task.reference if step.tool is not None and "path" in step.args)
    return [p for p in dict.fromkeys(paths) if p not in task.attachments]


def attachment_lines(seed: Path, path: str) -> list[str]:
    """The non-blank lines of one attachment as ``read_file`` shows it (none when it cannot be read)."""
    try:
        return [line for line in read_as_text(seed / path).splitlines() if line.strip()]
    except (OSError, DocumentError):
        return []


def copies(task: AgentIFTask, seed: Path) -> list[tuple[str, list[str]]]:
    """(what the deliverables are, their lines): empty, each attachment's lines alone, all of them together."""
    each = [(f"the lines of {path} copied verbatim", attachment_lines(seed, path)) for path in task.attachments]
    return [(EMPTY, []), *each, (EVERYTHING, [line for _, lines in each for line in lines])]


def write_copy(path: Path, lines: list[str]) -> None:
    """``lines`` into ``path`` in its format: a paragraph, a sheet row or a line each."""
    from proactive_bench.suites.agentif.attachment_writers import docx_file, pdf_file, write_sheet, write_text  # fpdf2: see DEFERRED

    suffix = path.suffix.lower()
    if suffix == ".docx":
        with docx_file(path) as doc:
            for line in lines:
                doc.add_paragraph(line)
    elif suffix == ".xlsx":  # a row's cells, so that the sheet reads back as the same comma-separated line
        write_sheet(path, "Sheet1", [next(csv.reader([line])) for line in lines])
    elif suffix == ".pdf":
        with pdf_file(path) as pdf:
            pdf.write_lines([line.encode("latin-1", "replace").decode("latin-1") for line in lines], 5, size=9, wrap=True)
    else:
        write_text(path, "".join(f"{line}\n" for line in lines))


def _write_inside(root: Path, path: str, lines: list[str]) -> None:
    """The copy into ``root/path``; a path outside ``root`` or a file that cannot be written is left out (other checks name it)."""
    target = root / PurePosixPath(path)
    if not target.resolve().is_relative_to(root.resolve()):
        return
    try:
        write_copy(target, lines)
    except Exception:  # the office writers raise many types: a bad path or a line their fonts cannot draw
        return


def _holds(predicate: Predicate, evidence: Evidence) -> bool:
    try:
        return evaluate(predicate, evidence)
    except Exception:  # a grader that fails on a copy is not satisfied by it
        return False


def copied_line_problems(task: AgentIFTask, folder: Path, rel: str) -> list[Problem]:
    """One error per rule evidence and rule-tied rule bonus that holds on deliverables copying attachment lines (module docstring)."""
    seed, paths = folder / "workspace", deliverables(task)
    checks = [(f"rules[{n}].evidence", r.id, r.evidence) for n, r in enumerate(task.rules)] + [
        (f"rubric[{n}].check", i.rule, i.check)
        for n, i in enumerate(task.rubric)
        if i.rule is not None and i.polarity == "bonus" and i.check is not None
    ]
    if not checks or not paths or not seed.is_dir():
        return []
    flagged: dict[str, tuple[str, str]] = {}
    written: set[tuple[str, ...]] = set()
    with scratch_directory("pbench-copy-check-") as tmp:
        for n, (what, lines) in enumerate(copies(task, seed)):
            if tuple(lines) in written:  # the same files as an earlier copy (one attachment, or none readable): the same outcome
                continue
            written.add(tuple(lines))
            root = Path(tmp) / str(n)
            shutil.copytree(seed, root)
            for path in paths:
                _write_inside(root, path, lines)
            evidence = Evidence([], [], SteadyWorkspace(Workspace(root)), Memory(), GraderResolver(folder.parent.parent))
            for field, rule, check in checks:
                if field not in flagged and _holds(check, evidence):
                    flagged[field] = (rule, what)
    return [
        Problem(
            rel,
            field,
            f"holds on deliverables that are {what}: rule {rule!r} is met without being applied; "
            "require what applying it to the new data produces",
        )
        for field, (rule, what) in flagged.items()
    ]
