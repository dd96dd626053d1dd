"""Stock reordering (hard): list the items to reorder and how many, by a rule the supply planner gives in two steps.

Data: ``stock.xlsx`` (SKU, Item, On hand, Weekly use). The supply planner
holds the rule over a short conversation: the supplier's lead time in weeks
(k1: an item is reordered when its stock would not last that long), and, as a
follow-up once the lead time is out, how many weeks of use an order must
cover (k2: quantity = weeks x weekly use - on hand). Deliverables: the order
sheet (the items to reorder in the stock sheet's order, nothing below them)
and the buyer e-mailed the number of order lines before the deadline. The
guess (two weeks of lead time, four of cover) orders other items and amounts.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading, called, email_step

LEAD_WEEKS = (3, 4, 5, 6)
COVER_WEEKS = (6, 8, 10, 12)
GUESSED_LEAD, GUESSED_COVER = 2, 4
PARTS = ("bolts", "washers", "hinges", "brackets", "gaskets", "rivets", "clamps", "springs", "fuses", "valves", "filters", "bearings")


def reorders(stock: list[Row], lead: int, cover: int) -> list[tuple[str, int]]:
    """(SKU, quantity) of each item whose stock lasts fewer than ``lead`` weeks, ordered up to ``cover`` weeks of use."""
    return [(str(sku), cover * int(use) - int(on_hand)) for sku, _, on_hand, use in stock if int(on_hand) < lead * int(use)]


class StockReorder(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        planner, buyer = ctx.names.person(), ctx.names.person()
        lead, cover = rng.choice(LEAD_WEEKS), rng.choice(COVER_WEEKS)
        brand = ctx.names.word("vendor")
        stock: list[Row] = []
        for n, part in enumerate(rng.sample(PARTS, rng.randint(8, 11))):
            use = rng.randint(5, 60)
            weeks = rng.uniform(0.5, 9) if n > 1 else (1.5 if n == 0 else GUESSED_LEAD + (lead - GUESSED_LEAD) / 2)
            stock.append([f"{brand[:2].upper()}-{rng.randint(100, 999)}{n}", f"{brand} {part}", int(weeks * use), use])
        rng.shuffle(stock)
        orders = reorders(stock, lead, cover)
        guessed = reorders(stock, GUESSED_LEAD, GUESSED_COVER)
        source = ctx.names.path(ctx.folder, "stock", "xlsx")
        out = ctx.names.path(ctx.folder, "reorder", "xlsx")
        due = rng.choice((150, 180, 210))
        subject = f"{brand} reorder"
        rows = len(orders) + 2  # the header, the orders, and one empty row below them

        def sheet(lines: list[tuple[str, int]]) -> dict[str, object]:
            cells: dict[str, object] = {"A1": "SKU", "B1": "Quantity"}
            for row, (sku, qty) in enumerate(lines, start=2):
                cells[f"A{row}"], cells[f"B{row}"] = sku, qty
            return {"path": out, "cells": cells}

        def mail(lines: list[tuple[str, int]]) -> str:
            return f"Order lines: {len(lines)}. The order is in {out}."

        npcs = (
            colleague(planner, "Supply Planner", "Operations", f"Methodical; plans the {brand} parts stock and its suppliers."),
            colleague(buyer, "Buyer", "Procurement", "Direct; places the purchase orders the planners prepare."),
        )
        clues = (
            Clue(
                id="k1",
                holder=planner.handle,
                value=f"lead time is {lead} weeks",
                text=f"The {brand} lead time is {lead} weeks: reorder anything whose stock won't last {lead} weeks of use.",
                ask=(r"\b(lead[- ]?time|reorder point|when .*reorder|deliver\w*|how long)\b",),
                subject=named(brand),
                question=f"What is the supplier lead time for {brand} parts?",
            ),
            Clue(
                id="k2",
                holder=planner.handle,
                value=f"cover {cover} weeks of use",
                text=f"Each order should cover {cover} weeks of use: order {cover} x weekly use minus what is on hand.",
                ask=(r"\b(quantit\w*|how (much|many)|cover\w*|order size|amount)\b",),
                subject=named(brand),
                question=f"What quantity should each {brand} order cover?",
                after="k1",
            ),
        )
        wrote = called("xlsx_write", path=out)
        return TaskDraft(
            title="Reorder stock",
            objective=(
                f"Check the {brand} parts in {source} against the supply planning rules and prepare the reorder in {out}: "
                f"row 1 the headers SKU and Quantity, then one row per item to reorder, in the order of {source}. Then "
                f"e-mail {buyer.name} ({buyer.email}) the number of order lines as 'Order lines: N', subject '{subject}'."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="exactly the items that run out within the lead time are ordered",
                    needs=("k1",),
                    check=checker("xlsx_range", path=out, range=f"A2:A{rows}", values=[*(s for s, _ in orders), None]),
                    attempt=wrote,
                    feedback="Ask the Supply Planner for the lead time before deciding what to reorder.",
                ),
                Checkpoint(
                    id="c2",
                    text="each order covers the planned weeks of use",
                    needs=("k1", "k2"),
                    check=checker("xlsx_range", path=out, range=f"B2:B{rows}", values=[*(q for _, q in orders), None]),
                    attempt=wrote,
                    feedback="Ask the Supply Planner, once you know the lead time, how many weeks an order must cover.",
                ),
                Checkpoint(
                    id="c3",
                    text="the buyer got the number of order lines before the deadline",
                    needs=("k1",),
                    check=checker(
                        "email_sent",
                        to=buyer.email,
                        subject_contains=subject,
                        body_contains=[f"Order lines: {len(orders)}"],
                        before=minute_iso(ctx, ctx.arrival_minute + due),
                    ),
                    attempt=checker("email_sent", to=buyer.email),
                    feedback="E-mail the Buyer how many lines the order has, before the deadline.",
                ),
            ),
            files={source: xlsx_bytes({"Stock": [["SKU", "Item", "On hand", "Weekly use"], *stock]})},
            timing=Timing(due_minutes=due, work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(tool="xlsx_write", args=sheet(orders), needs=("k1", "k2"), guess=sheet(guessed)),
                email_step(buyer.email, subject, mail(orders), needs=("k1",), guessed_body=mail(guessed)),
            ),
            hints=Hints(
                data=f"Stock and weekly use are in {source}; the Supply Planner knows the lead time and, asked next, the cover.",
                method="Reorder an item when on hand < lead weeks x weekly use; quantity = cover weeks x weekly use - on hand.",
            ),
        )


register_template(StockReorder("stock_reorder", "hard", ("chat", "spreadsheets", "email"), "analysis"))
