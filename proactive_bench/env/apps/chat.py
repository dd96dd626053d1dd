"""Chat: direct messages between the agent and simulated colleagues; no login.

Tables ``chat_contact`` (the colleagues: handle, name, role, department,
e-mail) and ``chat_message`` (one message each way: ``direction`` ``out``
from the agent, ``in`` from the colleague; ``sent_at`` on the apps' clock;
``released``: the ids of the clues a colleague's reply gave away).

A message the agent sends goes to the run's :class:`Colleagues`
(``ToolEnv.colleagues``), whose reply is recorded and returned; the colleague
sees the thread so far, so what it released before stays released. Without
colleagues the message is recorded and nobody answers. A backend may answer
asynchronously (LLM colleagues call a model): ``chat__send_message`` awaits
it, outside the app transaction. A reply that could not be made comes back
with ``failure`` set: recorded with the message (``decided_by``), shown to
the agent, never a guessed answer.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from inspect import isawaitable
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, Field as Arg, NaiveDatetime, StringConstraints
from sqlalchemy import Connection, bindparam
from sqlmodel import Field, Session, col, insert, select

from proactive_bench.env.apps.base import DEFAULT_NOW, AppClock, AppModel, AppSpec, NoArgs, json_list, register_app
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "chat"
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=8000)]


class ChatContact(AppModel, table=True):
    """A colleague the agent can message."""

    __tablename__ = "chat_contact"
    handle: str = Field(primary_key=True)
    name: str
    role: str = ""
    department: str = ""
    email: str = ""


class ChatMessage(AppModel, table=True):
    """One message of a conversation with a colleague."""

    __tablename__ = "chat_message"
    __table_args__ = {"sqlite_autoincrement": True}
    id: int = Field(default=None, primary_key=True)
    contact: str = Field(foreign_key="chat_contact.handle")
    direction: str = Field(description="out: from the agent; in: from the colleague.")
    text: str
    sent_at: NaiveDatetime
    released: list[str] = json_list()
    decided_by: str = Field(
        default="", description="In replies: which colleague backend judged the message (rules, or the model and prompt version)."
    )


@dataclass(frozen=True)
class ChatLine:
    """One earlier message of a thread, as a colleague backend sees it."""

    direction: Literal["out", "in"]
    text: str
    released: tuple[str, ...] = ()


@dataclass(frozen=True)
class ColleagueReply:
    """A colleague's answer and the clue ids it gives away (recorded with the message)."""

    text: str
    released: tuple[str, ...] = ()
    decided_by: str = ""
    failure: str = ""
    """Why no reply could be made (the backend's model failed); then ``released`` is empty."""


class Colleagues(Protocol):
    """The simulated colleagues of a run: the reply of ``handle`` to ``text``, given the thread before it (plain or awaitable)."""

    def reply(self, handle: str, text: str, thread: list[ChatLine], moment: datetime) -> ColleagueReply | Awaitable[ColleagueReply]: ...


register_app(AppSpec(APP, "Chat: direct messages with colleagues.", (ChatContact, ChatMessage), requires_login=False))


class SendArgs(BaseModel):
    to: str = Arg(description="The colleague's handle (see chat__list_contacts).")
    text: Text = Arg(description="The message.")


class HistoryArgs(BaseModel):
    with_: str = Arg(alias="with", description="The colleague's handle.")


_HANDLES = select(col(ChatContact.handle)).order_by(col(ChatContact.handle))


def _contact(db: Session, handle: str) -> ChatContact:
    contact = db.get(ChatContact, handle.strip().lower())
    if contact is None:
        raise _no_colleague(db.connection(), handle)
    return contact


def _no_colleague(connection: Connection, handle: str) -> ToolError:
    """The error for a handle no colleague has, naming the known ones."""
    known = ", ".join(connection.execute(_HANDLES).scalars()) or "none"
    return ToolError(f"no colleague with handle {handle!r}; known: {known}")


def _thread(db: Session, handle: str) -> list[ChatMessage]:
    return list(db.exec(select(ChatMessage).where(col(ChatMessage.contact) == handle).order_by(col(ChatMessage.id))).all())


@register_tool("chat__list_contacts", group=APP)
def list_contacts(env: ToolEnv, args: NoArgs) -> list[dict[str, str]]:
    """List the colleagues you can message: handle, name, role, department."""
    with env.require_apps().db() as db:
        rows = db.exec(select(ChatContact).order_by(ChatContact.handle)).all()
        return [{"handle": c.handle, "name": c.name, "role": c.role, "department": c.department} for c in rows]


_SEND_CONTEXT = select(
    select(col(ChatContact.handle)).where(col(ChatContact.handle) == bindparam("handle")).scalar_subquery(),
    select(col(AppClock.now)).where(col(AppClock.id) == 1).scalar_subquery(),
)
"""The colleague's handle (None: no such colleague) and the stored time (None before the clock is set)."""
_THREAD_LINES = (
    select(col(ChatMessage.direction), col(ChatMessage.text), col(ChatMessage.released))
    .where(col(ChatMessage.contact) == bindparam("handle"))
    .order_by(col(ChatMessage.id))
)
_ADD_MESSAGES = insert(ChatMessage)
"""Built once (a statement's cache key is worked out once per statement object, as the clock's are)."""


def _sending(connection: Connection, to: str) -> tuple[str, datetime, list[ChatLine]]:
    """The colleague's handle, the time and the thread so far, in SQL statements on a connection (a message per call of
    a played scenario's every mode: the ORM's session, identity map and unit of work were most of a message's CPU); the
    rows read and written are those of the ORM's ``_contact``, ``now`` and ``_thread``."""
    handle, stored = connection.execute(_SEND_CONTEXT, {"handle": to.strip().lower()}).one()
    if handle is None:
        raise _no_colleague(connection, to)
    lines = connection.execute(_THREAD_LINES, {"handle": handle}).all()
    earlier = [ChatLine("out" if d == "out" else "in", text, tuple(released)) for d, text, released in lines]
    return handle, DEFAULT_NOW if stored is None else stored, earlier


@register_tool("chat__send_message", group=APP)
async def send_message(env: ToolEnv, args: SendArgs) -> dict[str, str]:
    """Send a colleague a direct message; returns their reply (empty when nobody answers)."""
    apps = env.require_apps()
    with apps.db() as db:
        handle, moment, earlier = _sending(db.connection(), args.to)
    answer = None
    if env.colleagues is not None:
        given = env.colleagues.reply(handle, args.text, earlier, moment)
        answer = await given if isawaitable(given) else given
    sent = {"contact": handle, "direction": "out", "text": args.text, "sent_at": moment, "released": [], "decided_by": ""}
    if answer is None:
        with apps.db() as db:
            db.connection().execute(_ADD_MESSAGES, [sent])
        return {"reply": "", "at": moment.isoformat(timespec="minutes")}
    decided_by = f"{answer.decided_by} failed: {answer.failure}" if answer.failure else answer.decided_by
    reply = {**sent, "direction": "in", "text": answer.text, "released": list(answer.released), "decided_by": decided_by}
    with apps.db() as db:
        db.connection().execute(_ADD_MESSAGES, [sent, reply])
    result = {"reply": answer.text, "at": moment.isoformat(timespec="minutes")}
    return result | ({"failure": answer.failure} if answer.failure else {})


@register_tool("chat__read_history", group=APP)
def read_history(env: ToolEnv, args: HistoryArgs) -> list[dict[str, str]]:
    """The conversation with one colleague so far, oldest first."""
    with env.require_apps().db() as db:
        contact = _contact(db, args.with_)
        return [
            {"from": "you" if m.direction == "out" else contact.name, "text": m.text, "at": m.sent_at.isoformat(timespec="minutes")}
            for m in _thread(db, contact.handle)
        ]
