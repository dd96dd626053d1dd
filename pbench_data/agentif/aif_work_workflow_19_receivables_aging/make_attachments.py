"""Writes the open-items ledger of a print shop's customers (xlsx, 130 invoices, some paid late or part of a credit note)."""

import random
from datetime import date, timedelta

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

OUT = workspace_folder(__file__)
CUSTOMERS = [  # name, how many invoices, share paid
    ("Alder & Finch Architects", 18, 0.7),
    ("Brightwater Dental", 14, 0.85),
    ("Corvid Games Ltd", 20, 0.45),
    ("Dunmore Estate Agents", 16, 0.6),
    ("Elmfield Primary School", 12, 0.9),
    ("Foxglove Florists", 15, 0.5),
    ("Granary Bakery Group", 19, 0.55),
    ("Harrow Lane Surgery", 16, 0.75),
]


def rows():
    rng = random.Random(17)
    invoices = []
    for name, count, paid_share in CUSTOMERS:
        for _ in range(count):
            issued = date(2024, 11, 4) + timedelta(days=rng.randrange(170))
            amount = round(rng.uniform(85, 2400), 2)
            due = issued + timedelta(days=30)
            paid = rng.random() < paid_share and due < date(2025, 4, 28)
            paid_on = (due + timedelta(days=rng.randrange(-10, 25))).isoformat() if paid else None
            invoices.append([issued, name, due, amount, paid_on])
    invoices.sort(key=lambda row: (row[0], row[1]))
    table = [["invoice", "customer", "issued", "due", "amount_gbp", "paid_on"]]
    for n, (issued, name, due, amount, paid_on) in enumerate(invoices, start=1):
        table.append([f"INV-{4100 + n}", name, issued.isoformat(), due.isoformat(), amount, paid_on])
    return table


write_sheet(OUT / "ledger" / "open_items.xlsx", "Open items", rows(), creator="Accounts")
