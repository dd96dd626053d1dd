"""Writes inbox/deck_chapter3.csv (a learner's imported German flashcards) and inbox/chapter4_vocab.docx (the teacher's chapter 4 word list); all invented."""

import argparse
from pathlib import Path

from docx import Document

from proactive_bench.suites.agentif.attachments import normalize_zip

DECK3 = [
    "der Bahnhof;train station;ch3 noun",
    "die Fahrkarte;ticket;ch3 noun",
    "das Gleis;platform, track;ch3 noun",
    "abfahren;to depart;ch3 verb",
    "die Verspätung;delay;ch3 noun",
    "pünktlich;on time;ch3 adj",
    "umsteigen;to change trains;ch3 verb",
]
VOCAB4 = [
    ("Wohnung", "f", "flat, apartment", "noun"),
    ("Schlüssel", "m", "key", "noun"),
    ("Zimmer", "n", "room", "noun"),
    ("mieten", "", "to rent", "verb"),
    ("hell", "", "bright", "adjective"),
    ("Küche", "f", "kitchen", "noun"),
    ("Nachbar", "m", "neighbour", "noun"),
    ("umziehen", "", "to move house", "verb"),
]

parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
(out / "deck_chapter3.csv").write_text("\n".join(DECK3) + "\n", encoding="utf-8")

doc = Document()
doc.core_properties.author = "pbench"
doc.add_heading("Deutsch A2 - Kapitel 4: Wohnen", level=1)
doc.add_paragraph("Gender: m = masculine, f = feminine, n = neuter.")
table = doc.add_table(rows=1, cols=4)
for cell, text in zip(table.rows[0].cells, ["German", "gender", "English", "word type"], strict=True):
    cell.text = text
for row in VOCAB4:
    for cell, text in zip(table.add_row().cells, row, strict=True):
        cell.text = text
doc.save(out / "chapter4_vocab.docx")
normalize_zip(out / "chapter4_vocab.docx")
