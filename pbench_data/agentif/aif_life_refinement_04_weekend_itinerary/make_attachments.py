"""Writes inbox/train_times.pdf (a regional timetable extract) and inbox/hotel_booking.pdf (a booking confirmation); invented."""

import argparse
from datetime import datetime
from pathlib import Path

from fpdf import FPDF

FIXED = datetime(2025, 1, 1)
TIMETABLE = [
    ("Lyon Part-Dieu -> Annecy", [
        ("TER-4811", "Mon-Fri only", "06:05", "07:58"),
        ("TER-4301", "Saturday", "07:12", "09:05"),
        ("TER-4305", "Saturday", "09:40", "11:31"),
        ("TER-4309", "Saturday", "12:10", "14:02"),
    ]),
    ("Annecy -> Lyon Part-Dieu", [
        ("TER-4322", "Sunday", "15:20", "17:14"),
        ("TER-4326", "Sunday", "17:45", "19:38"),
        ("TER-4330", "Sunday", "19:50", "21:44"),
        ("TER-4852", "Mon-Fri only", "20:30", "22:21"),
    ]),
]
BOOKING = [
    "Booking confirmation 58231 - Hotel Rive Claire, Annecy",
    "Guests: 2 adults. Arrival Saturday 13 December 2025, departure Sunday 14 December 2025 (1 night).",
    "Check-in from 15:00. Check-out by 11:00. Luggage can be left at reception after check-out.",
    "Breakfast 07:30-10:00 in the garden room, included.",
]


def heading(pdf: FPDF, text: str) -> None:
    pdf.set_font("Helvetica", "B", 13)
    pdf.cell(0, 10, text, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)


parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
heading(pdf, "Regional trains, winter timetable (extract)")
for direction, trains in TIMETABLE:
    heading(pdf, direction)
    for train, days, leaves, arrives in trains:
        pdf.cell(0, 7, f"{train}   {days:<14} dep {leaves}   arr {arrives}", new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "train_times.pdf"))

pdf = FPDF()
pdf.set_creation_date(FIXED)
pdf.add_page()
heading(pdf, "Hotel Rive Claire")
for line in BOOKING:
    pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
pdf.output(str(out / "hotel_booking.pdf"))
