"""Reports over finished runs: summaries, tables and (in ``html``) the self-contained HTML report.

``summary`` rebuilds the paper's aggregates from the store,
``tables`` prints them as rich tables or CSV, ``burden`` reports
user burden beside Proc, ``comparison`` two agents paired by task, ``flips`` flip rates between repeats, ``run_list`` lists runs and sweeps, ``agreement`` a played user's labels against the simulator's. ``html`` is imported on its own (it loads
matplotlib); ``view`` serves its pages from a read-only database (``pbench view``). See README.md here.
"""

from typing import TYPE_CHECKING, Any

from proactive_bench.exports import Exports

_EXPORTS = Exports(
    __name__,
    {
        "agreement": ("Agreement", "agreement_tables", "cohen_kappa", "label_agreement", "run_agreement"),
        "burden": ("BurdenRow", "burden_rows", "burden_table"),
        "comparison": ("Comparison", "comparison_dict", "comparison_table", "comparison_tables", "compare_runs"),
        "flips": ("FlipRate", "flip_rates"),
        "run_list": ("RunRow", "SweepRow", "list_filter", "parse_since", "run_rows", "runs_table", "sweep_rows", "sweeps_table"),
        "summary": ("Summary", "summarize"),
        "tables": ("audit_table", "category_table", "pct", "results_table", "summary_csv", "summary_tables"),
    },
)

if TYPE_CHECKING:  # the names' types for mypy (at run time each loads on first use)
    from proactive_bench.reporting.agreement import Agreement, agreement_tables, cohen_kappa, label_agreement, run_agreement
    from proactive_bench.reporting.burden import BurdenRow, burden_rows, burden_table
    from proactive_bench.reporting.comparison import Comparison, compare_runs, comparison_dict, comparison_table, comparison_tables
    from proactive_bench.reporting.flips import FlipRate, flip_rates
    from proactive_bench.reporting.run_list import (
        RunRow,
        SweepRow,
        list_filter,
        parse_since,
        run_rows,
        runs_table,
        sweep_rows,
        sweeps_table,
    )
    from proactive_bench.reporting.summary import Summary, summarize
    from proactive_bench.reporting.tables import audit_table, category_table, pct, results_table, summary_csv, summary_tables

__all__ = [
    "Agreement",
    "BurdenRow",
    "Comparison",
    "FlipRate",
    "RunRow",
    "Summary",
    "SweepRow",
    "agreement_tables",
    "audit_table",
    "burden_rows",
    "burden_table",
    "category_table",
    "cohen_kappa",
    "compare_runs",
    "comparison_dict",
    "comparison_table",
    "comparison_tables",
    "flip_rates",
    "label_agreement",
    "list_filter",
    "parse_since",
    "pct",
    "results_table",
    "run_agreement",
    "run_rows",
    "runs_table",
    "summarize",
    "summary_csv",
    "summary_tables",
    "sweep_rows",
    "sweeps_table",
]


def __getattr__(name: str) -> Any:
    return _EXPORTS.load(name)
