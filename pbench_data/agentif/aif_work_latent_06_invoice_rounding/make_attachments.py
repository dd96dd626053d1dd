"""Writes inbox/october_invoice.pdf (a freelancer's paid October invoice) and inbox/november_timesheet.csv (November's raw time); all invented."""

import argparse
import csv
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

OCTOBER = [
    ("07.10.2025", "Interview guide", "1.50", "90.00", "135.00"),
    ("09.10.2025", "Travel to client (Ghent)", "1.75", "45.00", "78.75"),
    ("09.10.2025", "User interviews on site", "4.25", "90.00", "382.50"),
    ("16.10.2025", "Synthesis workshop", "2.00", "90.00", "180.00"),
]
NOVEMBER = [
    ("2025-11-03", "Workshop preparation", "2:10"),
    ("2025-11-05", "Travel to client (Ghent)", "1:40"),
    ("2025-11-05", "On-site workshop", "3:00"),
    ("2025-11-12", "Report writing", "1:05"),
    ("2025-11-19", "Follow-up call", "0:35"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

pdf = FPDF()
pdf.set_creation_date(datetime(2025, 1, 1))
pdf.add_page()
pdf.set_font("Helvetica", "B", 14)
pdf.cell(0, 10, "Invoice 2025-017 - Leila Haddad, UX research - to Brightfield NV", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Courier", size=10)
pdf.cell(0, 7, "date,description,hours,rate_eur,amount_eur", new_x="LMARGIN", new_y="NEXT")
for row in OCTOBER:
    pdf.cell(0, 7, ",".join(row), new_x="LMARGIN", new_y="NEXT")
pdf.cell(0, 7, "Total: 776.25 EUR", new_x="LMARGIN", new_y="NEXT")
pdf.set_font("Helvetica", size=10)
pdf.multi_cell(0, 6, "Terms agreed with Brightfield: time is billed per entry, rounded up to the next quarter hour. "
               "Travel time is billed at half rate (45.00 EUR per hour). Paid 28.10.2025, thank you.",
               new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "october_invoice.pdf"))

with open(out / "november_timesheet.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["day", "task", "time_h_mm"])
    writer.writerows(NOVEMBER)
