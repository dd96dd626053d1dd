"""The shipped templates: importing this package registers each in ``TEMPLATES`` (one module per template).

``parts.py`` holds what several templates are built from (``TemplateHeading``,
the ``called`` attempt predicate, ``none_but`` and ``file_holds`` checks, ``email_step``).

| module | template (difficulty; apps) |
| --- | --- |
| `transaction_audit.py` | payments breaking an approval policy (easy; chat, spreadsheets, files, email) |
| `meeting_attend.py` | check in at a meeting on time (easy, time-critical; chat, calendar) |
| `data_completion.py` | fill a sales sheet's gaps by the analyst's rule (easy; chat, spreadsheets) |
| `event_planning.py` | a team outing: free date, best venue in budget (hard; chat, calendar, spreadsheets, email) |
| `ad_campaign.py` | the channel mix with most reach within a budget (hard; chat, spreadsheets, files, email) |
| `report_filing.py` | a status report filed by a manual's rules (easy; chat, files) |
| `price_backfill.py` | blank unit prices and totals; one price is stale (easy; chat, spreadsheets, files) |
| `campaign_split.py` | a budget split by conversions, one channel dropped (hard; chat, spreadsheets, email) |
| `workshop_booking.py` | the smallest fitting room at the sponsor's free time (hard; chat, documents, calendar, email) |
| `incident_drill.py` | page the on-call engineer when an alert fires (easy, time-critical; chat, files, email) |
| `contract_fill.py` | a contract's two open terms (easy; chat, documents, email) |
| `expense_review.py` | what each expense claim pays, total to payroll (hard; chat, spreadsheets, files, email) |
| `launch_notice.py` | a launch notice with the date and the brand guide's reference line (easy; chat, documents, files) |
| `stock_reorder.py` | what to reorder and how much, by a two-step rule (hard; chat, spreadsheets, email) |
"""

import proactive_bench.suites.trainee.templates.ad_campaign  # registers on import
import proactive_bench.suites.trainee.templates.campaign_split
import proactive_bench.suites.trainee.templates.contract_fill
import proactive_bench.suites.trainee.templates.data_completion
import proactive_bench.suites.trainee.templates.event_planning
import proactive_bench.suites.trainee.templates.expense_review
import proactive_bench.suites.trainee.templates.incident_drill
import proactive_bench.suites.trainee.templates.launch_notice
import proactive_bench.suites.trainee.templates.meeting_attend
import proactive_bench.suites.trainee.templates.price_backfill
import proactive_bench.suites.trainee.templates.report_filing
import proactive_bench.suites.trainee.templates.stock_reorder
import proactive_bench.suites.trainee.templates.transaction_audit
import proactive_bench.suites.trainee.templates.workshop_booking  # noqa: F401 (imported to register it; it binds the name `proactive_bench` only)

__all__: list[str] = []
