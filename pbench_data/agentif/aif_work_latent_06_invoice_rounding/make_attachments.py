"""Writes inbox/october_invoice.pdf (a freelancer's paid October invoice) and inbox/november_timesheet.csv (November's raw time); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv

OCTOBER = [
    ("07.10.2025", "Interview guide", "1.50", "90.00", "135.00"),
    ("09.10.2025", "Travel to client (Ghent)", "1.75", "45.00", "78.75"),
    ("09.10.2025", "User interviews on site", "4.25", "90.00", "382.50"),
    ("16.10.2025", "Synthesis workshop", "2.00", "90.00", "180.00"),
]
NOVEMBER = [
    ("2025-11-03", "Workshop preparation", "2:10"),
    ("2025-11-05", "Travel to client (Ghent)", "1:40"),
    ("2025-11-05", "On-site workshop", "3:00"),
    ("2025-11-12", "Report writing", "1:05"),
    ("2025-11-19", "Follow-up call", "0:35"),
]
TERMS = (
    "Terms agreed with Brightfield: time is billed per entry, rounded up to the next quarter hour. "
    "Travel time is billed at half rate (45.00 EUR per hour). Paid 28.10.2025, thank you."
)

inbox = workspace_folder(__file__) / "inbox"
with pdf_file(inbox / "october_invoice.pdf") as pdf:
    pdf.heading("Invoice 2025-017 - Leila Haddad, UX research - to Brightfield NV", 10, size=14)
    table = ["date,description,hours,rate_eur,amount_eur", *(",".join(row) for row in OCTOBER), "Total: 776.25 EUR"]
    pdf.write_lines(table, 7, size=10, family="Courier")
    pdf.write_lines([TERMS], 6, size=10, wrap=True)
write_csv(inbox / "november_timesheet.csv", [("day", "task", "time_h_mm"), *NOVEMBER])
