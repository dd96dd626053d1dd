"""Writes inbox/offsite_costs.xlsx: the invented price list of a design studio's one-day offsite."""

import argparse
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
COSTS = [
    ("Venue hire, Glanmor Barn (one day)", "flat", 850.00),
    ("Lunch buffet", "per person", 18.50),
    ("Coach, Cardiff - Glanmor and back", "flat", 420.00),
    ("Workshop facilitator (half day)", "flat", 600.00),
    ("Dinner at the Old Mill", "per person", 42.00),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
book = Workbook()
sheet = book.active
sheet.title = "Quotes"
sheet.append(["item", "basis", "price_gbp"])
for row in COSTS:
    sheet.append(list(row))
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "offsite_costs.xlsx")
normalize_zip(out / "offsite_costs.xlsx")
