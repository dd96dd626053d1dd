"""Calendar: the user's events, with iCalendar (.ics) import and export; no login.

Table ``calendar_event``: one event (title, start, end, location, description,
attendees as a JSON list of lower-cased e-mail addresses, the iCalendar ``uid``
it was imported under). Times are naive wall-clock times like every app
timestamp; an event ends strictly after it starts.

Seeded rows keep ``created_by_agent`` and ``updated_by_agent`` false; an event
the agent creates (or imports) has ``created_by_agent`` true, and one it changes
``updated_by_agent`` true, so a checker can tell the agent's work from the
seed without comparing snapshots. Ids are never reused after a delete.

ICS files are read and written with ``icalendar`` through the workspace jail.
Import keeps the wall-clock time written in the file (a ``TZID`` or UTC ``Z``
is dropped, not converted) and refuses recurring events (``RRULE``) rather
than import one occurrence of them; export writes floating times, so an export
imported again gives the same events. An imported event whose ``UID`` is
already in the calendar replaces that event instead of adding a copy.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field as Arg, NaiveDatetime, StringConstraints, field_validator, model_validator
from sqlmodel import Field, Session, col, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    email_addresses,
    get_row,
    json_list,
    matches_query,
    now,
    register_app,
)
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool

if TYPE_CHECKING:
    from icalendar import Component

APP = "calendar"
ICS_LIMIT = 5 * 2**20
"""The largest .ics file import reads (bytes)."""
PRODID = "-//pbench//calendar app//EN"
UID_SUFFIX = "@pbench-calendar"
Title = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class CalendarEvent(AppModel, table=True):
    """One calendar event."""

    __tablename__ = "calendar_event"
    __table_args__ = {"sqlite_autoincrement": True}
    id: int = Field(default=None, primary_key=True)
    title: str
    start: NaiveDatetime
    end: NaiveDatetime
    location: str = ""
    description: str = ""
    attendees: list[str] = json_list()
    uid: str | None = Field(default=None, description="The iCalendar UID the event was imported under, if any.")
    created_by_agent: bool = False
    updated_by_agent: bool = False

    @field_validator("attendees")
    @classmethod
    def _lower_case(cls, attendees: list[str]) -> list[str]:
        """Seeded attendees compare like the tools' (stripped, lower-cased)."""
        return [a.strip().lower() for a in attendees]

    @model_validator(mode="after")
    def _ends_after_start(self) -> CalendarEvent:
        """Seed rows (validated on load) must end after they start, as the tools require."""
        if self.end <= self.start:
            raise ValueError(f"end {self.end.isoformat(timespec='minutes')} is not after start {self.start.isoformat(timespec='minutes')}")
        return self


register_app(AppSpec(APP, "Calendar: the user's events; ICS import and export.", (CalendarEvent,), requires_login=False))


def event_uid(event: CalendarEvent) -> str:
    """The event's iCalendar UID: the one it was imported under, else one made from its id."""
    return event.uid or f"event-{event.id}{UID_SUFFIX}"


def _by_uid(db: Session, uid: str) -> CalendarEvent | None:
    """The event an iCalendar UID names: one imported under it, or the event whose id a UID of ours was made from."""
    found = db.exec(select(CalendarEvent).where(CalendarEvent.uid == uid)).first()
    number = uid.removeprefix("event-").removesuffix(UID_SUFFIX)
    if found is None and uid.endswith(UID_SUFFIX) and number.isdigit():
        found = db.get(CalendarEvent, int(number))
        return found if found is not None and found.uid is None else None
    return found


def _event_dict(event: CalendarEvent) -> dict[str, Any]:
    return {
        "event_id": event.id,
        "title": event.title,
        "start": event.start.isoformat(timespec="minutes"),
        "end": event.end.isoformat(timespec="minutes"),
        "location": event.location,
        "description": event.description,
        "attendees": list(event.attendees),
    }


def _check_times(start: datetime, end: datetime, what: str) -> None:
    if end <= start:
        raise ToolError(f"{what}: end {end.isoformat(timespec='minutes')} is not after start {start.isoformat(timespec='minutes')}")


def _events(db: Session, start_date: date | None = None, end_date: date | None = None) -> list[CalendarEvent]:
    """Events that overlap the days from ``start_date`` to ``end_date`` (inclusive), in start order."""
    if start_date and end_date and end_date < start_date:
        raise ToolError(f"end_date {end_date} is before start_date {start_date}")
    query = select(CalendarEvent).order_by(col(CalendarEvent.start), col(CalendarEvent.id))
    if start_date is not None:
        query = query.where(CalendarEvent.end > datetime.combine(start_date, time()))
    if end_date is not None:
        query = query.where(CalendarEvent.start < datetime.combine(end_date + timedelta(days=1), time()))
    return list(db.exec(query).all())


def _overlapping(db: Session, event: CalendarEvent) -> list[dict[str, Any]]:
    """Other events sharing some time with ``event`` (a warning for the agent, not an error)."""
    query = select(CalendarEvent).where(CalendarEvent.start < event.end, CalendarEvent.end > event.start, CalendarEvent.id != event.id)
    return [{"event_id": e.id, "title": e.title, "start": e.start.isoformat(timespec="minutes")} for e in db.exec(query).all()]


# ---- create, list, update, delete ------------------------------------------------------------------
class CreateEventArgs(BaseModel):
    title: Title = Arg(description="Title of the event.")
    start: NaiveDatetime = Arg(description="Start, ISO YYYY-MM-DDTHH:MM (local time, no zone).")
    end: NaiveDatetime = Arg(description="End, ISO YYYY-MM-DDTHH:MM; must be after start.")
    location: str = Arg(default="", description="Where it takes place.")
    attendees: list[str] = Arg(default_factory=list, description="E-mail addresses of the people invited.")
    description: str = Arg(default="", description="Notes or agenda.")


@register_tool("calendar__create_event", group=APP)
def create_event(env: ToolEnv, args: CreateEventArgs) -> dict[str, Any]:
    """Create a calendar event; returns its event_id and any events it overlaps."""
    _check_times(args.start, args.end, "the event")
    attendees = email_addresses(args.attendees, "attendees")
    with env.require_apps().db() as db:
        event = CalendarEvent(
            title=args.title,
            start=args.start,
            end=args.end,
            location=args.location.strip(),
            description=args.description,
            attendees=attendees,
            created_by_agent=True,
        )
        db.add(event)
        db.flush()
        return {"event_id": event.id, "message": f"created event {event.title!r}", "overlaps": _overlapping(db, event)}


class ListEventsArgs(BaseModel):
    start_date: date | None = Arg(default=None, description="First day (YYYY-MM-DD, inclusive); omit for no lower bound.")
    end_date: date | None = Arg(default=None, description="Last day (YYYY-MM-DD, inclusive); omit for no upper bound.")
    query: str | None = Arg(default=None, description="Words that must all occur in the title, description or location.")


@register_tool("calendar__list_events", group=APP)
def list_events(env: ToolEnv, args: ListEventsArgs) -> list[dict[str, Any]]:
    """List events in start order: those overlapping the given days, matching the query."""
    with env.require_apps().db() as db:
        events = _events(db, args.start_date, args.end_date)
        return [_event_dict(e) for e in events if matches_query(args.query, e.title, e.description, e.location)]


class UpdateEventArgs(BaseModel):
    event_id: int = Arg(description="Id of the event.")
    title: Title | None = Arg(default=None, description="New title.")
    start: NaiveDatetime | None = Arg(default=None, description="New start, ISO YYYY-MM-DDTHH:MM.")
    end: NaiveDatetime | None = Arg(default=None, description="New end, ISO YYYY-MM-DDTHH:MM.")
    location: str | None = Arg(default=None, description="New location.")
    attendees: list[str] | None = Arg(default=None, description="New attendee list (replaces the old one).")
    description: str | None = Arg(default=None, description="New description (replaces the old one).")


@register_tool("calendar__update_event", group=APP)
def update_event(env: ToolEnv, args: UpdateEventArgs) -> dict[str, Any]:
    """Change an event's title, times, location, attendees or description."""
    changes = args.model_dump(exclude={"event_id"}, exclude_none=True)
    if not changes:
        raise ToolError("nothing to update: pass at least one of title, start, end, location, attendees, description")
    if "attendees" in changes:
        changes["attendees"] = email_addresses(changes["attendees"], "attendees")
    with env.require_apps().db() as db:
        event = get_row(db, CalendarEvent, args.event_id, "event")
        _check_times(changes.get("start", event.start), changes.get("end", event.end), f"event {args.event_id}")
        event.sqlmodel_update({**changes, "updated_by_agent": True})
        db.add(event)
        db.flush()
        return {"message": f"updated event {args.event_id}", "event": _event_dict(event), "overlaps": _overlapping(db, event)}


class EventIdArgs(BaseModel):
    event_id: int = Arg(description="Id of the event.")


@register_tool("calendar__delete_event", group=APP)
def delete_event(env: ToolEnv, args: EventIdArgs) -> dict[str, str]:
    """Delete an event."""
    with env.require_apps().db() as db:
        event = get_row(db, CalendarEvent, args.event_id, "event")
        db.delete(event)
    return {"message": f"deleted event {args.event_id} ({event.title!r})"}


# ---- ICS -------------------------------------------------------------------------------------------
class IcsPathArgs(BaseModel):
    path: str = Arg(description="Workspace-relative path of an .ics file.")


def _ics_path(path: str) -> str:
    if not path.lower().endswith(".ics"):
        raise ToolError(f"{path}: an iCalendar file must end in .ics")
    return path


def _wall_clock(value: Any, where: str, name: str) -> datetime:
    """An iCalendar DTSTART/DTEND value as a naive datetime (a date is its midnight; a zone is dropped)."""
    moment = getattr(value, "dt", None)
    if isinstance(moment, datetime):
        return moment.replace(tzinfo=None, second=0, microsecond=0)
    if isinstance(moment, date):
        return datetime.combine(moment, time())
    raise ToolError(f"{where}: {name} is missing or not a date/time")


def _parsed_event(component: Component, where: str) -> CalendarEvent:
    """One VEVENT as an (unsaved) event; ToolError naming the event and the field that is wrong."""
    title = str(component.get("SUMMARY", "")).strip()
    where = f"{where} ({title!r})" if title else where
    if not title:
        raise ToolError(f"{where}: SUMMARY (the title) is missing")
    if "RRULE" in component:
        raise ToolError(f"{where}: recurring events (RRULE) are not supported")
    start = _wall_clock(component.get("DTSTART"), where, "DTSTART")
    if "DTEND" in component:
        end = _wall_clock(component.get("DTEND"), where, "DTEND")
    elif "DURATION" in component:
        duration: Any = component["DURATION"]  # icalendar types a property as the union of every value type
        end = start + duration.dt
    else:
        raise ToolError(f"{where}: neither DTEND nor DURATION is given")
    _check_times(start, end, where)
    raw = component.get("ATTENDEE", [])
    addresses = [
        str(a).split(":", 1)[1] if str(a).lower().startswith("mailto:") else str(a) for a in (raw if isinstance(raw, list) else [raw])
    ]
    return CalendarEvent(
        title=title,
        start=start,
        end=end,
        location=str(component.get("LOCATION", "")).strip(),
        description=str(component.get("DESCRIPTION", "")),
        attendees=email_addresses(addresses, f"{where}: ATTENDEE"),
        uid=str(component["UID"]) if "UID" in component else None,
        created_by_agent=True,
    )


@register_tool("calendar__import_ics", group=APP)
def import_ics(env: ToolEnv, args: IcsPathArgs) -> dict[str, Any]:
    """Add the events of a workspace .ics file to the calendar (an event whose UID is already there is replaced)."""
    from icalendar import Calendar  # with the first ICS file: every run loads the app's tables, few read a calendar file

    data = env.workspace.read_bytes(_ics_path(args.path), ICS_LIMIT)
    try:
        calendar = Calendar.from_ical(data)
    except Exception as exc:  # icalendar raises ValueError and others for a damaged file
        raise ToolError(f"{args.path}: not a valid iCalendar file: {exc}") from None
    parsed = [_parsed_event(c, f"{args.path}: event {n}") for n, c in enumerate(calendar.walk("VEVENT"), start=1)]
    if not parsed:
        raise ToolError(f"{args.path}: no events (VEVENT) in the file")
    added, replaced = [], []
    with env.require_apps().db() as db:
        for event in parsed:
            known = _by_uid(db, event.uid) if event.uid else None
            if known is None:
                db.add(event)
                db.flush()
                added.append(event.id)
            else:
                known.sqlmodel_update(event.model_dump(exclude={"id", "uid", "created_by_agent"}) | {"updated_by_agent": True})
                db.add(known)
                replaced.append(known.id)
    return {"message": f"imported {len(parsed)} events from {args.path}", "added_event_ids": added, "replaced_event_ids": replaced}


class ExportArgs(IcsPathArgs):
    start_date: date | None = Arg(default=None, description="Only events on or after this day (YYYY-MM-DD).")
    end_date: date | None = Arg(default=None, description="Only events on or before this day (YYYY-MM-DD).")


@register_tool("calendar__export_ics", group=APP)
def export_ics(env: ToolEnv, args: ExportArgs) -> dict[str, Any]:
    """Write the calendar's events (optionally only those on the given days) to a workspace .ics file."""
    from icalendar import Calendar, Event, vCalAddress  # as in import_ics

    path = _ics_path(args.path)
    calendar = Calendar()
    calendar.add("prodid", PRODID)
    calendar.add("version", "2.0")
    with env.require_apps().db() as db:
        stamp = now(db)
        events = _events(db, args.start_date, args.end_date)
    for event in events:
        entry = Event()
        entry.add("uid", event_uid(event))
        entry.add("dtstamp", stamp)
        entry.add("summary", event.title)
        entry.add("dtstart", event.start)
        entry.add("dtend", event.end)
        if event.location:
            entry.add("location", event.location)
        if event.description:
            entry.add("description", event.description)
        for address in event.attendees:
            entry.add("attendee", vCalAddress(f"mailto:{address}"))
        calendar.add_component(entry)
    env.workspace.write_bytes(path, calendar.to_ical())
    return {"message": f"exported {len(events)} events to {path}", "event_ids": [e.id for e in events]}
