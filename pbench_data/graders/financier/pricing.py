"""Graders for the MRM-052 FX option pricer review (s14): the independent Garman-Kohlhagen prices."""

from __future__ import annotations

from typing import Any

from .common import as_number, column, csv_tables, row_for

GK_PRICE = {
    "T-01": 0.015941, "T-02": 0.010908, "T-03": 0.034593, "T-04": 0.021740, "T-05": 0.015717,
    "T-06": 2.117763, "T-07": 2.014024, "T-08": 1.831778,
}
"""Premium per unit of foreign notional, domestic = quote currency (JPY for USDJPY), rates of 2025-09-30."""


def s14_independent_prices(evidence: Any) -> bool:
    """A CSV under analysis/mrm052/ gives every test trade's independent price within 0.1% of Garman-Kohlhagen."""
    for table in csv_tables(evidence, "analysis/mrm052/*.csv"):
        rows = {trade: row_for(table, trade) for trade in GK_PRICE}
        prices = {t: as_number(column(row, "indep")) if row else None for t, row in rows.items()}
        if all(p is not None and abs(p - GK_PRICE[t]) <= 0.001 * GK_PRICE[t] for t, p in prices.items()):
            return True
    return False
