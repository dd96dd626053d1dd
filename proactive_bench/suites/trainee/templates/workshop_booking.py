"""Workshop booking (hard): book tomorrow's workshop in the smallest room that fits, at the one time the sponsor is free.

Data: a rooms document (room, seats). Two clues from two people: the team
lead knows how many will come (k1: the room), the sponsor's assistant knows
the sponsor's only free slot (k2: the time). Deliverables: one calendar event
(title, start, end, room, the lead and the sponsor invited) and an invitation
e-mail to the lead naming room and time, before the deadline. A guess (the
biggest room, the first afternoon slot) misses both; listing several rooms or
booking several slots fails the checks that forbid the others.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from proactive_bench.suites.trainee.files import docx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, email_step, iso_minutes, none_but

SEATS = (6, 12, 20, 30)
SLOTS = tuple(time(h, m) for h in range(9, 17) for m in (0, 30))
"""Every half-hour start the workshop could have (the checks forbid a booking at any but the right one)."""
GUESSED_SLOT = time(13, 0)
LENGTH = timedelta(minutes=90)


class WorkshopBooking(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead, sponsor, assistant = ctx.names.person(), ctx.names.person(), ctx.names.person()
        project = ctx.names.word("project")
        rooms = {ctx.names.word("room"): seats for seats in SEATS}
        fitting = rng.choice(list(rooms)[:-1])  # never the biggest room: guessing "biggest" must not fit exactly
        lower = max((s for s in SEATS if s < rooms[fitting]), default=2)
        headcount = rng.randint(lower + 1, rooms[fitting])
        slot = rng.choice([s for s in SLOTS if s != GUESSED_SLOT and s <= time(15, 30)])
        tomorrow = ctx.company.day + timedelta(days=1)
        start = datetime.combine(tomorrow, slot)
        end = start + LENGTH
        title = f"{project} workshop"
        workshop = named(project)
        biggest = list(rooms)[-1]
        guessed_start = datetime.combine(tomorrow, GUESSED_SLOT)
        doc = ctx.names.path(ctx.folder, "meeting_rooms", "docx")
        due = rng.choice((120, 150, 180))
        hhmm = slot.strftime("%H:%M")
        npcs = (
            colleague(lead, "Team Lead", "Product", f"Warm and busy; runs the {project} team and its rituals."),
            colleague(sponsor, "Vice President", "Product", "Rarely on chat; lets the assistant manage the diary."),
            colleague(assistant, "Executive Assistant", "Office of the VP", "Efficient and friendly; keeps the Vice President's diary."),
        )
        clues = (
            Clue(
                id="k1",
                holder=lead.handle,
                value=f"{headcount} of us",
                text=f"We will be {headcount} of us at the workshop, me included.",
                ask=(r"\b(how many|headcount|attend\w*|people|participants?|size)\b",),
                subject=workshop,
                question=f"How many people will attend the {title}?",
            ),
            Clue(
                id="k2",
                holder=assistant.handle,
                value=f"free from {hhmm} to {end.strftime('%H:%M')}",
                text=f"Tomorrow {sponsor.first} is only free from {hhmm} to {end.strftime('%H:%M')}.",
                ask=(r"\b(free|availab\w*|slot|when|time|diary|calendar|schedule)\b",),
                subject=(*workshop, *named(sponsor.first, sponsor.last)),
                question=f"When is {sponsor.name} free tomorrow for the {title}?",
            ),
        )
        others = [r for r in rooms if r != fitting]
        wrong_slots = [datetime.combine(tomorrow, s) for s in SLOTS if s != slot]
        deadline = minute_iso(ctx, ctx.arrival_minute + due)
        invite = f"{title}: tomorrow {hhmm}-{end.strftime('%H:%M')} in the {fitting} room."
        guess_invite = f"{title}: tomorrow {GUESSED_SLOT.strftime('%H:%M')} in the {biggest} room."
        event = {
            "title": title,
            "start": iso_minutes(start),
            "end": iso_minutes(end),
            "location": f"{fitting} room",
            "attendees": [lead.email, sponsor.email],
            "description": f"{project} team workshop.",
        }
        booked = called("calendar__create_event", title=title)
        return TaskDraft(
            title="Book a workshop",
            objective=(
                f"Book the {title} for tomorrow ({tomorrow.isoformat()}): a 90-minute calendar event titled '{title}' "
                f"that {lead.name}'s team and the sponsor, {sponsor.name}, can attend, in the smallest room of {doc} that "
                f"seats everyone (the event's location is the room's name), with {lead.email} and {sponsor.email} invited. "
                f"Then e-mail {lead.name} the room and the time, subject '{title}'."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the workshop is booked once, at the time the sponsor is free",
                    needs=("k2",),
                    check=none_but(
                        checker("calendar_event", title=title, start=iso_minutes(start), end=iso_minutes(end)),
                        (checker("calendar_event", title=title, start=iso_minutes(s)) for s in wrong_slots),
                    ),
                    attempt=booked,
                    feedback="Ask the sponsor's Executive Assistant when the sponsor is free before booking.",
                ),
                Checkpoint(
                    id="c2",
                    text="it is in the smallest room that seats everyone",
                    needs=("k1",),
                    check=none_but(
                        checker("calendar_event", title=title, location=fitting),
                        (checker("calendar_event", title=title, location=r) for r in others),
                    ),
                    attempt=booked,
                    feedback="Ask the Team Lead how many people come, then pick the smallest room that seats them.",
                ),
                Checkpoint(
                    id="c3",
                    text="the team lead and the sponsor are invited",
                    check=checker("calendar_event", title=title, attendees=[lead.email, sponsor.email]),
                    feedback="Invite the people the event is for.",
                ),
                Checkpoint(
                    id="c4",
                    text="the team lead got the room and the time by e-mail before the deadline",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("email_sent", to=lead.email, subject_contains=title, body_contains=[fitting, hhmm], before=deadline),
                        (checker("email_sent", to=lead.email, body_contains=[r]) for r in others),
                    ),
                    attempt=checker("email_sent", to=lead.email),
                    feedback="Confirm the booking to the Team Lead by e-mail, with the room and time, before the deadline.",
                ),
            ),
            files={doc: docx_bytes("Meeting rooms", [f"{room} room: seats {seats}" for room, seats in rooms.items()])},
            timing=Timing(due_minutes=due, work_minutes=25),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="calendar__create_event",
                    args=event,
                    needs=("k1", "k2"),
                    guess={
                        **event,
                        "start": iso_minutes(guessed_start),
                        "end": iso_minutes(guessed_start + LENGTH),
                        "location": f"{biggest} room",
                    },
                ),
                email_step(lead.email, title, invite, needs=("k1", "k2"), guessed_body=guess_invite),
            ),
            hints=Hints(
                data=f"Room sizes are in {doc}; the Team Lead knows the headcount, the Executive Assistant the sponsor's diary.",
                method="Pick the room with the fewest seats not below the headcount; book the sponsor's free 90 minutes.",
            ),
        )


register_template(WorkshopBooking("workshop_booking", "hard", ("chat", "documents", "calendar", "email"), "scheduling"))
