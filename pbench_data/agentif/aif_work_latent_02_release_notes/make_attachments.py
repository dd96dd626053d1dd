"""Writes docs/release_notes_2.3.md (the last published notes) and inbox/tickets_2.4.csv (the tickets closed for 2.4); invented."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

NOTES_2_3 = """## Version 2.3 - 14 October 2025

### New
- Recurring invoices can be paused for up to three months (#1762)
- Customers can download a yearly statement from the portal (#1770)

### Fixed
- Reminder e-mails were sent twice on public holidays (#1758)
- The VAT summary rounded totals the wrong way for amounts ending in .005 (#1781)

Internal maintenance tickets are not listed.
"""
TICKETS = [
    (1841, "feature", "Invoices can be exported as PDF from the list view", "public"),
    (1844, "bug", "The date picker skipped 29 February", "public"),
    (1850, "feature", "Dark mode for the dashboard", "public"),
    (1852, "chore", "Upgrade the build server image", "internal"),
    (1855, "bug", "Search ignored accented letters", "public"),
    (1858, "chore", "Rotate the staging credentials", "internal"),
    (1860, "bug", "CSV import failed on empty lines", "public"),
]

out = workspace_folder(__file__)
write_text(out / "docs" / "release_notes_2.3.md", NOTES_2_3)
write_csv(out / "inbox" / "tickets_2.4.csv", [("id", "type", "title", "visibility"), *TICKETS])
