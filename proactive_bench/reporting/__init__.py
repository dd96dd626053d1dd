"""reporting."""

from proactive_bench.reporting.burden import (
    BurdenRow,
    burden_rows,
    burden_table,
)
from proactive_bench.reporting.summary import (
    Summary,
    summarize,
)
from proactive_bench.reporting.summary_tables import (
    category_table,
    pct,
    results_table,
    summary_csv,
    summary_tables,
)

__all__ = [
    "BurdenRow",
    "Summary",
    "burden_rows",
    "burden_table",
    "category_table",
    "pct",
    "results_table",
    "summarize",
    "summary_csv",
    "summary_tables",
]
