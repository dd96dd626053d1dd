"""Writes inbox/summer_exams.ics (the student's own calendar of last term's exams), inbox/exam_timetable_winter.html
(the faculty's published winter timetable) and inbox/registration_2025-26.pdf (her module registration); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_text

SUMMER = [
    ("BIO110", "Cell Biology", "20250602", "0900", "1100", "Sports Hall"),
    ("CHEM120", "General Chemistry", "20250605", "1400", "1630", "Room A1.04"),
]
WINTER = [
    ("BIO210", "Genetics", "Mon 19 January 2026", "09:00", "2 h", "Sports Hall"),
    ("BIO215", "Microbiology", "Mon 19 January 2026", "14:00", "2 h", "Room B2.11"),
    ("PHYS150", "Physics for Life Sciences", "Wed 21 January 2026", "09:30", "2 h", "Sports Hall"),
    ("CHEM220", "Biochemistry I", "Thu 22 January 2026", "13:30", "3 h", "Room A1.04"),
    ("CHEM230", "Analytical Chemistry", "Fri 23 January 2026", "10:00", "2 h", "Room A1.04"),
    ("STAT200", "Biostatistics", "Tue 27 January 2026", "10:00", "2 h", "Sports Hall"),
]


def arrival(hhmm: str) -> str:
    minutes = int(hhmm[:2]) * 60 + int(hhmm[2:]) - 30
    return f"{minutes // 60:02d}{minutes % 60:02d}"


def summer_event(code: str, title: str, day: str, start: str, end: str, room: str) -> list[str]:
    return [
        "BEGIN:VEVENT",
        f"UID:{code.lower()}-{day}@niamh",
        "DTSTAMP:20250510T120000Z",
        f"DTSTART:{day}T{arrival(start)}00",
        f"DTEND:{day}T{end}00",
        f"SUMMARY:EXAM {code} {title}",
        f"LOCATION:{room}",
        f"DESCRIPTION:Exam starts {start[:2]}:{start[2:]} - event from arrival (30 min early)",
        "END:VEVENT",
    ]


ICS = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Niamh//exams//EN"]
for exam in SUMMER:
    ICS += summer_event(*exam)
ICS.append("END:VCALENDAR")

ROWS = "\n".join(
    f"      <tr><td>{code}</td><td>{title}</td><td>{day}</td><td>{start}</td><td>{length}</td><td>{venue}</td></tr>"
    for code, title, day, start, length, venue in WINTER
)
PAGE = f"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Faculty of Science - winter examinations 2026</title></head>
<body>
  <h1>Winter examinations 2026 - Faculty of Science</h1>
  <p>All times are Irish time. Candidates must bring their student card. Published 1 December 2025.</p>
  <table>
    <thead>
      <tr><th>Code</th><th>Module</th><th>Date</th><th>Start</th><th>Duration</th><th>Venue</th></tr>
    </thead>
    <tbody>
{ROWS}
    </tbody>
  </table>
</body>
</html>
"""

REGISTRATION = [
    ("Module registration 2025-26 - confirmation", ["Student: Niamh Gallagher (23105871)", "Programme: BSc Biological Sciences, year 2"]),
    ("Semester 1 (examined in January)", ["BIO210 Genetics - 10 ECTS", "CHEM220 Biochemistry I - 10 ECTS", "STAT200 Biostatistics - 5 ECTS"]),
    ("Semester 2 (examined in May)", ["BIO220 Ecology - 10 ECTS", "PHYS160 Physics of the Body - 5 ECTS", "BIO230 Field Course - 5 ECTS"]),
]

inbox = workspace_folder(__file__) / "inbox"
write_text(inbox / "summer_exams.ics", "\r\n".join(ICS) + "\r\n")
write_text(inbox / "exam_timetable_winter.html", PAGE)
with pdf_file(inbox / "registration_2025-26.pdf") as pdf:
    pdf.sections(REGISTRATION, heading_height=8, line_height=6)
