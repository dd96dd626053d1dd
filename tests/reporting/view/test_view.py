"""``pbench view``: the viewer served on 127.0.0.1 over a read-only database, read in headless Chromium.

One database (a scripted sweep and a run alone) and one server serve every
test but the live one, which watches a sweep of its own while it runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urldefrag, urlencode, urljoin, urlsplit

import pytest

from proactive_bench.reporting.html.browser import LivePage, chromium, dump_url
from proactive_bench.reporting.view import ViewServer, view_app
from proactive_bench.store import ListFilter, Store, StoreOpenError, StoreSchemaError
from proactive_bench.testing.stub_server import StubServer
from tests.helpers.cli import PBENCH, run_cli
from tests.helpers.paths import MINI
from tests.helpers.stub_models import FakeUserModel


class Recorded(NamedTuple):
    db: Path
    sweep: str
    runs: dict[str, str]
    """The sweep's run ids by model."""
    alone: str
    """A run outside any sweep."""


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    db = tmp_path_factory.mktemp("view") / "r.db"
    swept = run_cli("sweep", "--json", "--data", str(MINI), "--models", "scripted:reference,scripted:passive", "--db", str(db))
    assert swept.exit_code == 0, swept.output
    runs = json.loads(swept.stdout)["runs"]
    alone = run_cli("episode", "--json", "--data", str(MINI), "--persona", "mini", "--model", "scripted:asker", "--db", str(db))
    assert alone.exit_code == 0, alone.output
    return Recorded(db, runs[0]["sweep_id"], {r["model"]: r["run_id"] for r in runs}, json.loads(alone.stdout)["run_id"])


@pytest.fixture(scope="module")
def server(recorded: Recorded) -> Iterator[ViewServer]:
    with ViewServer(view_app(Store(recorded.db, read_only=True))) as serving:
        yield serving


@pytest.fixture
def browser() -> None:
    if chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it")
        pytest.skip("chromium is not installed (apt-get install chromium)")


def get(url: str) -> tuple[int, str]:
    """The status and body of a GET (an error status is an answer too)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def hrefs(html: str) -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]*)"', html)]


def shown_runs(dom: str) -> set[str]:
    return set(re.findall(r'<tr data-run="([0-9a-f]+)"', dom))


def test_every_link_from_the_start_page_resolves(recorded: Recorded, server: ViewServer, tmp_path: Path, browser: None) -> None:
    start = dump_url(server.url, tmp_path / "profile")
    assert shown_runs(start) == {*recorded.runs.values(), recorded.alone}
    compare = f"/compare?{urlencode({'a': recorded.runs['scripted:reference'], 'b': recorded.runs['scripted:passive']})}"
    queue, pages, anchors = [(server.url, start), (urljoin(server.url, compare), None)], {}, []
    while queue:
        url, body = queue.pop()
        if url in pages:
            continue
        status, fetched = get(url)
        assert status == 200, url
        pages[url] = body or fetched
        for href in hrefs(pages[url]):
            target, fragment = urldefrag(urljoin(url, href))
            assert urlsplit(target).netloc == urlsplit(server.url).netloc, f"{url} links outside the viewer: {href}"
            if fragment:
                anchors.append((url, target, fragment))
            queue.append((target, None))
    paths = {urlsplit(u).path for u in pages}
    assert {f"/runs/{r}" for r in (*recorded.runs.values(), recorded.alone)} <= paths
    assert {f"/report/{r}" for r in (recorded.sweep, *recorded.runs.values(), recorded.alone)} <= paths
    assert {f"/sweeps/{recorded.sweep}/live", "/compare"} <= paths
    for page, target, fragment in anchors:  # every #anchor names an element of its page
        assert f'id="{fragment}"' in pages[target], f"{page} links to {target}#{fragment}"
    assert sum(1 for _, _, fragment in anchors if fragment.startswith("session-")) >= 6  # the matrix's cells


def test_the_filters_keep_what_pbench_runs_keeps(recorded: Recorded, server: ViewServer, tmp_path: Path, browser: None) -> None:
    for query in ({"model": "passive"}, {"model": "scripted:"}, {"persona": "mini"}, {"status": "finished"}, {"persona": "nobody"}):
        status, page = get(f"{server.url}?{urlencode(query)}")  # filtered by the server: the page as sent is the page shown
        options = [x for k, v in query.items() for x in (f"--{k}", v)]
        listed = run_cli("runs", "--json", "--db", str(recorded.db), *options)
        assert status == 200 and shown_runs(page) == {r["id"] for r in json.loads(listed.stdout)}, query
        sweeps = run_cli("sweeps", "--json", "--db", str(recorded.db), *options)
        assert set(re.findall(r'<tr data-sweep="([0-9a-f]+)"', page)) == {s["id"] for s in json.loads(sweeps.stdout)}, query
    passive = dump_url(f"{server.url}?model=passive", tmp_path / "profile")  # and in the browser: the form keeps the choice
    assert shown_runs(passive) == {recorded.runs["scripted:passive"]} and 'name="model" size="16" value="passive"' in passive
    finished = dump_url(f"{server.url}?status=finished&persona=nobody", tmp_path / "profile")
    assert '<option selected="">finished</option>' in finished and "No runs match the filters" in finished
    assert len(shown_runs(get(f"{server.url}?limit=1")[1])) == 1
    for query, reason in (
        ("status=done", "status must be one of"),
        ("since=yesterday", "since: &#39;yesterday&#39; is neither a duration"),
        ("limit=0", "limit: 0 is less than 1"),
    ):
        status, body = get(f"{server.url}?{query}")
        assert status == 400 and reason in body and body.count('class="error"') == 1, query


def test_the_report_s_pages_served(recorded: Recorded, server: ViewServer, tmp_path: Path, browser: None) -> None:
    report = dump_url(urljoin(server.url, f"/report/{recorded.sweep}"), tmp_path / "profile")
    assert 'id="table-1"' in report and report.count("<svg") >= 3 and 'href="/"' in report
    assert all(f'href="/runs/{r}"' in report for r in recorded.runs.values())
    passive = recorded.runs["scripted:passive"]
    run_page = dump_url(urljoin(server.url, f"/runs/{passive}"), tmp_path / "profile")
    assert run_page.count('<section class="session"') == 3 and 'class="tag provided"' in run_page
    assert f'href="/report/{recorded.sweep}"' in run_page  # back to the sweep's report
    status, compared = get(urljoin(server.url, f"/compare?a={recorded.runs['scripted:reference']}&b={passive}"))
    assert (
        status == 200
        and '<b>units</b>: <span class="tag completed">completed</span> → <span class="tag provided">provided</span>' in compared
    )


def test_unknown_ids_and_pages_are_404_pages_naming_them(server: ViewServer) -> None:
    for path, said in (
        ("/runs/nope", "no run &#39;nope&#39;"),
        ("/report/nope", "no sweep or run &#39;nope&#39;"),
        ("/sweeps/nope/live", "no sweep &#39;nope&#39;"),
        ("/compare?a=nope&b=nope", "no sweep or run &#39;nope&#39;"),
        ("/nowhere", "no page /nowhere"),
    ):
        status, body = get(urljoin(server.url, path))
        assert status == 404 and said in body and "Traceback" not in body, path
    status, body = get(urljoin(server.url, "/api/sweeps/nope/progress"))
    assert status == 404 and json.loads(body) == {"error": "no sweep 'nope'"}
    assert get(urljoin(server.url, "/compare?a=x"))[0] == 400


def test_the_viewer_never_writes(recorded: Recorded, server: ViewServer) -> None:
    def digest() -> dict[str, str]:
        return {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(recorded.db.parent.glob("r.db*")) if p.suffix != ".db-shm"
        }

    before = digest()
    for path in ("/", f"/report/{recorded.sweep}", f"/runs/{recorded.alone}", f"/sweeps/{recorded.sweep}/live"):
        assert get(urljoin(server.url, path))[0] == 200
    assert digest() == before


def test_the_live_page_follows_a_running_sweep(tmp_path: Path, browser: None) -> None:
    """A sweep with the LLM user on a slow stub server, in a child process; the page, loaded once, counts its sessions up."""
    db = tmp_path / "live.db"
    with StubServer(FakeUserModel(), delay=0.15) as model_server:
        sweep = subprocess.Popen(
            [
                *PBENCH,
                "sweep",
                "--data",
                str(MINI),
                "--models",
                "scripted:reference,scripted:passive",
                "--concurrency",
                "1",
                "--user",
                "llm",
                "--user-model",
                "openai:stub-user",
                "--base-url",
                model_server.base_url,
                "--db",
                str(db),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "OPENAI_API_KEY": "stub"},
        )
        try:
            sweep_id = wait_for_sweep(db, sweep)
            with ViewServer(view_app(Store(db, read_only=True))) as server, LivePage(tmp_path / "profile") as page:
                page.open(urljoin(server.url, f"/sweeps/{sweep_id}/live?every=100"))
                seen = watch(page)
            sweep.wait(timeout=120)  # the sweep's summary is printed after its status is settled
        finally:
            sweep.kill() if sweep.poll() is None else None
            stderr = sweep.communicate()[1].decode()
    assert sweep.returncode == 0, stderr[-2000:]
    done = [int(d) for d, _, _ in seen]
    assert done == sorted(done) and len(set(done)) >= 3, seen  # counted up while the page stayed open
    assert seen[0][2] == "yes" and seen[-1] == ("6", "finished", "no"), seen  # and it stopped polling when the sweep ended


def wait_for_sweep(db: Path, sweep: subprocess.Popen[bytes]) -> str:
    """The id of the sweep the child process started, once the database holds it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and sweep.poll() is None:
        try:
            sweeps = Store(db, read_only=True).find_sweeps(ListFilter(None, None, None, None, 1)) if db.is_file() else []
        except (StoreOpenError, StoreSchemaError):  # the child is still making the database
            sweeps = []
        if sweeps:
            return sweeps[0].id
        time.sleep(0.05)
    raise AssertionError(f"no sweep started: {sweep.communicate()[1].decode()[-2000:]}")


def watch(page: LivePage) -> list[tuple[str, str, str]]:
    """What the page showed, each time it changed: sessions done, the sweep's status, whether it still polls."""
    seen: list[tuple[str, str, str]] = []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        now = tuple(
            page.evaluate(
                "['done', 'status'].map((id) => document.getElementById(id).textContent).concat([document.getElementById('progress').dataset.live])"
            )
        )
        if not seen or now != seen[-1]:
            seen.append(now)
        if now[2] == "no":
            return seen
        time.sleep(0.05)
    raise AssertionError(f"the page never saw the sweep end: {seen}")
