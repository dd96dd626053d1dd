"""Writes inbox/chair_quotes.pdf: three invented suppliers' quotes for office chairs."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

QUOTES = [
    ("ErgoSeat Ltd", ["Price per chair: GBP 189.00", "Delivery: GBP 60.00 flat for the whole order",
                      "Warranty: 5 years", "Lead time: 10 working days"]),
    ("Northdesk Supplies", ["Price per chair: GBP 172.50", "Delivery: GBP 9.50 per chair",
                            "Warranty: 2 years", "Lead time: 12 working days"]),
    ("Kestrel Office", ["Price per chair: GBP 199.00", "Delivery: free", "Discount: 8 % off the chairs on orders of 10 or more",
                        "Warranty: 5 years", "Lead time: 7 working days"]),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

pdf = FPDF()
pdf.set_creation_date(datetime(2025, 1, 1))
pdf.add_page()
pdf.set_font("Helvetica", "B", 15)
pdf.cell(0, 12, "Quotes received: ergonomic task chairs (model class B)", new_x="LMARGIN", new_y="NEXT")
for supplier, lines in QUOTES:
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 10, supplier, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    for line in lines:
        pdf.cell(0, 7, f"- {line}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "chair_quotes.pdf"))
