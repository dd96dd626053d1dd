"""Booking a train to a client meeting (hard; strategic modeling and optimization): the cheapest train that arrives in time.

One clue: when the client meeting starts is the client's assistant's (k1).
The timetable lists every train with its departure, arrival and fare; the
train must arrive at least 45 minutes before the meeting, and among those the
cheapest wins. The cheapest train overall always arrives too late, and the
earliest train is never the cheapest in time. The calendar must hold that
train and no other.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, iso_minutes, none_but

MARGIN = timedelta(minutes=45)
TRAINS = 7


class TrainBooking(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        assistant, manager = ctx.names.person(), ctx.names.person()
        city = ctx.names.word("city")
        client = ctx.names.word("vendor")
        day = ctx.company.day + timedelta(days=rng.randint(2, 6))
        while True:
            departures = sorted(rng.sample(range(6 * 60, 13 * 60, 5), TRAINS))
            trains = []
            for n, dep in enumerate(departures):
                length = rng.randrange(95, 200, 5)
                trains.append(
                    (
                        f"IC {rng.randint(100, 999)}{n}",
                        datetime.combine(day, datetime.min.time()) + timedelta(minutes=dep),
                        length,
                        rng.randrange(2900, 11900, 100),
                    )
                )
            meeting = datetime.combine(day, datetime.min.time()) + timedelta(minutes=rng.randrange(11 * 60, 15 * 60, 30))
            in_time = [t for t in trains if t[1] + timedelta(minutes=t[2]) + MARGIN <= meeting]
            late = [t for t in trains if t not in in_time]
            if not in_time or not late:
                continue
            best = min(in_time, key=lambda t: t[3])
            cheapest = min(trains, key=lambda t: t[3])
            earliest = min(in_time, key=lambda t: t[1])
            fares = [t[3] for t in in_time]
            if cheapest in late and earliest is not best and fares.count(best[3]) == 1:
                break
        number, leaves, minutes, fare = best
        arrives = leaves + timedelta(minutes=minutes)
        sheet = ctx.names.path(ctx.folder, f"trains_to_{city.lower()}", "xlsx")
        title = f"Train to {city} ({client} meeting)"
        clue = Clue(
            id="k1",
            holder=assistant.handle,
            value=f"starts at {meeting.strftime('%H:%M')}",
            text=f"The meeting with {client} in {city} on {day.isoformat()} starts at {meeting.strftime('%H:%M')}.",
            ask=(r"\b(when|what time|start\w*|begin\w*)\b",),
            subject=named(client),
            question=f"What time does the {client} meeting in {city} start?",
        )
        table = [["Train", "Departs", "Arrives", "Fare (EUR)"]] + [
            [n, d.strftime("%H:%M"), (d + timedelta(minutes=m)).strftime("%H:%M"), f"{f // 100}.{f % 100:02d}"] for n, d, m, f in trains
        ]
        event = {
            "title": title,
            "start": iso_minutes(leaves),
            "end": iso_minutes(arrives),
            "description": f"{number}, fare {fare // 100}.{fare % 100:02d} EUR",
        }
        guess_train = cheapest
        return TaskDraft(
            title="Book a train",
            objective=(
                f"You travel to {city} on {day.isoformat()} for the meeting with {client}. Put the cheapest train ({sheet}) that arrives at "
                f"least 45 minutes before the meeting starts in the calendar: an event titled '{title}' from its departure to its "
                "arrival. Book no other train."
            ),
            npcs=(
                colleague(assistant, "Executive Assistant", client, f"Keeps the diary of {client}'s director."),
                colleague(manager, "Account Manager", "Sales", f"Looks after the {client} account."),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the booked train is the cheapest that arrives in time, and no other train is booked",
                    needs=("k1",),
                    check=none_but(
                        checker("calendar_event", title=title, start=iso_minutes(leaves), end=iso_minutes(arrives)),
                        (checker("calendar_event", title=title, start=iso_minutes(t[1])) for t in trains if t is not best),
                    ),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Find out when a meeting starts before choosing how to get there; then take the cheapest train in time.",
                ),
                Checkpoint(
                    id="c2",
                    text="the train arrives at least 45 minutes before the meeting",
                    needs=("k1",),
                    check={"any": [checker("calendar_event", title=title, start=iso_minutes(t[1])) for t in in_time]},
                    attempt=called("calendar__create_event", title=title),
                    feedback="Leave enough margin: arriving after the meeting starts is not an option.",
                ),
            ),
            files={sheet: xlsx_bytes({"Trains": table})},
            timing=Timing(due_minutes=rng.choice((120, 180, 240)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="calendar__create_event",
                    args=event,
                    needs=("k1",),
                    guess={
                        **event,
                        "start": iso_minutes(guess_train[1]),
                        "end": iso_minutes(guess_train[1] + timedelta(minutes=guess_train[2])),
                    },
                ),
            ),
            hints=Hints(
                data=f"Departures, arrivals and fares are in {sheet}; the client's assistant knows when the meeting starts.",
                method="Keep the trains that arrive 45 minutes or more before the start, then take the cheapest of them.",
            ),
        )


register_template(TrainBooking("train_booking", "hard", ("chat", "spreadsheets", "calendar"), "optimization"))
