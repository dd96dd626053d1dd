"""Writes inbox/offsite_costs.xlsx: the invented price list of a design studio's one-day offsite."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

COSTS = [
    ("Venue hire, Glanmor Barn (one day)", "flat", 850.00),
    ("Lunch buffet", "per person", 18.50),
    ("Coach, Cardiff - Glanmor and back", "flat", 420.00),
    ("Workshop facilitator (half day)", "flat", 600.00),
    ("Dinner at the Old Mill", "per person", 42.00),
]

write_sheet(workspace_folder(__file__) / "inbox" / "offsite_costs.xlsx", "Quotes", [("item", "basis", "price_gbp"), *COSTS])
