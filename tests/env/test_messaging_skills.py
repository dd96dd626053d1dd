"""send_message, schedule_task (persisted in the app database) and skills."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.skills import SkillError, parse_skill_md, skill_catalog
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    env = ToolEnv(Workspace(tmp_path / "ws"), Memory(), AppStore(tmp_path / "apps.sqlite"), skills_root=tmp_path / "skills")
    return ToolBox(env, resolve_tool_names(["messaging", "skills"]))


def test_send_message_with_attachments(box: ToolBox) -> None:
    box.env.workspace.write_text("out/report.md", "# Report")
    sent = box.call("send_message", {"text": "Here is the report.", "attachments": ["out/report.md"]}).result["response"]
    assert sent["attachments"] == [{"path": "out/report.md", "bytes": 8, "sha256": hashlib.sha256(b"# Report").hexdigest()}]
    assert sent["message_id"].startswith("msg-")
    assert box.call("send_message", {"text": "Here is the report.", "attachments": ["out/report.md"]}).result["response"] == sent
    assert box.call("send_message", {"text": "Other"}).result["response"]["message_id"] != sent["message_id"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"text": "  "}, "needs text or at least one attachment"),
        ({"text": "x", "attachments": ["missing.md"]}, "no such file to attach"),
        ({"text": "x", "attachments": ["../apps.sqlite"]}, "'..' is not allowed"),
        ({"text": "x", "attachments": "a.md"}, "invalid arguments"),
    ],
)
def test_send_message_errors(box: ToolBox, args: dict, error: str) -> None:
    record = box.call("send_message", args)
    assert not record.ok and error in record.result["error"]


def test_schedule_task_add_list_remove_and_persist(box: ToolBox, tmp_path: Path) -> None:
    added = box.call("schedule_task", {"action": "add", "when": "2026-03-05T09:00", "text": "Reorder aspirin", "recurrence": "weekly"})
    assert added.result == {"response": {"task_id": 1, "when": "2026-03-05T09:00:00", "text": "Reorder aspirin", "recurrence": "weekly"}}
    box.call("schedule_task", {"action": "add", "when": "2026-03-03T08:00:00", "text": "Call supplier"})
    listed = box.call("schedule_task", {"action": "list"}).result["response"]
    assert [t["text"] for t in listed] == ["Call supplier", "Reorder aspirin"]
    apps = box.env.require_apps()
    snapshot = apps.snapshot()
    assert [row["text"] for row in snapshot["general_scheduled_task"]] == ["Reorder aspirin", "Call supplier"]
    assert box.call("schedule_task", {"action": "remove", "task_id": 2}).result == {"response": {"removed": 2}}
    later = AppStore(tmp_path / "apps.sqlite")  # the next session of the episode opens the same database
    assert [row["text"] for row in later.rows("general_scheduled_task")] == ["Reorder aspirin"]
    later.restore(snapshot)
    assert len(later.rows("general_scheduled_task")) == 2


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"action": "add", "text": "x"}, "add needs 'when' and 'text'"),
        ({"action": "add", "when": "2026-03-05T09:00", "text": " "}, "add needs 'when' and 'text'"),
        ({"action": "add", "when": "2020-01-01T09:00", "text": "x"}, "is in the past (it is now 2026-03-02T09:00:00)"),
        ({"action": "add", "when": "next tuesday", "text": "x"}, "invalid arguments: when"),
        ({"action": "add", "when": "2026-03-05T09:00", "text": "x", "recurrence": "hourly"}, "invalid arguments: recurrence"),
        ({"action": "remove"}, "remove needs task_id"),
        ({"action": "remove", "task_id": 9}, "no scheduled task with id 9"),
        ({"action": "snooze"}, "invalid arguments: action"),
    ],
)
def test_schedule_task_errors(box: ToolBox, args: dict, error: str) -> None:
    record = box.call("schedule_task", args)
    assert not record.ok and error in record.result["error"]


def test_schedule_task_needs_the_app_database(tmp_path: Path) -> None:
    box = ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory()), resolve_tool_names(["schedule_task"]))
    assert box.call("schedule_task", {"action": "list"}).result == {"error": "no app environment in this run"}


SKILL_MD = """---
name: refill-check
description: Check which prescriptions are due for a refill.
---
# Refill check

1. Read stock.csv.
2. Flag rows with count below 5.
"""


def write_skill(root: Path) -> None:
    folder = root / "refill"
    (folder / "data").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD)
    (folder / "data" / "stock.csv").write_text("drug,count\naspirin,4\n")
    (root / "plain").mkdir()
    (root / "plain" / "SKILL.md").write_text("Just instructions, no front matter.\n")
    (root / "not-a-skill").mkdir()


def test_skill_catalog_lists_skills_with_files(tmp_path: Path) -> None:
    write_skill(tmp_path)
    catalog = skill_catalog(tmp_path)
    assert [(s.name, s.description, s.files) for s in catalog] == [
        ("plain", "", ()),
        ("refill-check", "Check which prescriptions are due for a refill.", ("data/stock.csv",)),
    ]
    assert skill_catalog(tmp_path / "missing") == [] and skill_catalog(None) == []


def test_list_and_read_skills(box: ToolBox, tmp_path: Path) -> None:
    write_skill(tmp_path / "skills")
    listed = box.call("list_skills", {}).result["response"]
    assert [s["name"] for s in listed] == ["plain", "refill-check"]
    skill = box.call("read_skill", {"name": "refill-check"}).result["response"]
    assert skill["instructions"].startswith("# Refill check\n\n1. Read stock.csv.") and skill["files"] == ["data/stock.csv"]
    data = box.call("read_skill", {"name": "refill-check", "file": "data/stock.csv"}).result["response"]
    assert data == {"name": "refill-check", "file": "data/stock.csv", "content": "drug,count\naspirin,4\n"}
    assert "no skill named 'refill'" in box.call("read_skill", {"name": "refill"}).result["error"]
    assert (
        "has no file 'data/x.csv'; its files: data/stock.csv"
        in box.call("read_skill", {"name": "refill-check", "file": "data/x.csv"}).result["error"]
    )


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("---\nname: x\n", "not closed"),
        ("---\nname: [x\n---\nbody", "not valid YAML"),
        ("---\n- a\n---\nbody", "must be a mapping"),
        ("---\nname: x\nname: y\n---\nbody", "duplicate key 'name'"),
    ],
)
def test_bad_front_matter(text: str, error: str) -> None:
    with pytest.raises(SkillError, match=error):
        parse_skill_md(text, "x/SKILL.md")
