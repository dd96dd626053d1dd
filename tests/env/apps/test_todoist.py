"""The todoist app: projects, sections, tasks, sub tasks, labels, comments, sharing and notifications."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.apps.base import AppStore
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace

SEED = """
app_clock:
  - {id: 1, now: "2026-04-28T09:00:00"}
todoist_user:
  - {id: 1, name: Sam McCoy, email: stmcco@gmail.com, password: Ozz21Q4}
  - {id: 2, name: Lee Park, email: lee@corp.com, password: leepw}
  - {id: 3, name: Ana Ruiz, email: ana@corp.com, password: anapw}
todoist_project:
  - {id: 1, owner_id: 1, name: Quarterly Review, color: blue, is_favorite: false}
  - {id: 2, owner_id: 2, name: Lee Private, color: red}
  - {id: 3, owner_id: 3, name: Team Launch, is_favorite: true}
todoist_project_collaborator:
  - {project_id: 3, user_id: 1}
todoist_section:
  - {id: 1, project_id: 1, name: Prep}
  - {id: 2, project_id: 2, name: Secret}
todoist_task:
  - {id: 1, project_id: 1, section_id: 1, title: Draft memo, description: credit memo draft, due_date: 2026-05-02, priority: 3}
  - {id: 2, project_id: 1, title: Book room, due_date: 2026-04-30, is_completed: true}
  - {id: 3, project_id: 1, title: Collect data, description: pull quarterly data}
  - {id: 4, project_id: 2, section_id: 2, title: Lee only}
  - {id: 5, project_id: 3, title: Launch checklist, due_date: 2026-04-29, priority: 4, assignee_id: 3}
todoist_label:
  - {id: 1, owner_id: 1, name: urgent}
  - {id: 2, owner_id: 2, name: lee-label}
todoist_task_label:
  - {task_id: 1, label_id: 1}
todoist_task_comment:
  - {id: 1, task_id: 5, author_id: 3, content: Kickoff at ten, created_at: "2026-04-27T10:00:00"}
todoist_notification:
  - {id: 1, user_id: 1, kind: task_assigned, message: old and read, task_id: 5, is_read: true}
  - {id: 2, user_id: 1, kind: task_comment, message: still unread, task_id: 5}
"""


def make_box(apps: AppStore, tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["todoist"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = AppStore(tmp_path / "apps.sqlite")
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "todoist.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    return make_box(apps, tmp_path)


def ok(box: ToolBox, tool: str, /, **args: Any) -> Any:
    record = box.call(f"todoist__{tool}", args)
    assert record.ok, record.result
    return record.result["response"]


def err(box: ToolBox, tool: str, /, **args: Any) -> str:
    record = box.call(f"todoist__{tool}", args)
    assert not record.ok, record.result
    return str(record.result["error"])


def login(box: ToolBox, email: str = "stmcco@gmail.com", password: str = "Ozz21Q4") -> None:
    ok(box, "login", username=email, password=password)


def test_login_is_required_and_checks_the_password(box: ToolBox) -> None:
    assert err(box, "show_projects") == "not logged in to todoist; call todoist__login first"
    assert err(box, "login", username="stmcco@gmail.com", password="wrong") == "todoist: wrong username or password"
    assert err(box, "login", username="nobody@gmail.com", password="Ozz21Q4") == "todoist: wrong username or password"
    login(box)
    assert [p["name"] for p in ok(box, "show_projects")] == ["Team Launch", "Quarterly Review"]
    ok(box, "logout")
    assert "not logged in" in err(box, "show_task", task_id=1)
    login(box, "StMcCo@Gmail.com")  # emails match in any case
    assert ok(box, "show_task", task_id=1)["title"] == "Draft memo"


def test_rehearsal_board_lifecycle_with_pibench_arguments(box: ToolBox) -> None:
    login(box)
    project_id = ok(box, "create_project", name="Temporary Launch Rehearsal Board - Beacon")["project_id"]
    section_id = ok(box, "create_section", name="Tonight Rehearsal", project_id=project_id)["section_id"]
    created = ok(
        box,
        "create_task",
        title="Walk through the share slides",
        project_id=project_id,
        section_id=section_id,
        description="Checkpoint 17:45",
        due_date="2026-04-29",
        priority=4,
    )
    task_id = created["task_id"]
    assert created["message"] == f"created task 'Walk through the share slides' in project {project_id}"
    assert ok(box, "assign_or_unassign_task", task_id=task_id, assignee_email="stmcco@gmail.com") == {
        "message": f"assigned task {task_id} to stmcco@gmail.com"
    }
    ok(box, "update_task", task_id=task_id, description="Checkpoint 17:45; escalate at 18:30")
    label_id = ok(box, "create_label", name="launch-blocker")["label_id"]
    assert ok(box, "add_label_to_task", label_id=label_id, task_id=task_id)["message"] == (
        f"added label 'launch-blocker' to task {task_id}"
    )
    comment_id = ok(box, "post_task_comment", content="Escalate to organizer at 18:30", task_id=task_id)["task_comment_id"]
    shown = ok(box, "show_task", task_id=task_id)
    assert shown["description"] == "Checkpoint 17:45; escalate at 18:30"
    assert shown["assignee_email"] == "stmcco@gmail.com" and shown["priority"] == 4 and shown["section_id"] == section_id
    assert shown["labels"] == [{"label_id": label_id, "name": "launch-blocker"}] and shown["comments_count"] == 1
    comments = ok(box, "show_task_comments", task_id=task_id)
    assert [(c["task_comment_id"], c["content"], c["author_email"]) for c in comments] == [
        (comment_id, "Escalate to organizer at 18:30", "stmcco@gmail.com")
    ]
    assert comments[0]["created_at"] == "2026-04-28T09:00:00"  # the seeded simulated clock
    ok(box, "remove_label_from_task", task_id=task_id, label_id=label_id)
    assert ok(box, "delete_task_comment", task_comment_id=comment_id)["message"] == f"deleted task comment {comment_id}"
    assert "deleted task" in ok(box, "delete_task", task_id=task_id)["message"]
    assert "deleted label" in ok(box, "delete_label", label_id=label_id)["message"]
    assert "deleted section" in ok(box, "delete_section", section_id=section_id)["message"]
    assert "deleted project" in ok(box, "delete_project", project_id=project_id)["message"]
    assert err(box, "show_project", project_id=project_id) == f"no project with id {project_id}"
    assert [p["project_id"] for p in ok(box, "show_projects")] == [3, 1]


def test_tasks_default_to_an_inbox_created_on_demand(box: ToolBox) -> None:
    login(box)
    first = ok(box, "create_task", title="Call bank", label_ids=[1])["task_id"]
    second = ok(box, "create_task", title="Pay rent")["task_id"]
    inbox = [p for p in ok(box, "show_projects") if p["is_inbox"]]
    assert len(inbox) == 1 and inbox[0]["name"] == "Inbox"
    tasks = ok(box, "show_tasks", project_id=inbox[0]["project_id"])
    assert [t["task_id"] for t in tasks] == [first, second] and tasks[0]["labels"] == ["urgent"]
    assert err(box, "delete_project", project_id=inbox[0]["project_id"]) == "the Inbox project cannot be deleted"


def test_show_tasks_filters_and_pages(box: ToolBox) -> None:
    login(box)

    def ids(**f: Any) -> Any:
        return [t["task_id"] for t in ok(box, "show_tasks", **f)]

    assert ids() == [5, 2, 1, 3]  # soonest due first, undated last; Lee's private task never shows
    assert ids(project_id=1) == [2, 1, 3]
    assert ids(section_id=1) == [1]
    assert ids(label_id=1) == [1]
    assert ids(query="quarterly DATA") == [3]
    assert ids(is_completed=True) == [2] and ids(is_completed=False) == [5, 1, 3]
    assert ids(due_before="2026-04-30") == [5, 2] and ids(due_after="2026-04-30") == [2, 1]
    assert ids(page_index=1, page_limit=3) == [3]
    assert err(box, "show_tasks", due_before="April 30") == "due_before must be a date as YYYY-MM-DD, got 'April 30'"
    assert err(box, "show_tasks", label_id=2) == "no label with id 2"


def test_update_task_moves_completes_and_clears(box: ToolBox) -> None:
    login(box)
    ok(box, "update_task", task_id=1, is_completed=True, priority=2, due_date=None)
    task = ok(box, "show_task", task_id=1)
    assert (task["is_completed"], task["completed_at"], task["priority"], task["due_date"]) == (True, "2026-04-28T09:00:00", 2, None)
    assert task["section_id"] == 1 and task["title"] == "Draft memo"
    ok(box, "update_task", task_id=1, project_id=3)
    moved = ok(box, "show_task", task_id=1)
    assert (moved["project_id"], moved["section_id"]) == (3, None)
    assert err(box, "update_task", task_id=1, section_id=1) == "section 1 does not belong to project 3"
    assert err(box, "update_task", task_id=1) == (
        "nothing to update: pass at least one of title, description, due_date, priority, project_id, section_id, is_completed"
    )
    assert "priority" in err(box, "update_task", task_id=1, priority=5)
    assert err(box, "update_task", task_id=1, due_date="2026-02-30") == "due_date must be a date as YYYY-MM-DD, got '2026-02-30'"
    assert err(box, "update_task", task_id=4, title="x") == "no task with id 4"


def test_create_task_validates_its_references(box: ToolBox) -> None:
    login(box)
    assert err(box, "create_task", title="x", project_id=2) == "no project with id 2"
    assert err(box, "create_task", title="x", project_id=1, section_id=2) == "no section with id 2"
    assert err(box, "create_task", title="x", project_id=3, section_id=1) == "section 1 does not belong to project 3"
    assert err(box, "create_task", title="x", label_ids=[2]) == "no label with id 2"
    assert "title" in err(box, "create_task", title="   ")
    assert ok(box, "show_tasks", query="x") == []


def test_sections_and_projects_update_and_show(box: ToolBox) -> None:
    login(box)
    ok(box, "update_section", section_id=1, name="Preparation")
    assert ok(box, "show_sections", project_id=1) == [{"section_id": 1, "name": "Preparation", "project_id": 1, "task_count": 1}]
    ok(box, "update_project", project_id=1, name="Q2 Review", is_favorite=True, color="green")
    project = ok(box, "show_project", project_id=1)
    assert (project["name"], project["is_favorite"], project["color"]) == ("Q2 Review", True, "green")
    assert (project["open_task_count"], project["completed_task_count"]) == (2, 1)
    assert err(box, "update_project", project_id=3, name="Mine") == "only the owner of project 3 can update it"
    assert err(box, "delete_project", project_id=3) == "only the owner of project 3 can delete it"
    assert "color" in err(box, "update_project", project_id=1, color="neon")
    assert [p["name"] for p in ok(box, "show_projects", query="review")] == ["Q2 Review"]
    ok(box, "delete_section", section_id=1)
    assert ok(box, "show_sections", project_id=1) == [] and err(box, "show_task", task_id=1) == "no task with id 1"


def test_sub_tasks(box: ToolBox) -> None:
    login(box)
    sub_id = ok(box, "create_sub_task", task_id=1, title="Outline", due_date="2026-05-01")["sub_task_id"]
    ok(box, "update_sub_task", sub_task_id=sub_id, is_completed=True, title="Outline v2")
    assert ok(box, "show_sub_tasks", task_id=1) == [
        {"sub_task_id": sub_id, "task_id": 1, "title": "Outline v2", "description": "", "due_date": "2026-05-01", "is_completed": True}
    ]
    assert ok(box, "show_task", task_id=1)["sub_tasks"][0]["sub_task_id"] == sub_id
    assert err(box, "create_sub_task", task_id=4, title="x") == "no task with id 4"
    ok(box, "delete_sub_task", sub_task_id=sub_id)
    assert ok(box, "show_sub_tasks", task_id=1) == []
    assert err(box, "update_sub_task", sub_task_id=sub_id, title="x") == f"no sub task with id {sub_id}"


def test_labels_are_per_account_and_unique(box: ToolBox) -> None:
    login(box)
    assert err(box, "create_label", name="URGENT") == "you already have a label named 'urgent' (label_id 1)"
    ok(box, "create_label", name="lee-label")  # Lee's label of the same name is Lee's business
    assert [x["name"] for x in ok(box, "search_labels")] == ["urgent", "lee-label"]
    assert ok(box, "search_labels", query="urg") == [{"label_id": 1, "name": "urgent", "task_count": 1}]
    assert err(box, "add_label_to_task", label_id=1, task_id=1) == "task 1 already has label 'urgent'"
    assert err(box, "remove_label_from_task", task_id=3, label_id=1) == "task 3 does not have label 'urgent'"
    assert err(box, "add_label_to_task", label_id=2, task_id=1) == "no label with id 2"
    ok(box, "delete_label", label_id=1)
    assert ok(box, "show_task", task_id=1)["labels"] == []


def test_assigning_shares_the_project_and_notifies(box: ToolBox) -> None:
    login(box)
    assert err(box, "assign_or_unassign_task", task_id=1, assignee_email="ghost@corp.com") == "no Todoist user with email ghost@corp.com"
    assert [u["email"] for u in ok(box, "search_users")] == ["ana@corp.com"]
    ok(box, "assign_or_unassign_task", task_id=1, assignee_email="lee@corp.com")
    assert [u["email"] for u in ok(box, "search_users", query="lee")] == ["lee@corp.com"]
    ok(box, "post_task_comment", content="Please review by Friday", task_id=1)
    assert ok(box, "assign_or_unassign_task", task_id=1, assignee_email=None) == {"message": "unassigned task 1"}
    assert "assignee_email" in err(box, "assign_or_unassign_task", task_id=1)  # required, null allowed
    login(box, "lee@corp.com", "leepw")
    assert ok(box, "show_task", task_id=1)["assignee_email"] is None  # Lee now sees the shared project
    assert [(n["type"], n["message"]) for n in ok(box, "show_notifications")] == [
        ("task_unassigned", "Sam McCoy unassigned you from task 'Draft memo'"),
        ("task_comment", "Sam McCoy commented on task 'Draft memo': Please review by Friday"),
        ("task_assigned", "Sam McCoy assigned you task 'Draft memo'"),
    ]
    assert ok(box, "show_notifications_count") == {"total_count": 3, "unread_count": 3}


def test_notifications_mark_and_delete(box: ToolBox) -> None:
    login(box)
    assert [n["notification_id"] for n in ok(box, "show_notifications", only_unread=True)] == [2]
    ok(box, "mark_notification", notification_id=2, read=True)
    assert ok(box, "show_notifications_count") == {"total_count": 2, "unread_count": 0}
    ok(box, "mark_notification", notification_id=1, read=False)
    assert ok(box, "delete_notifications") == {"message": "deleted 1 notification(s)"}  # only the read one
    assert [n["notification_id"] for n in ok(box, "show_notifications")] == [1]
    assert err(box, "delete_notifications", notification_ids=[1, 99]) == "no notification with id 99"
    ok(box, "delete_notifications", notification_ids=[1])
    assert ok(box, "show_notifications") == []


def test_comments_belong_to_their_author(box: ToolBox) -> None:
    login(box)
    assert ok(box, "show_task_comment", task_comment_id=1)["content"] == "Kickoff at ten"
    assert err(box, "update_task_comment", task_comment_id=1, content="x") == (
        "task comment 1 was written by someone else; only its author can change it"
    )
    mine = ok(box, "post_task_comment", content="On it", task_id=5)["task_comment_id"]
    ok(box, "update_task_comment", task_comment_id=mine, content="On it, done by noon")
    assert [c["content"] for c in ok(box, "show_task_comments", task_id=5)] == ["Kickoff at ten", "On it, done by noon"]
    assert [c["task_comment_id"] for c in ok(box, "show_task_comments", task_id=5, page_index=1, page_limit=1)] == [mine]
    login(box, "lee@corp.com", "leepw")
    assert err(box, "show_task_comment", task_comment_id=1) == "no task comment with id 1"
    assert err(box, "show_sections", project_id=1) == "no project with id 1"


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    login(box)
    task_id = ok(box, "create_task", title="Persisted", project_id=1)["task_id"]
    snapshot = box.env.require_apps().snapshot()
    second = make_box(AppStore(tmp_path / "apps.sqlite"), tmp_path)
    assert ok(second, "show_task", task_id=task_id)["title"] == "Persisted"  # still logged in, same rows
    ok(second, "delete_project", project_id=1)
    ok(second, "create_label", name="later")
    assert err(second, "show_task", task_id=task_id) == f"no task with id {task_id}"
    second.env.require_apps().restore(snapshot)
    assert second.env.require_apps().snapshot() == snapshot
    assert ok(second, "show_task", task_id=1)["labels"] == [{"label_id": 1, "name": "urgent"}]
    assert [x["name"] for x in ok(second, "search_labels")] == ["urgent"]
