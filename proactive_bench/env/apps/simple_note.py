"""Simple Note: a personal note-taking app with titled, tagged, pinnable notes.

Tables: ``simple_note_user`` (accounts; login by email or phone number) and
``simple_note_note`` (notes owned by one account; tags as a JSON list).
Notes are private: another account's note is reported as not found.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, NaiveDatetime, StringConstraints
from sqlalchemy import JSON, Column, ForeignKey, func, or_
from sqlmodel import Field as Col, Session, col, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

APP = "simple_note"
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class SimpleNoteUser(AppModel, table=True):
    """A Simple Note account."""

    __tablename__ = "simple_note_user"
    id: int = Col(default=None, primary_key=True)
    name: str
    email: str = Col(unique=True)
    phone_number: str | None = None
    password: str
    created_at: NaiveDatetime | None = None


class SimpleNoteNote(AppModel, table=True):
    __tablename__ = "simple_note_note"
    id: int = Col(default=None, primary_key=True)
    owner_id: int = Col(sa_column_args=[ForeignKey("simple_note_user.id", deferrable=True, initially="DEFERRED")])
    title: str
    content: str = ""
    tags: list[str] = Col(default_factory=list, sa_column=Column(JSON, nullable=False))
    pinned: bool = False
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None


def _user(db: Session, username: str) -> SimpleNoteUser | None:
    """The account whose email (any case) or phone number is ``username``."""
    key = username.strip()
    query = select(SimpleNoteUser).where(or_(func.lower(SimpleNoteUser.email) == key.lower(), col(SimpleNoteUser.phone_number) == key))
    return db.exec(query).first()


register_app(
    AppSpec(
        APP,
        "Simple Note: private notes with titles, tags and pins.",
        (SimpleNoteUser, SimpleNoteNote),
        find_account=_user,
    )
)


def _account(env: ToolEnv) -> AbstractContextManager[tuple[Session, SimpleNoteUser]]:
    """A transaction and the logged-in account."""
    return logged_in(env, APP)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _note(db: Session, me: SimpleNoteUser, note_id: int) -> SimpleNoteNote:
    """One of the user's notes; other accounts' notes do not exist for them."""
    note = db.get(SimpleNoteNote, note_id)
    if note is None or note.owner_id != me.id:
        raise ToolError(f"no note with id {note_id}")
    return note


def _clean_tags(tags: list[str]) -> list[str]:
    """Tags stripped of spaces and a leading '#', without blanks or (case-insensitive) repeats."""
    out: dict[str, str] = {}
    for tag in tags:
        tag = tag.strip().lstrip("#").strip()
        if tag:
            out.setdefault(tag.lower(), tag)
    return list(out.values())


def _note_dict(note: SimpleNoteNote) -> dict[str, Any]:
    return {
        "note_id": note.id,
        "title": note.title,
        "content": note.content,
        "tags": list(note.tags),
        "pinned": note.pinned,
        "created_at": _iso(note.created_at),
        "updated_at": _iso(note.updated_at),
    }


def _touch(db: Session, note: SimpleNoteNote) -> None:
    note.updated_at = now(db)
    db.add(note)


# ---- account ---------------------------------------------------------------------------------------
@register_tool("simple_note__show_account", group=APP)
def show_account(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Show your own account details."""
    with _account(env) as (db, me):
        notes = db.exec(select(SimpleNoteNote).where(SimpleNoteNote.owner_id == me.id)).all()
        return {
            "name": me.name,
            "email": me.email,
            "phone_number": me.phone_number,
            "created_at": _iso(me.created_at),
            "note_count": len(notes),
        }


class ShowProfileArgs(BaseModel):
    email: str | None = Field(default=None, description="Email of the user to look up (default: yourself).")


@register_tool("simple_note__show_profile", group=APP)
def show_profile(env: ToolEnv, args: ShowProfileArgs) -> dict[str, Any]:
    """Show the public profile (name and email) of a Simple Note user, yourself by default."""
    with _account(env) as (db, me):
        if args.email is not None and "@" not in args.email:
            raise ToolError(f"email must be an email address, got {args.email!r}")
        user = me if args.email is None else _user(db, args.email)
        if user is None:
            raise ToolError(f"no Simple Note user with email {args.email}")
        return {"name": user.name, "email": user.email, "created_at": _iso(user.created_at)}


# ---- notes -----------------------------------------------------------------------------------------
class CreateNoteArgs(BaseModel):
    title: Title = Field(description="Title of the note.")
    content: str = Field(description="Body text of the note.")
    tags: list[str] = Field(default_factory=list, description="Tags for the note.")
    pinned: bool = Field(default=False, description="Whether to pin the note to the top.")


@register_tool("simple_note__create_note", group=APP)
def create_note(env: ToolEnv, args: CreateNoteArgs) -> dict[str, Any]:
    """Create a note."""
    with _account(env) as (db, me):
        at = now(db)
        note = SimpleNoteNote(
            owner_id=me.id,
            title=args.title,
            content=args.content,
            tags=_clean_tags(args.tags),
            pinned=args.pinned,
            created_at=at,
            updated_at=at,
        )
        db.add(note)
        db.flush()
        return {"note_id": note.id, "message": f"created note {args.title!r}"}


class NoteIdArgs(BaseModel):
    note_id: int = Field(description="Id of the note.")


@register_tool("simple_note__show_note", group=APP)
def show_note(env: ToolEnv, args: NoteIdArgs) -> dict[str, Any]:
    """Show a note in full."""
    with _account(env) as (db, me):
        return _note_dict(_note(db, me, args.note_id))


class SearchNotesArgs(PageArgs):
    query: str | None = Field(default=None, description="Words that must all occur in the title or content.")
    tags: list[str] | None = Field(default=None, description="Only notes carrying all of these tags.")
    pinned: bool | None = Field(default=None, description="Only pinned (true) or unpinned (false) notes.")
    sort_by: Literal["created_at", "updated_at", "title"] = Field(
        default="updated_at", description="Order: newest first for the dates, A to Z for title. Pinned notes come first."
    )


@register_tool("simple_note__search_notes", group=APP)
def search_notes(env: ToolEnv, args: SearchNotesArgs) -> list[dict[str, Any]]:
    """Search your notes by words, tags and pin state."""
    with _account(env) as (db, me):
        wanted = {t.lower() for t in _clean_tags(args.tags or [])}
        notes = [
            n
            for n in db.exec(select(SimpleNoteNote).where(SimpleNoteNote.owner_id == me.id)).all()
            if matches_query(args.query, n.title, n.content)
            and wanted <= {t.lower() for t in n.tags}
            and (args.pinned is None or n.pinned == args.pinned)
        ]
        if args.sort_by == "title":
            notes.sort(key=lambda n: (n.title.lower(), n.id))
        else:
            notes.sort(key=lambda n: (getattr(n, args.sort_by) or datetime.min, n.id), reverse=True)
        notes.sort(key=lambda n: not n.pinned)
        return [_note_dict(n) for n in paginate(notes, args)]


class UpdateNoteArgs(BaseModel):
    note_id: int = Field(description="Id of the note to update.")
    title: Title | None = Field(default=None, description="New title.")
    content: str | None = Field(default=None, description="New content (replaces the old content).")
    tags: list[str] | None = Field(default=None, description="New tags (replace the old tags).")
    pinned: bool | None = Field(default=None, description="Pin (true) or unpin (false).")


@register_tool("simple_note__update_note", group=APP)
def update_note(env: ToolEnv, args: UpdateNoteArgs) -> dict[str, str]:
    """Replace a note's title, content, tags or pin state."""
    with _account(env) as (db, me):
        note = _note(db, me, args.note_id)
        changes = {f: getattr(args, f) for f in ("title", "content", "tags", "pinned") if getattr(args, f) is not None}
        if not changes:
            raise ToolError("nothing to update: pass at least one of title, content, tags, pinned")
        if "tags" in changes:
            changes["tags"] = _clean_tags(changes["tags"])
        note.sqlmodel_update(changes)
        _touch(db, note)
    return {"message": f"updated note {args.note_id}"}


class AddContentArgs(BaseModel):
    note_id: int = Field(description="Id of the note.")
    added_content: str = Field(min_length=1, description="Text to add to the note.")
    append_or_prepend: Literal["append", "prepend"] = Field(description="Add the text at the end or at the start.")


@register_tool("simple_note__add_content_to_note", group=APP)
def add_content_to_note(env: ToolEnv, args: AddContentArgs) -> dict[str, str]:
    """Add text at the end or the start of a note, on its own line."""
    with _account(env) as (db, me):
        note = _note(db, me, args.note_id)
        first, second = (note.content, args.added_content)
        if args.append_or_prepend == "prepend":
            first, second = second, first
        joiner = "" if not first or not second or first.endswith("\n") else "\n"
        note.content = first + joiner + second
        _touch(db, note)
    return {"message": f"{args.append_or_prepend}ed content to note {args.note_id}"}


@register_tool("simple_note__delete_note", group=APP)
def delete_note(env: ToolEnv, args: NoteIdArgs) -> dict[str, str]:
    """Delete a note."""
    with _account(env) as (db, me):
        note = _note(db, me, args.note_id)
        db.delete(note)
    return {"message": f"deleted note {args.note_id} ({note.title!r})"}
