"""A room for a training (easy; time management): the room nearest the lift that seats everyone and is in service, read off a
floor plan.

Three clues: the headcount is the training coordinator's (k1); which room is
out of service this week is the office manager's (k2, a scenario-wide
colleague who may hold other tasks' clues); rooms, seats and the lift are only
on the floor plan (k3, an image clue). The room out of service is the nearest
that seats everyone, and a smaller room is nearer still, so ignoring either
clue picks a wrong room; naming every room fails the "only that room" check.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import floor_plan
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

ROOMS = 6


class TrainingRoom(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        coordinator = ctx.names.person()
        manager = shared_colleague(ctx, "office_manager")
        course, city = ctx.names.word("project"), ctx.names.word("city")
        floor = rng.randint(2, 9)
        headcount = rng.randint(10, 24)
        numbers = sorted(rng.sample(range(1, 10), ROOMS))
        names = [f"{floor}.{n:02d}" for n in numbers]
        rng.shuffle(names)  # rooms in order of distance from the lift, their numbers not
        small = [rng.randint(4, headcount - 2) for _ in range(ROOMS)]
        big = [rng.randint(headcount, headcount + 16) for _ in range(ROOMS)]
        seats = [small[0], big[1], *(rng.choice((small[n], big[n])) for n in range(2, ROOMS))]
        if not any(s >= headcount for s in seats[2:]):
            seats[-1] = big[-1]
        closed = names[1]  # the nearest room that seats everyone is out of service
        room = next(names[n] for n in range(2, ROOMS) if seats[n] >= headcount)
        others = [n for n in names if n != room]
        plan = ctx.names.path(ctx.folder, f"floor{floor}_plan", "png")
        subject = f"{course} training room"
        clues = (
            Clue(
                id="k1",
                holder=coordinator.handle,
                value=f"{headcount} people",
                text=f"{headcount} people are signed up for the {course} training.",
                ask=(r"\b(how many|headcount|number of (people|attendees|participants)|signed up|attend\w*)\b",),
                subject=named(course),
                question=f"How many people are signed up for the {course} training?",
            ),
            Clue(
                id="k2",
                holder=manager.handle,
                value=f"room {closed}",
                text=f"In the {city} office, room {closed} is out of service this week.",
                ask=(r"\b(out of (service|use|order)|closed|unavailable|under repair|maintenance)\b",),
                subject=named(city),
                question=f"Which room of the {city} office is out of service this week?",
            ),
            Clue(
                id="k3",
                holder=f"file:{plan}",
                value=f"room {room} seats {seats[names.index(room)]}",
                text=f"the plan: room {room} seats {seats[names.index(room)]}",
            ),
        )
        body = f"Please reserve room {room} for the {course} training ({headcount} people)."
        return TaskDraft(
            title="Book a training room",
            objective=(
                f"Find the room for the {course} training on floor {floor} of the {city} office (the floor plan is {plan}): the "
                f"room nearest the lift that seats everyone signed up and is in service this week. E-mail the office manager, "
                f"{manager.name} ({manager.email}), to reserve it, with the subject '{subject}', naming the room and the headcount."
            ),
            npcs=(
                colleague(coordinator, "Training Coordinator", "People", f"Runs the sign-ups for the {course} training."),
                manager,
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="asked to reserve the right room, and no other",
                    needs=("k1", "k2", "k3"),
                    check=none_but(
                        checker("email_sent", to=manager.email, subject_contains=subject, body_contains=[f"{room}"]),
                        (checker("email_sent", to=manager.email, subject_contains=subject, body_contains=[n]) for n in others),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask how many are signed up and which rooms are out of service, then read the seats and the distance "
                    "to the lift off the floor plan (view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="the reservation states the headcount",
                    needs=("k1",),
                    check=checker("email_sent", to=manager.email, subject_contains=subject, body_contains=[str(headcount)]),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Training Coordinator for the headcount and put it in the reservation.",
                ),
            ),
            files={plan: floor_plan(f"{city} office, floor {floor}", list(zip(names, seats, strict=True)))},
            timing=Timing(due_minutes=rng.choice((120, 150, 180)), work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(ask="k3"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [manager.email], "subject": subject, "body": body},
                    needs=("k1", "k2", "k3"),
                    guess={
                        "email_addresses": [manager.email],
                        "subject": subject,
                        "body": f"Please reserve room {names[0]} for the {course} training.",
                    },
                ),
            ),
            hints=Hints(
                data=f"Rooms, seats and the lift are on {plan}; the coordinator has the headcount, the office manager the rooms out "
                "of service.",
                method="Go along the corridor from the lift and take the first room with enough seats that is in service.",
            ),
        )


register_template(TrainingRoom("training_room", "easy", ("chat", "images", "email"), "scheduling"))
