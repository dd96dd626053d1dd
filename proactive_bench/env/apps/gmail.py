"""Gmail: a simulated email service with accounts, threads, emails, drafts, stars and labels.

Tables:

- ``gmail_account``: registered users (name, email, password); log in with email and password.
- ``gmail_thread``: a conversation (subject); every email belongs to one thread.
- ``gmail_email``: one sent message (sender, to and cc lists, subject, body, attachment paths,
  sent_at). An email is visible to its sender and to its recipients, so mail between seeded
  accounts lands in the other account's inbox.
- ``gmail_thread_state``: one account's flags for a thread (read, starred, archived, labels); a
  missing row means unread, unstarred, in the inbox and unlabelled. New mail in a thread marks it
  unread and moves it back to the inbox for every recipient account.
- ``gmail_draft``: an account's unsent draft; sending it removes it.

Showing emails and threads has no side effects: marking a thread read is an explicit tool call.
Attachments are workspace-relative paths of files that must exist in the workspace.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlalchemy import Connection, bindparam, func, or_
from sqlalchemy.dialects.sqlite import Insert, insert as upsert
from sqlmodel import Field, Session, col, insert, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    email_addresses,
    get_row,
    json_list,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

MIN_PASSWORD_LENGTH = 6
SNIPPET_LENGTH = 120


class GmailAccount(AppModel, table=True):
    """A Gmail user."""

    __tablename__ = "gmail_account"
    id: int = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    password: str


class GmailThread(AppModel, table=True):
    """A conversation of emails."""

    __tablename__ = "gmail_thread"
    id: int = Field(default=None, primary_key=True)
    subject: str = ""


class GmailEmail(AppModel, table=True):
    """One sent email."""

    __tablename__ = "gmail_email"
    id: int = Field(default=None, primary_key=True)
    thread_id: int
    sender_email: str
    sender_name: str | None = None
    recipient_emails: list[str] = json_list()
    cc_emails: list[str] = json_list()
    subject: str = ""
    body: str = ""
    attachment_file_paths: list[str] = json_list()
    sent_at: NaiveDatetime


class GmailThreadState(AppModel, table=True):
    """One account's flags for one thread."""

    __tablename__ = "gmail_thread_state"
    thread_id: int = Field(primary_key=True)
    account_id: int = Field(primary_key=True)
    read: bool = False
    starred: bool = False
    archived: bool = False
    labels: list[str] = json_list()


class GmailDraft(AppModel, table=True):
    """An unsent email of one account."""

    __tablename__ = "gmail_draft"
    __table_args__ = {"sqlite_autoincrement": True}
    id: int = Field(default=None, primary_key=True)
    account_id: int
    recipient_emails: list[str] = json_list()
    cc_emails: list[str] = json_list()
    subject: str = ""
    body: str = ""
    attachment_file_paths: list[str] = json_list()
    updated_at: NaiveDatetime | None = None


_ACCOUNT_BY_EMAIL = select(GmailAccount).where(func.lower(GmailAccount.email) == bindparam("email"))
"""Built once, like every statement below (a statement's cache key is worked out once per statement object)."""


def _find_account(db: Session, email: str) -> GmailAccount | None:
    return db.exec(_ACCOUNT_BY_EMAIL, params={"email": email.strip().lower()}).first()


register_app(
    AppSpec(
        "gmail",
        "Email: inbox, sent mail, drafts, stars, labels and archive.",
        (GmailAccount, GmailThread, GmailEmail, GmailThreadState, GmailDraft),
        find_account=_find_account,
    )
)


# ---- shared helpers ----------------------------------------------------------------


def _session(env: ToolEnv) -> AbstractContextManager[tuple[Session, GmailAccount]]:
    """A transaction and the logged-in account."""
    return logged_in(env, "gmail")


def _attachments(env: ToolEnv, paths: list[str]) -> list[str]:
    """Workspace paths that exist as files."""
    for path in paths:
        if not env.workspace.resolve(path).is_file():
            raise ToolError(f"attachment not found in the workspace: {path}")
    return list(dict.fromkeys(paths))


def _receives(email: GmailEmail, address: str) -> bool:
    return address in [a.lower() for a in email.recipient_emails + email.cc_emails]


def _sees(email: GmailEmail, address: str) -> bool:
    return email.sender_email.lower() == address or _receives(email, address)


def _state(db: Session, thread_id: int, account_id: int, create: bool) -> GmailThreadState:
    """The account's flags for a thread (a fresh default row if none, added when ``create``)."""
    state = db.get(GmailThreadState, {"thread_id": thread_id, "account_id": account_id})
    if state is None:
        state = GmailThreadState(thread_id=thread_id, account_id=account_id)
        if create:
            db.add(state)
    return state


@dataclass
class _View:
    """A thread as one account sees it: its visible emails (oldest first) and its flags."""

    thread: GmailThread
    emails: list[GmailEmail]
    state: GmailThreadState

    def in_inbox(self, address: str) -> bool:
        return not self.state.archived and any(_receives(e, address) for e in self.emails)

    def in_outbox(self, address: str) -> bool:
        return any(e.sender_email.lower() == address for e in self.emails)

    def matches(self, query: str | None) -> bool:
        texts: list[str | None] = [self.thread.subject, *self.state.labels]
        for e in self.emails:
            texts += [e.sender_email, e.sender_name, e.body, *e.recipient_emails, *e.cc_emails]
        return matches_query(query, *texts)

    def summary(self) -> dict[str, Any]:
        last = self.emails[-1]
        participants = {a.lower() for e in self.emails for a in [e.sender_email, *e.recipient_emails, *e.cc_emails]}
        return {
            "email_thread_id": self.thread.id,
            "subject": self.thread.subject,
            "participants": sorted(participants),
            "email_count": len(self.emails),
            "latest_email_id": last.id,
            "latest_sender_email": last.sender_email,
            "snippet": last.body[:SNIPPET_LENGTH],
            "last_sent_at": last.sent_at.isoformat(),
            "read": self.state.read,
            "starred": self.state.starred,
            "archived": self.state.archived,
            "labels": self.state.labels,
        }


def _views(db: Session, me: GmailAccount, thread_id: int | None = None) -> list[_View]:
    """Threads visible to the account, most recent activity first."""
    address = me.email.lower()
    query = select(GmailEmail).order_by(col(GmailEmail.sent_at), col(GmailEmail.id))
    if thread_id is not None:
        query = query.where(GmailEmail.thread_id == thread_id)
    by_thread: dict[int, list[GmailEmail]] = defaultdict(list)
    for email in db.exec(query).all():
        if _sees(email, address):
            by_thread[email.thread_id].append(email)
    views = []
    for tid, emails in by_thread.items():
        state = _state(db, tid, me.id, create=False)
        views.append(_View(get_row(db, GmailThread, tid, "email thread"), emails, state))
    return sorted(views, key=lambda v: (v.emails[-1].sent_at, v.emails[-1].id), reverse=True)


def _view(db: Session, me: GmailAccount, thread_id: int) -> _View:
    views = _views(db, me, thread_id)
    if not views:
        raise ToolError(f"no email thread with id {thread_id}")
    return views[0]


def _visible_email(db: Session, me: GmailAccount, email_id: int) -> GmailEmail:
    email = db.get(GmailEmail, email_id)
    if email is None or not _sees(email, me.email.lower()):
        raise ToolError(f"no email with id {email_id}")
    return email


def _email_dict(email: GmailEmail) -> dict[str, Any]:
    return {
        "email_id": email.id,
        "email_thread_id": email.thread_id,
        "sender_email": email.sender_email,
        "sender_name": email.sender_name,
        "recipient_emails": email.recipient_emails,
        "cc_emails": email.cc_emails,
        "subject": email.subject,
        "body": email.body,
        "attachment_file_paths": email.attachment_file_paths,
        "sent_at": email.sent_at.isoformat(),
    }


_ADD_THREAD = insert(GmailThread)
_ADD_EMAIL = insert(GmailEmail)
_ACCOUNT_IDS = (
    select(func.lower(GmailAccount.email), col(GmailAccount.id))
    .where(func.lower(GmailAccount.email).in_(bindparam("emails", expanding=True)))
    .order_by(col(GmailAccount.id))
)
"""The accounts of lower-cased addresses, first made first (the one :func:`_find_account` finds of each)."""


def _flagging(*flags: str) -> Insert:
    """An account's flags for a thread set to the parameters' (``thread_id``, ``account_id``, every flag and ``labels``):
    its row updated where one of ``flags`` differs, or made from the parameters: the row ``_state(create=True)`` and
    attribute writes leave (an update only where a value changes), in one statement."""
    new = upsert(GmailThreadState)
    state = GmailThreadState.__table__.c  # type: ignore[attr-defined]  # SQLModel sets __table__ on table classes; its stubs do not declare it
    return new.on_conflict_do_update(
        index_elements=[state.thread_id, state.account_id],
        set_={flag: new.excluded[flag] for flag in flags},
        where=or_(*(state[flag] != new.excluded[flag] for flag in flags)),
    )


_READ_BY_SENDER = _flagging("read")
_NEW_FOR_RECIPIENT = _flagging("read", "archived")
_STATE_DEFAULTS = {
    name: field.get_default(call_default_factory=True) for name, field in GmailThreadState.model_fields.items() if not field.is_required()
}
"""The flags and labels of a thread state row made without them (unread, unstarred, in the inbox, unlabelled)."""


def _new_thread(connection: Connection, subject: str) -> int:
    """A new thread's id."""
    return connection.execute(_ADD_THREAD, {"subject": subject}).lastrowid


def _deliver(
    db: Session,
    me: GmailAccount,
    thread_id: int,
    to: list[str],
    cc: list[str],
    subject: str,
    body: str,
    attachments: list[str],
) -> dict[str, Any]:
    """Add an email to a thread; it is read for the sender and unread, in the inbox, for recipients; the tool's answer.

    In SQL statements on the session's connection (a send per played scenario's task and mode: ORM objects, their
    loads and flushes were most of a send's CPU); the rows written, and their order, are the ORM's."""
    if not subject.strip() and not body.strip():
        raise ToolError("an email needs a subject or a body")
    email = {
        "thread_id": thread_id,
        "sender_email": me.email,
        "sender_name": me.name,
        "recipient_emails": to,
        "cc_emails": cc,
        "subject": subject,
        "body": body,
        "attachment_file_paths": attachments,
        "sent_at": now(db),
    }
    connection = db.connection()
    email_id = connection.execute(_ADD_EMAIL, email).lastrowid
    unread = {**_STATE_DEFAULTS, "thread_id": thread_id, "read": False, "archived": False}
    connection.execute(_READ_BY_SENDER, {**unread, "account_id": me.id, "read": True})
    addresses = [address.strip().lower() for address in dict.fromkeys(to + cc)]
    accounts: dict[str, int] = {}
    for address, account_id in connection.execute(_ACCOUNT_IDS, {"emails": addresses}):
        accounts.setdefault(address, account_id)
    for address in addresses:
        other = accounts.get(address)
        if other is not None and other != me.id:
            connection.execute(_NEW_FOR_RECIPIENT, {**unread, "account_id": other})
    return {"message": "email sent", "email_id": email_id, "email_thread_id": thread_id}


def _own_draft(db: Session, me: GmailAccount, draft_id: int) -> GmailDraft:
    draft = get_row(db, GmailDraft, draft_id, "draft")
    if draft.account_id != me.id:
        raise ToolError(f"draft {draft_id} belongs to another account")
    return draft


def _draft_dict(draft: GmailDraft) -> dict[str, Any]:
    return {
        "draft_id": draft.id,
        "recipient_emails": draft.recipient_emails,
        "cc_emails": draft.cc_emails,
        "subject": draft.subject,
        "body": draft.body,
        "attachment_file_paths": draft.attachment_file_paths,
        "updated_at": draft.updated_at.isoformat() if draft.updated_at else None,
    }


def _label(value: str) -> str:
    label = value.strip()
    if not label:
        raise ToolError("label must not be empty")
    return label


# ---- argument models -------------------------------------------------------------------


class SignupArgs(BaseModel):
    name: str = Arg(description="Full name of the new account's owner.")
    email: str = Arg(description="Email address of the new account.")
    password: str = Arg(description=f"Password (at least {MIN_PASSWORD_LENGTH} characters).")


class CreateDraftArgs(BaseModel):
    recipient_email_addresses: list[str] = Arg(description="To: addresses (may be empty for now).")
    subject: str = Arg(default="", description="Subject line.")
    body: str = Arg(description="Body text.")
    cc_email_addresses: list[str] = Arg(default_factory=list, description="Cc: addresses.")
    attachment_file_paths: list[str] = Arg(default_factory=list, description="Workspace paths of files to attach.")


class UpdateDraftArgs(BaseModel):
    draft_id: int = Arg(description="Id of the draft.")
    email_addresses: list[str] | None = Arg(default=None, description="New To: addresses (replaces the old ones).")
    subject: str | None = Arg(default=None, description="New subject.")
    body: str | None = Arg(default=None, description="New body.")
    cc_email_addresses: list[str] | None = Arg(default=None, description="New Cc: addresses.")
    attachment_file_paths: list[str] | None = Arg(default=None, description="New attachment paths.")


class DraftArgs(BaseModel):
    draft_id: int = Arg(description="Id of the draft.")


class SendEmailArgs(BaseModel):
    email_addresses: list[str] = Arg(description="To: addresses.")
    subject: str = Arg(default="", description="Subject line.")
    body: str = Arg(default="", description="Body text.")
    cc_email_addresses: list[str] = Arg(default_factory=list, description="Cc: addresses.")


class ReplyArgs(BaseModel):
    email_id: int = Arg(description="Id of the email to reply to.")
    body: str = Arg(description="Reply text.")


class ForwardArgs(BaseModel):
    email_thread_id: int = Arg(description="Id of the thread to forward.")
    email_addresses: list[str] = Arg(description="Addresses to forward to.")
    body: str = Arg(default="", description="Note written above the forwarded emails.")


class EmailArgs(BaseModel):
    email_id: int = Arg(description="Id of the email.")


class ThreadArgs(BaseModel):
    email_thread_id: int = Arg(description="Id of the email thread.")


class LabelArgs(BaseModel):
    email_thread_id: int = Arg(description="Id of the email thread.")
    label: str = Arg(description="Label name, e.g. 'Work'.")


class QueryArgs(PageArgs):
    query: str | None = Arg(default=None, description="Words that must all occur, case-insensitively (empty: all).")


class InboxArgs(QueryArgs):
    only_unread: bool = Arg(default=False, description="List only unread threads.")


# ---- tools ---------------------------------------------------------------------------------


@register_tool("gmail__signup", group="gmail")
def signup(env: ToolEnv, args: SignupArgs) -> dict[str, Any]:
    """Create a new Gmail account (no login needed)."""
    (email,) = email_addresses([args.email], "email")
    if not args.name.strip():
        raise ToolError("name must not be empty")
    if len(args.password) < MIN_PASSWORD_LENGTH:
        raise ToolError(f"password must have at least {MIN_PASSWORD_LENGTH} characters")
    with env.require_apps().db() as db:
        if _find_account(db, email) is not None:
            raise ToolError(f"an account with email {email} already exists")
        account = GmailAccount(name=args.name.strip(), email=email, password=args.password)
        db.add(account)
        db.flush()
        return {"account_id": account.id, "message": f"account {email} created"}


@register_tool("gmail__create_draft", group="gmail")
def create_draft(env: ToolEnv, args: CreateDraftArgs) -> dict[str, Any]:
    """Save a new draft email."""
    to = email_addresses(args.recipient_email_addresses, "recipient_email_addresses")
    cc = email_addresses(args.cc_email_addresses, "cc_email_addresses")
    attachments = _attachments(env, args.attachment_file_paths)
    with _session(env) as (db, me):
        draft = GmailDraft(
            account_id=me.id,
            recipient_emails=to,
            cc_emails=cc,
            subject=args.subject,
            body=args.body,
            attachment_file_paths=attachments,
            updated_at=now(db),
        )
        db.add(draft)
        db.flush()
        return {"draft_id": draft.id, "message": "draft created"}


@register_tool("gmail__update_draft", group="gmail")
def update_draft(env: ToolEnv, args: UpdateDraftArgs) -> dict[str, str]:
    """Change a draft's recipients, subject, body or attachments; omitted fields stay."""
    with _session(env) as (db, me):
        draft = _own_draft(db, me, args.draft_id)
        if args.email_addresses is not None:
            draft.recipient_emails = email_addresses(args.email_addresses, "email_addresses")
        if args.cc_email_addresses is not None:
            draft.cc_emails = email_addresses(args.cc_email_addresses, "cc_email_addresses")
        if args.attachment_file_paths is not None:
            draft.attachment_file_paths = _attachments(env, args.attachment_file_paths)
        if args.subject is not None:
            draft.subject = args.subject
        if args.body is not None:
            draft.body = args.body
        draft.updated_at = now(db)
        db.add(draft)
    return {"message": f"draft {args.draft_id} updated"}


@register_tool("gmail__show_draft", group="gmail")
def show_draft(env: ToolEnv, args: DraftArgs) -> dict[str, Any]:
    """Show one of the user's drafts."""
    with _session(env) as (db, me):
        return _draft_dict(_own_draft(db, me, args.draft_id))


@register_tool("gmail__show_drafts", group="gmail")
def show_drafts(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """List the user's drafts, newest first, optionally filtered by a query."""
    with _session(env) as (db, me):
        newest = col(GmailDraft.id).desc()
        drafts = db.exec(select(GmailDraft).where(GmailDraft.account_id == me.id).order_by(newest)).all()
        found = [d for d in drafts if matches_query(args.query, d.subject, d.body, *d.recipient_emails, *d.cc_emails)]
        return [_draft_dict(d) for d in paginate(found, args)]


@register_tool("gmail__send_email_from_draft", group="gmail")
def send_email_from_draft(env: ToolEnv, args: DraftArgs) -> dict[str, Any]:
    """Send a draft as a new email thread; the draft is removed."""
    with _session(env) as (db, me):
        draft = _own_draft(db, me, args.draft_id)
        to = email_addresses(draft.recipient_emails, "the draft's recipients", required=True)
        thread_id = _new_thread(db.connection(), draft.subject)
        cc = email_addresses(draft.cc_emails, "the draft's cc")
        sent = _deliver(db, me, thread_id, to, cc, draft.subject, draft.body, draft.attachment_file_paths)
        db.delete(draft)
        return sent


@register_tool("gmail__send_email", group="gmail")
def send_email(env: ToolEnv, args: SendEmailArgs) -> dict[str, Any]:
    """Send a new email, starting a new thread."""
    to = email_addresses(args.email_addresses, "email_addresses", required=True)
    cc = email_addresses(args.cc_email_addresses, "cc_email_addresses")
    with _session(env) as (db, me):
        return _deliver(db, me, _new_thread(db.connection(), args.subject), to, cc, args.subject, args.body, [])


@register_tool("gmail__reply_to_email", group="gmail")
def reply_to_email(env: ToolEnv, args: ReplyArgs) -> dict[str, Any]:
    """Reply in the same thread: to the sender, or to the original recipients if the user sent it."""
    if not args.body.strip():
        raise ToolError("reply body must not be empty")
    with _session(env) as (db, me):
        original = _visible_email(db, me, args.email_id)
        mine = original.sender_email.lower() == me.email.lower()
        to = email_addresses(original.recipient_emails if mine else [original.sender_email], "recipients", required=True)
        subject = original.subject if original.subject.lower().startswith("re:") else f"Re: {original.subject}"
        thread = get_row(db, GmailThread, original.thread_id, "email thread")
        return _deliver(db, me, thread.id, to, [], subject, args.body, [])


@register_tool("gmail__forward_email_thread", group="gmail")
def forward_email_thread(env: ToolEnv, args: ForwardArgs) -> dict[str, Any]:
    """Forward a whole thread (with its attachments) to other addresses as a new thread."""
    to = email_addresses(args.email_addresses, "email_addresses", required=True)
    with _session(env) as (db, me):
        view = _view(db, me, args.email_thread_id)
        quoted = [
            f"---------- Forwarded message ----------\nFrom: {e.sender_name or e.sender_email} <{e.sender_email}>\n"
            f"Date: {e.sent_at.isoformat()}\nSubject: {e.subject}\nTo: {', '.join(e.recipient_emails)}\n\n{e.body}"
            for e in view.emails
        ]
        body = "\n\n".join(([args.body] if args.body.strip() else []) + quoted)
        subject = f"Fwd: {view.thread.subject}"
        attachments = list(dict.fromkeys(p for e in view.emails for p in e.attachment_file_paths))
        return _deliver(db, me, _new_thread(db.connection(), subject), to, [], subject, body, attachments)


@register_tool("gmail__show_email", group="gmail")
def show_email(env: ToolEnv, args: EmailArgs) -> dict[str, Any]:
    """Show one email the user sent or received."""
    with _session(env) as (db, me):
        return _email_dict(_visible_email(db, me, args.email_id))


@register_tool("gmail__show_thread", group="gmail")
def show_thread(env: ToolEnv, args: ThreadArgs) -> dict[str, Any]:
    """Show a thread with all its emails (oldest first) and its flags."""
    with _session(env) as (db, me):
        view = _view(db, me, args.email_thread_id)
        return {**view.summary(), "emails": [_email_dict(e) for e in view.emails]}


def _list_threads(env: ToolEnv, page: PageArgs, keep: Callable[[_View, str], bool], query: str | None = None) -> list[dict[str, Any]]:
    """Summaries of the visible threads for which ``keep(view, address)`` holds."""
    with _session(env) as (db, me):
        address = me.email.lower()
        found = [v for v in _views(db, me) if keep(v, address) and v.matches(query)]
        return [v.summary() for v in paginate(found, page)]


@register_tool("gmail__show_inbox_threads", group="gmail")
def show_inbox_threads(env: ToolEnv, args: InboxArgs) -> list[dict[str, Any]]:
    """List inbox threads (received, not archived), most recent first."""
    return _list_threads(env, args, lambda v, a: v.in_inbox(a) and not (args.only_unread and v.state.read), args.query)


@register_tool("gmail__show_outbox_threads", group="gmail")
def show_outbox_threads(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """List threads the user has sent emails in, most recent first."""
    return _list_threads(env, args, _View.in_outbox, args.query)


@register_tool("gmail__show_starred_threads", group="gmail")
def show_starred_threads(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List starred threads, most recent first."""
    return _list_threads(env, args, lambda v, _a: v.state.starred)


def _register_flag_tool(verb: str, flag: str, value: bool) -> None:
    def tool(env: ToolEnv, args: ThreadArgs) -> dict[str, str]:
        with _session(env) as (db, me):
            _view(db, me, args.email_thread_id)
            setattr(_state(db, args.email_thread_id, me.id, create=True), flag, value)
        return {"message": f"thread {args.email_thread_id} marked {verb}"}

    tool.__doc__ = f"Mark an email thread as {verb}."
    register_tool(f"gmail__mark_thread_{verb}", group="gmail")(tool)


for _verb, _flag, _value in (
    ("read", "read", True),
    ("unread", "read", False),
    ("starred", "starred", True),
    ("unstarred", "starred", False),
    ("archived", "archived", True),
    ("unarchived", "archived", False),
):
    _register_flag_tool(_verb, _flag, _value)


@register_tool("gmail__label_thread", group="gmail")
def label_thread(env: ToolEnv, args: LabelArgs) -> dict[str, str]:
    """Add a label to a thread (creating the label if new)."""
    label = _label(args.label)
    with _session(env) as (db, me):
        _view(db, me, args.email_thread_id)
        state = _state(db, args.email_thread_id, me.id, create=True)
        if label.lower() in (x.lower() for x in state.labels):
            return {"message": f"thread {args.email_thread_id} already has label {label!r}"}
        state.labels = [*state.labels, label]
    return {"message": f"label {label!r} added to thread {args.email_thread_id}"}


@register_tool("gmail__unlabel_thread", group="gmail")
def unlabel_thread(env: ToolEnv, args: LabelArgs) -> dict[str, str]:
    """Remove a label from a thread."""
    label = _label(args.label)
    with _session(env) as (db, me):
        view = _view(db, me, args.email_thread_id)
        kept = [x for x in view.state.labels if x.lower() != label.lower()]
        if len(kept) == len(view.state.labels):
            raise ToolError(f"thread {args.email_thread_id} has no label {label!r}")
        _state(db, args.email_thread_id, me.id, create=True).labels = kept
    return {"message": f"label {label!r} removed from thread {args.email_thread_id}"}


def _label_counts(db: Session, me: GmailAccount) -> Counter[str]:
    states = db.exec(select(GmailThreadState).where(GmailThreadState.account_id == me.id)).all()
    return Counter(label for s in states for label in s.labels)


@register_tool("gmail__search_labels", group="gmail")
def search_labels(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """List the user's labels with how many threads carry each."""
    with _session(env) as (db, me):
        counts = _label_counts(db, me)
    found = [{"label": k, "thread_count": n} for k, n in sorted(counts.items()) if matches_query(args.query, k)]
    return paginate(found, args)


@register_tool("gmail__search_users", group="gmail")
def search_users(env: ToolEnv, args: QueryArgs) -> list[dict[str, Any]]:
    """Find people by name or email: other Gmail accounts and everyone the user has emailed with."""
    with _session(env) as (db, me):
        known: dict[str, str | None] = {a.email.lower(): a.name for a in db.exec(select(GmailAccount)).all()}
        for view in _views(db, me):
            for e in view.emails:
                if e.sender_name and not known.get(e.sender_email.lower()):
                    known[e.sender_email.lower()] = e.sender_name
                for address in [e.sender_email, *e.recipient_emails, *e.cc_emails]:
                    known.setdefault(address.lower(), None)
        known.pop(me.email.lower(), None)
    ordered = sorted(known.items(), key=lambda kv: ((kv[1] or kv[0]).lower(), kv[0]))
    found = [{"name": n, "email": a} for a, n in ordered]
    return paginate([u for u in found if matches_query(args.query, u["name"], u["email"])], args)


@register_tool("gmail__show_category_sizes", group="gmail")
def show_category_sizes(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Count threads in the inbox, outbox, starred, archived and unread, drafts, and threads per label."""
    with _session(env) as (db, me):
        address = me.email.lower()
        views = _views(db, me)
        drafts = db.exec(select(func.count()).select_from(GmailDraft).where(GmailDraft.account_id == me.id)).one()
        return {
            "inbox": sum(v.in_inbox(address) for v in views),
            "outbox": sum(v.in_outbox(address) for v in views),
            "drafts": drafts,
            "starred": sum(v.state.starred for v in views),
            "archived": sum(v.state.archived for v in views),
            "unread": sum(v.in_inbox(address) and not v.state.read for v in views),
            "labels": dict(sorted(_label_counts(db, me).items())),
        }
