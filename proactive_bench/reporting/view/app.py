"""The viewer's routes: the start page, a report of a sweep or run, a run's trajectories, two runs compared, a sweep's live progress.

Every page but the start page and the live page is the static report's own
(``reporting.html``), rendered from the database on each request, its links
pointing at these routes. An id the database does not hold is a 404 page
naming it; a filter or a comparison it cannot read, a 400 page saying why.

| route | page |
| --- | --- |
| ``/`` | runs and sweeps, newest first, with the filters of ``pbench runs`` (query string) and two runs to compare |
| ``/report/{id}`` | the report of a sweep or a run: tables, figures, the run list, the session × model matrix |
| ``/runs/{id}`` | a run's sessions and their trajectories |
| ``/compare?a=RUN&b=RUN`` | two runs side by side |
| ``/sweeps/{id}/live`` | a sweep's progress, polling ``/api/sweeps/{id}/progress`` while the sweep runs |
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from jinja2 import PackageLoader
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from proactive_bench.reporting.html.render import environment, render_comparison, render_report, render_run
from proactive_bench.reporting.html.sources import ReportError
from proactive_bench.reporting.view.listing import STATUSES, FilterError, listing
from proactive_bench.reporting.view.progress import sweep_progress
from proactive_bench.store import Store

CHROME = {"app": "pbench view", "home": "/"}
"""What every served page adds to the report's header: the heading's name and the link to the start page."""
POLL_MS = (1000, 100, 60_000)
"""The live page's polling interval in milliseconds: default, least and most (``?every=`` picks one)."""

_ENV = environment(PackageLoader("proactive_bench.reporting.view", "templates"))
_FIGURES = threading.Lock()
"""matplotlib's style settings are process-wide: one report's figures are drawn at a time."""


class Problem(Exception):
    """A request the viewer cannot answer: its status (404, 400) and a one-line message naming what is wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def run_link(run_id: str) -> str:
    return f"/runs/{quote(run_id, safe='')}"


def report_link(ident: str) -> str:
    return f"/report/{quote(ident, safe='')}"


def view_app(store: Store) -> Starlette:
    """The viewer over ``store`` (open it read-only: the viewer never writes)."""

    def page(template: str, title: str, **context: Any) -> HTMLResponse:
        html = _ENV.get_template(template).render(
            **(CHROME | context), title=title, db=store.name, generated=_now(), run_link=run_link, report_link=report_link
        )
        return HTMLResponse(html)

    def start(request: Request) -> Response:
        try:
            found = listing(store, request.query_params)
        except FilterError as exc:
            raise Problem(400, str(exc)) from None
        return page("start.html.j2", "runs and sweeps", found=found, statuses=STATUSES, home="")

    def report(request: Request) -> Response:
        ident = request.path_params["ident"]
        with _FIGURES:
            built = render_report(store, ident)
        return HTMLResponse(built.index_html(run_link, **CHROME))

    def run(request: Request) -> Response:
        run_id = request.path_params["run_id"]
        found = store.run(run_id)
        if found is None:
            raise Problem(404, f"{store.name}: no run {run_id!r}")
        return HTMLResponse(render_run(store, run_id, report_link(found.sweep_id or found.id), **CHROME))

    def compare(request: Request) -> Response:
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        if not a or not b:
            raise Problem(400, "compare: pick two runs, A and B (?a=RUN&b=RUN)")
        return HTMLResponse(render_comparison(store, a, b, **CHROME))

    def live(request: Request) -> Response:
        sweep_id = request.path_params["sweep_id"]
        progress = sweep_progress(store, sweep_id)
        if progress is None:
            raise Problem(404, f"{store.name}: no sweep {sweep_id!r}")
        default, least, most = POLL_MS
        try:
            every = min(most, max(least, int(request.query_params.get("every") or default)))
        except ValueError:
            raise Problem(400, f"every: {request.query_params['every']!r} is not a number of milliseconds") from None
        return page("live.html.j2", f"sweep {sweep_id} · progress", progress=progress, every=every)

    def progress_json(request: Request) -> Response:
        sweep_id = request.path_params["sweep_id"]
        progress = sweep_progress(store, sweep_id)
        if progress is None:
            return JSONResponse({"error": f"no sweep {sweep_id!r}"}, status_code=404)
        return JSONResponse(progress, headers={"Cache-Control": "no-store"})

    def problem(request: Request, exc: Exception) -> Response:
        if isinstance(exc, Problem):
            status, message = exc.status, str(exc)
        elif isinstance(exc, ReportError):
            status, message = 404, str(exc)
        elif isinstance(exc, HTTPException) and exc.status_code == 404:
            status, message = 404, f"no page {request.url.path}"
        else:
            status, message = getattr(exc, "status_code", 500), str(getattr(exc, "detail", exc))
        response = page("problem.html.j2", f"{status}", status=status, message=message)
        response.status_code = status
        return response

    routes = [
        Route("/", start),
        Route("/report/{ident}", report),
        Route("/runs/{run_id}", run),
        Route("/compare", compare),
        Route("/sweeps/{sweep_id}/live", live),
        Route("/api/sweeps/{sweep_id}/progress", progress_json),
    ]
    return Starlette(routes=routes, exception_handlers={Problem: problem, ReportError: problem, HTTPException: problem})


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
