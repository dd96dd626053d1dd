"""Reserving charging bays for visitors (easy; time management and scheduling): the free charging bays nearest the entrance,
as many as the electric cars coming, read off a car-park plan.

Two clues: how many visitors come by electric car is the event coordinator's
(k1); which bays have chargers, which are reserved, and where the entrance is
are only on the car-park plan (k2, an image clue). A reserved bay and plain
bays lie nearer the entrance than the last bay to pick, so a reading that
ignores the marks picks wrong; naming every charging bay fails the "no other"
check.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import car_park
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

PER_ROW, ROWS = 8, 3


class ParkingBays(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        coordinator, facilities = ctx.names.person(), ctx.names.person()
        event = ctx.names.word("project")
        labels = [f"P{n:02d}" for n in rng.sample(range(10, 99), PER_ROW * ROWS)]
        column = {label: n % PER_ROW for n, label in enumerate(labels)}  # the distance from the entrance, in bays
        while True:
            kinds = [rng.choice(("plain", "plain", "ev", "reserved")) for _ in labels]
            bays = list(zip(labels, kinds, strict=True))
            free_ev = sorted((b for b, k in bays if k == "ev"), key=column.__getitem__)
            reserved = [b for b, k in bays if k == "reserved"]
            cars = rng.randint(2, 4)
            if len(free_ev) < cars + 2:
                continue
            last, after = column[free_ev[cars - 1]], column[free_ev[cars]]
            if last < after and any(column[b] < last for b in reserved):  # one answer, and a reserved bay nearer than it
                break
        chosen = free_ev[:cars]
        plan = ctx.names.path(ctx.folder, "car_park_plan", "png")
        desk = f"facilities.{event.lower()}@{ctx.company.domain}"
        subject = f"{event} visitor charging bays"
        clues = (
            Clue(
                id="k1",
                holder=coordinator.handle,
                value=f"{cars} electric cars",
                text=f"{cars} electric cars are coming for the {event} visit.",
                ask=(r"\b(how many|number of|electric|ev|cars?)\b",),
                subject=named(event),
                question=f"How many visitors come by electric car for the {event} visit?",
            ),
            Clue(
                id="k2",
                holder=f"file:{plan}",
                value=f"nearest free EV bays: {', '.join(chosen)}",
                text=f"nearest free EV bays: {', '.join(chosen)}",
            ),
        )
        return TaskDraft(
            title="Reserve charging bays",
            objective=(
                f"Reserve charging bays for the visitors of the {event} visit who come by electric car: the free charging bays "
                f"nearest the entrance ({plan}), one per car. E-mail facilities ({desk}) the bay numbers with the subject "
                f"'{subject}'; name no other bay."
            ),
            npcs=(
                colleague(coordinator, "Event Coordinator", "Marketing", f"Organises the {event} visit and its guests."),
                colleague(facilities, "Facilities Assistant", "Facilities", "Keeps the car park in order."),
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the reserved bays are the free charging bays nearest the entrance, one per electric car",
                    needs=("k1", "k2"),
                    check=checker("email_sent", to=desk, subject_contains=subject, body_contains=chosen),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the coordinator how many come by electric car, and read the plan (view_image): charging bays "
                    "are marked EV, reserved ones RES.",
                ),
                Checkpoint(
                    id="c2",
                    text="no other bay is named",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject),
                        (checker("email_sent", to=desk, subject_contains=subject, body_contains=[b]) for b in labels if b not in chosen),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Reserve only as many bays as there are cars.",
                ),
            ),
            files={plan: car_park(f"Car park ({event} visit)", bays, PER_ROW)},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [desk], "subject": subject, "body": "Please reserve " + ", ".join(chosen) + "."},
                    needs=("k1", "k2"),
                    guess={"email_addresses": [desk], "subject": subject, "body": "Please reserve " + ", ".join(labels[:3]) + "."},
                ),
            ),
            hints=Hints(
                data=f"The plan {plan} marks charging bays EV and reserved bays RES; the entrance is on its left.",
                method="Going away from the entrance column by column, take the first free EV bays, one per car.",
            ),
        )


register_template(ParkingBays("parking_bays", "easy", ("chat", "images", "email"), "scheduling"))
