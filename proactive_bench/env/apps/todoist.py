"""Todoist: a task manager with projects, sections, tasks, sub tasks, labels, comments and notifications.

Tables: ``todoist_user`` (accounts; login by email), ``todoist_project`` (owned
by a user; the Inbox is created on demand), ``todoist_project_collaborator``
(who else a project is shared with), ``todoist_section``, ``todoist_task``,
``todoist_sub_task``, ``todoist_label`` (per account, unique name),
``todoist_task_label`` (labels on tasks), ``todoist_task_comment`` and
``todoist_notification``. A user sees a project's sections, tasks and
comments only if they own the project or collaborate on it; anything else
is reported as not found. Assigning a task to another user shares its
project with them and notifies them; comments notify the task's assignee.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import AbstractContextManager
from datetime import date, datetime
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, NaiveDatetime, StringConstraints
from sqlalchemy import UniqueConstraint, bindparam, func, union_all
from sqlmodel import Field as Col, Session, col, delete, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    foreign_key,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "todoist"
M = TypeVar("M", bound=AppModel)
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Color = Literal[
    "berry_red",
    "red",
    "orange",
    "yellow",
    "olive_green",
    "lime_green",
    "green",
    "mint_green",
    "teal",
    "sky_blue",
    "light_blue",
    "blue",
    "grape",
    "violet",
    "lavender",
    "magenta",
    "salmon",
    "charcoal",
    "grey",
    "taupe",
]


# ---- tables ------------------------------------------------------------------------------------
class TodoistUser(AppModel, table=True):
    """A Todoist account."""

    __tablename__ = "todoist_user"
    id: int = Col(default=None, primary_key=True)
    name: str
    email: str = Col(unique=True)
    password: str


class TodoistProject(AppModel, table=True):
    __tablename__ = "todoist_project"
    id: int = Col(default=None, primary_key=True)
    owner_id: int = foreign_key("todoist_user.id")
    name: str
    color: str = "charcoal"
    is_favorite: bool = False
    is_inbox: bool = False
    created_at: NaiveDatetime | None = None


class TodoistProjectCollaborator(AppModel, table=True):
    """A user other than the owner that a project is shared with."""

    __tablename__ = "todoist_project_collaborator"
    project_id: int = foreign_key("todoist_project.id", primary_key=True)
    user_id: int = foreign_key("todoist_user.id", primary_key=True)


class TodoistSection(AppModel, table=True):
    __tablename__ = "todoist_section"
    id: int = Col(default=None, primary_key=True)
    project_id: int = foreign_key("todoist_project.id")
    name: str


class TodoistTask(AppModel, table=True):
    __tablename__ = "todoist_task"
    id: int = Col(default=None, primary_key=True)
    project_id: int = foreign_key("todoist_project.id")
    section_id: int | None = foreign_key("todoist_section.id", default=None)
    title: str
    description: str = ""
    due_date: date | None = None
    priority: int = Col(default=1, ge=1, le=4)
    is_completed: bool = False
    completed_at: NaiveDatetime | None = None
    assignee_id: int | None = foreign_key("todoist_user.id", default=None)
    created_at: NaiveDatetime | None = None


class TodoistSubTask(AppModel, table=True):
    __tablename__ = "todoist_sub_task"
    id: int = Col(default=None, primary_key=True)
    task_id: int = foreign_key("todoist_task.id")
    title: str
    description: str = ""
    due_date: date | None = None
    is_completed: bool = False


class TodoistLabel(AppModel, table=True):
    __tablename__ = "todoist_label"
    __table_args__ = (UniqueConstraint("owner_id", "name"),)
    id: int = Col(default=None, primary_key=True)
    owner_id: int = foreign_key("todoist_user.id")
    name: str


class TodoistTaskLabel(AppModel, table=True):
    __tablename__ = "todoist_task_label"
    task_id: int = foreign_key("todoist_task.id", primary_key=True)
    label_id: int = foreign_key("todoist_label.id", primary_key=True)


class TodoistTaskComment(AppModel, table=True):
    __tablename__ = "todoist_task_comment"
    id: int = Col(default=None, primary_key=True)
    task_id: int = foreign_key("todoist_task.id")
    author_id: int = foreign_key("todoist_user.id")
    content: str
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None


class TodoistNotification(AppModel, table=True):
    """A notification for one user; ``task_id`` is kept as history even after the task is deleted."""

    __tablename__ = "todoist_notification"
    id: int = Col(default=None, primary_key=True)
    user_id: int = foreign_key("todoist_user.id")
    kind: str
    message: str
    task_id: int | None = None
    is_read: bool = False
    created_at: NaiveDatetime | None = None


_USER_BY_EMAIL = select(TodoistUser).where(func.lower(TodoistUser.email) == bindparam("email"))
"""Built once, like :data:`_PROJECT_IDS` (a statement's cache key is worked out once per statement object: a tool's
login and visibility checks built theirs anew at each call)."""


def _user_by_email(db: Session, email: str) -> TodoistUser | None:
    return db.exec(_USER_BY_EMAIL, params={"email": email.strip().lower()}).first()


register_app(
    AppSpec(
        APP,
        "Todoist task manager: projects, sections, tasks, sub tasks, labels, comments, notifications.",
        (
            TodoistUser,
            TodoistProject,
            TodoistProjectCollaborator,
            TodoistSection,
            TodoistTask,
            TodoistSubTask,
            TodoistLabel,
            TodoistTaskLabel,
            TodoistTaskComment,
            TodoistNotification,
        ),
        find_account=_user_by_email,
    )
)


# ---- shared helpers ------------------------------------------------------------------------------
def _account(env: ToolEnv) -> AbstractContextManager[tuple[Session, TodoistUser]]:
    """A transaction and the logged-in user (ToolError if not logged in)."""
    return logged_in(env, APP)


def _rows(db: Session, model: type[M], **equal: Any) -> list[M]:
    """Rows whose columns equal the given values, in primary-key order."""
    query = select(model).where(*(getattr(model, k) == v for k, v in equal.items()))
    return list(db.exec(query.order_by(*model.__table__.primary_key.columns)).all())  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it


def _delete(db: Session, model: type[AppModel], column: str, values: Iterable[Any]) -> None:
    """Delete, in one statement, the rows whose column is one of the values."""
    db.exec(delete(model).where(col(getattr(model, column)).in_(list(values))))


def _insert(db: Session, row: Any) -> int:
    db.add(row)
    db.flush()
    return int(row.id)


def _iso(value: date | datetime | None) -> str | None:
    return value.isoformat() if value else None


def _parse_date(value: str | None, what: str) -> date | None:
    if value is None:
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return date.fromisoformat(value)
    except ValueError:
        pass
    raise ToolError(f"{what} must be a date as YYYY-MM-DD, got {value!r}")


_PROJECT_IDS = union_all(
    select(col(TodoistProject.id)).where(col(TodoistProject.owner_id) == bindparam("user")),
    select(col(TodoistProjectCollaborator.project_id)).where(col(TodoistProjectCollaborator.user_id) == bindparam("user")),
)


def _project_ids(db: Session, user: TodoistUser) -> set[int]:
    """Projects the user owns or collaborates on (one statement, the session's pending rows flushed first)."""
    return {i for i in db.scalars(_PROJECT_IDS, {"user": user.id}) if i is not None}


def _project(db: Session, me: TodoistUser, project_id: int, *, owner_only: str = "") -> TodoistProject:
    """A project the user can see; ``owner_only`` names an action only the owner may do."""
    project = db.get(TodoistProject, project_id)
    if project is None or project.id not in _project_ids(db, me):
        raise ToolError(f"no project with id {project_id}")
    if owner_only and project.owner_id != me.id:
        raise ToolError(f"only the owner of project {project_id} can {owner_only} it")
    return project


def _visible(db: Session, me: TodoistUser, model: type[M], row_id: int, what: str) -> M:
    """A section, task, sub task or comment by id, if it lies in a project the user can see."""
    row = db.get(model, row_id)
    task = db.get(TodoistTask, getattr(row, "task_id", None)) if hasattr(row, "task_id") else row  # a sub task or comment: its task
    if row is None or task is None or getattr(task, "project_id", None) not in _project_ids(db, me):
        raise ToolError(f"no {what} with id {row_id}")
    return row


def _section(db: Session, me: TodoistUser, section_id: int, project_id: int | None = None) -> TodoistSection:
    section = _visible(db, me, TodoistSection, section_id, "section")
    if project_id is not None and section.project_id != project_id:
        raise ToolError(f"section {section_id} does not belong to project {project_id}")
    return section


def _comment(db: Session, me: TodoistUser, comment_id: int, *, own: bool = False) -> TodoistTaskComment:
    comment = _visible(db, me, TodoistTaskComment, comment_id, "task comment")
    if own and comment.author_id != me.id:
        raise ToolError(f"task comment {comment_id} was written by someone else; only its author can change it")
    return comment


def _label(db: Session, me: TodoistUser, label_id: int) -> TodoistLabel:
    label = db.get(TodoistLabel, label_id)
    if label is None or label.owner_id != me.id:
        raise ToolError(f"no label with id {label_id}")
    return label


def _notification(db: Session, me: TodoistUser, notification_id: int) -> TodoistNotification:
    note = db.get(TodoistNotification, notification_id)
    if note is None or note.user_id != me.id:
        raise ToolError(f"no notification with id {notification_id}")
    return note


def _inbox(db: Session, me: TodoistUser) -> TodoistProject:
    """The user's Inbox project, created the first time it is needed."""
    inbox = next((p for p in _rows(db, TodoistProject, owner_id=me.id, is_inbox=True)), None)
    if inbox is None:
        inbox = TodoistProject(owner_id=me.id, name="Inbox", is_inbox=True, created_at=now(db))
        _insert(db, inbox)
    return inbox


def _notify(db: Session, user_id: int, kind: str, message: str, task_id: int | None) -> None:
    db.add(TodoistNotification(user_id=user_id, kind=kind, message=message, task_id=task_id, created_at=now(db)))


def _delete_tasks(db: Session, task_ids: list[int]) -> None:
    """Delete tasks with their sub tasks, comments and label links (children first)."""
    for model in (TodoistSubTask, TodoistTaskComment, TodoistTaskLabel):
        _delete(db, model, "task_id", task_ids)
    _delete(db, TodoistTask, "id", task_ids)


def _passed(args: BaseModel, *fields: str, clearable: tuple[str, ...] = ()) -> dict[str, Any]:
    """The update fields the caller passed; an explicit null only counts for ``clearable`` ones."""
    out = {f: getattr(args, f) for f in fields if f in args.model_fields_set}
    out = {f: v for f, v in out.items() if v is not None or f in clearable}
    if not out:
        raise ToolError(f"nothing to update: pass at least one of {', '.join(fields)}")
    return out


def _email(db: Session, user_id: int | None) -> str | None:
    user = db.get(TodoistUser, user_id) if user_id else None
    return user.email if user else None


def _project_dict(db: Session, p: TodoistProject) -> dict[str, Any]:
    return {
        "project_id": p.id,
        "name": p.name,
        "color": p.color,
        "is_favorite": p.is_favorite,
        "is_inbox": p.is_inbox,
        "owner_email": _email(db, p.owner_id),
        "is_shared": bool(_rows(db, TodoistProjectCollaborator, project_id=p.id)),
        "created_at": _iso(p.created_at),
    }


def _section_dict(db: Session, s: TodoistSection) -> dict[str, Any]:
    count = len(_rows(db, TodoistTask, section_id=s.id))
    return {"section_id": s.id, "name": s.name, "project_id": s.project_id, "task_count": count}


def _labels_of(db: Session, task_id: int | None) -> list[TodoistLabel]:
    return [db.get_one(TodoistLabel, link.label_id) for link in _rows(db, TodoistTaskLabel, task_id=task_id)]


def _task_dict(db: Session, t: TodoistTask) -> dict[str, Any]:
    return {
        "task_id": t.id,
        "title": t.title,
        "description": t.description,
        "due_date": _iso(t.due_date),
        "priority": t.priority,
        "project_id": t.project_id,
        "section_id": t.section_id,
        "is_completed": t.is_completed,
        "completed_at": _iso(t.completed_at),
        "assignee_email": _email(db, t.assignee_id),
        "labels": [label.name for label in _labels_of(db, t.id)],
        "created_at": _iso(t.created_at),
    }


def _sub_task_dict(s: TodoistSubTask) -> dict[str, Any]:
    return {
        "sub_task_id": s.id,
        "task_id": s.task_id,
        "title": s.title,
        "description": s.description,
        "due_date": _iso(s.due_date),
        "is_completed": s.is_completed,
    }


def _comment_dict(db: Session, c: TodoistTaskComment) -> dict[str, Any]:
    return {
        "task_comment_id": c.id,
        "task_id": c.task_id,
        "content": c.content,
        "author_email": _email(db, c.author_id),
        "created_at": _iso(c.created_at),
        "updated_at": _iso(c.updated_at),
    }


# ---- projects ----------------------------------------------------------------------------------
class CreateProjectArgs(BaseModel):
    name: Text = Field(description="Name of the new project.")
    color: Color | None = Field(default=None, description="Project color (default charcoal).")
    is_favorite: bool = Field(default=False, description="Whether to mark the project as a favorite.")


@register_tool("todoist__create_project", group=APP)
def create_project(env: ToolEnv, args: CreateProjectArgs) -> dict[str, Any]:
    """Create a project owned by the logged-in user."""
    with _account(env) as (db, me):
        project = TodoistProject(
            owner_id=me.id, name=args.name, color=args.color or "charcoal", is_favorite=args.is_favorite, created_at=now(db)
        )
        project_id = _insert(db, project)
    return {"project_id": project_id, "message": f"created project {args.name!r}"}


class UpdateProjectArgs(BaseModel):
    project_id: int = Field(description="Id of the project to update.")
    name: Text | None = Field(default=None, description="New name.")
    color: Color | None = Field(default=None, description="New color.")
    is_favorite: bool | None = Field(default=None, description="Mark or unmark as favorite.")


@register_tool("todoist__update_project", group=APP)
def update_project(env: ToolEnv, args: UpdateProjectArgs) -> dict[str, str]:
    """Rename, recolor or (un)favorite a project you own."""
    with _account(env) as (db, me):
        project = _project(db, me, args.project_id, owner_only="update")
        changes = _passed(args, "name", "color", "is_favorite")
        if "name" in changes and project.is_inbox:
            raise ToolError("the Inbox project cannot be renamed")
        project.sqlmodel_update(changes)
        db.add(project)
    return {"message": f"updated project {args.project_id}"}


class ProjectIdArgs(BaseModel):
    project_id: int = Field(description="Id of the project.")


@register_tool("todoist__delete_project", group=APP)
def delete_project(env: ToolEnv, args: ProjectIdArgs) -> dict[str, str]:
    """Delete a project you own with all its sections and tasks."""
    with _account(env) as (db, me):
        project = _project(db, me, args.project_id, owner_only="delete")
        if project.is_inbox:
            raise ToolError("the Inbox project cannot be deleted")
        _delete_tasks(db, [t.id for t in _rows(db, TodoistTask, project_id=project.id)])
        for model in (TodoistSection, TodoistProjectCollaborator):
            _delete(db, model, "project_id", [project.id])
        _delete(db, TodoistProject, "id", [project.id])
    return {"message": f"deleted project {args.project_id} ({project.name!r}) with its sections and tasks"}


@register_tool("todoist__show_project", group=APP)
def show_project(env: ToolEnv, args: ProjectIdArgs) -> dict[str, Any]:
    """Show a project with its sections, collaborators and task counts."""
    with _account(env) as (db, me):
        project = _project(db, me, args.project_id)
        tasks = _rows(db, TodoistTask, project_id=project.id)
        links = _rows(db, TodoistProjectCollaborator, project_id=project.id)
        collaborators = [db.get_one(TodoistUser, c.user_id) for c in links]
        return {
            **_project_dict(db, project),
            "sections": [_section_dict(db, s) for s in _rows(db, TodoistSection, project_id=project.id)],
            "collaborators": [{"name": u.name, "email": u.email} for u in collaborators],
            "open_task_count": sum(not t.is_completed for t in tasks),
            "completed_task_count": sum(t.is_completed for t in tasks),
        }


class ShowProjectsArgs(PageArgs):
    query: str | None = Field(default=None, description="Words that must all occur in the project name.")


@register_tool("todoist__show_projects", group=APP)
def show_projects(env: ToolEnv, args: ShowProjectsArgs) -> list[dict[str, Any]]:
    """List the projects you own or collaborate on (favorites first)."""
    with _account(env) as (db, me):
        projects = [db.get_one(TodoistProject, i) for i in sorted(_project_ids(db, me))]
        found = [p for p in projects if matches_query(args.query, p.name)]
        found.sort(key=lambda p: not p.is_favorite)
        return [_project_dict(db, p) for p in paginate(found, args)]


# ---- sections ----------------------------------------------------------------------------------
class CreateSectionArgs(BaseModel):
    name: Text = Field(description="Name of the new section.")
    project_id: int = Field(description="Id of the project the section goes in.")


@register_tool("todoist__create_section", group=APP)
def create_section(env: ToolEnv, args: CreateSectionArgs) -> dict[str, Any]:
    """Create a section in a project."""
    with _account(env) as (db, me):
        project = _project(db, me, args.project_id)
        section_id = _insert(db, TodoistSection(project_id=project.id, name=args.name))
    return {"section_id": section_id, "message": f"created section {args.name!r} in project {args.project_id}"}


class UpdateSectionArgs(BaseModel):
    section_id: int = Field(description="Id of the section to rename.")
    name: Text = Field(description="New name.")


@register_tool("todoist__update_section", group=APP)
def update_section(env: ToolEnv, args: UpdateSectionArgs) -> dict[str, str]:
    """Rename a section."""
    with _account(env) as (db, me):
        section = _section(db, me, args.section_id)
        section.name = args.name
        db.add(section)
    return {"message": f"renamed section {args.section_id} to {args.name!r}"}


class SectionIdArgs(BaseModel):
    section_id: int = Field(description="Id of the section.")


@register_tool("todoist__delete_section", group=APP)
def delete_section(env: ToolEnv, args: SectionIdArgs) -> dict[str, str]:
    """Delete a section together with the tasks in it."""
    with _account(env) as (db, me):
        section = _section(db, me, args.section_id)
        _delete_tasks(db, [t.id for t in _rows(db, TodoistTask, section_id=section.id)])
        _delete(db, TodoistSection, "id", [section.id])
    return {"message": f"deleted section {args.section_id} ({section.name!r}) with its tasks"}


@register_tool("todoist__show_sections", group=APP)
def show_sections(env: ToolEnv, args: ProjectIdArgs) -> list[dict[str, Any]]:
    """List the sections of a project."""
    with _account(env) as (db, me):
        project = _project(db, me, args.project_id)
        return [_section_dict(db, s) for s in _rows(db, TodoistSection, project_id=project.id)]


# ---- tasks ---------------------------------------------------------------------------------------
class CreateTaskArgs(BaseModel):
    title: Text = Field(description="Task title.")
    description: str = Field(default="", description="Longer description.")
    due_date: str | None = Field(default=None, description="Due date as YYYY-MM-DD.")
    priority: int = Field(default=1, ge=1, le=4, description="Priority from 1 (normal) to 4 (urgent).")
    project_id: int | None = Field(default=None, description="Project id (default: your Inbox).")
    section_id: int | None = Field(default=None, description="Section id; must belong to the project.")
    label_ids: list[int] = Field(default_factory=list, description="Ids of your labels to put on the task.")


@register_tool("todoist__create_task", group=APP)
def create_task(env: ToolEnv, args: CreateTaskArgs) -> dict[str, Any]:
    """Create a task in a project (your Inbox if none is given)."""
    with _account(env) as (db, me):
        due = _parse_date(args.due_date, "due_date")
        project = _project(db, me, args.project_id) if args.project_id is not None else _inbox(db, me)
        if args.section_id is not None:
            _section(db, me, args.section_id, project.id)
        labels = [_label(db, me, i) for i in dict.fromkeys(args.label_ids)]
        task = TodoistTask(
            project_id=project.id,
            section_id=args.section_id,
            title=args.title,
            description=args.description,
            due_date=due,
            priority=args.priority,
            created_at=now(db),
        )
        task_id = _insert(db, task)
        db.add_all(TodoistTaskLabel(task_id=task_id, label_id=label.id) for label in labels)
    return {"task_id": task_id, "message": f"created task {args.title!r} in project {project.id}"}


class UpdateTaskArgs(BaseModel):
    task_id: int = Field(description="Id of the task to update.")
    title: Text | None = Field(default=None, description="New title.")
    description: str | None = Field(default=None, description="New description (replaces the old one).")
    due_date: str | None = Field(default=None, description="New due date as YYYY-MM-DD; null clears it.")
    priority: int | None = Field(default=None, ge=1, le=4, description="New priority, 1 (normal) to 4 (urgent).")
    project_id: int | None = Field(default=None, description="Move to this project (leaving its section).")
    section_id: int | None = Field(default=None, description="Move to this section of the project; null: no section.")
    is_completed: bool | None = Field(default=None, description="Complete (true) or reopen (false) the task.")


@register_tool("todoist__update_task", group=APP)
def update_task(env: ToolEnv, args: UpdateTaskArgs) -> dict[str, str]:
    """Update a task's fields, move it, or complete or reopen it."""
    fields = ("title", "description", "due_date", "priority", "project_id", "section_id", "is_completed")
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        changes = _passed(args, *fields, clearable=("due_date", "section_id"))
        if "due_date" in changes:
            changes["due_date"] = _parse_date(changes["due_date"], "due_date")
        if "project_id" in changes:
            _project(db, me, changes["project_id"])
            changes.setdefault("section_id", None)
        if changes.get("section_id") is not None:
            _section(db, me, changes["section_id"], changes.get("project_id", task.project_id))
        if "is_completed" in changes:
            changes["completed_at"] = now(db) if changes["is_completed"] else None
        task.sqlmodel_update(changes)
        db.add(task)
    return {"message": f"updated task {args.task_id}"}


class TaskIdArgs(BaseModel):
    task_id: int = Field(description="Id of the task.")


@register_tool("todoist__delete_task", group=APP)
def delete_task(env: ToolEnv, args: TaskIdArgs) -> dict[str, str]:
    """Delete a task with its sub tasks and comments."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        _delete_tasks(db, [args.task_id])
    return {"message": f"deleted task {args.task_id} ({task.title!r})"}


@register_tool("todoist__show_task", group=APP)
def show_task(env: ToolEnv, args: TaskIdArgs) -> dict[str, Any]:
    """Show a task with its labels, sub tasks and number of comments."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        return {
            **_task_dict(db, task),
            "labels": [{"label_id": label.id, "name": label.name} for label in _labels_of(db, task.id)],
            "sub_tasks": [_sub_task_dict(s) for s in _rows(db, TodoistSubTask, task_id=task.id)],
            "comments_count": len(_rows(db, TodoistTaskComment, task_id=task.id)),
        }


class ShowTasksArgs(PageArgs):
    project_id: int | None = Field(default=None, description="Only tasks in this project.")
    section_id: int | None = Field(default=None, description="Only tasks in this section.")
    label_id: int | None = Field(default=None, description="Only tasks carrying this label of yours.")
    query: str | None = Field(default=None, description="Words that must all occur in the title or description.")
    is_completed: bool | None = Field(default=None, description="Only completed (true) or open (false); default both.")
    due_before: str | None = Field(default=None, description="Only tasks due on or before this date (YYYY-MM-DD).")
    due_after: str | None = Field(default=None, description="Only tasks due on or after this date (YYYY-MM-DD).")


@register_tool("todoist__show_tasks", group=APP)
def show_tasks(env: ToolEnv, args: ShowTasksArgs) -> list[dict[str, Any]]:
    """List tasks in your projects, filtered, soonest due first."""
    with _account(env) as (db, me):
        before, after = _parse_date(args.due_before, "due_before"), _parse_date(args.due_after, "due_after")
        project_ids = [_project(db, me, args.project_id).id] if args.project_id is not None else _project_ids(db, me)
        section = _section(db, me, args.section_id) if args.section_id is not None else None
        labelled = (
            {link.task_id for link in _rows(db, TodoistTaskLabel, label_id=_label(db, me, args.label_id).id)}
            if args.label_id is not None
            else None
        )
        tasks = [
            t
            for t in db.exec(select(TodoistTask).where(col(TodoistTask.project_id).in_(project_ids))).all()
            if (section is None or t.section_id == section.id)
            and (labelled is None or t.id in labelled)
            and (args.is_completed is None or t.is_completed == args.is_completed)
            and matches_query(args.query, t.title, t.description)
            and (before is None or (t.due_date is not None and t.due_date <= before))
            and (after is None or (t.due_date is not None and t.due_date >= after))
        ]
        tasks.sort(key=lambda t: (t.due_date is None, t.due_date or date.min, -t.priority, t.id))
        return [_task_dict(db, t) for t in paginate(tasks, args)]


class AssignArgs(BaseModel):
    task_id: int = Field(description="Id of the task.")
    assignee_email: str | None = Field(description="Email of the Todoist user to assign, or null to unassign.")


@register_tool("todoist__assign_or_unassign_task", group=APP)
def assign_or_unassign_task(env: ToolEnv, args: AssignArgs) -> dict[str, str]:
    """Assign a task to a Todoist user by email (sharing its project with them), or unassign it with null."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        previous = task.assignee_id
        user = _user_by_email(db, args.assignee_email) if args.assignee_email is not None else None
        if args.assignee_email is not None and user is None:
            raise ToolError(f"no Todoist user with email {args.assignee_email}")
        if user is not None and task.project_id not in _project_ids(db, user):
            db.add(TodoistProjectCollaborator(project_id=task.project_id, user_id=user.id))
        task.assignee_id = user.id if user else None
        db.add(task)
        if previous is not None and previous not in (me.id, task.assignee_id):
            _notify(db, previous, "task_unassigned", f"{me.name} unassigned you from task {task.title!r}", task.id)
        if task.assignee_id is not None and task.assignee_id not in (me.id, previous):
            _notify(db, task.assignee_id, "task_assigned", f"{me.name} assigned you task {task.title!r}", task.id)
    return {"message": f"assigned task {args.task_id} to {user.email}" if user else f"unassigned task {args.task_id}"}


# ---- sub tasks -----------------------------------------------------------------------------------
class CreateSubTaskArgs(BaseModel):
    task_id: int = Field(description="Id of the parent task.")
    title: Text = Field(description="Sub task title.")
    description: str = Field(default="", description="Longer description.")
    due_date: str | None = Field(default=None, description="Due date as YYYY-MM-DD.")


@register_tool("todoist__create_sub_task", group=APP)
def create_sub_task(env: ToolEnv, args: CreateSubTaskArgs) -> dict[str, Any]:
    """Add a sub task to a task."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        sub = TodoistSubTask(
            task_id=task.id, title=args.title, description=args.description, due_date=_parse_date(args.due_date, "due_date")
        )
        sub_task_id = _insert(db, sub)
    return {"sub_task_id": sub_task_id, "message": f"created sub task {args.title!r} under task {args.task_id}"}


class UpdateSubTaskArgs(BaseModel):
    sub_task_id: int = Field(description="Id of the sub task.")
    title: Text | None = Field(default=None, description="New title.")
    description: str | None = Field(default=None, description="New description.")
    due_date: str | None = Field(default=None, description="New due date as YYYY-MM-DD; null clears it.")
    is_completed: bool | None = Field(default=None, description="Complete (true) or reopen (false).")


@register_tool("todoist__update_sub_task", group=APP)
def update_sub_task(env: ToolEnv, args: UpdateSubTaskArgs) -> dict[str, str]:
    """Update a sub task's fields or complete it."""
    with _account(env) as (db, me):
        sub = _visible(db, me, TodoistSubTask, args.sub_task_id, "sub task")
        changes = _passed(args, "title", "description", "due_date", "is_completed", clearable=("due_date",))
        if "due_date" in changes:
            changes["due_date"] = _parse_date(changes["due_date"], "due_date")
        sub.sqlmodel_update(changes)
        db.add(sub)
    return {"message": f"updated sub task {args.sub_task_id}"}


class SubTaskIdArgs(BaseModel):
    sub_task_id: int = Field(description="Id of the sub task.")


@register_tool("todoist__delete_sub_task", group=APP)
def delete_sub_task(env: ToolEnv, args: SubTaskIdArgs) -> dict[str, str]:
    """Delete a sub task."""
    with _account(env) as (db, me):
        sub = _visible(db, me, TodoistSubTask, args.sub_task_id, "sub task")
        _delete(db, TodoistSubTask, "id", [sub.id])
    return {"message": f"deleted sub task {args.sub_task_id} ({sub.title!r})"}


@register_tool("todoist__show_sub_tasks", group=APP)
def show_sub_tasks(env: ToolEnv, args: TaskIdArgs) -> list[dict[str, Any]]:
    """List the sub tasks of a task."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        return [_sub_task_dict(s) for s in _rows(db, TodoistSubTask, task_id=task.id)]


# ---- labels --------------------------------------------------------------------------------------
class CreateLabelArgs(BaseModel):
    name: Text = Field(description="Label name (unique among your labels).")


@register_tool("todoist__create_label", group=APP)
def create_label(env: ToolEnv, args: CreateLabelArgs) -> dict[str, Any]:
    """Create a label."""
    with _account(env) as (db, me):
        clash = next((x for x in _rows(db, TodoistLabel, owner_id=me.id) if x.name.lower() == args.name.lower()), None)
        if clash is not None:
            raise ToolError(f"you already have a label named {clash.name!r} (label_id {clash.id})")
        label_id = _insert(db, TodoistLabel(owner_id=me.id, name=args.name))
    return {"label_id": label_id, "message": f"created label {args.name!r}"}


class LabelIdArgs(BaseModel):
    label_id: int = Field(description="Id of the label.")


@register_tool("todoist__delete_label", group=APP)
def delete_label(env: ToolEnv, args: LabelIdArgs) -> dict[str, str]:
    """Delete a label and remove it from every task."""
    with _account(env) as (db, me):
        label = _label(db, me, args.label_id)
        _delete(db, TodoistTaskLabel, "label_id", [label.id])
        _delete(db, TodoistLabel, "id", [label.id])
    return {"message": f"deleted label {args.label_id} ({label.name!r})"}


class SearchArgs(PageArgs):
    query: str | None = Field(default=None, description="Words that must all occur (empty: everything).")


@register_tool("todoist__search_labels", group=APP)
def search_labels(env: ToolEnv, args: SearchArgs) -> list[dict[str, Any]]:
    """Search your labels by name."""
    with _account(env) as (db, me):
        found = [x for x in _rows(db, TodoistLabel, owner_id=me.id) if matches_query(args.query, x.name)]
        return [
            {"label_id": x.id, "name": x.name, "task_count": len(_rows(db, TodoistTaskLabel, label_id=x.id))} for x in paginate(found, args)
        ]


class TaskLabelArgs(BaseModel):
    label_id: int = Field(description="Id of your label.")
    task_id: int = Field(description="Id of the task.")


def _task_label(db: Session, me: TodoistUser, args: TaskLabelArgs) -> tuple[TodoistTask, TodoistLabel, bool]:
    """The task, the label, and whether the task carries the label."""
    task = _visible(db, me, TodoistTask, args.task_id, "task")
    label = _label(db, me, args.label_id)
    return task, label, db.get(TodoistTaskLabel, (task.id, label.id)) is not None


@register_tool("todoist__add_label_to_task", group=APP)
def add_label_to_task(env: ToolEnv, args: TaskLabelArgs) -> dict[str, str]:
    """Put one of your labels on a task."""
    with _account(env) as (db, me):
        task, label, present = _task_label(db, me, args)
        if present:
            raise ToolError(f"task {task.id} already has label {label.name!r}")
        db.add(TodoistTaskLabel(task_id=task.id, label_id=label.id))
    return {"message": f"added label {label.name!r} to task {task.id}"}


@register_tool("todoist__remove_label_from_task", group=APP)
def remove_label_from_task(env: ToolEnv, args: TaskLabelArgs) -> dict[str, str]:
    """Take a label off a task."""
    with _account(env) as (db, me):
        task, label, present = _task_label(db, me, args)
        if not present:
            raise ToolError(f"task {task.id} does not have label {label.name!r}")
        db.delete(db.get_one(TodoistTaskLabel, (task.id, label.id)))
    return {"message": f"removed label {label.name!r} from task {task.id}"}


# ---- comments ------------------------------------------------------------------------------------
class PostCommentArgs(BaseModel):
    content: Text = Field(description="Comment text.")
    task_id: int = Field(description="Id of the task to comment on.")


@register_tool("todoist__post_task_comment", group=APP)
def post_task_comment(env: ToolEnv, args: PostCommentArgs) -> dict[str, Any]:
    """Comment on a task (its assignee, if someone else, is notified)."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        at = now(db)
        comment = TodoistTaskComment(task_id=task.id, author_id=me.id, content=args.content, created_at=at, updated_at=at)
        comment_id = _insert(db, comment)
        if task.assignee_id not in (None, me.id):
            text = f"{me.name} commented on task {task.title!r}: {args.content}"
            _notify(db, task.assignee_id, "task_comment", text, args.task_id)
    return {"task_comment_id": comment_id, "message": f"posted comment on task {args.task_id}"}


class UpdateCommentArgs(BaseModel):
    task_comment_id: int = Field(description="Id of your comment.")
    content: Text = Field(description="New comment text.")


@register_tool("todoist__update_task_comment", group=APP)
def update_task_comment(env: ToolEnv, args: UpdateCommentArgs) -> dict[str, str]:
    """Edit a comment you wrote."""
    with _account(env) as (db, me):
        comment = _comment(db, me, args.task_comment_id, own=True)
        comment.content, comment.updated_at = args.content, now(db)
        db.add(comment)
    return {"message": f"updated task comment {args.task_comment_id}"}


class CommentIdArgs(BaseModel):
    task_comment_id: int = Field(description="Id of the comment.")


@register_tool("todoist__delete_task_comment", group=APP)
def delete_task_comment(env: ToolEnv, args: CommentIdArgs) -> dict[str, str]:
    """Delete a comment you wrote."""
    with _account(env) as (db, me):
        comment = _comment(db, me, args.task_comment_id, own=True)
        _delete(db, TodoistTaskComment, "id", [comment.id])
    return {"message": f"deleted task comment {args.task_comment_id}"}


@register_tool("todoist__show_task_comment", group=APP)
def show_task_comment(env: ToolEnv, args: CommentIdArgs) -> dict[str, Any]:
    """Show one task comment."""
    with _account(env) as (db, me):
        return _comment_dict(db, _comment(db, me, args.task_comment_id))


class TaskCommentsArgs(PageArgs):
    task_id: int = Field(description="Id of the task.")


@register_tool("todoist__show_task_comments", group=APP)
def show_task_comments(env: ToolEnv, args: TaskCommentsArgs) -> list[dict[str, Any]]:
    """List a task's comments, oldest first."""
    with _account(env) as (db, me):
        task = _visible(db, me, TodoistTask, args.task_id, "task")
        return [_comment_dict(db, c) for c in paginate(_rows(db, TodoistTaskComment, task_id=task.id), args)]


# ---- users and notifications ---------------------------------------------------------------------
@register_tool("todoist__search_users", group=APP)
def search_users(env: ToolEnv, args: SearchArgs) -> list[dict[str, Any]]:
    """Search your collaborators (people who share a project with you) by name or email."""
    with _account(env) as (db, me):
        ids = _project_ids(db, me)
        owners = {db.get_one(TodoistProject, i).owner_id for i in ids}
        members = {c.user_id for c in db.exec(select(TodoistProjectCollaborator)).all() if c.project_id in ids}
        users = [db.get_one(TodoistUser, i) for i in sorted((owners | members) - {me.id})]
        found = [u for u in users if matches_query(args.query, u.name, u.email)]
        return [{"name": u.name, "email": u.email} for u in paginate(found, args)]


class ShowNotificationsArgs(PageArgs):
    only_unread: bool = Field(default=False, description="Only unread notifications.")


@register_tool("todoist__show_notifications", group=APP)
def show_notifications(env: ToolEnv, args: ShowNotificationsArgs) -> list[dict[str, Any]]:
    """List your notifications, newest first."""
    with _account(env) as (db, me):
        rows = [n for n in reversed(_rows(db, TodoistNotification, user_id=me.id)) if not (args.only_unread and n.is_read)]
        return [
            {
                "notification_id": n.id,
                "type": n.kind,
                "message": n.message,
                "task_id": n.task_id,
                "is_read": n.is_read,
                "created_at": _iso(n.created_at),
            }
            for n in paginate(rows, args)
        ]


@register_tool("todoist__show_notifications_count", group=APP)
def show_notifications_count(env: ToolEnv, args: NoArgs) -> dict[str, int]:
    """Count your notifications, total and unread."""
    with _account(env) as (db, me):
        rows = _rows(db, TodoistNotification, user_id=me.id)
        return {"total_count": len(rows), "unread_count": sum(not n.is_read for n in rows)}


class MarkNotificationArgs(BaseModel):
    notification_id: int = Field(description="Id of the notification.")
    read: bool = Field(default=True, description="True marks it read, false unread.")


@register_tool("todoist__mark_notification", group=APP)
def mark_notification(env: ToolEnv, args: MarkNotificationArgs) -> dict[str, str]:
    """Mark a notification as read or unread."""
    with _account(env) as (db, me):
        note = _notification(db, me, args.notification_id)
        note.is_read = args.read
        db.add(note)
    return {"message": f"marked notification {args.notification_id} as {'read' if args.read else 'unread'}"}


class DeleteNotificationsArgs(BaseModel):
    notification_ids: list[int] | None = Field(default=None, description="Ids to delete; null: all read notifications.")


@register_tool("todoist__delete_notifications", group=APP)
def delete_notifications(env: ToolEnv, args: DeleteNotificationsArgs) -> dict[str, str]:
    """Delete the given notifications, or all read ones."""
    with _account(env) as (db, me):
        if args.notification_ids is None:
            ids = [n.id for n in _rows(db, TodoistNotification, user_id=me.id, is_read=True)]
        else:
            ids = [_notification(db, me, i).id for i in dict.fromkeys(args.notification_ids)]
        _delete(db, TodoistNotification, "id", ids)
    return {"message": f"deleted {len(ids)} notification(s)"}
