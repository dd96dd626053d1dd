"""``scripts/suite_stats.py``: the shipped suites' sizes and shares beside their papers, measured from the task files.

The script's ``main`` runs in this process (its numbers are the same; the trainee section alone draws pictures for
seconds of CPU, paid once, by the test of a run of every suite); one test runs it as the user does, in its own
process, for the exit status and the one-line error."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers.paths import AGENTIF_MINI, DATA, REPO

SCRIPT = REPO / "scripts" / "suite_stats.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("suite_stats", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stats(capsys: pytest.CaptureFixture[str], root: Path, *args: str) -> str:
    """What ``suite_stats.py --root ROOT ARGS`` prints (it must exit 0)."""
    capsys.readouterr()
    assert _script().main(["--root", str(root), *args]) == 0
    return capsys.readouterr().out


def test_agentif_numbers_of_a_known_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    """A run of every suite (no ``--suite``): each section is there, the AgentIF one counts the mini dataset's tasks."""
    every = json.loads(stats(capsys, AGENTIF_MINI, "--json"))
    assert sorted(every) == ["agentif", "odyssey", "trainee"]
    numbers = every["agentif"]
    assert numbers["tasks"] == 3 and numbers["broken"] == []
    assert numbers["category_count"] == {"latent": 1, "refinement": 1, "workflow": 1}
    assert numbers["domain_share"] == {"work": 1 / 3, "study": 1 / 3, "life": 1 / 3}
    assert numbers["attachments_per_task"] == {"1": 2, "2": 1}
    assert numbers["without_attachments"] == 0
    assert numbers["attachment_types"] == {"pdf": 2, "xlsx": 1, "csv": 1}
    assert sum(numbers["deliverable_types"].values()) >= 3
    assert 0 < numbers["penalty_item_share"] < 1


def test_a_task_that_does_not_load_is_named_not_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "data"
    shutil.copytree(AGENTIF_MINI, root)
    task = root / "agentif" / "aif_test_workflow_weekend_budget" / "task.yaml"
    task.write_text(task.read_text().replace("category: workflow", "category: errands"))
    numbers = json.loads(stats(capsys, root, "--suite", "agentif", "--json"))["agentif"]
    assert numbers["tasks"] == 2
    assert [line.split(":")[0] for line in numbers["broken"]] == ["aif_test_workflow_weekend_budget"]


def test_the_shipped_agentif_table_beside_the_paper(capsys: pytest.CaptureFixture[str]) -> None:
    printed = stats(capsys, DATA, "--suite", "agentif")
    lines = printed.splitlines()
    assert lines[0] == "AgentIF-OneDay"
    shipped = len([p for p in (DATA / "agentif").iterdir() if (p / "task.yaml").is_file()])
    assert any(line.split()[:1] == ["tasks"] and line.split()[1:] == ["104", str(shipped)] for line in lines), lines
    for label in (
        "category workflow",
        "domain work",
        "tasks without attachments",
        "attachment types",
        "deliverable types",
        "penalty items",
    ):
        assert any(line.strip().startswith(label) for line in lines), label
    assert "does not load" not in printed


def test_a_missing_root_is_one_line() -> None:
    """Run as the user runs it, in its own process: exit status 2 and one line on stderr, no traceback."""
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(REPO / "no_such_folder")], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert done.returncode == 2
    assert done.stderr.strip().endswith("not a folder") and "Traceback" not in done.stderr


def test_the_shipped_agentif_tasks_have_the_paper_s_size_and_proportions(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 38's acceptance: 104 tasks, category and domain shares within 3 points of the paper's, >= 40 without attachments."""
    numbers = json.loads(stats(capsys, DATA, "--suite", "agentif", "--json"))["agentif"]
    assert numbers["tasks"] == 104 and numbers["broken"] == []
    paper_categories = {"workflow": 0.538, "latent": 0.25, "refinement": 0.212}
    paper_domains = {"work": 0.596, "study": 0.231, "life": 0.173}
    assert all(abs(numbers["category_share"][c] - share) <= 0.03 for c, share in paper_categories.items()), numbers["category_share"]
    assert all(abs(numbers["domain_share"][d] - share) <= 0.03 for d, share in paper_domains.items()), numbers["domain_share"]
    assert numbers["without_attachments"] >= 40
