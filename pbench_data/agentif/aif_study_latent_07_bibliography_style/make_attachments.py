"""Writes inbox/essay1_references.docx (a tutor-approved reference list) and inbox/essay2_sources.csv (the next essay's sources); all invented."""

import argparse
import csv
from pathlib import Path

from docx import Document

from proactive_bench.suites.agentif.attachments import normalize_zip

ESSAY1 = [
    "Castillo, R. (2007). The copper valleys and their people. La Serena: Editorial Norte Chico.",
    "Moreno, A. (2013). Mining camps in the Atacama, 1860-1910. Santiago: Cordillera Press.",
    "Whitfield, J. (2001). British capital in the Pacific ports. Bristol: Tolland & Hart.",
]
SOURCES = [
    ("Quiroga", "Elena", "2004", "The saltpetre towns, 1880-1930", "Cordillera Press", "Santiago"),
    ("Hartley", "Owen", "1998", "Railways of the northern desert", "Redfern & Low", "London"),
    ("Araya", "Marta", "2016", "Women in the nitrate economy", "Editorial Pacifico", "Antofagasta"),
    ("Davila", "Ramon", "2009", "Company stores and token money", "Cordillera Press", "Santiago"),
    ("Ferreira", "Lucia", "2011", "Ports, strikes and the state", "Andes University Press", "Valparaiso"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

doc = Document()
doc.core_properties.author = "pbench"
doc.add_heading("HIST 310 Essay 1 - References", level=1)
for entry in ESSAY1:
    doc.add_paragraph(entry)
doc.add_paragraph("Tutor's comment: reference list correctly formatted. 10/10 for presentation.")
doc.save(out / "essay1_references.docx")
normalize_zip(out / "essay1_references.docx")

with open(out / "essay2_sources.csv", "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f, lineterminator="\n")
    writer.writerow(["surname", "first_name", "year", "title", "publisher", "place"])
    writer.writerows(SOURCES)
