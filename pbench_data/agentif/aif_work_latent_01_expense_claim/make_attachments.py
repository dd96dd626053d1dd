"""Writes inbox/september_claim.xlsx (an approved expense claim) and inbox/october_receipts.pdf (October's receipts and trips); invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_sheet

SEPTEMBER = [
    ("03.09.2025", "Train Malmö-Copenhagen, client visit", "TRAVEL", 21.60),
    ("09.09.2025", "Mileage Malmö-Lund 36 km x 0.30", "MILEAGE", 10.80),
    ("16.09.2025", "Dinner with supplier (2 people)", "MEALS", 58.00),
    ("24.09.2025", "Parking at Kastrup airport", "TRAVEL", 32.00),
    ("29.09.2025", "Mileage Malmö-Trelleborg 62 km x 0.30", "MILEAGE", 18.60),
]
OCTOBER = [
    "02 Oct 2025 - Train ticket Malmö-Helsingborg (returned by car, see below) - 18.40 EUR",
    "07 Oct 2025 - Client lunch, 3 people - 64.50 EUR",
    "07 Oct 2025 - Drove Helsingborg-Malmö after the lunch, 128 km in my own car (no receipt)",
    "15 Oct 2025 - Parking at the trade fair - 12.00 EUR",
    "18 Oct 2025 - Gym bag, 39.00 EUR - PRIVATE, paid with the company card by mistake, I repay it myself",
    "21 Oct 2025 - Drove to the Ystad site visit and back, 110 km in my own car (no receipt)",
]

inbox = workspace_folder(__file__) / "inbox"
ROWS = [
    ("date", "description", "category", "amount_eur"),
    *SEPTEMBER,
    ("", "TOTAL", "", 141.00),
    ("", "Approved 06.10.2025, K. Holm (finance)", "", ""),
]
write_sheet(inbox / "september_claim.xlsx", "September 2025", ROWS, creator="finance")
with pdf_file(inbox / "october_receipts.pdf") as pdf:
    pdf.heading("My October expenses (scanned receipts + trips)", 10, size=13)
    pdf.write_lines(OCTOBER, 7, wrap=True)
