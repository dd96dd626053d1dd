"""Graders for the governance records: the model inventory after the October MRC (s19)."""

from __future__ import annotations

from typing import Any

from .common import csv_tables

INVENTORY_AFTER_MRC = {
    "MRM-027": ("2025-09-03", "2027-09-03"),
    "MRM-014": ("2025-09-10", "2027-09-10"),
    "MRM-033": ("2025-09-24", "2028-09-24"),
    "MRM-052": ("2025-10-03", "2029-10-03"),
}
"""Last validation (report date) and next due (2, 3 or 4 years on, by tier) of the models the MRC noted."""
UNCHANGED = {"MRM-041": ("2024-05-17", "2027-05-17"), "MRM-058": ("2024-08-30", "2027-08-30")}


def s19_inventory_updated(evidence: Any) -> bool:
    """The four noted models carry their new dates and status "in use"; the two others are untouched."""
    tables = csv_tables(evidence, "inventory/model_inventory.csv")
    if not tables:
        return False
    rows = {row.get("model_id", ""): row for row in tables[0]}
    for model, (last, due) in INVENTORY_AFTER_MRC.items():
        row = rows.get(model)
        if row is None or (row.get("last_validation"), row.get("next_validation_due"), row.get("status")) != (last, due, "in use"):
            return False
    return all(
        model in rows and (rows[model].get("last_validation"), rows[model].get("next_validation_due")) == dates
        for model, dates in UNCHANGED.items()
    )
