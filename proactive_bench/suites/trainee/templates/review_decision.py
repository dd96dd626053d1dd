"""A decision taken in a review meeting (easy, time-critical; time management): join the review, then record what it decided.

An inter-task dependency: which option the review chose, and who owns the
follow-up, is decided in the meeting, a clue of its chair that exists only
from the meeting's start (k1, ``from_minute``). The options are in the review
pack from the start; the decision log must name the chosen option and its
owner and no other option.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds

START_MINUTES = (45, 90, 135, 180, 225, 270)
JOIN_GRACE = 10
OPTIONS = (
    "Option A: rebuild the importer",
    "Option B: buy the vendor connector",
    "Option C: pause the migration",
    "Option D: split the rollout by region",
)


class ReviewDecision(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        chair = ctx.names.person()
        members = [ctx.names.person() for _ in range(3)]
        project = ctx.names.word("project")
        chosen = rng.choice(OPTIONS[1:])  # not the first in the pack (the guess)
        letter = chosen.split(":")[0]
        owner = rng.choice(members)
        start = rng.choice(START_MINUTES)
        begin, joined_by = minute_iso(ctx, start), minute_iso(ctx, start + JOIN_GRACE)
        pack = ctx.names.path(ctx.folder, f"{project.lower()}_review_pack", "md")
        log = ctx.names.path(ctx.folder, f"{project.lower()}_decision_log", "md")
        review = f"{project} review"
        clue = Clue(
            id="k1",
            holder=chair.handle,
            value=f"decided: {letter}, owned by {owner.name}",
            text=f"The {review} decided: {letter}, owned by {owner.name}.",
            ask=(r"\b(decid\w*|decision|chose|chosen|outcome|which option)\b",),
            subject=named(project),
            question=f"What did the {review} decide, and who owns it?",
            from_minute=start,
        )
        others = [o.split(":")[0] for o in OPTIONS if o != chosen]
        return TaskDraft(
            title="Record a review decision",
            objective=(
                f"Join the {review} at {begin[-5:]} by messaging its chair, {chair.name}, when it starts. The review picks one of "
                f"the options in {pack} and names an owner: record the decision in {log} (the option's letter, e.g. 'Option B', "
                "and the owner's full name), naming no other option."
            ),
            npcs=(
                colleague(chair, "Programme Director", "Delivery", f"Chairs the {review}."),
                *(colleague(m, "Delivery Manager", "Delivery", f"Sits on the {review}.") for m in members),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="joined the review on time",
                    check=checker("chat_sent", to=chair.handle, after=begin, before=joined_by),
                    feedback="Switch to a meeting the moment it starts.",
                ),
                Checkpoint(
                    id="c2",
                    text="the log records the chosen option and no other",
                    needs=("k1",),
                    check=file_holds(log, [letter], others),
                    attempt=called("write_file", path=log),
                    feedback="Ask the chair what the review decided once it is under way, then record exactly that.",
                ),
                Checkpoint(
                    id="c3",
                    text="the log names the decision's owner",
                    needs=("k1",),
                    check=file_holds(log, [owner.name], [m.name for m in members if m is not owner]),
                    attempt=called("write_file", path=log),
                    feedback="A decision is recorded with its owner.",
                ),
            ),
            files={pack: f"# {review}: options\n\n" + "\n".join(f"- {o}" for o in OPTIONS) + "\n"},
            timing=Timing(kind="fixed", at_minute=start, work_minutes=10),
            reference=(
                Step(wait_until_minute=start),
                Step(tool="chat__send_message", args={"to": chair.handle, "text": f"Joining the {review}."}),
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": log, "content": f"# {review}\n\nDecision: {letter}. Owner: {owner.name}.\n"},
                    needs=("k1",),
                    guess={"path": log, "content": f"# {review}\n\nDecision: Option A. Owner: {chair.name}.\n"},
                ),
            ),
            hints=Hints(
                data=f"The options are in {pack}; the chair announces the decision and its owner in the review.",
                method="Message the chair at the start, ask for the decision once the review is on, and log it.",
            ),
        )


register_template(ReviewDecision("review_decision", "easy", ("chat", "files"), "scheduling"))
