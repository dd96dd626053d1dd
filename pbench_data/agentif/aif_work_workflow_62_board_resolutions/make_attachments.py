"""Writes the signed minutes of a trustees' board meeting (PDF, two pages): items discussed, votes, resolutions."""

from proactive_bench.suites.agentif.attachment_writers import pdf_file, workspace_folder

ITEMS = [
    ("1. Apologies and declarations", [
        "Apologies from R. Singh. No declarations of interest.",
    ]),
    ("2. Minutes of 10 September 2025", [
        "Approved as a correct record.",
    ]),
    ("3. Annual accounts 2024-25", [
        "The treasurer presented the accounts. The board RESOLVED to approve the annual accounts for 2024-25 "
        "(proposed M. Cole, seconded A. Byrne; carried unanimously).",
    ]),
    ("4. Reserves policy", [
        "Discussion of the target of six months' running costs. Deferred to the December meeting for more figures; "
        "no resolution.",
    ]),
    ("5. Lease of the Mill Street hall", [
        "The board RESOLVED to renew the Mill Street lease for five years at GBP 18,000 a year "
        "(proposed A. Byrne, seconded T. Okafor; carried 6 for, 1 against).",
    ]),
    ("6. Safeguarding lead", [
        "The board RESOLVED to appoint J. Whitfield as safeguarding trustee from 1 December 2025 "
        "(proposed M. Cole, seconded R. Patel; carried unanimously).",
    ]),
    ("7. Fundraising dinner", [
        "A motion to hold a fundraising dinner in March 2026 was proposed by T. Okafor and seconded by R. Patel; "
        "it was lost, 2 for and 5 against.",
    ]),
    ("8. Any other business", [
        "None. The meeting closed at 20:45.",
    ]),
]

with pdf_file(workspace_folder(__file__) / "board" / "minutes_2025-11-12.pdf") as pdf:
    pdf.heading("Riverside Community Trust - board of trustees", 10, size=15)
    pdf.write_lines(["Minutes of the meeting of 12 November 2025, 19:00, Mill Street hall", "Present: seven trustees (quorate)"], 7)
    pdf.sections(ITEMS, heading_height=10, line_height=7, bullet="", wrap=True)
    pdf.write_lines(["", "Signed as a correct record: M. Cole, chair"], 7)
