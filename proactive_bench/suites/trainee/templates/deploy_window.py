"""Scheduling a release (hard; time management): the approved deployment window, with the engineer who runs the project's
releases.

Two clues, each held by a scenario-wide colleague who may hold other tasks'
clues too (told apart by the project they name): the approved window for the
project's release tomorrow is the engineering manager's (k1); who runs the
project's releases is the HR partner's (k2), among three engineers of one role.
The event must sit in the window exactly and invite the release engineer and
no other engineer.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, iso_minutes, none_but

WINDOWS = (time(7, 0), time(11, 30), time(13, 0), time(16, 30), time(18, 0), time(20, 0))
GUESSED_WINDOW = time(9, 0)
LENGTH = timedelta(minutes=45)
ENGINEERS = 3


class DeployWindow(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager, hr = shared_colleague(ctx, "engineering_manager"), shared_colleague(ctx, "hr")
        engineers = [ctx.names.person() for _ in range(ENGINEERS)]
        runner = rng.choice(engineers)
        decoys = [e for e in engineers if e is not runner]
        project = ctx.names.word("project")
        version = f"{rng.randint(2, 9)}.{rng.randint(0, 19)}"
        tomorrow = ctx.company.day + timedelta(days=1)
        window = rng.choice(WINDOWS)
        start = datetime.combine(tomorrow, window)
        title = f"{project} {version} release"
        clues = (
            Clue(
                id="k1",
                holder=manager.handle,
                value=f"from {window.strftime('%H:%M')}",
                text=f"The {project} release is approved for tomorrow from {window.strftime('%H:%M')}, 45 minutes.",
                ask=(r"\b(window|approv\w*|when|what time|slot)\b",),
                subject=named(project),
                question=f"When is the approved deployment window for the {project} release tomorrow?",
            ),
            Clue(
                id="k2",
                holder=hr.handle,
                value=f"{runner.name} ({runner.handle})",
                text=f"{project} releases are run by {runner.name} ({runner.handle}).",
                ask=(r"\b(who runs|runs|in charge|responsible|owns?)\b",),
                subject=named(project),
                question=f"Who runs the {project} releases?",
            ),
        )
        event = {
            "title": title,
            "start": iso_minutes(start),
            "end": iso_minutes(start + LENGTH),
            "attendees": [runner.email],
            "description": f"Deployment of {project} {version}.",
        }
        guessed = datetime.combine(tomorrow, GUESSED_WINDOW)
        booked = called("calendar__create_event", title=title)
        return TaskDraft(
            title="Schedule a release",
            objective=(
                f"Put the {title} on the calendar for tomorrow ({tomorrow.isoformat()}): a 45-minute event titled '{title}' in the "
                f"release window the Engineering Manager approved, with the engineer who runs {project} releases invited (and no "
                "other engineer)."
            ),
            npcs=(
                manager,
                hr,
                *(colleague(e, "Platform Engineer", "Engineering", "Looks after build pipelines and deployments.") for e in engineers),
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the release is booked in the approved window, and at no other time",
                    needs=("k1",),
                    check=none_but(
                        checker("calendar_event", title=title, start=iso_minutes(start), end=iso_minutes(start + LENGTH)),
                        (
                            checker("calendar_event", title=title, start=iso_minutes(datetime.combine(tomorrow, w)))
                            for w in WINDOWS
                            if w != window
                        ),
                    ),
                    attempt=booked,
                    feedback="Ask the Engineering Manager for the approved release window before booking a release.",
                ),
                Checkpoint(
                    id="c2",
                    text="the engineer who runs the project's releases is invited, and no other engineer",
                    needs=("k2",),
                    check=none_but(
                        checker("calendar_event", title=title, attendees=[runner.email]),
                        (checker("calendar_event", title=title, attendees=[d.email]) for d in decoys),
                    ),
                    attempt=booked,
                    feedback="Ask HR who runs a project's releases; do not invite the whole team.",
                ),
            ),
            timing=Timing(due_minutes=rng.choice((120, 180, 240)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="calendar__create_event",
                    args=event,
                    needs=("k1", "k2"),
                    guess={**event, "start": iso_minutes(guessed), "end": iso_minutes(guessed + LENGTH), "attendees": [decoys[0].email]},
                ),
            ),
            hints=Hints(
                data="The Engineering Manager approves release windows; HR knows who runs which project's releases.",
                method="Ask both, then create one event in the window with that engineer invited.",
            ),
        )


register_template(DeployWindow("deploy_window", "hard", ("chat", "calendar"), "scheduling"))
