"""Self-contained HTML reports of runs and sweeps (``pbench report``).

The report owns nothing in the store: it reads runs back, reuses the
aggregates of :mod:`proactive_bench.reporting.summary`, and renders one HTML file
with the paper's tables, inline SVG figures and a trajectory viewer per
session (jinja2 templates under ``templates/``, everything autoescaped).

- ``sources``: which runs an id names, and each run's episode definition;
- ``diffs``: workspace changes between snapshots;
- ``trajectory``: one session run as turns, tool calls, intent tags, grades;
- ``categories``: Proc / Comp by task category (table 8);
- ``compare``: what changed between two runs, session by session;
- ``figures``: matplotlib figures as SVG markup;
- ``render``: the page itself;
- ``browser``: headless Chromium, to check that a report renders.
"""

from proactive_bench.reporting.html.render import render_comparison, render_report
from proactive_bench.reporting.html.sources import ReportError

__all__ = ["ReportError", "render_comparison", "render_report"]
