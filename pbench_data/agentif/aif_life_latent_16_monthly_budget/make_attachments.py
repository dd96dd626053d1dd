"""Writes inbox/budget_october.xlsx (last month's categorised spending with its summary) and inbox/bank_november.csv
(this month's bank export); all invented."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_sheet

OCTOBER = [
    ("2025-10-01", "Lidl", -48.30, "Groceries"),
    ("2025-10-02", "Transfer to savings", -300.00, "Savings"),
    ("2025-10-04", "Aldi", -35.10, "Groceries"),
    ("2025-10-06", "Shell", -64.10, "Car"),
    ("2025-10-07", "Stadtwerke Bochum", -96.00, "Utilities"),
    ("2025-10-09", "Apotheke am Markt", -18.60, "Health"),
    ("2025-10-11", "Lidl", -57.25, "Groceries"),
    ("2025-10-13", "Netflix", -13.99, "Subscriptions"),
    ("2025-10-15", "Spotify", -10.99, "Subscriptions"),
    ("2025-10-21", "DB Fernverkehr", -45.50, "Travel"),
    ("2025-10-25", "Salary Klinikum Bochum", 2450.00, "Income"),
    ("2025-10-28", "Lidl", -52.80, "Groceries"),
]
SUMMARY = [
    ("Category", "Amount"),
    ("Groceries", 193.45),
    ("Car", 64.10),
    ("Utilities", 96.00),
    ("Subscriptions", 24.98),
    ("Health", 18.60),
    ("Travel", 45.50),
    ("Total spending", 442.63),
    ("Savings (not in total)", 300.00),
]
NOVEMBER = [
    ("date", "merchant", "amount_eur"),
    ("2025-11-01", "Lidl", "-54.20"),
    ("2025-11-02", "Aldi", "-12.45"),
    ("2025-11-03", "Shell", "-61.80"),
    ("2025-11-03", "Transfer to savings", "-300.00"),
    ("2025-11-04", "Lidl", "-8.90"),
    ("2025-11-05", "Stadtwerke Bochum", "-96.00"),
    ("2025-11-06", "Netflix", "-13.99"),
    ("2025-11-07", "Aldi", "-38.75"),
    ("2025-11-08", "Lidl", "-23.10"),
    ("2025-11-10", "Apotheke am Markt", "-23.40"),
    ("2025-11-11", "Aldi", "-17.35"),
    ("2025-11-12", "Shell", "-4.50"),
    ("2025-11-14", "Lidl", "-61.35"),
    ("2025-11-15", "Spotify", "-10.99"),
    ("2025-11-16", "Aldi", "-9.80"),
    ("2025-11-18", "DB Fernverkehr", "-89.90"),
    ("2025-11-19", "Lidl", "-15.65"),
    ("2025-11-20", "Aldi", "-42.10"),
    ("2025-11-21", "Apotheke am Markt", "-7.95"),
    ("2025-11-22", "Shell", "-58.40"),
    ("2025-11-24", "Lidl", "-31.20"),
    ("2025-11-25", "Salary Klinikum Bochum", "2450.00"),
    ("2025-11-26", "Aldi", "-26.85"),
    ("2025-11-27", "Lidl", "-49.60"),
    ("2025-11-28", "DB Fernverkehr", "-19.90"),
    ("2025-11-29", "Aldi", "-11.30"),
    ("2025-11-30", "Lidl", "-22.75"),
]

inbox = workspace_folder(__file__) / "inbox"
write_sheet(
    inbox / "budget_october.xlsx",
    "October",
    [("date", "merchant", "amount", "category"), *OCTOBER, (), ("Summary",), *SUMMARY],
)
write_csv(inbox / "bank_november.csv", NOVEMBER)
