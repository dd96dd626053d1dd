"""Writes inbox/january_ledger.xlsx (coded January invoices) and inbox/march_invoices.pdf (uncoded March invoices); all invented."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF
from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
LEDGER = [
    ("J-1001", "Nordpaper AB", "412.00", "OFFC"),
    ("J-1002", "Kraftwerk Strom", "1290.50", "UTIL"),
    ("J-1003", "Bygg & Co", "760.00", "MAINT"),
    ("J-1004", "Nordpaper AB", "88.20", "OFFC"),
]
MARCH = [
    ("M-3101", "Kraftwerk Strom", "1175.00"),
    ("M-3102", "Nordpaper AB", "230.40"),
    ("M-3103", "Bygg & Co", "1540.00"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

book = Workbook()
sheet = book.active
sheet.title = "January"
sheet.append(["invoice", "supplier", "amount", "code"])
for row in LEDGER:
    sheet.append(list(row))
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "january_ledger.xlsx")
normalize_zip(out / "january_ledger.xlsx")

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", size=12)
pdf.cell(0, 10, "Invoices received in March 2025", new_x="LMARGIN", new_y="NEXT")
for number, supplier, amount in MARCH:
    pdf.cell(0, 8, f"Invoice {number}   {supplier}   EUR {amount}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "march_invoices.pdf"))
