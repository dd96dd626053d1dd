"""Event planning (hard): a team outing on the one candidate date everybody can make, at the best venue the budget allows.

Data: a venue sheet (name, cost per head, capacity, rating). Clues: each of
two team members is away on one candidate date (k1, k2, each held by that
person) and the office manager holds the per-head budget (k3). Deliverables:
a calendar event on the free date at the chosen venue inviting both, and an
e-mail to the office manager naming venue and date. The guess (the first
candidate date, the best-rated venue) misses both.
"""

from __future__ import annotations

from datetime import timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading, called, email_step

AVAILABILITY = r"\b(availab\w*|free|busy|away|out of office|unavailable|which dates?|can you make)\b"


class EventPlanning(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        first, second, manager = ctx.names.person(), ctx.names.person(), ctx.names.person()
        project = ctx.names.word("project")
        offsets = sorted(rng.sample(range(3, 15), 3))
        dates = [ctx.company.day + timedelta(days=d) for d in offsets]
        away = rng.sample(range(3), 2)
        if 0 not in away:  # the first candidate (the guess) is always taken
            away[0] = 0
        free = next(d for n, d in enumerate(dates) if n not in away)
        size = rng.randint(6, 14)
        budget = rng.choice((35, 45, 60, 75))
        venues: list[Row] = []
        for _ in range(6):
            venues.append(
                [
                    ctx.names.word("venue"),
                    rng.choice((budget - 10, budget - 5, budget + 15, budget + 30)),
                    rng.choice((size - 2, size + 4, size + 10)),
                    round(rng.uniform(3.0, 4.9), 1),
                ]
            )
        venues.sort(key=lambda v: -v[3])
        venues[0][1] = budget + 20  # the best-rated venue is over budget
        fitting = [v for v in venues if v[1] <= budget and v[2] >= size]
        if not fitting:
            venues[-1][1], venues[-1][2] = budget - 5, size + 4
            fitting = [venues[-1]]
        chosen, guessed = max(fitting, key=lambda v: v[3]), venues[0]
        sheet = ctx.names.path(ctx.folder, "venues", "xlsx")
        title = f"{project} team outing"
        start, end = f"{free.isoformat()}T14:00", f"{free.isoformat()}T17:00"
        bad_start = f"{dates[0].isoformat()}T14:00"
        day_names = [d.strftime("%A %d %B") for d in dates]
        attendees = [first.email, second.email]
        outing = named(project)
        npcs = (
            colleague(first, "Software Engineer", "Engineering", f"Works on {project}; relaxed and helpful."),
            colleague(second, "Product Designer", "Design", f"Designs for {project}; busy but kind."),
            colleague(manager, "Office Manager", "Operations", "Keeps the events budget and books venues."),
        )
        clues = (
            Clue(
                id="k1",
                holder=first.handle,
                value=f"away on {day_names[away[0]]}",
                text=f"I'm away on {day_names[away[0]]}; the other dates work.",
                ask=(AVAILABILITY,),
                subject=outing,
                question=f"Which of the candidate dates for the {title} are you available?",
            ),
            Clue(
                id="k2",
                holder=second.handle,
                value=f"away on {day_names[away[1]]}",
                text=f"Sorry, I'm away on {day_names[away[1]]}; otherwise fine.",
                ask=(AVAILABILITY,),
                subject=outing,
                question=f"Which of the candidate dates for the {title} are you available?",
            ),
            Clue(
                id="k3",
                holder=manager.handle,
                value=f"{budget} per head",
                text=f"Team outings have a budget of {budget} per head, venue included.",
                ask=(r"\b(budget|per[- ]head|spend|cost limit|afford)\b",),
                subject=outing,
                question=f"What is the per-head budget for the {title}?",
            ),
        )
        invite = {"title": title, "start": start, "end": end, "location": chosen[0], "attendees": attendees}
        guess_invite = {**invite, "start": bad_start, "end": f"{dates[0].isoformat()}T17:00", "location": guessed[0]}
        feedback_dates = "Ask each attendee which candidate dates they can make before booking."
        return TaskDraft(
            title="Plan a team outing",
            objective=(
                f"Plan the {title} for {size} people: an afternoon 14:00-17:00 on one of {', '.join(day_names)} that both "
                f"{first.name} and {second.name} can attend, at the best-rated venue in {sheet} that fits the group and the "
                f"events budget. Put it in the calendar titled '{title}' inviting both of them, and e-mail {manager.name} "
                f"({manager.email}) the venue and date with the subject '{title} booking'."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the outing is on the date both can attend",
                    needs=("k1", "k2"),
                    check=checker("calendar_event", title=title, start=start),
                    attempt=called("calendar__create_event", title=title),
                    feedback=feedback_dates,
                ),
                Checkpoint(
                    id="c2",
                    text="the venue is the best-rated one within budget and capacity",
                    needs=("k3",),
                    check=checker("calendar_event", title=title, location=chosen[0]),
                    attempt=called("calendar__create_event", title=title),
                    feedback="Ask the Office Manager for the budget, then pick the best-rated venue that fits it and the group.",
                ),
                Checkpoint(
                    id="c3",
                    text="both team members are invited",
                    check=checker("calendar_event", title=title, attendees=attendees),
                    feedback="Invite every attendee on the calendar event.",
                ),
                Checkpoint(
                    id="c4",
                    text="the office manager got the venue and date by e-mail",
                    needs=("k1", "k2", "k3"),
                    check=checker("email_sent", to=manager.email, body_contains=[chosen[0], free.isoformat()]),
                    attempt=called("gmail__send_email", email_addresses=manager.email),
                    feedback="Send the Office Manager the booking details (venue and date) by e-mail.",
                ),
            ),
            files={sheet: xlsx_bytes({"Venues": [["Venue", "Cost per head", "Capacity", "Rating"], *venues]})},
            timing=Timing(due_minutes=rng.choice((180, 240)), work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(ask="k3"),
                Step(tool="calendar__create_event", args=invite, needs=("k1", "k2", "k3"), guess=guess_invite),
                email_step(
                    manager.email,
                    f"{title} booking",
                    f"Please book {chosen[0]} for {size} people on {free.isoformat()}.",
                    needs=("k1", "k2", "k3"),
                    guessed_body=f"Please book {guessed[0]} for {size} people on {dates[0].isoformat()}.",
                ),
            ),
            hints=Hints(
                data=f"Ask {first.name} and {second.name} for their availability and {manager.name} for the budget; venues are in {sheet}.",
                method="Keep the one date nobody is away; among venues with capacity >= group size and cost per head <= budget, take the highest rating.",
            ),
        )


register_template(EventPlanning("event_planning", "hard", ("chat", "calendar", "spreadsheets", "email"), "optimization"))
