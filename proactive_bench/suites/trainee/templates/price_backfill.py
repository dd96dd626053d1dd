"""Price backfill (easy): fill the blank unit prices and the totals of an order sheet; one product's price changed.

Data: ``orders.xlsx`` (Order, Product, Quantity, Unit price, Total) where the
rows of one product have no unit price and no row has a total, and a price
list from last quarter that is right for every product but that one. The clue
(k1, held by the sales-operations analyst): the product's current price.
Copying the stale price from the list fills every cell, and every cell of that
product comes out wrong.
"""

from __future__ import annotations

import re

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading

GOODS = ("kettle", "lamp", "stool", "blender", "heater", "toaster", "fan", "shelf")
"""What the catalogue sells (a product is a vendor-pool brand and one of these)."""
PRICE_TOLERANCE = 0.01


class PriceBackfill(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        analyst, keeper = ctx.names.person(), ctx.names.person()
        products = [f"{ctx.names.word('vendor')} {good}" for good in rng.sample(GOODS, 3)]
        listed = {p: round(rng.uniform(8, 90), 2) for p in products}
        changed = products[rng.randrange(3)]
        current = round(listed[changed] * rng.choice((1.08, 1.12, 1.15, 0.9, 0.85)), 2)
        orders: list[Row] = []
        for n in range(rng.randint(7, 11)):
            orders.append([f"SO-{rng.randint(100, 999)}{n}", products[n % 3] if n < 3 else rng.choice(products), rng.randint(1, 40)])
        price = {p: (current if p == changed else listed[p]) for p in products}
        sheet = ctx.names.path(ctx.folder, "orders", "xlsx")
        price_list = ctx.names.path(ctx.folder, "price_list_last_quarter", "txt")
        last = len(orders) + 1
        cells: dict[str, object] = {}
        guessed: dict[str, object] = {}
        for row, (_, product, qty) in enumerate(orders, start=2):
            if product == changed:
                cells[f"D{row}"], guessed[f"D{row}"] = current, listed[changed]
            cells[f"E{row}"] = round(price[product] * qty, 2)
            guessed[f"E{row}"] = round(listed[product] * qty, 2)
        visible = [[o, p, q, None if p == changed else listed[p], None] for o, p, q in orders]
        value = f"{current:.2f} a unit"
        npcs = (
            colleague(analyst, "Sales Operations Analyst", "Sales", "Quick on chat; keeps the catalogue prices up to date."),
            colleague(keeper, "Warehouse Coordinator", "Logistics", "Practical; knows stock levels and shipping, not prices."),
        )
        clue = Clue(
            id="k1",
            holder=analyst.handle,
            value=value,
            text=f"The {changed} was repriced this quarter: it now sells at {value}. The other prices did not change.",
            ask=(r"\b(price[ds]?|pricing|cost|costs)\b",),
            subject=named(changed.split()[0]),
            question=f"What is the current unit price of the {changed}?",
        )
        wrote = {"tool_called": {"name": "xlsx_write", "args": {"path": re.escape(sheet)}}}
        return TaskDraft(
            title="Complete an order sheet",
            objective=(
                f"The order sheet {sheet} is incomplete. Fill the blank Unit price cells (column D) with each product's "
                f"current price, and the Total column (E) of every order with Quantity x Unit price, rounded to cents. "
                f"Last quarter's price list is in {price_list}."
            ),
            npcs=npcs,
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every unit price holds the product's current price",
                    needs=("k1",),
                    check=checker(
                        "xlsx_range", path=sheet, range=f"D2:D{last}", values=[price[p] for _, p, _ in orders], tolerance=PRICE_TOLERANCE
                    ),
                    attempt=wrote,
                    feedback="A price list can be stale: confirm a missing price with Sales Operations before filling it in.",
                ),
                Checkpoint(
                    id="c2",
                    text="every total is quantity times the current unit price",
                    needs=("k1",),
                    check=checker(
                        "xlsx_range",
                        path=sheet,
                        range=f"E2:E{last}",
                        values=[cells[f"E{r}"] for r in range(2, last + 1)],
                        tolerance=PRICE_TOLERANCE,
                    ),
                    attempt=wrote,
                    feedback="Compute each total from the confirmed unit price, for every row of the sheet.",
                ),
            ),
            files={
                sheet: xlsx_bytes({"Orders": [["Order", "Product", "Quantity", "Unit price", "Total"], *visible]}),
                price_list: "Price list (last quarter)\n" + "".join(f"{p}: {listed[p]:.2f}\n" for p in products),
            },
            timing=Timing(work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(tool="xlsx_write", args={"path": sheet, "cells": cells}, needs=("k1",), guess={"path": sheet, "cells": guessed}),
            ),
            hints=Hints(
                data=f"The {changed} rows lack a price; the price list is right for the other products only.",
                method="Ask Sales Operations for the current price of the product with blank prices, then write D and E.",
            ),
        )


register_template(PriceBackfill("price_backfill", "easy", ("chat", "spreadsheets", "files"), "analysis"))
