"""Dispatching an urgent order (hard; strategic modeling): from the nearest depot, on a map, that has the stock.

Two clues: which customer placed the urgent order is the account manager's
(k1); where the customers and depots are is only drawn on a map (k2, an image
clue). The stock sheet lists each depot's units; the depot nearest the
customer lacks them, so the answer is the nearest depot that has enough.
Naming more than one depot fails.
"""

from __future__ import annotations

import math

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import site_map
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

SIZE = 20
DEPOTS = ("Depot A", "Depot B", "Depot C", "Depot D", "Depot E")
CUSTOMERS = ("Mill Lane Clinic", "Harbour Bakery", "Quayside Hotel", "Orchard School", "Station Pharmacy", "Riverside Gym")
SHOWN_CUSTOMERS = 4
MARGIN_KM = 1.5
"""Distances to the customer differ by at least this much (read off a map, not measured to the metre)."""


class DepotDispatch(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        account, planner = ctx.names.person(), ctx.names.person()
        brand = ctx.names.word("project")
        customers = rng.sample(CUSTOMERS, SHOWN_CUSTOMERS)
        customer = rng.choice(customers)
        units = rng.randint(20, 60)
        while True:
            spots = rng.sample([(x, y) for x in range(1, SIZE) for y in range(1, SIZE)], len(DEPOTS) + SHOWN_CUSTOMERS)
            where = dict(zip([*DEPOTS, *customers], spots, strict=True))
            distance = {d: math.dist(where[d], where[customer]) for d in DEPOTS}
            ranked = sorted(DEPOTS, key=distance.__getitem__)
            gaps = [distance[b] - distance[a] for a, b in zip(ranked, ranked[1:], strict=False)]
            if min(gaps) >= MARGIN_KM:
                break
        stock = {d: rng.randint(units, units + 40) if rng.random() < 0.6 else rng.randint(0, units - 5) for d in DEPOTS}
        stock[ranked[0]] = rng.randint(0, units - 5)  # the nearest depot cannot serve it
        if all(stock[d] < units for d in ranked[1:]):
            stock[ranked[-1]] = units + rng.randint(0, 20)
        if sum(stock[d] >= units for d in DEPOTS) < 2:  # one depot with stock: the sheet alone would answer, without the map
            stock[next(d for d in reversed(ranked[1:]) if stock[d] < units)] = units + 10
        depot = next(d for d in ranked if stock[d] >= units)
        if stock[depot] >= max(stock[d] for d in DEPOTS if d != depot):  # nor may the fullest depot be the answer
            stock[next(d for d in reversed(ranked) if stock[d] >= units and d != depot)] = stock[depot] + 7
        others = [d for d in DEPOTS if d != depot]
        picture = ctx.names.path(ctx.folder, "delivery_map", "png")
        sheet = ctx.names.path(ctx.folder, f"{brand.lower()}_stock", "xlsx")
        desk = f"{brand.lower()}-dispatch@{ctx.company.domain}"
        subject = f"{brand} urgent dispatch"
        clues = (
            Clue(
                id="k1",
                holder=account.handle,
                value=customer,
                text=f"The urgent {brand} order was placed by {customer}.",
                ask=(r"\b(who|which customer|customer|placed|ordered|for whom)\b",),
                subject=named(brand),
                question=f"Which customer placed the urgent {brand} order?",
            ),
            Clue(id="k2", holder=f"file:{picture}", value=f"{depot} is the nearest", text=f"the map: {depot} is the nearest with stock"),
        )
        return TaskDraft(
            title="Dispatch an urgent order",
            objective=(
                f"An urgent order of {units} units of {brand} came in. Dispatch it from the depot nearest the customer (the map of "
                f"depots and customers is {picture}) that has at least {units} units in stock ({sheet}): e-mail the dispatch desk "
                f"({desk}) with the subject '{subject}', naming the depot and the customer."
            ),
            npcs=(
                colleague(account, "Account Manager", "Sales", f"Looks after the customers who buy {brand}."),
                colleague(planner, "Logistics Planner", "Operations", "Plans the vans and the depots' rounds."),
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the order was sent from the nearest depot with enough stock, and no other depot was named",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject, body_contains=[depot]),
                        (checker("email_sent", to=desk, body_contains=[d]) for d in others),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Account Manager who the customer is, then measure on the map (view_image) which depot with "
                    "enough stock is nearest to them.",
                ),
                Checkpoint(
                    id="c2",
                    text="the dispatch names the customer",
                    needs=("k1",),
                    check=checker("email_sent", to=desk, subject_contains=subject, body_contains=[customer]),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Find out which customer placed an order before dispatching it.",
                ),
            ),
            files={
                picture: site_map(
                    "Depots and customers",
                    [(name, x, y, "depot" if name in DEPOTS else "customer") for name, (x, y) in where.items()],
                    SIZE,
                ),
                sheet: xlsx_bytes({"Stock": [["Depot", f"{brand} units"], *([d, stock[d]] for d in DEPOTS)]}),
            },
            timing=Timing(due_minutes=rng.choice((90, 120)), work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={
                        "email_addresses": [desk],
                        "subject": subject,
                        "body": f"Please send {units} units of {brand} from {depot} to {customer}.",
                    },
                    needs=("k1", "k2"),
                    guess={
                        "email_addresses": [desk],
                        "subject": subject,
                        "body": f"Please send {units} units of {brand} from {max(DEPOTS, key=stock.__getitem__)}.",
                    },
                ),
            ),
            hints=Hints(
                data=f"Depots (squares) and customers (stars) are on {picture}, with a kilometre grid; the stock is in {sheet}.",
                method="Rank the depots by straight-line distance to the customer and take the first with enough units.",
            ),
        )


register_template(DepotDispatch("depot_dispatch", "hard", ("chat", "images", "spreadsheets", "email"), "optimization"))
