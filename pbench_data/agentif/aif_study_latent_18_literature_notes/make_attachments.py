"""Writes inbox/reading_notes_spring.md (a thesis student's earlier reading notes) and inbox/search_results.html (a saved
library search with starred results); all invented."""

from html import escape

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text

NOTES = """# Reading notes - thesis (urban mobility and wellbeing)

## Okonkwo et al. (2022) - n = 1,240
Source: Journal of Transport and Health 27, 101-118
Design: two-wave panel, Dutch commuters
Key finding: switching from car to train cut reported commute stress by about a fifth.
Verdict: use

## Ruiz & Park (2021) - n = 312
Source: Cities and Health 5(2), 44-59
Design: cross-sectional survey, Seoul
Key finding: longer walks to the bus stop went with lower life satisfaction only for over-65s.
Verdict: background only

Verdict key: use = European sample AND followed over time; background only = anything else with n of 100 or more;
skip = fewer than 100 participants, whatever the design.
"""

RESULTS = [
    (
        True,
        "Lindqvist, Haugen &amp; Berg (2023)",
        "Cycling to work and wellbeing in Nordic cities: a three-wave panel",
        "Urban Studies Review 12(3), 201-219",
        "We followed 2,310 adult commuters in Gothenburg and Bergen over three annual waves. Those who took up cycling "
        "reported higher wellbeing one year later, with the largest gains among previous car commuters.",
    ),
    (
        False,
        "Mendes &amp; Costa (2021)",
        "Metro extensions and house prices in Lisbon",
        "Journal of Urban Economics Letters 4, 12-30",
        "Using 18,400 sales we estimate price premiums of 6 to 9 percent within 500 m of new stations.",
    ),
    (
        True,
        "Adeyemi, Okafor, Bello &amp; Yusuf (2024)",
        "Green space exposure and perceived stress in Lagos",
        "Environment and Behaviour Africa 3(1), 55-72",
        "A cross-sectional survey of 860 residents links more time in parks to lower perceived stress scores, "
        "after adjusting for income and household size.",
    ),
    (
        True,
        "Schubert &amp; Vogel (2022)",
        "Night-time traffic noise and sleep: a pilot survey in Leipzig",
        "Noise and Health Reports 8, 77-84",
        "In a pilot with 64 residents of main-road flats, self-reported sleep quality fell as measured night noise rose.",
    ),
    (
        False,
        "Tanaka (2020)",
        "Station design and walking in Osaka",
        "Asian Transport Studies 6, 301-322",
        "Observations at 14 stations show wider concourses raise the share of passengers who walk onward.",
    ),
]


def article(starred: bool, authors: str, title: str, journal: str, abstract: str) -> str:
    star = '<span class="star">&#9733; Starred</span>\n    ' if starred else ""
    return (
        f'  <article class="result">\n    {star}<h2>{escape(title)}</h2>\n    <p class="authors">{authors}</p>\n'
        f'    <p class="journal">{escape(journal)}</p>\n    <p class="abstract">{escape(abstract)}</p>\n  </article>'
    )


PAGE = "\n".join(
    [
        "<!doctype html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><title>Library search: commuting wellbeing cities</title></head>',
        "<body>",
        "  <h1>Search results (5) - saved list</h1>",
        *(article(*r) for r in RESULTS),
        "</body>",
        "</html>",
        "",
    ]
)

inbox = workspace_folder(__file__) / "inbox"
write_text(inbox / "reading_notes_spring.md", NOTES)
write_text(inbox / "search_results.html", PAGE)
