"""Phone: a simulated smartphone with contacts, text messages, alarms and the device clock.

Tables:

- ``phone_account``: a phone's owner (name, phone_number, password, email); log in with the
  phone number and password.
- ``phone_contact``: an owner's address-book entry (names, number, email, relationships such as
  "sister" or "doctor", birthday, home address).
- ``phone_text_message``: one SMS between two numbers; visible to both ends, so a text to another
  seeded phone shows up in that phone's conversations.
- ``phone_alarm``: an owner's alarm ("HH:MM", label, repeat weekdays, enabled).

Phone numbers are compared by their digits only, so "+1 (555) 010-2345" and "+15550102345" match.
The date and time come from the shared simulated clock.
"""

from __future__ import annotations

import re
from contextlib import AbstractContextManager
from datetime import date
from typing import Any

from pydantic import BaseModel, Field as Arg, NaiveDatetime
from sqlmodel import Field, Session, col, select

from proactive_bench.env.apps.base import (
    EMAIL_RE,
    AppModel,
    AppSpec,
    NoArgs,
    PageArgs,
    get_row,
    json_list,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

PHONE_RE = re.compile(r"^\+?[\d\s().-]+$")
TIME_RE = re.compile(r"^(\d{1,2}):(\d{2})$")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


class PhoneAccount(AppModel, table=True):
    """The owner of a phone."""

    __tablename__ = "phone_account"
    id: int = Field(default=None, primary_key=True)
    name: str
    phone_number: str = Field(unique=True)
    password: str
    email: str | None = None


class PhoneContact(AppModel, table=True):
    """An address-book entry of one phone."""

    __tablename__ = "phone_contact"
    id: int = Field(default=None, primary_key=True)
    account_id: int
    first_name: str
    last_name: str = ""
    phone_number: str
    email: str | None = None
    relationships: list[str] = json_list()
    birthday: date | None = None
    home_address: str | None = None


class PhoneTextMessage(AppModel, table=True):
    """One text message between two phone numbers."""

    __tablename__ = "phone_text_message"
    id: int = Field(default=None, primary_key=True)
    sender_phone_number: str
    receiver_phone_number: str
    message: str
    sent_at: NaiveDatetime


class PhoneAlarm(AppModel, table=True):
    """An alarm on one phone."""

    __tablename__ = "phone_alarm"
    __table_args__ = {"sqlite_autoincrement": True}
    id: int = Field(default=None, primary_key=True)
    account_id: int
    time: str
    label: str = ""
    repeat_days: list[str] = json_list()
    enabled: bool = True


def _digits(number: str) -> str:
    return re.sub(r"\D", "", number)


def _find_account(db: Session, number: str) -> PhoneAccount | None:
    wanted = _digits(number)
    return next((a for a in db.exec(select(PhoneAccount)).all() if wanted and _digits(a.phone_number) == wanted), None)


register_app(
    AppSpec(
        "phone",
        "Phone: contacts, text messages, alarms and the current date and time.",
        (PhoneAccount, PhoneContact, PhoneTextMessage, PhoneAlarm),
        find_account=_find_account,
    )
)


# ---- shared helpers ----------------------------------------------------------------


def _session(env: ToolEnv) -> AbstractContextManager[tuple[Session, PhoneAccount]]:
    """A transaction and the logged-in account."""
    return logged_in(env, "phone")


def _phone(number: str) -> str:
    """A phone number as given (trimmed), if it has 7 to 15 digits and only phone characters."""
    cleaned = number.strip()
    if not PHONE_RE.match(cleaned) or not 7 <= len(_digits(cleaned)) <= 15:
        raise ToolError(f"invalid phone number {number!r}")
    return cleaned


def _email(value: str) -> str:
    address = value.strip().lower()
    if not EMAIL_RE.match(address):
        raise ToolError(f"invalid email address {value!r}")
    return address


def _relationships(values: list[str]) -> list[str]:
    return list(dict.fromkeys(v.strip().lower() for v in values if v.strip()))


def _alarm_time(value: str) -> str:
    match = TIME_RE.match(value.strip())
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise ToolError(f"invalid time {value!r}; use 24-hour HH:MM")
    return f"{int(match[1]):02d}:{match[2]}"


def _weekdays(values: list[str]) -> list[str]:
    """Full lower-case weekday names in week order; accepts names and abbreviations like 'Mon'."""
    days = set()
    for value in values:
        key = value.strip().lower()
        day = next((d for d in WEEKDAYS if len(key) >= 3 and d.startswith(key)), None)
        if day is None:
            raise ToolError(f"invalid day {value!r}; use weekday names like 'monday'")
        days.add(day)
    return [d for d in WEEKDAYS if d in days]


def _changes(args: BaseModel, key: str) -> dict[str, Any]:
    """The optional fields an update call actually sets."""
    changes = args.model_dump(exclude_none=True, exclude={key, "access_token"})
    if not changes:
        raise ToolError("nothing to update: give at least one field")
    return changes


def _own(db: Session, me: PhoneAccount, model: type[PhoneContact] | type[PhoneAlarm], row_id: int, what: str) -> Any:
    row = get_row(db, model, row_id, what)
    if row.account_id != me.id:
        raise ToolError(f"{what} {row_id} is not on your phone")
    return row


def _contacts(db: Session, me: PhoneAccount) -> list[PhoneContact]:
    query = select(PhoneContact).where(PhoneContact.account_id == me.id)
    return sorted(db.exec(query).all(), key=lambda c: (c.first_name.lower(), c.last_name.lower(), c.id))


def _check_unique_number(db: Session, me: PhoneAccount, number: str, contact_id: int | None = None) -> None:
    for contact in _contacts(db, me):
        if contact.id != contact_id and _digits(contact.phone_number) == _digits(number):
            raise ToolError(f"contact {contact.id} already has phone number {contact.phone_number}")


def _contact_dict(contact: PhoneContact) -> dict[str, Any]:
    return {
        "contact_id": contact.id,
        "first_name": contact.first_name,
        "last_name": contact.last_name,
        "phone_number": contact.phone_number,
        "email": contact.email,
        "relationships": contact.relationships,
        "birthday": contact.birthday.isoformat() if contact.birthday else None,
        "home_address": contact.home_address,
    }


def _names(db: Session, me: PhoneAccount) -> dict[str, str]:
    """Digits of a number -> the name the owner knows it by (own contacts first, then phone owners)."""
    names = {_digits(a.phone_number): a.name for a in db.exec(select(PhoneAccount)).all()}
    names.update({_digits(c.phone_number): f"{c.first_name} {c.last_name}".strip() for c in _contacts(db, me)})
    names[_digits(me.phone_number)] = me.name
    return names


def _messages(db: Session, me: PhoneAccount) -> list[PhoneTextMessage]:
    """Texts sent or received by the owner, newest first."""
    mine = _digits(me.phone_number)
    newest = (col(PhoneTextMessage.sent_at).desc(), col(PhoneTextMessage.id).desc())
    messages = db.exec(select(PhoneTextMessage).order_by(*newest)).all()
    return [m for m in messages if mine in (_digits(m.sender_phone_number), _digits(m.receiver_phone_number))]


def _sent_by(message: PhoneTextMessage, me: PhoneAccount) -> bool:
    return _digits(message.sender_phone_number) == _digits(me.phone_number)


def _other_party(message: PhoneTextMessage, me: PhoneAccount) -> str:
    return message.receiver_phone_number if _sent_by(message, me) else message.sender_phone_number


def _message_dict(message: PhoneTextMessage, me: PhoneAccount, names: dict[str, str]) -> dict[str, Any]:
    return {
        "text_message_id": message.id,
        "direction": "sent" if _sent_by(message, me) else "received",
        "sender_phone_number": message.sender_phone_number,
        "sender_name": names.get(_digits(message.sender_phone_number)),
        "receiver_phone_number": message.receiver_phone_number,
        "receiver_name": names.get(_digits(message.receiver_phone_number)),
        "message": message.message,
        "sent_at": message.sent_at.isoformat(),
    }


def _alarm_dict(alarm: PhoneAlarm) -> dict[str, Any]:
    return {
        "alarm_id": alarm.id,
        "time": alarm.time,
        "label": alarm.label,
        "repeat_days": alarm.repeat_days,
        "enabled": alarm.enabled,
    }


# ---- argument models -------------------------------------------------------------------


class ContactFields(BaseModel):
    email: str | None = Arg(default=None, description="Email address.")
    relationships: list[str] | None = Arg(default=None, description="Relationships to the owner, e.g. ['friend'].")
    birthday: date | None = Arg(default=None, description="Birthday, YYYY-MM-DD.")
    home_address: str | None = Arg(default=None, description="Home address.")


class AddContactArgs(ContactFields):
    first_name: str = Arg(description="First name.")
    last_name: str = Arg(description="Last name.")
    phone_number: str = Arg(description="Phone number.")


class UpdateContactArgs(ContactFields):
    contact_id: int = Arg(description="Id of the contact.")
    first_name: str | None = Arg(default=None, description="New first name.")
    last_name: str | None = Arg(default=None, description="New last name.")
    phone_number: str | None = Arg(default=None, description="New phone number.")


class SearchContactsArgs(PageArgs):
    query: str | None = Arg(default=None, description="Words to search in names, number, email and address.")
    relationship: str | None = Arg(default=None, description="Only contacts with this relationship, e.g. 'friend'.")


class SendTextArgs(BaseModel):
    phone_number: str = Arg(description="Recipient's phone number.")
    message: str = Arg(description="Text to send.")


class SearchTextsArgs(PageArgs):
    query: str | None = Arg(default=None, description="Words to search in the text and the other party's name.")
    phone_number: str | None = Arg(default=None, description="Only the conversation with this number.")


class TextMessageArgs(BaseModel):
    text_message_id: int = Arg(description="Id of the text message.")


class WindowArgs(PageArgs):
    phone_number: str = Arg(description="The other party's phone number.")


class CreateAlarmArgs(BaseModel):
    time: str = Arg(description="Time of day, 24-hour HH:MM.")
    label: str = Arg(default="", description="Label shown when the alarm rings.")
    repeat_days: list[str] = Arg(default_factory=list, description="Weekdays it repeats on, e.g. ['monday'].")
    enabled: bool = Arg(default=True, description="Whether the alarm is on.")


class UpdateAlarmArgs(BaseModel):
    alarm_id: int = Arg(description="Id of the alarm.")
    time: str | None = Arg(default=None, description="New time of day, 24-hour HH:MM.")
    label: str | None = Arg(default=None, description="New label.")
    repeat_days: list[str] | None = Arg(default=None, description="New repeat weekdays (replaces the old ones).")
    enabled: bool | None = Arg(default=None, description="Turn the alarm on (true) or off (false).")


class AlarmArgs(BaseModel):
    alarm_id: int = Arg(description="Id of the alarm.")


# ---- tools ---------------------------------------------------------------------------------


@register_tool("phone__get_current_date_and_time", group="phone")
def get_current_date_and_time(env: ToolEnv, args: NoArgs) -> dict[str, str]:
    """The phone's current date, time and weekday."""
    with env.require_apps().db() as db:
        current = now(db)
    return {
        "date": current.date().isoformat(),
        "time": current.strftime("%H:%M:%S"),
        "day_of_week": WEEKDAYS[current.weekday()].capitalize(),
        "datetime": current.isoformat(),
    }


def _validated_contact_fields(db: Session, me: PhoneAccount, fields: dict[str, Any], contact_id: int | None) -> dict[str, Any]:
    """Contact fields checked and normalised (number, email, relationships, birthday, names)."""
    if "phone_number" in fields:
        fields["phone_number"] = _phone(fields["phone_number"])
        _check_unique_number(db, me, fields["phone_number"], contact_id)
    if "email" in fields:
        fields["email"] = _email(fields["email"])
    if "relationships" in fields:
        fields["relationships"] = _relationships(fields["relationships"])
    if "birthday" in fields and fields["birthday"] > now(db).date():
        raise ToolError("birthday cannot be in the future")
    if "first_name" in fields and not fields["first_name"].strip():
        raise ToolError("first_name must not be empty")
    return fields


@register_tool("phone__add_contact", group="phone")
def add_contact(env: ToolEnv, args: AddContactArgs) -> dict[str, Any]:
    """Add a contact to the phone's address book."""
    with _session(env) as (db, me):
        fields = _validated_contact_fields(db, me, args.model_dump(exclude_none=True, exclude={"access_token"}), None)
        contact = PhoneContact(account_id=me.id, **fields)
        db.add(contact)
        db.flush()
        return {"contact_id": contact.id, "message": f"contact {contact.first_name} {contact.last_name} added"}


@register_tool("phone__update_contact", group="phone")
def update_contact(env: ToolEnv, args: UpdateContactArgs) -> dict[str, str]:
    """Change a contact's fields; omitted fields stay, relationships are replaced."""
    with _session(env) as (db, me):
        contact = _own(db, me, PhoneContact, args.contact_id, "contact")
        for name, value in _validated_contact_fields(db, me, _changes(args, "contact_id"), args.contact_id).items():
            setattr(contact, name, value)
        db.add(contact)
    return {"message": f"contact {args.contact_id} updated"}


@register_tool("phone__search_contacts", group="phone")
def search_contacts(env: ToolEnv, args: SearchContactsArgs) -> list[dict[str, Any]]:
    """Search the address book by words and/or relationship, sorted by name."""
    relationship = args.relationship.strip().lower() if args.relationship else None
    with _session(env) as (db, me):
        found = [
            c
            for c in _contacts(db, me)
            if (relationship is None or relationship in c.relationships)
            and matches_query(args.query, c.first_name, c.last_name, c.phone_number, c.email, c.home_address, *c.relationships)
        ]
        return [_contact_dict(c) for c in paginate(found, args)]


@register_tool("phone__send_text_message", group="phone")
def send_text_message(env: ToolEnv, args: SendTextArgs) -> dict[str, Any]:
    """Send a text message (SMS) to a phone number."""
    number = _phone(args.phone_number)
    if not args.message.strip():
        raise ToolError("message must not be empty")
    with _session(env) as (db, me):
        if _digits(number) == _digits(me.phone_number):
            raise ToolError("cannot text your own number")
        text = PhoneTextMessage(sender_phone_number=me.phone_number, receiver_phone_number=number, message=args.message, sent_at=now(db))
        db.add(text)
        db.flush()
        return {"text_message_id": text.id, "message": f"text message sent to {number}"}


@register_tool("phone__search_text_messages", group="phone")
def search_text_messages(env: ToolEnv, args: SearchTextsArgs) -> list[dict[str, Any]]:
    """Search sent and received text messages, newest first."""
    wanted = _digits(_phone(args.phone_number)) if args.phone_number else None
    with _session(env) as (db, me):
        names = _names(db, me)
        found = []
        for m in _messages(db, me):
            other = _other_party(m, me)
            if wanted not in (None, _digits(other)):
                continue
            if matches_query(args.query, m.message, other, names.get(_digits(other))):
                found.append(m)
        return [_message_dict(m, me, names) for m in paginate(found, args)]


@register_tool("phone__show_text_message", group="phone")
def show_text_message(env: ToolEnv, args: TextMessageArgs) -> dict[str, Any]:
    """Show one text message the user sent or received."""
    with _session(env) as (db, me):
        message = next((m for m in _messages(db, me) if m.id == args.text_message_id), None)
        if message is None:
            raise ToolError(f"no text message with id {args.text_message_id}")
        return _message_dict(message, me, _names(db, me))


@register_tool("phone__show_text_message_window", group="phone")
def show_text_message_window(env: ToolEnv, args: WindowArgs) -> list[dict[str, Any]]:
    """The conversation with one phone number, newest message first."""
    wanted = _digits(_phone(args.phone_number))
    with _session(env) as (db, me):
        names = _names(db, me)
        found = [m for m in _messages(db, me) if _digits(_other_party(m, me)) == wanted]
        return [_message_dict(m, me, names) for m in paginate(found, args)]


@register_tool("phone__create_alarm", group="phone")
def create_alarm(env: ToolEnv, args: CreateAlarmArgs) -> dict[str, Any]:
    """Set a new alarm."""
    time, days = _alarm_time(args.time), _weekdays(args.repeat_days)
    with _session(env) as (db, me):
        fields: dict[str, Any] = {"time": time, "label": args.label.strip(), "repeat_days": days, "enabled": args.enabled}
        alarm = PhoneAlarm(account_id=me.id, **fields)
        db.add(alarm)
        db.flush()
        return {"alarm_id": alarm.id, "message": f"alarm set for {time}"}


@register_tool("phone__update_alarm", group="phone")
def update_alarm(env: ToolEnv, args: UpdateAlarmArgs) -> dict[str, str]:
    """Change an alarm's time, label, repeat days or on/off state; omitted fields stay."""
    changes = _changes(args, "alarm_id")
    if "time" in changes:
        changes["time"] = _alarm_time(changes["time"])
    if "repeat_days" in changes:
        changes["repeat_days"] = _weekdays(changes["repeat_days"])
    with _session(env) as (db, me):
        alarm = _own(db, me, PhoneAlarm, args.alarm_id, "alarm")
        for name, value in changes.items():
            setattr(alarm, name, value)
        db.add(alarm)
    return {"message": f"alarm {args.alarm_id} updated"}


@register_tool("phone__show_alarm", group="phone")
def show_alarm(env: ToolEnv, args: AlarmArgs) -> dict[str, Any]:
    """Show one alarm."""
    with _session(env) as (db, me):
        return _alarm_dict(_own(db, me, PhoneAlarm, args.alarm_id, "alarm"))


@register_tool("phone__show_alarms", group="phone")
def show_alarms(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the phone's alarms by time of day."""
    with _session(env) as (db, me):
        alarms = db.exec(select(PhoneAlarm).where(PhoneAlarm.account_id == me.id)).all()
        return [_alarm_dict(a) for a in paginate(sorted(alarms, key=lambda a: (a.time, a.id)), args)]


@register_tool("phone__delete_alarm", group="phone")
def delete_alarm(env: ToolEnv, args: AlarmArgs) -> dict[str, str]:
    """Delete an alarm."""
    with _session(env) as (db, me):
        db.delete(_own(db, me, PhoneAlarm, args.alarm_id, "alarm"))
    return {"message": f"alarm {args.alarm_id} deleted"}
