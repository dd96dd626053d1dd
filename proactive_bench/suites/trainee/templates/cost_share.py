"""A category's share of a team's budget (easy; analysis): the share read off a pie chart, the budget asked of finance.

Two clues: the team's annual budget is the finance controller's (k1, a
scenario-wide colleague who may hold other teams' budgets for other tasks,
told apart by the team they name); the categories' shares are only in a pie
chart (k2, an image clue). The e-mail must carry the category's amount and
no other category's; guessing a round budget gives a wrong amount.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import pie_chart
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, any_form, called, number_forms

CATEGORIES = ("Travel", "Software", "Hardware", "Training", "Events", "Contractors")
GUESSED_BUDGET = 100_000


def shares(rng_values: list[int]) -> list[int]:
    """Whole percentages summing to 100, all different."""
    total = sum(rng_values)
    out = [round(v * 100 / total) for v in rng_values]
    out[0] += 100 - sum(out)
    return out


class CostShare(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        controller = shared_colleague(ctx, "finance_controller")
        head = ctx.names.person()
        team = ctx.names.word("project")
        categories = rng.sample(CATEGORIES, 5)
        while True:
            percents = shares([rng.randint(4, 40) for _ in categories])
            if len(set(percents)) == len(percents) and min(percents) >= 3:
                break
        budget = rng.randrange(120_000, 480_000, 1000)
        category = rng.choice(categories)
        amounts = {c: budget * p // 100 for c, p in zip(categories, percents, strict=True)}
        amount = amounts[category]
        chart = ctx.names.path(ctx.folder, f"{team.lower()}_spend_shares", "png")
        subject = f"{team} {category.lower()} allowance"
        clues = (
            Clue(
                id="k1",
                holder=controller.handle,
                value=f"{budget:,}",
                text=f"The {team} team's annual budget is {budget:,} EUR ({budget}).",
                ask=(r"\b(budget|allocation|how much)\b",),
                subject=named(team),
                question=f"What is the {team} team's annual budget?",
            ),
            Clue(
                id="k2",
                holder=f"file:{chart}",
                value=f"{category} {percents[categories.index(category)]}%",
                text=f"the chart: {category} {percents[categories.index(category)]}%",
            ),
        )
        said = [*number_forms(budget), *number_forms(amount)]  # figures a right answer may quote
        others = [f for c, a in amounts.items() if c != category for f in number_forms(a) if not any(f in s for s in said)]
        guessed = GUESSED_BUDGET * percents[categories.index(category)] // 100
        return TaskDraft(
            title="Work out a budget allowance",
            objective=(
                f"{head.name}, who heads the {team} team, asks how much of the team's annual budget goes to {category.lower()}, "
                f"going by the planned shares in {chart}. E-mail them ({head.email}) the amount in EUR with the subject '{subject}'."
            ),
            npcs=(controller, colleague(head, "Team Head", team, f"Heads the {team} team; plans its spending.")),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the amount is the category's share of the team's budget",
                    needs=("k1", "k2"),
                    check=any_form(
                        amount, lambda form: checker("email_sent", to=head.email, subject_contains=subject, body_contains=[form])
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Finance Controller for a team's budget and read the category's share off the chart (view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="no other category's amount is given as the answer",
                    needs=("k1", "k2"),
                    check={
                        "all": [
                            checker("email_sent", to=head.email, subject_contains=subject),
                            *({"not": checker("email_sent", to=head.email, body_contains=[form])} for form in others),
                        ]
                    },
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Answer what was asked: one category's amount.",
                ),
            ),
            files={chart: pie_chart(f"{team} team: planned spend by category", categories, percents)},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [head.email], "subject": subject, "body": f"{category}: {amount} EUR of the annual budget."},
                    needs=("k1", "k2"),
                    guess={"email_addresses": [head.email], "subject": subject, "body": f"{category}: {guessed} EUR of the annual budget."},
                ),
            ),
            hints=Hints(
                data=f"The shares are written on the slices of {chart}; the Finance Controller has each team's budget.",
                method="Multiply the budget by the category's percentage.",
            ),
        )


register_template(CostShare("cost_share", "easy", ("chat", "images", "email"), "analysis"))
