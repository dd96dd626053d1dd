"""Today's priority, announced at the stand-up (easy, time-critical; time management): join it, then pass the priority on.

An inter-task dependency: which bug is today's priority is decided at the
stand-up, a clue of its host that exists only from the stand-up's start (k1,
``from_minute``). The bug list names every open bug's owner; the priority must
go to its owner, within half an hour, and to no other engineer, naming no
other bug.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, none_but

START_MINUTES = (30, 45, 75, 105, 135, 195, 225)
JOIN_GRACE, PASS_ON_MINUTES = 10, 30
ENGINEERS, BUGS = 3, 7
TITLES = (
    "Login page times out on slow networks",
    "Export to CSV drops the last row",
    "Search ignores accented letters",
    "Invoice totals round the wrong way",
    "Password reset mail arrives twice",
    "Dashboard chart shows last week's data",
    "Upload fails for files over 20 MB",
    "Mobile menu hides the logout button",
    "Time zone shifts meeting reminders",
    "Duplicate rows after a sync",
)


class StandupPriority(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        engineers = [ctx.names.person() for _ in range(ENGINEERS)]
        team = ctx.names.word("project")
        base = rng.randint(1000, 8999)
        ids = [f"BUG-{n}" for n in rng.sample(range(base, base + 600), BUGS)]
        owners = {bug: engineers[n % ENGINEERS] if n < ENGINEERS else rng.choice(engineers) for n, bug in enumerate(ids)}
        titles = dict(zip(ids, rng.sample(TITLES, BUGS), strict=True))
        priority = rng.choice(ids[1:])  # not the first listed (the guess)
        owner = owners[priority]
        start = rng.choice(START_MINUTES)
        begin, joined_by, passed_by = minute_iso(ctx, start), minute_iso(ctx, start + JOIN_GRACE), minute_iso(ctx, start + PASS_ON_MINUTES)
        sheet = ctx.names.path(ctx.folder, f"{team.lower()}_open_bugs", "xlsx")
        standup = f"{team} stand-up"
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"today's priority is {priority}",
            text=f"From the {standup}: today's priority is {priority} ({titles[priority]}).",
            ask=(r"\b(priorit\w*|most urgent|first|focus)\b",),
            subject=named(team),
            question=f"Which bug did the {standup} make today's priority?",
            from_minute=start,
        )
        others = [e for e in engineers if e is not owner]
        note = f"{priority} is today's priority from the {standup}; it is yours."
        return TaskDraft(
            title="Stand-up priority",
            objective=(
                f"Join the {standup} at {begin[-5:]} by messaging its host, {lead.name}, when it starts. The stand-up decides "
                f"today's priority bug: within half an hour, tell that bug's owner (see {sheet}) over chat, and nobody else."
            ),
            npcs=(
                colleague(lead, "Team Lead", "Engineering", f"Runs the {standup}; decides the day's priorities there."),
                *(colleague(e, "Software Engineer", "Engineering", f"Fixes bugs for the {team} team.") for e in engineers),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="joined the stand-up on time",
                    check=checker("chat_sent", to=lead.handle, after=begin, before=joined_by),
                    feedback="Switch to a meeting the moment it starts.",
                ),
                Checkpoint(
                    id="c2",
                    text="the priority bug's owner was told, about that bug only, and no other engineer",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=owner.handle, contains=[priority]),
                        [
                            *(checker("chat_sent", to=owner.handle, contains=[b]) for b in ids if b != priority),
                            *(checker("chat_sent", to=e.handle, contains=[priority]) for e in others),
                        ],
                    ),
                    attempt={"any": [checker("chat_sent", to=e.handle, contains=["priority"]) for e in engineers]},
                    feedback="Ask the stand-up's host which bug it made the priority once it is on, then tell that bug's owner.",
                ),
                Checkpoint(
                    id="c3",
                    text="the owner was told within half an hour of the stand-up",
                    needs=("k1",),
                    check=checker("chat_sent", to=owner.handle, contains=[priority], after=begin, before=passed_by),
                    attempt={"any": [checker("chat_sent", to=e.handle, contains=["priority"]) for e in engineers]},
                    feedback="Pass a decision from a meeting on right after it.",
                ),
            ),
            files={
                sheet: xlsx_bytes(
                    {
                        "Open bugs": [
                            ["Bug", "Title", "Owner", "Owner's chat handle"],
                            *([b, titles[b], owners[b].name, owners[b].handle] for b in ids),
                        ]
                    }
                )
            },
            timing=Timing(kind="fixed", at_minute=start, work_minutes=10),
            reference=(
                Step(wait_until_minute=start),
                Step(tool="chat__send_message", args={"to": lead.handle, "text": f"Joining the {standup}."}),
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": owner.handle, "text": note},
                    needs=("k1",),
                    guess={"to": owners[ids[0]].handle, "text": f"{ids[0]} is today's priority from the {standup}; it is yours."},
                ),
            ),
            hints=Hints(
                data=f"Owners are in {sheet}; the host names the priority at the stand-up.",
                method="Message the host at the start, ask which bug is the priority, and tell its owner only.",
            ),
        )


register_template(StandupPriority("standup_priority", "easy", ("chat", "spreadsheets"), "scheduling"))
