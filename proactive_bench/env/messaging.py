"""Reaching the user outside the chat: ``send_message`` (text and workspace files) and ``schedule_task``.

Scheduled tasks live in the app database (table ``general_scheduled_task``), so
they carry across the sessions of an episode and are part of its snapshots.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, NaiveDatetime
from sqlmodel import Field as Column, col, select

import proactive_bench.env.jail as jail
from proactive_bench.env.apps.base import AppModel, get_row, now
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

Recurrence = Literal["once", "daily", "weekdays", "weekly", "monthly"]


class GeneralScheduledTask(AppModel, table=True):
    """A task the assistant scheduled for itself or the user."""

    __tablename__ = "general_scheduled_task"
    id: int = Column(default=None, primary_key=True)
    when: NaiveDatetime
    text: str
    recurrence: str = "once"
    created_at: NaiveDatetime


class SendMessageArgs(BaseModel):
    text: str = Field(default="", description="The message to the user.")
    attachments: list[str] = Field(default=[], description="Workspace files to send with it, relative to the workspace root.")


class ScheduleTaskArgs(BaseModel):
    action: Literal["add", "list", "remove"] = Field(description="add a task, list all tasks, or remove one.")
    when: datetime | None = Field(default=None, description="add: when it is due, ISO 8601 (e.g. 2026-03-05T09:00).")
    text: str | None = Field(default=None, description="add: what to do or remind the user of.")
    recurrence: Recurrence = Field(default="once", description="add: how it repeats.")
    task_id: int | None = Field(default=None, description="remove: the task's id.")


@register_tool("send_message", group="messaging")
def send_message(env: ToolEnv, args: SendMessageArgs) -> dict[str, Any]:
    """Send the user a message, optionally with workspace files attached; returns the message id."""
    if not args.text.strip() and not args.attachments:
        raise ToolError("a message needs text or at least one attachment")
    sent = []
    for name in args.attachments:
        env.workspace.resolve(name)  # PathEscapeError names what is wrong with the path
        try:
            data = jail.read_file(env.workspace.root, name)
        except jail.Missing:
            raise ToolError(f"no such file to attach: {name}") from None
        except jail.Refused as exc:
            raise ToolError(f"cannot attach {name}: {exc}") from None
        sent.append({"path": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
    digest = hashlib.sha256(repr((args.text, [a["sha256"] for a in sent])).encode()).hexdigest()[:12]
    return {"message_id": f"msg-{digest}", "attachments": sent}


def _naive_utc(stamp: datetime) -> datetime:
    """Times are stored naive, in UTC when a zone is given (as the app tables do)."""
    return stamp.astimezone(UTC).replace(tzinfo=None) if stamp.tzinfo else stamp


def _task_view(task: GeneralScheduledTask) -> dict[str, Any]:
    return {"task_id": task.id, "when": task.when.isoformat(), "text": task.text, "recurrence": task.recurrence}


@register_tool("schedule_task", group="messaging")
def schedule_task(env: ToolEnv, args: ScheduleTaskArgs) -> Any:
    """Schedule a task or reminder for later (add), see the scheduled tasks (list), or cancel one (remove)."""
    with env.require_apps().db() as db:
        if args.action == "list":
            return [_task_view(t) for t in db.exec(select(GeneralScheduledTask).order_by(col(GeneralScheduledTask.when)))]
        if args.action == "remove":
            if args.task_id is None:
                raise ToolError("remove needs task_id")
            db.delete(get_row(db, GeneralScheduledTask, args.task_id, "scheduled task"))
            return {"removed": args.task_id}
        if args.when is None or not (args.text or "").strip():
            raise ToolError("add needs 'when' and 'text'")
        current, when = _naive_utc(now(db)), _naive_utc(args.when)
        if when < current:
            raise ToolError(f"{when.isoformat()} is in the past (it is now {current.isoformat()})")
        task = GeneralScheduledTask(when=when, text=args.text or "", recurrence=args.recurrence, created_at=current)
        db.add(task)
        db.flush()
        return _task_view(task)
