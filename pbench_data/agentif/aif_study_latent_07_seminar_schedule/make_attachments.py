"""Writes inbox/schedule_spring.xlsx (last term's student-talk schedule) and inbox/autumn_signups.docx (this term's sign-ups); all invented."""

import argparse
from datetime import datetime
from pathlib import Path

from docx import Document
from openpyxl import Workbook

from proactive_bench.suites.agentif.attachments import normalize_zip

SPRING = [
    ("14:00", "Hugo Lemaire"), ("14:20", "Sara Lindgren"), ("14:40", "Omar Farouk"), ("15:00", "Break"),
    ("15:10", "Mia Kovac"), ("15:30", "Lucas Girard"), ("15:50", "Ana Sousa"), ("16:10", "Break"),
    ("16:20", "Tariq Aziz"), ("16:40", "Eva Horvat"),
]
SIGNUPS = [
    "1. Noor Hassan - urban heat islands",
    "2. Felix Baumann - bike lanes and retail",
    "3. Chiara Ricci - night buses",
    "4. Daniel Mensah - withdrew from the seminar, do not schedule",
    "5. Ingrid Sola - school streets",
    "6. Yara Nasser - park access",
    "7. Piet de Wit - tram noise",
    "8. Lina Park - pop-up markets",
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

book = Workbook()
sheet = book.active
sheet.title = "Spring talks"
sheet.append(["time", "speaker"])
for row in SPRING:
    sheet.append(list(row))
book.properties.created = book.properties.modified = datetime(2025, 1, 1)
book.properties.creator = "pbench"
book.save(out / "schedule_spring.xlsx")
normalize_zip(out / "schedule_spring.xlsx")

doc = Document()
doc.core_properties.author = "pbench"
doc.add_heading("URB 520 research seminar - autumn talk sign-ups (in order of sign-up)", level=1)
for line in SIGNUPS:
    doc.add_paragraph(line)
doc.save(out / "autumn_signups.docx")
normalize_zip(out / "autumn_signups.docx")
