"""Writes a cleaning services agreement (docx): parties, term and renewal, notice, prices, insurance, signatures."""

from proactive_bench.suites.agentif.attachment_writers import docx_file, workspace_folder

CLAUSES = [
    ("1. Parties", [
        "This agreement is made between the University of South Yorkshire Estates Department (the Client) and "
        "BrightPath Facility Services Ltd (the Supplier).",
    ]),
    ("2. Term", [
        "2.1 The agreement commences on 1 April 2023 (the Commencement Date).",
        "2.2 The Initial Term ends on 31 March 2026.",
        "2.3 The agreement then renews automatically for one further period of 12 months, unless either party gives "
        "written notice of non-renewal no later than 90 days before the last day of the Initial Term.",
    ]),
    ("3. Services", [
        "3.1 Daily cleaning of the teaching buildings listed in Schedule 1, Monday to Friday, 06:00 to 09:00.",
        "3.2 Periodic deep cleaning of the laboratories during the summer vacation.",
    ]),
    ("4. Charges", [
        "4.1 The annual charge is GBP 412,000, invoiced monthly in arrears.",
        "4.2 Charges are reviewed on each anniversary of the Commencement Date in line with the agreed index.",
    ]),
    ("5. Insurance", [
        "5.1 The Supplier holds public liability cover of at least GBP 10 million.",
        "5.2 The Supplier sends the Client its renewed insurance certificates by 30 June each year.",
    ]),
    ("6. Notices", [
        "6.1 Notices are given in writing to the addresses in Schedule 2 and take effect on receipt.",
    ]),
]

with docx_file(workspace_folder(__file__) / "contracts" / "cleaning_services_agreement.docx", author="Estates contracts") as doc:
    doc.add_heading("Cleaning Services Agreement", level=1)
    for title, paragraphs in CLAUSES:
        doc.add_heading(title, level=2)
        for text in paragraphs:
            doc.add_paragraph(text)
    doc.add_paragraph("Signed for the Client: H. Okoye, Director of Estates, 14 March 2023")
    doc.add_paragraph("Signed for the Supplier: R. Bancroft, Managing Director, 16 March 2023")
