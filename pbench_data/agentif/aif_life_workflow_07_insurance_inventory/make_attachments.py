"""Writes inbox/damaged_items.csv (what the kitchen flood ruined) and inbox/policy_contents_cover.pdf (how the insurer values it); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_csv

ITEMS = [
    ("Fridge-freezer", "2019", "899.00"),
    ("Oak dining table", "2012", "650.00"),
    ("Microwave oven", "2021", "129.00"),
    ("Wool rug", "2016", "240.00"),
    ("Toaster", "2023", "45.00"),
    ("Laptop", "2024", "1100.00"),
    ("Pine bookshelf", "2010", "180.00"),
]
POLICY = [
    ("Section 4.2 - Valuing damaged contents",
     "We pay the price you paid, reduced by 10 % for every full year between the year of purchase and the year "
     "of the claim. The reduced value is never less than 30 % of the price paid."),
    ("Section 4.3 - Items not covered",
     "Items bought before 2015 are not covered under this policy and are not paid, whatever their condition."),
    ("Section 4.4 - Claim year",
     "For claims made in 2025 the claim year is 2025. Round every value to the cent."),
]

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "damaged_items.csv", [("item", "year_bought", "price_paid_eur"), *ITEMS])
with pdf_file(inbox / "policy_contents_cover.pdf") as pdf:
    pdf.heading("Harbourline Home Insurance - Contents cover (extract)", 12, size=15)
    pdf.sections([(heading, [body]) for heading, body in POLICY], heading_height=10, line_height=7, bullet="", wrap=True)
