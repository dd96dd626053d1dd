"""A service's uptime against its SLA (easy; proactive inquiry and monitoring): the days below it, read off a line chart.

Two clues: the service's SLA is the engineering manager's (k1, a
scenario-wide colleague who may hold other tasks' clues, told apart by the
service they name); the daily uptime is only drawn in a chart (k2, an image
clue). Guessing the common 99.9 % lists a different set of days; listing every
day fails the "no other day" check.
"""

from __future__ import annotations

from datetime import timedelta

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import line_chart
from proactive_bench.suites.trainee.template import TemplateContext, checker, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

DAYS = 14
SLAS = (99.5, 99.7, 99.8, 99.95)
GUESSED_SLA = 99.9


def short(uptime: float) -> str:
    return f"{uptime:.2f}"


class UptimeReview(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager = shared_colleague(ctx, "engineering_manager")
        service = ctx.names.word("project")
        sla = rng.choice(SLAS)
        first = ctx.company.day - timedelta(days=DAYS)
        labels = [(first + timedelta(days=n)).strftime("%b %d") for n in range(DAYS)]
        while True:
            uptime = {d: rng.choice((100.0, 99.99, 99.98, 99.97, 99.96, 99.92, 99.85, 99.75, 99.6, 99.4)) for d in labels}
            breaches = [d for d, u in uptime.items() if u < sla]
            guessed = [d for d, u in uptime.items() if u < GUESSED_SLA]
            if 1 <= len(breaches) <= 4 and guessed != breaches:
                break
        chart = ctx.names.path(ctx.folder, f"{service.lower()}_uptime", "png")
        out = ctx.names.path(ctx.folder, f"{service.lower()}_sla_review", "md")
        clues = (
            Clue(
                id="k1",
                holder=manager.handle,
                value=f"SLA of {sla}%",
                text=f"The {service} service has an SLA of {sla}% uptime per day.",
                ask=(r"\b(sla|service level|uptime (target|commitment|goal)|target)\b",),
                subject=named(service),
                question=f"What is the SLA of the {service} service?",
            ),
            Clue(id="k2", holder=f"file:{chart}", value=f"below {sla}: {', '.join(breaches)}", text=f"below {sla}: {', '.join(breaches)}"),
        )
        rest = [d for d in labels if d not in breaches]
        miscounts = [n for n in range(DAYS) if n != len(breaches) and f"{n} day" not in f"{DAYS} days"]  # "over 14 days" is no count
        report = f"# {service} SLA review\n\nDays below the SLA ({sla}%):\n" + "".join(f"- {d}: {short(uptime[d])}%\n" for d in breaches)
        guess = f"# {service} SLA review\n\nDays below the SLA:\n" + "".join(f"- {d}: {short(uptime[d])}%\n" for d in guessed)
        return TaskDraft(
            title="Review uptime",
            objective=(
                f"Review the {service} service's daily uptime over the last two weeks ({chart}) against its SLA. Write {out}: each "
                f"day below the SLA (its label as the chart shows it, e.g. {labels[0]}) with its uptime, and no other day; then tell "
                f"the Engineering Manager, {manager.name}, over chat how many days were below it."
            ),
            npcs=(manager,),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every day below the SLA is listed, and no other day",
                    needs=("k1", "k2"),
                    check=file_holds(out, breaches, rest),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Engineering Manager for a service's SLA and read each day's uptime off the chart (view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="the engineering manager was told how many days were below the SLA",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("chat_sent", to=manager.handle, contains=[service, f"{len(breaches)} day"]),
                        (checker("chat_sent", to=manager.handle, contains=[service, f"{n} day"]) for n in miscounts),
                    ),
                    attempt=checker("chat_sent", to=manager.handle, contains=[service, " day"]),  # a count of days, not a check-in
                    feedback="Report the count of days below the SLA to whoever owns it.",
                ),
            ),
            files={chart: line_chart(f"{service}: uptime per day (%)", labels, list(uptime.values()), "uptime %", 2)},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(tool="write_file", args={"path": out, "content": report}, needs=("k1", "k2"), guess={"path": out, "content": guess}),
                Step(
                    tool="chat__send_message",
                    args={"to": manager.handle, "text": f"{service}: {len(breaches)} days below the SLA in the last two weeks."},
                    needs=("k1", "k2"),
                    guess={"to": manager.handle, "text": f"{service}: {len(guessed)} days below the SLA in the last two weeks."},
                ),
            ),
            hints=Hints(
                data=f"Each day's uptime is written above its point in {chart}; the Engineering Manager has the SLA.",
                method="List the days whose uptime is below the SLA, with their uptime.",
            ),
        )


register_template(UptimeReview("uptime_review", "easy", ("chat", "images", "files"), "inquiry"))
