"""Writes inbox/broadband_offers.html (a comparison page of home internet offers) and inbox/current_bill.pdf (the
household's current internet bill); all invented."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder, write_text

OFFERS = [
    (
        "FibreFlex 150",
        "150 Mbit/s",
        ["29.99 EUR a month for the first 6 months, then 44.99 EUR", "One-off setup fee 49.00 EUR", "Router included"],
    ),
    ("HomeNet 100", "100 Mbit/s", ["39.99 EUR a month, no promotion", "No setup fee", "Router rental 3.00 EUR a month"]),
    ("BasicDSL 50", "50 Mbit/s", ["24.99 EUR a month", "No setup fee", "Router included"]),
    (
        "CityFibre 250",
        "250 Mbit/s",
        ["34.99 EUR a month for the first 12 months, then 49.99 EUR", "No setup fee", "Router 99.00 EUR, bought once"],
    ),
]


def card(name: str, speed: str, terms: list[str]) -> str:
    items = "\n".join(f"        <li>{term}</li>" for term in terms)
    return (
        f'  <section class="offer">\n    <h2>{name}</h2>\n    <p class="speed">Download speed: {speed}</p>\n'
        f"    <ul>\n{items}\n        <li>Minimum term 24 months</li>\n    </ul>\n  </section>"
    )


PAGE = "\n".join(
    [
        "<!doctype html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><title>Home internet offers - March 2025</title></head>',
        "<body>",
        "  <h1>Home internet offers for your address</h1>",
        "  <p>Prices include VAT. All offers are for new customers.</p>",
        *(card(*offer) for offer in OFFERS),
        "</body>",
        "</html>",
        "",
    ]
)
BILL = [
    ("Telekabel - your bill for February 2025", ["Customer: Femi and Joanna Adebayo", "Customer number: TK-448120"]),
    ("Your plan", ["Kabel 100: download speed 100 Mbit/s", "Monthly price: 46.50 EUR", "Minimum term ends: 31 May 2025"]),
    (
        "Cancellation",
        ["Written notice at least one month before the end of the minimum term, i.e. received by 30 April 2025."],
    ),
    ("This month", ["Monthly price 46.50 EUR", "Total due 46.50 EUR, collected on 15 March 2025"]),
]

inbox = workspace_folder(__file__) / "inbox"
write_text(inbox / "broadband_offers.html", PAGE)
with pdf_file(inbox / "current_bill.pdf") as pdf:
    pdf.sections(BILL, heading_height=8, line_height=6, wrap=True)
