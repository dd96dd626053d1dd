"""Campaign budget split (hard): split next quarter's budget over the channels by last quarter's conversions.

Data: ``last_quarter.xlsx`` (Channel, Spend, Conversions). Two clues from two
people: the marketing director drops one channel this quarter (k1), and the
finance partner holds the total budget (k2). The plan gives the dropped
channel 0 and shares the budget among the others in proportion to their
conversions; the director hears by e-mail that it is ready before the deadline.
Splitting a guessed budget over every channel gets no amount right.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, email_step

CHANNELS = ("Search ads", "Social video", "Podcast spots", "Newsletter sponsorship", "Outdoor posters", "Influencer posts", "Radio spots")
BUDGETS = tuple(range(24_000, 90_001, 6_000))
GUESSED_BUDGET = 50_000
AMOUNT_TOLERANCE = 1.0
"""Whole euros: rounding a share either way is right."""


def shares(conversions: dict[str, int], budget: int, dropped: str | None) -> dict[str, int]:
    """Each channel's amount: the budget in proportion to conversions, over the channels kept (a dropped one gets 0)."""
    kept = {c: n for c, n in conversions.items() if c != dropped}
    total = sum(kept.values())
    return {c: (round(budget * kept[c] / total) if c in kept else 0) for c in conversions}


class CampaignSplit(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        director, partner = ctx.names.person(), ctx.names.person()
        brand = ctx.names.word("project")
        channels = rng.sample(CHANNELS, rng.randint(4, 5))
        conversions = {c: rng.randint(40, 900) for c in channels}
        spend = {c: rng.randint(20, 160) * 100 for c in channels}
        dropped = rng.choice(channels)
        budget = rng.choice([b for b in BUDGETS if b != GUESSED_BUDGET])
        plan = shares(conversions, budget, dropped)
        guessed = shares(conversions, GUESSED_BUDGET, None)
        source = ctx.names.path(ctx.folder, "last_quarter", "xlsx")
        out = ctx.names.path(ctx.folder, "campaign_plan", "xlsx")
        due = rng.choice((120, 150, 180))
        last = len(channels) + 1
        drop_row = channels.index(dropped) + 2
        subject = f"{brand} campaign plan"

        def cells(amounts: dict[str, int]) -> dict[str, object]:
            written: dict[str, object] = {"A1": "Channel", "B1": "Amount"}
            for row, channel in enumerate(channels, start=2):
                written[f"A{row}"], written[f"B{row}"] = channel, amounts[channel]
            return written

        npcs = (
            colleague(director, "Marketing Director", "Marketing", f"Decisive; sets the channel strategy of the {brand} campaign."),
            colleague(partner, "Finance Business Partner", "Finance", "Careful with numbers; signs off the quarterly marketing money."),
        )
        clues = (
            Clue(
                id="k1",
                holder=director.handle,
                value=f"drop {dropped} entirely",
                text=f"This quarter we drop {dropped} entirely; it gets nothing. Keep every other channel.",
                ask=(r"\b(channels?|drop\w*|cut|exclud\w*|strategy|skip\w*|pause\w*)\b",),
                subject=named(brand),
                question=f"Which channels should the {brand} campaign keep or drop this quarter?",
            ),
            Clue(
                id="k2",
                holder=partner.handle,
                value=f"{budget:,} euros in total",
                text=f"The {brand} campaign has {budget:,} euros in total for next quarter.",
                ask=(r"\b(budget|money|funds?|spend|how much)\b",),
                subject=named(brand),
                question=f"What is the total budget of the {brand} campaign next quarter?",
            ),
        )
        wrote = called("xlsx_write", path=out)
        return TaskDraft(
            title="Plan a campaign budget",
            objective=(
                f"Plan next quarter's budget of the {brand} campaign in {out}: row 1 the headers Channel and Amount, then one "
                f"row per channel of {source} in the same order, column B the channel's amount in whole euros. Channels share "
                f"the total budget in proportion to last quarter's conversions; follow the director's channel decisions. "
                f"When it is ready, e-mail {director.name} ({director.email}) where it is, with the subject '{subject}'."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the dropped channel gets nothing",
                    needs=("k1",),
                    check=checker("xlsx_cell", path=out, cell=f"B{drop_row}", value=0),
                    attempt=wrote,
                    feedback="Ask the Marketing Director which channels the campaign keeps before splitting money.",
                ),
                Checkpoint(
                    id="c2",
                    text="every channel's amount is its share of the real budget",
                    needs=("k1", "k2"),
                    check=checker(
                        "xlsx_range", path=out, range=f"B2:B{last}", values=[plan[c] for c in channels], tolerance=AMOUNT_TOLERANCE
                    ),
                    attempt=wrote,
                    feedback="Get the total budget from Finance; never assume a round figure.",
                ),
                Checkpoint(
                    id="c3",
                    text="the director was told the plan is ready before the deadline",
                    check=checker(
                        "email_sent", to=director.email, subject_contains=subject, before=minute_iso(ctx, ctx.arrival_minute + due)
                    ),
                    attempt=checker("email_sent", to=director.email),
                    feedback="Tell the Marketing Director by e-mail when the plan is done, before the deadline, not after.",
                ),
            ),
            files={
                source: xlsx_bytes({"Channels": [["Channel", "Spend", "Conversions"], *([c, spend[c], conversions[c]] for c in channels)]})
            },
            timing=Timing(due_minutes=due, work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="xlsx_write",
                    args={"path": out, "cells": cells(plan), "sheet": "Plan"},
                    needs=("k1", "k2"),
                    guess={"path": out, "cells": cells(guessed), "sheet": "Plan"},
                ),
                email_step(director.email, subject, f"The plan is ready in {out}."),
            ),
            hints=Hints(
                data=f"Conversions are in {source}; the director decides the channels and Finance holds the budget.",
                method="Amount = budget x conversions / (sum of conversions of the kept channels), rounded; a dropped channel gets 0.",
            ),
        )


register_template(CampaignSplit("campaign_split", "hard", ("chat", "spreadsheets", "email"), "optimization"))
