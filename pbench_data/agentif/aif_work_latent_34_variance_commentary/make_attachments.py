"""Writes August's management accounts (xlsx: budget, actual, variance with F/A, commentary) and September's actuals (csv)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_sheet

OUT = workspace_folder(__file__)

AUGUST = [
    ["Cost line", "Budget", "Actual", "Variance", "Commentary"],
    ["Salaries", 182000, 186500, "4,500 A", None],
    ["Agency staff", 12000, 19800, "7,800 A", "Cover for two long-term absences in the contact centre"],
    ["Rent", 41000, 41000, "0", None],
    ["Utilities", 9500, 7100, "2,400 F", None],
    ["IT licences", 15200, 21900, "6,700 A", "Annual CRM renewal fell in August, budgeted in September"],
    ["Travel", 6800, 4900, "1,900 F", None],
    ["Marketing", 22000, 14500, "7,500 F", "Autumn campaign moved to October"],
    ["Events", 60000, 65800, "5,800 A", None],
    ["Training", 5000, 5600, "600 A", None],
    [],
    ["Variance: actual against budget, F favourable (under budget), A adverse (over budget)."],
    ["Commentary where a variance is more than 10 % of budget and more than £5,000; budget holders supply the reasons."],
]

SEPTEMBER = [
    ["cost_line", "budget", "actual"],
    ["Salaries", 182000, 181200],
    ["Agency staff", 12000, 17600],
    ["Rent", 41000, 41000],
    ["Utilities", 9500, 10900],
    ["IT licences", 15200, 15900],
    ["Travel", 6800, 1200],
    ["Marketing", 22000, 29000],
    ["Events", 60000, 54500],
    ["Training", 5000, 11000],
]

write_sheet(OUT / "accounts" / "management_accounts_aug.xlsx", "August 2025", AUGUST, creator="Finance")
write_csv(OUT / "data" / "september_actuals.csv", SEPTEMBER)
