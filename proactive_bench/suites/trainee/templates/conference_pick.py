"""Choosing conferences within a budget (hard; strategic modeling and optimization): the set with the highest total rating.

One clue: the team's conference budget for the year is the team lead's (k1).
The sheet lists each conference's pass price and the team's rating of it. The
best set within the budget is unique (a small knapsack, solved exactly here);
greedy by rating or by rating per euro misses it for at least one budget the
template draws, and a guessed budget gives another set. Listing every
conference fails the "no other" check.
"""

from __future__ import annotations

from itertools import combinations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

CONFERENCES = (
    "DataWorks", "CloudConf", "UX Forum", "SecureOps", "Practical AI Day", "DevTools Live", "Product Camp", "Scale Summit",
    "Open Source Week", "Testing Together",
)  # fmt: skip
SHOWN = 7
GUESSED_BUDGET = 5000


def best(prices: dict[str, int], ratings: dict[str, int], budget: int) -> tuple[list[tuple[str, ...]], int]:
    """Every affordable set with the highest total rating, and that rating."""
    top, found = -1, []
    for k in range(len(prices) + 1):
        for chosen in combinations(prices, k):
            if sum(prices[c] for c in chosen) > budget:
                continue
            score = sum(ratings[c] for c in chosen)
            if score > top:
                top, found = score, [chosen]
            elif score == top:
                found.append(chosen)
    return found, top


def greedy(prices: dict[str, int], ratings: dict[str, int], budget: int) -> set[str]:
    """Conferences taken by rating per euro, best first, while they fit."""
    taken: set[str] = set()
    left = budget
    for c in sorted(prices, key=lambda c: ratings[c] / prices[c], reverse=True):
        if prices[c] <= left:
            taken.add(c)
            left -= prices[c]
    return taken


class ConferencePick(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        team = ctx.names.word("project")
        while True:
            names = rng.sample(CONFERENCES, SHOWN)
            prices = {c: rng.randrange(600, 3200, 50) for c in names}
            ratings = {c: rng.randint(2, 10) for c in names}
            budget = rng.randrange(3500, 8000, 250)
            sets, _ = best(prices, ratings, budget)
            guessed, _ = best(prices, ratings, GUESSED_BUDGET)
            if (
                len(sets) == 1
                and set(guessed[0]) != set(sets[0])
                and greedy(prices, ratings, budget) != set(sets[0])
                and 2 <= len(sets[0]) < SHOWN
            ):
                break
        chosen = sorted(sets[0])
        rest = [c for c in names if c not in chosen]
        cost = sum(prices[c] for c in chosen)
        sheet = ctx.names.path(ctx.folder, "conferences", "xlsx")
        out = ctx.names.path(ctx.folder, f"{team.lower()}_conferences", "txt")
        subject = f"{team} conferences this year"
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"{budget} EUR",
            text=f"The {team} team can spend {budget} EUR on conference passes this year.",
            ask=(r"\b(budget|how much|spend|allowance)\b",),
            subject=named(team),
            question=f"How much can the {team} team spend on conference passes this year?",
        )
        return TaskDraft(
            title="Pick conferences",
            objective=(
                f"Choose which conferences the {team} team goes to this year: the set with the highest total rating ({sheet}: pass "
                f"price and the team's rating of each) whose passes fit the team's conference budget. Write the chosen names to "
                f"{out}, one per line, and e-mail the team lead, {lead.name} ({lead.email}), the choice and its total price with "
                f"the subject '{subject}'."
            ),
            npcs=(colleague(lead, "Team Lead", team, f"Leads the {team} team and holds its budgets."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the chosen conferences are the best-rated set within the budget",
                    needs=("k1",),
                    check=file_holds(out, chosen, rest),
                    attempt=called("write_file", path=out),
                    feedback="Ask the team lead for the budget, then compare every affordable combination, not just the top-rated "
                    "conferences one by one.",
                ),
                Checkpoint(
                    id="c2",
                    text="the team lead got the same choice and its total price",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=lead.email, subject_contains=subject, body_contains=[*chosen, str(cost)]),
                        (checker("email_sent", to=lead.email, subject_contains=subject, body_contains=[c]) for c in rest),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Report the choice with its total so the lead can check it against the budget.",
                ),
            ),
            files={
                sheet: xlsx_bytes(
                    {
                        "Conferences": [
                            ["Conference", "Pass price (EUR)", "Team rating (1-10)"],
                            *([c, prices[c], ratings[c]] for c in names),
                        ]
                    }
                )
            },
            timing=Timing(due_minutes=rng.choice((150, 180, 240)), work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": "\n".join(chosen) + "\n"},
                    needs=("k1",),
                    guess={"path": out, "content": "\n".join(sorted(guessed[0])) + "\n"},
                ),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [lead.email], "subject": subject, "body": f"{', '.join(chosen)}: {cost} EUR in passes."},
                    needs=("k1",),
                    guess={
                        "email_addresses": [lead.email],
                        "subject": subject,
                        "body": f"{', '.join(sorted(guessed[0]))}: {sum(prices[c] for c in guessed[0])} EUR in passes.",
                    },
                ),
            ),
            hints=Hints(
                data=f"Prices and ratings are in {sheet}; the team lead has the budget.",
                method="This is a knapsack: among all combinations whose total price fits the budget, take the one with the highest "
                "total rating.",
            ),
        )


register_template(ConferencePick("conference_pick", "hard", ("chat", "spreadsheets", "files", "email"), "optimization"))
