"""The shipped templates: importing this package registers each in ``TEMPLATES`` (one module per template).

``parts.py`` holds what several templates are built from (``TemplateHeading``,
the ``called`` attempt predicate, ``none_but`` and ``file_holds`` checks, ``email_step``).

Each template declares one of the paper's four domains (``model.DOMAINS``): analysis, scheduling,
inquiry (proactive inquiry and monitoring), optimization (strategic modeling).

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
| `site_monitor.py` | a website's monitoring page read, its maintainer told, the change authorised (hard; chat, web; shared HR and engineering manager) |
| `meeting_action.py` | an action item announced during a meeting, done within the hour (hard, time-critical; chat, spreadsheets, email) |
| `kiosk_siting.py` | kiosk cells by footfall read off a heatmap picture (hard; chat, images, spreadsheets, files, email) |
| `training_room.py` | the room nearest the lift that seats everyone, off a floor plan; one room out of service (easy; chat, images, email; shared office manager) |
| `order_dip.py` | the weeks below a line's alert level, off a bar chart (easy; chat, images, files) |
| `leave_cover.py` | a colleague's open tickets handed to whoever covers their leave (easy; chat, spreadsheets; shared HR) |
| `deploy_window.py` | a release booked in the approved window with its release engineer (hard; chat, calendar; shared engineering manager and HR) |
| `cost_share.py` | a category's share of a team's budget, the share off a pie chart (easy; chat, images, email; shared finance controller) |
| `purchase_request.py` | cost centre, approved supplier and total of a purchase (easy; chat, spreadsheets, files; shared finance controller and office manager) |
| `uptime_review.py` | the days a service fell below its SLA, off a line chart (easy; chat, images, files; shared engineering manager) |
| `rack_temperature.py` | the racks above a server room's limit, off a temperature heatmap (easy; chat, images, email) |
| `standup_priority.py` | the priority bug announced at a stand-up, passed to its owner (easy, time-critical; chat, spreadsheets) |
| `receipt_claim.py` | what a photographed restaurant receipt is paid back under a city's rule (easy; chat, images, email; shared finance controller) |
| `careers_page.py` | the filled positions a careers web page still lists, sent to the web team (easy; chat, web, email; shared HR) |
| `price_watch.py` | the products of a supplier's web shop at or below the buyer's targets (easy; chat, web) |
| `conference_pick.py` | the best-rated set of conferences within the team's budget, a small knapsack (hard; chat, spreadsheets, files, email) |
| `tender_scoring.py` | the bidder with the best weighted score, by the procurement lead's weights (hard; chat, spreadsheets, files) |
| `onboarding_welcome.py` | a new hire's buddy and desk, from two shared colleagues (easy; chat, email; shared HR and office manager) |
| `survey_segment.py` | one segment's mean score on one survey question, the one the board wants (easy; chat, spreadsheets) |
| `train_booking.py` | the cheapest train arriving 45 minutes before a client meeting, booked in the calendar (hard; chat, spreadsheets, calendar) |
| `shift_cover.py` | a short shift offered to the one colleague free that day and under the weekly cap (easy; chat, spreadsheets) |
| `interview_slot.py` | the first hour two interviewers are free within the candidate's window (hard; chat, spreadsheets, calendar; shared HR) |
| `backup_check.py` | the backup jobs older than the policy allows, read off a dashboard page (easy; chat, web, email; shared engineering manager) |
| `review_decision.py` | the decision of a review meeting, known from its start, logged with its owner (easy, time-critical; chat, files) |
| `delivery_route.py` | the shortest van round that serves the time-critical stop first (hard; chat, spreadsheets, files) |
| `invoice_match.py` | the invoices over their purchase order by more than the payables tolerance (easy; chat, spreadsheets, files) |
| `quote_choice.py` | the cheapest quote over the whole order that meets the engineer's minimum specification (hard; chat, spreadsheets, email) |
| `visitor_access.py` | a visitor registered with reception: arrival time from the host, entrance from the office manager (easy; chat, email; shared office manager) |
| `parking_bays.py` | the free charging bays nearest the entrance, one per electric car, off a car-park plan (easy; chat, images, email) |
| `agenda_timing.py` | a workshop agenda timed from the organiser's start time, the closing time sent to the venue (easy; chat, spreadsheets, files, email) |
| `notice_deadline.py` | a reminder on the last day to give notice on a contract, by Legal's notice period (easy; chat, spreadsheets, calendar) |
| `depot_dispatch.py` | the nearest depot with stock, off a map of depots and customers (hard; chat, images, spreadsheets, email) |
"""

import proactive_bench.suites.trainee.templates.ad_campaign  # registers on import
import proactive_bench.suites.trainee.templates.agenda_timing
import proactive_bench.suites.trainee.templates.backup_check
import proactive_bench.suites.trainee.templates.campaign_split
import proactive_bench.suites.trainee.templates.careers_page
import proactive_bench.suites.trainee.templates.conference_pick
import proactive_bench.suites.trainee.templates.contract_fill
import proactive_bench.suites.trainee.templates.cost_share
import proactive_bench.suites.trainee.templates.data_completion
import proactive_bench.suites.trainee.templates.delivery_route
import proactive_bench.suites.trainee.templates.deploy_window
import proactive_bench.suites.trainee.templates.depot_dispatch
import proactive_bench.suites.trainee.templates.event_planning
import proactive_bench.suites.trainee.templates.expense_review
import proactive_bench.suites.trainee.templates.incident_drill
import proactive_bench.suites.trainee.templates.interview_slot
import proactive_bench.suites.trainee.templates.invoice_match
import proactive_bench.suites.trainee.templates.kiosk_siting
import proactive_bench.suites.trainee.templates.launch_notice
import proactive_bench.suites.trainee.templates.leave_cover
import proactive_bench.suites.trainee.templates.meeting_action
import proactive_bench.suites.trainee.templates.meeting_attend
import proactive_bench.suites.trainee.templates.notice_deadline
import proactive_bench.suites.trainee.templates.onboarding_welcome
import proactive_bench.suites.trainee.templates.order_dip
import proactive_bench.suites.trainee.templates.parking_bays
import proactive_bench.suites.trainee.templates.price_backfill
import proactive_bench.suites.trainee.templates.price_watch
import proactive_bench.suites.trainee.templates.purchase_request
import proactive_bench.suites.trainee.templates.quote_choice
import proactive_bench.suites.trainee.templates.rack_temperature
import proactive_bench.suites.trainee.templates.receipt_claim
import proactive_bench.suites.trainee.templates.report_filing
import proactive_bench.suites.trainee.templates.review_decision
import proactive_bench.suites.trainee.templates.shift_cover
import proactive_bench.suites.trainee.templates.site_monitor
import proactive_bench.suites.trainee.templates.standup_priority
import proactive_bench.suites.trainee.templates.stock_reorder
import proactive_bench.suites.trainee.templates.survey_segment
import proactive_bench.suites.trainee.templates.tender_scoring
import proactive_bench.suites.trainee.templates.train_booking
import proactive_bench.suites.trainee.templates.training_room
import proactive_bench.suites.trainee.templates.transaction_audit
import proactive_bench.suites.trainee.templates.uptime_review
import proactive_bench.suites.trainee.templates.visitor_access
import proactive_bench.suites.trainee.templates.workshop_booking  # noqa: F401 (imported to register it; it binds the name `proactive_bench` only)

__all__: list[str] = []
