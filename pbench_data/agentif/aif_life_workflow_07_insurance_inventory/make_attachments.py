"""Writes inbox/damaged_items.csv (what the kitchen flood ruined) and inbox/policy_contents_cover.pdf (how the insurer values it); all invented."""

import argparse
import csv
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

ITEMS = [
    ("Fridge-freezer", "2019", "899.00"),
    ("Oak dining table", "2012", "650.00"),
    ("Microwave oven", "2021", "129.00"),
    ("Wool rug", "2016", "240.00"),
    ("Toaster", "2023", "45.00"),
    ("Laptop", "2024", "1100.00"),
    ("Pine bookshelf", "2010", "180.00"),
]
POLICY = [
    ("Section 4.2 - Valuing damaged contents",
     "We pay the price you paid, reduced by 10 % for every full year between the year of purchase and the year "
     "of the claim. The reduced value is never less than 30 % of the price paid."),
    ("Section 4.3 - Items not covered",
     "Items bought before 2015 are not covered under this policy and are not paid, whatever their condition."),
    ("Section 4.4 - Claim year",
     "For claims made in 2025 the claim year is 2025. Round every value to the cent."),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

with open(out / "damaged_items.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["item", "year_bought", "price_paid_eur"])
    writer.writerows(ITEMS)

pdf = FPDF()
pdf.set_creation_date(datetime(2025, 1, 1))
pdf.add_page()
pdf.set_font("Helvetica", "B", 15)
pdf.cell(0, 12, "Harbourline Home Insurance - Contents cover (extract)", new_x="LMARGIN", new_y="NEXT")
for heading, body in POLICY:
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 7, body, new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "policy_contents_cover.pdf"))
