"""Writes inbox/schedule_spring.xlsx (last term's student-talk schedule) and inbox/autumn_signups.docx (this term's sign-ups); all invented."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder, write_sheet

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

inbox = workspace_folder(__file__) / "inbox"
write_sheet(inbox / "schedule_spring.xlsx", "Spring talks", [("time", "speaker"), *SPRING])
with docx_file(inbox / "autumn_signups.docx") as doc:
    doc.add_heading("URB 520 research seminar - autumn talk sign-ups (in order of sign-up)", level=1)
    for line in SIGNUPS:
        doc.add_paragraph(line)
