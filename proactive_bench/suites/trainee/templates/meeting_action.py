"""An action item handed out in a meeting (hard, time-critical; time management): join the meeting, learn the task it
announces, do it within the hour.

An inter-task dependency: the follow-up task is announced only during the
meeting. Its parameters (who wants which figure, for which region) are a clue
of the meeting's host that exists only from the meeting's start (k1,
``from_minute``): asking beforehand gets nothing, however well put. The figure
comes from a workbook every region and metric is in, so mailing the whole
sheet, or every region's figure, fails; the recipient is named only in the
meeting, so a guesser does not know whom to write to.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

START_MINUTES = (60, 90, 120, 150, 180, 210, 240)
JOIN_GRACE = 10
"""How late joining still counts as on time."""
ACTION_MINUTES = 60
"""The action item is due this long after the meeting starts."""
METRICS = ("New accounts", "Cancelled accounts", "Support tickets", "Refund requests", "Trial sign-ups")
REGIONS = 4


class MeetingAction(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        host, stakeholder = ctx.names.person(), ctx.names.person()
        project = ctx.names.word("project")
        regions = [ctx.names.word("region") for _ in range(REGIONS)]
        metrics = rng.sample(METRICS, 3)
        figures = {(r, m): rng.randint(100, 999) for r in regions for m in metrics}
        while len(set(figures.values())) < len(figures):  # every figure tells its cell apart
            figures = {(r, m): rng.randint(100, 999) for r in regions for m in metrics}
        region, metric = rng.choice(regions), rng.choice(metrics)
        figure = figures[(region, metric)]
        start = rng.choice(START_MINUTES)
        begin, joined_by = minute_iso(ctx, start), minute_iso(ctx, start + JOIN_GRACE)
        due = minute_iso(ctx, start + ACTION_MINUTES)
        sheet = ctx.names.path(ctx.folder, f"{project.lower()}_figures", "xlsx")
        subject = f"{project} action item"
        meeting = f"{project} planning meeting"
        clue = Clue(
            id="k1",
            holder=host.handle,
            value=f"{metric} for {region}",
            text=(
                f"Your action item from the {meeting}: e-mail {stakeholder.name} ({stakeholder.email}) this quarter's "
                f"{metric} for {region}, from {sheet}, within the hour, subject '{subject}'."
            ),
            ask=(r"\b(action items?|assign\w*|follow[- ]?ups?|to[- ]?dos?)\b",),
            subject=named(project),
            question=f"What is my action item from the {meeting}?",
            from_minute=start,
        )
        others = [str(v) for (r, m), v in figures.items() if (r, m) != (region, metric)]
        sent = checker("email_sent", to=stakeholder.email, subject_contains=subject, body_contains=[str(figure)])
        return TaskDraft(
            title="Meeting action item",
            objective=(
                f"Join the {meeting} at {begin[-5:]} by messaging its host, {host.name}, over chat when it starts. The meeting "
                f"hands out action items: do yours within the hour, by e-mail with the subject '{subject}'."
            ),
            npcs=(colleague(host, "Product Lead", "Product", f"Chairs the {meeting}; keeps it short and to the point."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="joined the meeting on time",
                    check=checker("chat_sent", to=host.handle, after=begin, before=joined_by),
                    feedback="Switch to a meeting the moment it starts, even in the middle of other work.",
                ),
                Checkpoint(
                    id="c2",
                    text="e-mailed the right person the one figure the action item asked for",
                    needs=("k1",),
                    check=none_but(sent, (checker("email_sent", to=stakeholder.email, body_contains=[v]) for v in others)),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the meeting's host what your action item is once the meeting is on, then send exactly what it asks for.",
                ),
                Checkpoint(
                    id="c3",
                    text="the action item was done within the hour",
                    needs=("k1",),
                    check=checker("email_sent", to=stakeholder.email, subject_contains=subject, before=due),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Do an action item from a meeting right after it, before its deadline.",
                ),
            ),
            files={sheet: xlsx_bytes({"Figures": [["Region", *metrics], *([r, *(figures[(r, m)] for m in metrics)] for r in regions)]})},
            timing=Timing(kind="fixed", at_minute=start, work_minutes=10),
            reference=(
                Step(wait_until_minute=start),
                Step(tool="chat__send_message", args={"to": host.handle, "text": f"Joining the {meeting}."}),
                Step(ask="k1"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [stakeholder.email], "subject": subject, "body": f"{metric} for {region}: {figure}"},
                    needs=("k1",),
                    guess={
                        "email_addresses": [host.email],
                        "subject": subject,
                        "body": f"{metrics[0]} for {regions[0]}: {figures[(regions[0], metrics[0])]}",
                    },
                ),
            ),
            hints=Hints(
                data=f"The figures are in {sheet}; the host says in the meeting which one is wanted and by whom.",
                method="Message the host at the start, then ask them for your action item (not before: it is decided in the "
                "meeting) and send the one figure it names.",
            ),
        )


register_template(MeetingAction("meeting_action", "hard", ("chat", "spreadsheets", "email"), "scheduling"))
