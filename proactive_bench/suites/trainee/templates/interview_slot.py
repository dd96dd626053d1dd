"""Scheduling an interview (hard; time management and scheduling): the first hour both interviewers are free, within the
candidate's window.

One clue: the candidate's available window on the interview day is the HR
partner's (k1, a scenario-wide colleague who may hold other tasks' clues,
told apart by the candidate they name). The interviewers' busy times are in a
sheet. The event must be the first free hour inside the window, with both
interviewers and the candidate invited; the first hour both are free all day
(the natural guess) lies outside the window.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, iso_minutes, none_but

HOURS = range(9, 17)
"""Interviews start on the hour, 09:00 to 16:00."""


class InterviewSlot(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        hr = shared_colleague(ctx, "hr")
        first, second, candidate = ctx.names.person(), ctx.names.person(), ctx.names.person()
        role = rng.choice(("Data Analyst", "Backend Engineer", "Account Manager", "Product Designer"))
        day = ctx.company.day + timedelta(days=rng.randint(2, 4))
        while True:
            busy = {p.name: set(rng.sample(list(HOURS), rng.randint(2, 5))) for p in (first, second)}
            free = [h for h in HOURS if all(h not in b for b in busy.values())]
            window = sorted(rng.sample(list(HOURS), 2))
            inside = [h for h in free if window[0] <= h and h + 1 <= window[1]]
            if len(free) >= 2 and inside and free[0] not in inside:
                break
        slot = inside[0]
        start = datetime.combine(day, time(slot))
        sheet = ctx.names.path(ctx.folder, "interviewers_busy", "xlsx")
        title = f"Interview: {candidate.name} ({role})"
        address = f"{candidate.first.lower()}.{candidate.last.lower()}@mailbox.example"
        clue = Clue(
            id="k1",
            holder=hr.handle,
            value=f"between {window[0]:02d}:00 and {window[1]:02d}:00",
            text=f"{candidate.name} can only do the interview on {day.isoformat()} between {window[0]:02d}:00 and {window[1]:02d}:00.",
            ask=(r"\b(when|availab\w*|free|window|what time)\b",),
            subject=named(candidate.first, candidate.last),
            question=f"When is {candidate.name} available for the interview on {day.isoformat()}?",
        )
        rows = [["Interviewer", "Busy from", "Busy until"]] + [
            [name, f"{h:02d}:00", f"{h + 1:02d}:00"] for name, hours in busy.items() for h in sorted(hours)
        ]
        event = {
            "title": title,
            "start": iso_minutes(start),
            "end": iso_minutes(start + timedelta(hours=1)),
            "attendees": [first.email, second.email, address],
        }
        guessed = datetime.combine(day, time(free[0]))
        return TaskDraft(
            title="Schedule an interview",
            objective=(
                f"Schedule a one-hour interview with the candidate {candidate.name} ({address}) for the {role} role on {day.isoformat()}, "
                f"on the hour: the first hour both interviewers, {first.name} and {second.name}, are free (their busy times: "
                f"{sheet}) that also suits the candidate. Title it '{title}' and invite all three."
            ),
            npcs=(
                hr,
                colleague(first, "Hiring Manager", "Engineering", f"Is hiring for the {role} role."),
                colleague(second, "Senior Specialist", "Engineering", "Sits on interview panels."),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the interview is at the first hour that suits all three, and at no other time",
                    needs=("k1",),
                    check=none_but(
                        checker("calendar_event", title=title, start=iso_minutes(start), end=iso_minutes(start + timedelta(hours=1))),
                        (
                            checker("calendar_event", title=title, start=iso_minutes(datetime.combine(day, time(h))))
                            for h in HOURS
                            if h != slot
                        ),
                    ),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Ask HR when a candidate is available before scheduling their interview.",
                ),
                Checkpoint(
                    id="c2",
                    text="the interview at that hour invites both interviewers and the candidate",
                    needs=("k1",),
                    check=checker("calendar_event", title=title, start=iso_minutes(start), attendees=[first.email, second.email, address]),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Invite everyone the interview needs.",
                ),
            ),
            files={sheet: xlsx_bytes({"Busy": rows})},
            timing=Timing(due_minutes=rng.choice((120, 180, 240)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="calendar__create_event",
                    args=event,
                    needs=("k1",),
                    guess={**event, "start": iso_minutes(guessed), "end": iso_minutes(guessed + timedelta(hours=1))},
                ),
            ),
            hints=Hints(
                data=f"The interviewers' busy hours are in {sheet}; HR knows the candidate's availability.",
                method="List the hours both interviewers are free, keep those inside the candidate's window, take the first.",
            ),
        )


register_template(InterviewSlot("interview_slot", "hard", ("chat", "spreadsheets", "calendar"), "scheduling"))
