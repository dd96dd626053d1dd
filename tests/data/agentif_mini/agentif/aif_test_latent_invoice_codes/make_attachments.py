"""Writes inbox/january_ledger.xlsx (coded January invoices) and inbox/march_invoices.pdf (uncoded March invoices); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_sheet

LEDGER = [
    ("J-1001", "Nordpaper AB", "412.00", "OFFC"),
    ("J-1002", "Kraftwerk Strom", "1290.50", "UTIL"),
    ("J-1003", "Bygg & Co", "760.00", "MAINT"),
    ("J-1004", "Nordpaper AB", "88.20", "OFFC"),
]
MARCH = [
    ("M-3101", "Kraftwerk Strom", "1175.00"),
    ("M-3102", "Nordpaper AB", "230.40"),
    ("M-3103", "Bygg & Co", "1540.00"),
]

inbox = workspace_folder(__file__) / "inbox"
write_sheet(inbox / "january_ledger.xlsx", "January", [("invoice", "supplier", "amount", "code"), *LEDGER])
with pdf_file(inbox / "march_invoices.pdf") as pdf:
    pdf.write_lines(["Invoices received in March 2025"], 10, size=12)
    pdf.write_lines([f"Invoice {number}   {supplier}   EUR {amount}" for number, supplier, amount in MARCH], 8, size=12)
