"""Writes the purchasing policy (PDF, two pages of sections) and this week's purchase requests (csv)."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv

OUT = workspace_folder(__file__)

POLICY = [
    ("1. Scope", [
        "This policy covers every purchase paid from a cost centre budget, goods and services alike.",
        "Travel and expenses claims follow the expenses policy instead.",
    ]),
    ("2. Who approves", [
        "Up to GBP 499.99: the requester's line manager.",
        "GBP 500.00 to GBP 5,000.00 (inclusive): the budget holder of the cost centre.",
        "Over GBP 5,000.00: the finance director.",
        "IT hardware, software and licences also need the IT lead, whatever the amount.",
        "Amounts are the total of the request including VAT.",
    ]),
    ("3. Quotes", [
        "A request of GBP 1,000.00 or more needs two written quotes attached before approval.",
        "Repeat orders under a framework agreement are exempt (marked FA in the request list).",
    ]),
    ("4. Records", [
        "Finance keeps the routing list for each week's requests: one row per request,",
        "the approvers joined by ' + ' in the order above, and quotes_needed as yes or no.",
    ]),
]

REQUESTS = [
    ["pr", "description", "category", "cost_centre", "amount_gbp", "framework"],
    ["PR-301", "Office chairs x4", "Facilities", "CC-110", "1160.00", ""],
    ["PR-302", "Laptop docking stations x6", "IT", "CC-140", "870.00", ""],
    ["PR-303", "Trade fair stand hire", "Marketing", "CC-210", "6400.00", ""],
    ["PR-304", "Printer toner", "Facilities", "CC-110", "145.00", "FA"],
    ["PR-305", "Firewall licence renewal", "IT", "CC-140", "5000.00", "FA"],
    ["PR-306", "Team away-day venue", "HR", "CC-310", "499.99", ""],
    ["PR-307", "Cleaning contract top-up", "Facilities", "CC-110", "2350.00", "FA"],
]

with pdf_file(OUT / "policies" / "purchasing_policy.pdf") as pdf:
    pdf.heading("Purchasing policy (version 4, January 2025)", 12, size=15)
    pdf.sections(POLICY, heading_height=10, line_height=7)
write_csv(OUT / "requests" / "week_36_requests.csv", REQUESTS)
