"""Writes inbox/september_claim.xlsx (an approved expense claim) and inbox/october_receipts.pdf (October's receipts and trips); invented."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF
from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
SEPTEMBER = [
    ("03.09.2025", "Train Malmö-Copenhagen, client visit", "TRAVEL", 21.60),
    ("09.09.2025", "Mileage Malmö-Lund 36 km x 0.30", "MILEAGE", 10.80),
    ("16.09.2025", "Dinner with supplier (2 people)", "MEALS", 58.00),
    ("24.09.2025", "Parking at Kastrup airport", "TRAVEL", 32.00),
    ("29.09.2025", "Mileage Malmö-Trelleborg 62 km x 0.30", "MILEAGE", 18.60),
]
OCTOBER = [
    "02 Oct 2025 - Train ticket Malmö-Helsingborg (returned by car, see below) - 18.40 EUR",
    "07 Oct 2025 - Client lunch, 3 people - 64.50 EUR",
    "07 Oct 2025 - Drove Helsingborg-Malmö after the lunch, 128 km in my own car (no receipt)",
    "15 Oct 2025 - Parking at the trade fair - 12.00 EUR",
    "18 Oct 2025 - Gym bag, 39.00 EUR - PRIVATE, paid with the company card by mistake, I repay it myself",
    "21 Oct 2025 - Drove to the Ystad site visit and back, 110 km in my own car (no receipt)",
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

book = Workbook()
sheet = book.active
sheet.title = "September 2025"
sheet.append(["date", "description", "category", "amount_eur"])
for row in SEPTEMBER:
    sheet.append(list(row))
sheet.append(["", "TOTAL", "", 141.00])
sheet.append(["", "Approved 06.10.2025, K. Holm (finance)", "", ""])
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "finance"
book.save(out / "september_claim.xlsx")
normalize_zip(out / "september_claim.xlsx")

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", "B", 13)
pdf.cell(0, 10, "My October expenses (scanned receipts + trips)", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=11)
for line in OCTOBER:
    pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "october_receipts.pdf"))
