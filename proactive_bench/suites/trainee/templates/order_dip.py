"""Weeks of low orders (easy; analysis): the weeks a product line's orders fell below its alert level, read off a bar chart.

Two clues: the line's alert level is the sales lead's (k1); the weekly orders
are only drawn in a chart (k2, an image clue). Guessing the usual level lists
a different set of weeks; listing every week fails the "and no other" checks.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import bar_chart
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

WEEKS = 12
LEVELS = (300, 350, 400, 450, 550, 600)
GUESSED_LEVEL = 500


def below(orders: dict[str, int], level: int) -> list[str]:
    return [week for week, n in orders.items() if n < level]


class OrderDip(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        line = ctx.names.word("project")
        level = rng.choice(LEVELS)
        weeks = [f"W{n:02d}" for n in range(1, WEEKS + 1)]
        while True:
            orders = {w: rng.randrange(220, 900, 1) for w in weeks}
            low = below(orders, level)
            if 1 <= len(low) <= 4 and low != below(orders, GUESSED_LEVEL) and all(abs(n - level) >= 15 for n in orders.values()):
                break
        chart = ctx.names.path(ctx.folder, f"{line.lower()}_weekly_orders", "png")
        out = ctx.names.path(ctx.folder, "low_weeks", "txt")
        rest = [w for w in weeks if w not in low]
        clues = (
            Clue(
                id="k1",
                holder=lead.handle,
                value=f"below {level} orders",
                text=f"The {line} line's alert level: a week below {level} orders is a low week.",
                ask=(r"\b(alert level|threshold|low week|level|limit)\b",),
                subject=named(line),
                question=f"What is the alert level for weekly orders of the {line} line?",
            ),
            Clue(
                id="k2",
                holder=f"file:{chart}",
                value=f"weeks below {level}: {', '.join(low)}",
                text=f"weeks below {level}: {', '.join(low)}",
            ),
        )
        return TaskDraft(
            title="Find low weeks",
            objective=(
                f"The {line} line's weekly orders this quarter are charted in {chart}. List the weeks whose orders fell below the "
                f"line's alert level in {out}, one week label (W01 ...) per line, and send the same list to the sales lead, "
                f"{lead.name}, over chat."
            ),
            npcs=(colleague(lead, "Sales Lead", "Sales", f"Owns the {line} product line's targets."),),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every low week is listed, and no other week",
                    needs=("k1", "k2"),
                    check=file_holds(out, low, rest),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Sales Lead for the line's alert level and read each week's orders off the chart (view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="the sales lead got the same list over chat",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("chat_sent", to=lead.handle, contains=low),
                        (checker("chat_sent", to=lead.handle, contains=[w]) for w in rest),
                    ),
                    attempt={"any": [checker("chat_sent", to=lead.handle, contains=[w]) for w in weeks]},
                    feedback="Send the sales lead exactly the weeks below the alert level.",
                ),
            ),
            files={chart: bar_chart(f"{line}: orders per week", weeks, list(orders.values()), "orders")},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": "\n".join(low) + "\n"},
                    needs=("k1", "k2"),
                    guess={"path": out, "content": "\n".join(below(orders, GUESSED_LEVEL)) + "\n"},
                ),
                Step(
                    tool="chat__send_message",
                    args={"to": lead.handle, "text": f"Low weeks of the {line} line: {', '.join(low)}."},
                    needs=("k1", "k2"),
                    guess={"to": lead.handle, "text": f"Low weeks of the {line} line: {', '.join(below(orders, GUESSED_LEVEL))}."},
                ),
            ),
            hints=Hints(
                data=f"Each week's orders are written on top of its bar in {chart}; the Sales Lead has the alert level.",
                method="Compare every week's orders with the alert level; list only the weeks below it.",
            ),
        )


register_template(OrderDip("order_dip", "easy", ("chat", "images", "files"), "analysis"))
