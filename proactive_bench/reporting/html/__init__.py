"""Self-contained HTML reports of runs and sweeps (``pbench report``).

The report owns nothing in the store: it reads runs back, reuses the
aggregates of :mod:`proactive_bench.reporting.summary`, and renders an index
(the paper's tables, inline SVG figures, the run list and a session × model
matrix with a filter box) and one page per run with a trajectory viewer per
session (jinja2 templates under ``templates/``, everything autoescaped; a small
inline script filters, and every page reads without it).

- ``sources``: which runs an id names, and each run's episode definition;
- ``diffs``: workspace changes between snapshots;
- ``trajectory``: one session run as turns, tool calls, intent tags, grades;
- ``readable``: tool arguments, results and app rows as text with real line breaks;
- ``matrix``: the index's session × model matrix and the filter's choices;
- ``categories``: Proc / Comp by task category (table 8), category names;
- ``compare``: what changed between two runs, session by session;
- ``figures``: matplotlib figures as SVG markup;
- ``render``: the pages, and where they are written (``write_report``);
- ``browser``: headless Chromium, to check that a report (or a page ``pbench view`` serves) renders.
"""

from proactive_bench.reporting.html.render import (
    Report,
    render_comparison,
    render_report,
    write_report,
)
from proactive_bench.reporting.html.sources import ReportError

__all__ = ["Report", "ReportError", "render_comparison", "render_report", "write_report"]
