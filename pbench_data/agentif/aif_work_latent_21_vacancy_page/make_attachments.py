"""Writes the intranet's vacancies page (HTML) with three earlier job adverts, all built the same way."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text

ADVERTS = [
    {
        "title": "Finance assistant",
        "posted": "Posted Monday 3 February 2025",
        "about": "You will join the four-person finance team that pays our suppliers and keeps the ledgers of our 14 libraries.",
        "do": ["Process supplier invoices and payment runs", "Reconcile the bank accounts each month", "Answer budget holders' questions"],
        "bring": ["Experience of a purchase ledger", "Confidence with spreadsheets", "Care with detail"],
        "salary": "£25,500–£28,000 a year, full time (37 hours a week)",
        "closes": "Closes: Sunday 23 February 2025, 23:59",
    },
    {
        "title": "Events officer",
        "posted": "Posted Monday 10 March 2025",
        "about": "You will plan the author talks, reading groups and school visits that fill our libraries' calendar.",
        "do": ["Book authors and venues", "Run the events calendar and ticketing", "Report attendance to the board each quarter"],
        "bring": ["Experience of organising public events", "Good contacts with publishers would help", "A weekend day now and then"],
        "salary": "£16,800–£18,600 a year (0.6 FTE, 22 hours a week; £28,000–£31,000 full time)",
        "closes": "Closes: Sunday 30 March 2025, 23:59",
    },
    {
        "title": "Digital services librarian",
        "posted": "Posted Monday 28 April 2025",
        "about": "You will look after our e-books, e-magazines and the public computers in every branch.",
        "do": ["Manage the e-lending platforms", "Train staff and the public on digital services", "Keep the public computers up to date"],
        "bring": ["A library or IT qualification", "Patience with first-time users", "A full driving licence"],
        "salary": "£26,400–£29,600 a year (0.8 FTE, 30 hours a week; £33,000–£37,000 full time)",
        "closes": "Closes: Sunday 18 May 2025, 23:59",
    },
]


def items(lines):
    return "\n".join(f"      <li>{line}</li>" for line in lines)


def advert(ad):
    return f"""  <article class="vacancy">
    <h1>{ad["title"]}</h1>
    <p class="posted">{ad["posted"]}</p>
    <h2>About the role</h2>
    <p>{ad["about"]}</p>
    <h2>What you'll do</h2>
    <ul>
{items(ad["do"])}
    </ul>
    <h2>What you'll bring</h2>
    <ul>
{items(ad["bring"])}
    </ul>
    <h2>Salary and hours</h2>
    <p class="salary">{ad["salary"]}</p>
    <h2>How to apply</h2>
    <p>Send your CV and a one-page letter to jobs@riversidelibraries.example.</p>
    <p class="closes">{ad["closes"]}</p>
  </article>"""


PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Vacancies - Riverside Libraries</title>
  <link rel="stylesheet" href="intranet.css">
</head>
<body>
{body}
</body>
</html>
"""

write_text(workspace_folder(__file__) / "intranet" / "vacancies.html", PAGE.format(body="\n".join(advert(ad) for ad in ADVERTS)))
