"""Attending a scheduled meeting (easy, time-critical): check in with the host, on time, with a code a coordinator holds.

A fixed task: the meeting is on the calendar and preempts whatever the agent
is doing when it starts. Checking in = a chat message to the host carrying the
check-in code (clue k1, held by the project coordinator). Late check-ins count
as attended but not on time; a check-in without the code counts as neither.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading

GRACE_MINUTES = 10
"""How late a check-in may be and still be on time."""


class MeetingAttend(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        host, coordinator = ctx.names.person(), ctx.names.person()
        project, room = ctx.names.word("project"), ctx.names.word("room")
        start = rng.choice((60, 90, 120, 150, 180))
        code = f"{project.upper()}-{rng.randint(10, 99)}"
        title = f"{project} sync"
        npcs = (
            colleague(host, "Engineering Manager", "Engineering", f"Runs the {project} sync; expects people on time."),
            colleague(coordinator, "Project Coordinator", "Operations", "Organised; keeps the logistics of project meetings."),
        )
        clue = Clue(
            id="k1",
            holder=coordinator.handle,
            value=code,
            text=f"The check-in code for the {title} is {code}.",
            ask=(r"\b(check[- ]?in|code|passcode)\b",),
            subject=named(project),
            question=f"What is the check-in code for the {title}?",
        )
        begin, end = minute_iso(ctx, start), minute_iso(ctx, start + 30)
        on_time = minute_iso(ctx, start + GRACE_MINUTES)
        return TaskDraft(
            title="Attend a meeting",
            objective=(
                f"You are expected at the {title} at {begin[-5:]} (see your calendar). Check in with the host, "
                f"{host.name}, over chat when it starts, with the meeting's check-in code."
            ),
            npcs=npcs,
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="checked in with the host using the code",
                    needs=("k1",),
                    check=checker("chat_sent", to=host.handle, contains=[code], after=begin),
                    attempt=checker("chat_sent", to=host.handle, after=begin),
                    feedback="Ask the Project Coordinator for a meeting's check-in code before it starts.",
                ),
                Checkpoint(
                    id="c2",
                    text="checked in within the first minutes of the meeting",
                    needs=("k1",),
                    check=checker("chat_sent", to=host.handle, contains=[code], after=begin, before=on_time),
                    feedback="Watch the clock: switch to a meeting the moment it starts, even in the middle of other work.",
                ),
            ),
            rows={
                "calendar_event": [
                    {
                        "title": title,
                        "start": begin,
                        "end": end,
                        "location": f"{room} room",
                        "attendees": [host.email, ctx.company.intern.email],
                        "description": f"Weekly {project} sync.",
                    }
                ]
            },
            timing=Timing(kind="fixed", at_minute=start, work_minutes=5),
            reference=(
                Step(ask="k1"),
                Step(wait_until_minute=start),
                Step(
                    tool="chat__send_message",
                    args={"to": host.handle, "text": f"Checking in for the {title}: {code}"},
                    needs=("k1",),
                    guess={"to": host.handle, "text": f"Checking in for the {title}."},
                ),
            ),
            hints=Hints(
                data=f"The meeting is '{title}' at {begin[-5:]}; the Project Coordinator has its check-in code.",
                method="Get the code early, then wait until the start time and message the host at once.",
            ),
        )


register_template(MeetingAttend("meeting_attend", "easy", ("chat", "calendar"), "scheduling"))
