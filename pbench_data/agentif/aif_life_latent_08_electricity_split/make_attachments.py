"""Writes inbox/split_march.xlsx (how three flatmates split March's electricity) and inbox/april_bill.pdf (April's bill); all invented."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF
from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
MARCH = [
    ("Bill total (March)", 186.40, ""),
    ("Heater surcharge - Ruth (her room heater)", 15.00, ""),
    ("Shared part, split three ways", 171.40, ""),
    ("", None, ""),
    ("name", "share_gbp", "reference"),
    ("Ruth", 72.13, "ELEC-MAR-RUTH"),
    ("Jonah", 57.13, "ELEC-MAR-JONAH"),
    ("Femi", 57.14, "ELEC-MAR-FEMI"),
    ("total", 186.40, ""),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

book = Workbook()
sheet = book.active
sheet.title = "March"
for row in MARCH:
    sheet.append(list(row))
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "split_march.xlsx")
normalize_zip(out / "split_march.xlsx")

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", "B", 15)
pdf.cell(0, 12, "Brightwater Energy - electricity statement", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
for line in [
    "Account holder: F. Adeyemi, Flat 3, 41 Tanner Street, Manchester",
    "Billing period: 1 April 2025 to 30 April 2025",
    "Units used: 712 kWh at GBP 0.2450 per kWh: GBP 174.44",
    "Standing charge: 30 days at GBP 0.5237 per day: GBP 15.71",
    "VAT at 5 %: GBP 9.51",
    "Total due: GBP 199.66",
    "Paid by direct debit on 12 May 2025.",
]:
    pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "april_bill.pdf"))
