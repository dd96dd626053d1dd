"""``pbench view``: a local web app over a results database, read-only.

The pages are the HTML report's (``reporting.html``: its templates, figures
and trajectories), served from the database as it is now instead of written to
files, plus what only a server can do: the runs and sweeps listed with the
filters of ``pbench runs``, two runs picked side by side, and a sweep's
progress updating while it runs.

- ``listing``: the start page's runs and sweeps, filtered;
- ``progress``: a sweep's progress as JSON (what the live page polls);
- ``app``: the routes (Starlette), the pages and the error pages;
- ``server``: listening on a socket (127.0.0.1 by default), in the foreground or a thread.
"""

from proactive_bench.reporting.view.app import view_app
from proactive_bench.reporting.view.server import ViewServer, ViewServerError

__all__ = ["ViewServer", "ViewServerError", "view_app"]
