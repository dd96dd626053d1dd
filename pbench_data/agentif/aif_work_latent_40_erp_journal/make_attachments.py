"""Writes the German subsidiary's ERP import specification (JSON) and October's accepted accrual batch (semicolon CSV)."""

import json

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

OUT = workspace_folder(__file__)

SPEC = {
    "interface": "FiBu journal import v3",
    "format": "csv",
    "encoding": "utf-8",
    "delimiter": ";",
    "decimal_separator": ",",
    "thousands_separator": "",
    "date_format": "DD.MM.YYYY",
    "columns": ["Buchungsdatum", "Konto", "Kostenstelle", "Betrag", "Soll/Haben", "Text"],
    "Soll/Haben": {"S": "debit", "H": "credit"},
    "rules": [
        "Every line is balanced by a line on the other side for the same amount.",
        "Balance sheet accounts (1000-3999) carry no Kostenstelle.",
        "Betrag is always positive; the side is given by Soll/Haben.",
    ],
}

OCTOBER = [
    ["Buchungsdatum", "Konto", "Kostenstelle", "Betrag", "Soll/Haben", "Text"],
    ["31.10.2025", "6420", "100", "4800,00", "S", "Abgrenzung Prüfungskosten Oktober"],
    ["31.10.2025", "1790", "", "4800,00", "H", "Abgrenzung Prüfungskosten Oktober"],
    ["31.10.2025", "6830", "300", "2150,00", "S", "Abgrenzung Beratung Oktober"],
    ["31.10.2025", "1790", "", "2150,00", "H", "Abgrenzung Beratung Oktober"],
]

write_text(OUT / "erp" / "import_spec.json", json.dumps(SPEC, indent=2, ensure_ascii=False) + "\n")
write_csv(OUT / "erp" / "batch_2025-10.csv", OCTOBER, delimiter=";")
