"""Choosing a supplier quote (hard; strategic modeling and optimization): the cheapest quote over the whole contract that meets
the engineer's minimum specification.

One clue: the minimum specification (capacity and warranty) is the project
engineer's (k1). The quotes sheet lists each supplier's unit price, setup fee,
capacity and warranty; the cost is setup + units x price. The cheapest quote
overall misses the specification, and the lowest unit price is not the
cheapest over the contract, so both natural shortcuts pick wrong.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, any_form, called, none_but

SUPPLIERS = ("Halden Systems", "Ivory Peak", "Jetstream Parts", "Kingsford Tech", "Larkspur Supply", "Moorgate Ltd")


class QuoteChoice(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        engineer, buyer = ctx.names.person(), ctx.names.person()
        project = ctx.names.word("project")
        units = rng.randrange(20, 120, 5)
        min_capacity, min_warranty = rng.choice((500, 750, 1000)), rng.choice((2, 3))
        while True:
            names = rng.sample(SUPPLIERS, 5)
            quote = {
                s: (rng.randrange(40, 160), rng.randrange(0, 3000, 250), rng.choice((250, 500, 750, 1000, 1500)), rng.choice((1, 2, 3, 5)))
                for s in names
            }
            cost = {s: q[1] + units * q[0] for s, q in quote.items()}
            fit = [s for s in names if quote[s][2] >= min_capacity and quote[s][3] >= min_warranty]
            if len(fit) < 2:
                continue
            best = min(fit, key=cost.__getitem__)
            cheapest = min(names, key=cost.__getitem__)
            lowest_unit = min(fit, key=lambda s: quote[s][0])
            if [cost[s] for s in fit].count(cost[best]) == 1 and cheapest not in fit and lowest_unit != best:
                break
        sheet = ctx.names.path(ctx.folder, f"{project.lower()}_quotes", "xlsx")
        subject = f"{project} supplier choice"
        clue = Clue(
            id="k1",
            holder=engineer.handle,
            value=f"at least {min_capacity} units/hour of capacity and at least {min_warranty} years",
            text=f"For {project} we need at least {min_capacity} units/hour of capacity and at least {min_warranty} years of warranty.",
            ask=(r"\b(spec\w*|requirement\w*|minimum|at least|need)\b",),
            subject=named(project),
            question=f"What minimum specification does {project} need from the supplier?",
        )
        others = [s for s in names if s != best]
        return TaskDraft(
            title="Choose a supplier quote",
            objective=(
                f"Choose the supplier for the {project} project's {units} units: of the quotes in {sheet}, the cheapest over the whole "
                f"order (setup fee + units x unit price) among those that meet the project engineer's minimum specification. E-mail "
                f"the buyer, {buyer.name} ({buyer.email}), the supplier and the order's total cost in EUR with the subject '{subject}', "
                "naming no other supplier."
            ),
            npcs=(
                colleague(engineer, "Project Engineer", "Engineering", f"Designs the {project} line; sets its technical needs."),
                colleague(buyer, "Buyer", "Procurement", "Places the orders once a supplier is chosen."),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the chosen supplier is the cheapest that meets the specification, and no other is named",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=buyer.email, subject_contains=subject, body_contains=[best]),
                        (checker("email_sent", to=buyer.email, subject_contains=subject, body_contains=[s]) for s in others),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the project engineer for the minimum specification, then compare the total cost of the quotes "
                    "that meet it.",
                ),
                Checkpoint(
                    id="c2",
                    text="the order's total cost is given",
                    needs=("k1",),
                    check=any_form(
                        cost[best], lambda form: checker("email_sent", to=buyer.email, subject_contains=subject, body_contains=[form])
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Work out the whole order's cost: setup fee plus units times unit price.",
                ),
            ),
            files={
                sheet: xlsx_bytes(
                    {
                        "Quotes": [
                            ["Supplier", "Unit price (EUR)", "Setup fee (EUR)", "Capacity (units/hour)", "Warranty (years)"],
                            *([s, *quote[s]] for s in names),
                        ]
                    }
                )
            },
            timing=Timing(due_minutes=rng.choice((120, 150, 180)), work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [buyer.email], "subject": subject, "body": f"Supplier: {best}. Total: {cost[best]} EUR."},
                    needs=("k1",),
                    guess={
                        "email_addresses": [buyer.email],
                        "subject": subject,
                        "body": f"Supplier: {cheapest}. Total: {cost[cheapest]} EUR.",
                    },
                ),
            ),
            hints=Hints(
                data=f"{sheet} lists each quote's unit price, setup fee, capacity and warranty; the engineer has the minimums.",
                method="Drop the quotes below the minimums, compute setup + units x unit price for the rest, take the lowest.",
            ),
        )


register_template(QuoteChoice("quote_choice", "hard", ("chat", "spreadsheets", "email"), "optimization"))
