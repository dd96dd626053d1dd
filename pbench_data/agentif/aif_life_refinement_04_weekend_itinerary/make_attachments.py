"""Writes inbox/train_times.pdf (a regional timetable extract) and inbox/hotel_booking.pdf (a booking confirmation); invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

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

inbox = workspace_folder(__file__) / "inbox"
with pdf_file(inbox / "train_times.pdf") as pdf:
    pdf.heading("Regional trains, winter timetable (extract)", 10, size=13)
    for direction, trains in TIMETABLE:
        pdf.heading(direction, 10, size=13)
        pdf.write_lines([f"{train}   {days:<14} dep {leaves}   arr {arrives}" for train, days, leaves, arrives in trains], 7)
with pdf_file(inbox / "hotel_booking.pdf") as pdf:
    pdf.heading("Hotel Rive Claire", 10, size=13)
    pdf.write_lines(BOOKING, 7, wrap=True)
