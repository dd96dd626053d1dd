"""Writes inbox/exams.pdf: a student's exam list (invented)."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

EXAMS = [("Statistics", "2025-06-10"), ("Ecology", "2025-06-12"), ("Chemistry", "2025-06-14")]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
pdf = FPDF()
pdf.set_creation_date(datetime(2025, 1, 1))
pdf.add_page()
pdf.set_font("Helvetica", size=12)
pdf.cell(0, 10, "Summer exam period 2025", new_x="LMARGIN", new_y="NEXT")
for subject, day in EXAMS:
    pdf.cell(0, 8, f"{subject} written exam: {day}, 09:00, Hall B", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "exams.pdf"))
