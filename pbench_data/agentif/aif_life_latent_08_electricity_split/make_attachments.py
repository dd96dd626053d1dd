"""Writes inbox/split_march.xlsx (how three flatmates split March's electricity) and inbox/april_bill.pdf (April's bill); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_sheet

MARCH = [
    ("Bill total (March)", 186.40, ""),
    ("Heater surcharge - Ruth (her room heater)", 15.00, ""),
    ("Shared part, split three ways", 171.40, ""),
    ("", None, ""),
    ("name", "share_gbp", "reference"),
    ("Ruth", 72.13, "ELEC-MAR-RUTH"),
    ("Jonah", 57.13, "ELEC-MAR-JONAH"),
    ("Femi", 57.14, "ELEC-MAR-FEMI"),
    ("total", 186.40, ""),
]
BILL = [
    "Account holder: F. Adeyemi, Flat 3, 41 Tanner Street, Manchester",
    "Billing period: 1 April 2025 to 30 April 2025",
    "Units used: 712 kWh at GBP 0.2450 per kWh: GBP 174.44",
    "Standing charge: 30 days at GBP 0.5237 per day: GBP 15.71",
    "VAT at 5 %: GBP 9.51",
    "Total due: GBP 199.66",
    "Paid by direct debit on 12 May 2025.",
]

inbox = workspace_folder(__file__) / "inbox"
write_sheet(inbox / "split_march.xlsx", "March", MARCH)
with pdf_file(inbox / "april_bill.pdf") as pdf:
    pdf.heading("Brightwater Energy - electricity statement", 12, size=15)
    pdf.write_lines(BILL, 8)
