"""Writes inbox/course_outline.pdf (how an invented accounting course is graded) and inbox/my_marks.xlsx (a student's marks so far)."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF
from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

FIXED = datetime(2025, 1, 1)
OUTLINE = [
    "ACC 204 Management Accounting - Spring 2025",
    "",
    "Assessment weights",
    "- Quizzes: 15 % (the average of your best four of the five quizzes)",
    "- Midterm exam: 25 %",
    "- Group project: 20 %",
    "- Final exam: 40 %",
    "",
    "Passing rules",
    "- To pass the course you need at least 40 out of 100 on the final exam itself,",
    "  and an overall mark of at least 50.",
    "",
    "Grade bands (overall mark)",
    "- A: 85 and above",
    "- B: 70 to 84.99",
    "- C: 60 to 69.99",
    "- D: 50 to 59.99",
    "- F: below 50, or a final exam mark below 40",
]
MARKS = [("Quiz 1", 72), ("Quiz 2", 55), ("Quiz 3", 90), ("Quiz 4", 81), ("Quiz 5", 64), ("Midterm exam", 68), ("Group project", 80), ("Final exam", None)]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
pdf.set_font("Helvetica", size=11)
for line in OUTLINE:
    pdf.cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "course_outline.pdf"))

book = Workbook()
sheet = book.active
sheet.title = "Marks"
sheet.append(["assessment", "mark_out_of_100"])
for name, mark in MARKS:
    sheet.append([name, mark if mark is not None else "not sat yet"])
book.properties.created = book.properties.modified = FIXED
book.properties.creator = "pbench"
book.save(out / "my_marks.xlsx")
normalize_zip(out / "my_marks.xlsx")
