"""Writes inbox/chair_quotes.pdf: three invented suppliers' quotes for office chairs."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

QUOTES = [
    ("ErgoSeat Ltd", ["Price per chair: GBP 189.00", "Delivery: GBP 60.00 flat for the whole order",
                      "Warranty: 5 years", "Lead time: 10 working days"]),
    ("Northdesk Supplies", ["Price per chair: GBP 172.50", "Delivery: GBP 9.50 per chair",
                            "Warranty: 2 years", "Lead time: 12 working days"]),
    ("Kestrel Office", ["Price per chair: GBP 199.00", "Delivery: free", "Discount: 8 % off the chairs on orders of 10 or more",
                        "Warranty: 5 years", "Lead time: 7 working days"]),
]

with pdf_file(workspace_folder(__file__) / "inbox" / "chair_quotes.pdf") as pdf:
    pdf.heading("Quotes received: ergonomic task chairs (model class B)", 12, size=15)
    pdf.sections(QUOTES, heading_height=10, line_height=7)
