"""Matching invoices to purchase orders (easy; information synthesis and analysis): the invoices over their order by more than
the tolerance, held for review.

One clue: the tolerance accounts payable allows on the supplier's invoices is
the payables lead's (k1, a percentage). The sheet pairs each invoice with its
purchase order amount; an invoice is held when it exceeds its order by more
than the tolerance. Holding every invoice over its order (zero tolerance, the
natural guess) holds too many; the list must hold no other invoice.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

TOLERANCES = (2, 3, 5, 8)


class InvoiceMatch(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        supplier = ctx.names.word("vendor")
        tolerance = rng.choice(TOLERANCES)
        while True:
            rows: list[tuple[str, str, float, float]] = []
            for _ in range(rng.randint(8, 12)):
                order = rng.randrange(40000, 900000, 100)
                change = rng.choice((0, 0, -1.5, 1, 1.5, tolerance - 0.7, tolerance + 0.9, tolerance + 4, 12))
                invoice, po = f"INV-{rng.randint(10000, 99999)}", f"PO-{rng.randint(1000, 9999)}"
                rows.append((invoice, po, order / 100, round(order * (1 + change / 100)) / 100))
            held = [r[0] for r in rows if r[3] > r[2] * (1 + tolerance / 100)]
            over = [r[0] for r in rows if r[3] > r[2]]
            if held and over != held and len({r[0] for r in rows}) == len(rows):
                break
        passed = [r[0] for r in rows if r[0] not in held]
        sheet = ctx.names.path(ctx.folder, f"{supplier.lower()}_invoices", "xlsx")
        out = ctx.names.path(ctx.folder, "held_invoices", "txt")
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"{tolerance}% over",
            text=f"On {supplier} invoices we accept up to {tolerance}% over the purchase order; anything more is held for review.",
            ask=(r"\b(toleran\w*|how much over|variance|allow\w*|threshold)\b",),
            subject=named(supplier),
            question=f"What tolerance over the purchase order do we allow on {supplier} invoices?",
        )
        return TaskDraft(
            title="Match invoices",
            objective=(
                f"Match the {supplier} invoices in {sheet} against their purchase orders. Write the ids of the invoices to hold for "
                f"review (over their order by more than the tolerance we allow) to {out}, one per line, and tell the payables lead, "
                f"{lead.name}, over chat how many you are holding."
            ),
            npcs=(colleague(lead, "Payables Lead", "Finance", "Runs accounts payable; careful with supplier money."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every invoice over its order by more than the tolerance is held, and no other",
                    needs=("k1",),
                    check=file_holds(out, held, passed),
                    attempt=called("write_file", path=out),
                    feedback="Ask the payables lead for the tolerance before holding invoices.",
                ),
                Checkpoint(
                    id="c2",
                    text="the payables lead was told how many are held",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=lead.handle, contains=[f"holding {len(held)}"]),
                        (
                            checker("chat_sent", to=lead.handle, contains=[f"holding {n}"])
                            for n in range(len(rows) + 1)
                            if f"holding {n}" not in f"holding {len(held)}"
                        ),
                    ),
                    attempt=checker("chat_sent", to=lead.handle, contains=["holding"]),
                    feedback="Tell the payables lead how many invoices you are holding ('holding N').",
                ),
            ),
            files={
                sheet: xlsx_bytes(
                    {"Invoices": [["Invoice", "Purchase order", "Order amount (EUR)", "Invoice amount (EUR)"], *(list(r) for r in rows)]}
                )
            },
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": "\n".join(held) + "\n"},
                    needs=("k1",),
                    guess={"path": out, "content": "\n".join(over) + "\n"},
                ),
                Step(
                    tool="chat__send_message",
                    args={"to": lead.handle, "text": f"{supplier} invoices: holding {len(held)} for review."},
                    needs=("k1",),
                    guess={"to": lead.handle, "text": f"{supplier} invoices: holding {len(over)} for review."},
                ),
            ),
            hints=Hints(
                data=f"{sheet} pairs each invoice with its order amount; the payables lead sets the tolerance.",
                method="Hold an invoice when invoice amount > order amount x (1 + tolerance).",
            ),
        )


register_template(InvoiceMatch("invoice_match", "easy", ("chat", "spreadsheets", "files"), "analysis"))
