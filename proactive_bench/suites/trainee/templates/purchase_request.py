"""A purchase request (easy; information synthesis): the team's cost centre, the approved supplier, the total.

Two clues, each held by a scenario-wide colleague who may hold other tasks'
clues (told apart by the team they name): the team's cost centre code is the
finance controller's (k1); which supplier is approved for the team's order is
the office manager's (k2). The price list holds every supplier's unit price;
the approved supplier is never the cheapest, so the natural guess is wrong.
The request must name the approved supplier and its total, and no other
supplier.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, any_form, called, file_holds

ITEMS = ("standing desks", "monitor arms", "office chairs", "headsets", "whiteboards", "docking stations")
SUPPLIERS = 4


class PurchaseRequest(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        controller, manager = shared_colleague(ctx, "finance_controller"), shared_colleague(ctx, "office_manager")
        lead = ctx.names.person()
        team = ctx.names.word("project")
        item = rng.choice(ITEMS)
        quantity = rng.randint(4, 18)
        suppliers = [ctx.names.word("vendor") for _ in range(SUPPLIERS)]
        prices = dict(zip(suppliers, rng.sample(range(60, 640, 5), SUPPLIERS), strict=True))
        cheapest = min(suppliers, key=prices.__getitem__)
        approved = rng.choice([s for s in suppliers if s != cheapest])
        total = prices[approved] * quantity
        code = f"CC-{rng.randint(1000, 9999)}"
        sheet = ctx.names.path(ctx.folder, "price_list", "xlsx")
        out = ctx.names.path(ctx.folder, f"{team.lower()}_purchase_request", "md")
        clues = (
            Clue(
                id="k1",
                holder=controller.handle,
                value=code,
                text=f"The {team} team's cost centre is {code}.",
                ask=(r"\b(cost cent(re|er)|cost code|budget code|account code)\b",),
                subject=named(team),
                question=f"What is the {team} team's cost centre code?",
            ),
            Clue(
                id="k2",
                holder=manager.handle,
                value=f"{approved} is the approved supplier",
                text=f"For the {team} team's {item}, {approved} is the approved supplier.",
                ask=(r"\b(supplier|vendor|approved|buy from|order from)\b",),
                subject=named(team),
                question=f"Which supplier is approved for the {team} team's {item}?",
            ),
        )
        others = [s for s in suppliers if s != approved]
        request = f"# Purchase request: {team} team\n\nItem: {item}\nQuantity: {quantity}\nSupplier: {approved}\nTotal: {total} EUR\nCost centre: {code}\n"
        guessed = request.replace(approved, cheapest).replace(f"{total} EUR", f"{prices[cheapest] * quantity} EUR").replace(code, "CC-0000")
        return TaskDraft(
            title="Write a purchase request",
            objective=(
                f"{lead.name} of the {team} team needs {quantity} {item}. Write the purchase request to {out}: the team's cost centre "
                f"code, the approved supplier (prices in {sheet}), the quantity and the total in EUR. Name no other supplier."
            ),
            npcs=(controller, manager, colleague(lead, "Team Lead", team, f"Leads the {team} team; asked for the {item}.")),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the request carries the team's cost centre code",
                    needs=("k1",),
                    check=file_holds(out, [code]),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Finance Controller for a team's cost centre code.",
                ),
                Checkpoint(
                    id="c2",
                    text="the request names the approved supplier, and no other",
                    needs=("k2",),
                    check=file_holds(out, [approved], others),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Office Manager which supplier is approved; the cheapest is not always the one.",
                ),
                Checkpoint(
                    id="c3",
                    text="the total is the approved supplier's price times the quantity",
                    needs=("k2",),
                    check=any_form(total, lambda form: checker("file_contains", path=out, text=form)),
                    attempt=called("write_file", path=out),
                    feedback="Work the total out from the approved supplier's unit price.",
                ),
            ),
            files={sheet: xlsx_bytes({"Prices": [["Supplier", f"Unit price of {item} (EUR)"], *([s, prices[s]] for s in suppliers)]})},
            timing=Timing(due_minutes=rng.choice((120, 150, 180)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="write_file", args={"path": out, "content": request}, needs=("k1", "k2"), guess={"path": out, "content": guessed}
                ),
            ),
            hints=Hints(
                data=f"Unit prices are in {sheet}; the Finance Controller keeps cost centres, the Office Manager approves suppliers.",
                method="Ask both, then multiply the approved supplier's unit price by the quantity.",
            ),
        )


register_template(PurchaseRequest("purchase_request", "easy", ("chat", "spreadsheets", "files"), "analysis"))
