"""Writes April's IT incident report (docx: summary line, impact key, incident table) and May's incident export (csv)."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder, write_csv

OUT = workspace_folder(__file__)

APRIL = [  # ref, opened, service, impact, resolved in (h:mm)
    ("INC-2011", "2025-04-01 09:12", "Email", "P2", "1:05"),
    ("INC-2015", "2025-04-04 14:30", "Phones (reception)", "P4", "0:25"),
    ("INC-2019", "2025-04-10 08:02", "Single sign-on", "P1", "2:10"),
    ("INC-2023", "2025-04-15 11:45", "Printing (1st floor)", "P3", "0:40"),
    ("INC-2030", "2025-04-24 16:05", "Timesheets app", "P3", "19:20"),
]

MAY = [
    ["ref", "opened", "resolved", "service", "users_affected", "full_outage"],
    ["INC-2041", "2025-05-02 08:14", "2025-05-02 09:02", "Email", 340, "no"],
    ["INC-2044", "2025-05-06 13:30", "2025-05-06 13:52", "Printing (2nd floor)", 18, "no"],
    ["INC-2047", "2025-05-09 07:55", "2025-05-09 11:40", "VPN", 620, "no"],
    ["INC-2050", "2025-05-13 10:05", "2025-05-13 10:17", "Payroll app", 4, "no"],
    ["INC-2052", "2025-05-15 16:20", "2025-05-16 09:05", "File server", 75, "yes"],
    ["INC-2055", "2025-05-21 09:00", "2025-05-21 10:30", "Wi-Fi (3rd floor)", 130, "no"],
    ["INC-2058", "2025-05-27 14:45", "2025-05-27 15:03", "CRM", 9, "no"],
    ["INC-2060", "2025-05-29 11:10", "2025-05-29 12:25", "Intranet", 99, "no"],
]

with docx_file(OUT / "reports" / "it_incidents_april.docx", author="IT service desk") as doc:
    doc.add_heading("IT incidents - April 2025", level=1)
    doc.add_paragraph("In April 2025, 5 incidents (P1: 1, P2: 1, P3: 2, P4: 1).")
    doc.add_heading("Incidents", level=2)
    table = doc.add_table(rows=1, cols=5)
    for cell, text in zip(table.rows[0].cells, ("Ref", "Opened", "Service", "Impact", "Resolved in")):
        cell.text = text
    for row in APRIL:
        for cell, text in zip(table.add_row().cells, row):
            cell.text = text
    doc.add_heading("Impact key", level=2)
    for line in (
        "P1 - the service is down for everyone, or 500 or more users are affected",
        "P2 - 100 to 499 users affected",
        "P3 - 10 to 99 users affected",
        "P4 - fewer than 10 users affected",
        "Resolved in: hours and minutes (h:mm) from opening to resolution.",
    ):
        doc.add_paragraph(line)

write_csv(OUT / "data" / "incidents_may.csv", MAY)
