"""The last day to give notice on a contract (easy; time management and scheduling): a reminder on the calendar.

One clue: the notice period of the supplier's contract is the legal
counsel's (k1, in days). The contracts sheet gives each contract's end date;
the last day to give notice is the end date minus the notice period. A
guessed 30 days puts the reminder on another day; one reminder only.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, iso_minutes, none_but

NOTICE_DAYS = (45, 60, 90, 120)
GUESSED_DAYS = 30
AT = time(9, 0)


class NoticeDeadline(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        counsel = ctx.names.person()
        supplier = ctx.names.word("vendor")
        services = rng.sample(("cleaning", "catering", "security", "printing", "courier", "waste collection"), 3)
        ends = {s: ctx.company.day + timedelta(days=rng.randint(150, 400)) for s in services}
        service = rng.choice(services)
        notice = rng.choice(NOTICE_DAYS)
        last = ends[service] - timedelta(days=notice)
        sheet = ctx.names.path(ctx.folder, f"{supplier.lower()}_contracts", "xlsx")
        title = f"Last day to give notice: {supplier} {service}"
        clue = Clue(
            id="k1",
            holder=counsel.handle,
            value=f"{notice} days' notice",
            text=f"The {supplier} {service} contract needs {notice} days' notice before its end date.",
            ask=(r"\b(notice( period)?|how (long|much) notice|days'? notice)\b",),
            subject=named(supplier),
            question=f"What notice period does the {supplier} {service} contract have?",
        )
        wrong = [ends[service] - timedelta(days=d) for d in (*NOTICE_DAYS, GUESSED_DAYS) if d != notice]
        event = {
            "title": title,
            "start": iso_minutes(datetime.combine(last, AT)),
            "end": iso_minutes(datetime.combine(last, AT) + timedelta(minutes=30)),
        }
        guessed = datetime.combine(ends[service] - timedelta(days=GUESSED_DAYS), AT)
        return TaskDraft(
            title="Set a notice reminder",
            objective=(
                f"We may not renew the {supplier} {service} contract. Put a 30-minute reminder at 09:00 on the last day we can still "
                f"give notice (its end date is in {sheet}) in the calendar, titled '{title}'. One reminder only."
            ),
            npcs=(colleague(counsel, "Legal Counsel", "Legal", "Reads every supplier contract; precise about dates."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the reminder is on the last day to give notice, and on no other day",
                    needs=("k1",),
                    check=none_but(
                        checker("calendar_event", title=title, start=event["start"]),
                        (checker("calendar_event", title=title, start=iso_minutes(datetime.combine(d, AT))) for d in wrong),
                    ),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Ask Legal for a contract's notice period and count back from its end date.",
                ),
                Checkpoint(
                    id="c2",
                    text="the reminder lasts 30 minutes from 09:00",
                    needs=("k1",),
                    check=checker("calendar_event", title=title, start=event["start"], end=event["end"]),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Make the reminder as asked: 30 minutes from 09:00.",
                ),
            ),
            files={sheet: xlsx_bytes({"Contracts": [["Service", "End date"], *([s, ends[s].isoformat()] for s in services)]})},
            timing=Timing(due_minutes=rng.choice((120, 180, 240)), work_minutes=10),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="calendar__create_event",
                    args=event,
                    needs=("k1",),
                    guess={**event, "start": iso_minutes(guessed), "end": iso_minutes(guessed + timedelta(minutes=30))},
                ),
            ),
            hints=Hints(
                data=f"The end date is in {sheet}; Legal knows the notice period in days.",
                method="Subtract the notice period from the end date.",
            ),
        )


register_template(NoticeDeadline("notice_deadline", "easy", ("chat", "spreadsheets", "calendar"), "scheduling"))
