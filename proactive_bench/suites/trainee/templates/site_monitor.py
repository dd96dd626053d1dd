"""Website monitoring (hard; the inquiry and monitoring domain): read a site's monitoring page, find what is past its alert level,
tell the site's maintainer and pass them the change authorization.

The site's monitoring page is a web page (``web_fetch``): each component's
reading and alert level, exactly one past it. Who maintains the site is known
to the HR partner (k1, a scenario-wide colleague who may hold other tasks'
clues too); three engineers share one role, so guessing picks the wrong one
two times in three. The emergency-change authorization code is the engineering
manager's (k2, scenario-wide as well). The maintainer must be told which
component, with its reading as the page shows it, and no healthy component
named beside it; messaging every engineer fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import (
    TemplateContext,
    checker,
    colleague,
    minute_iso,
    named,
    register_template,
    shared_colleague,
)
from proactive_bench.suites.trainee.templates.parts import Predicate, TemplateHeading, called, none_but

ENGINEERS = 3
SHOWN = 5
"""Components on the page, one of them past its alert level."""


@dataclass(frozen=True)
class Reading:
    """One line of the monitoring page: the component, its reading, its alert level, and what a report must quote of it."""

    key: str
    """The word a message naming the component uses (and one naming another component does not)."""
    component: str
    reading: str
    alert: str
    quote: str
    """The part of the reading a report must carry (the number as the page shows it)."""


def _reading(kind: str, breach: bool, rng: Random) -> Reading:
    if kind in ("database", "media"):
        capacity = rng.choice((50, 80, 120, 200) if kind == "database" else (500, 750, 1000))
        limit = 90 if kind == "database" else 85
        pct = rng.randint(limit + 2, 98) if breach else rng.randint(35, limit - 6)
        used = capacity * pct / 100
        name = "Database disk" if kind == "database" else "Media bucket"
        return Reading(kind, name, f"{used:.1f} GB of {capacity} GB ({pct}% full)", f"{limit}% full", str(pct))
    if kind == "queue":
        jobs = rng.randint(540, 990) if breach else rng.randint(12, 380)
        return Reading("queue", "Job queue", f"{jobs} jobs waiting", "500 jobs waiting", str(jobs))
    if kind == "certificate":
        days = rng.randint(3, 12) if breach else rng.randint(31, 180)
        return Reading("certificate", "TLS certificate", f"expires in {days} days", "less than 14 days left", f"{days} day")
    if kind == "errors":
        rate = rng.randint(24, 60) / 10 if breach else rng.randint(1, 12) / 10
        return Reading("error rate", "Error rate", f"{rate:.1f}% of requests", "above 2.0% of requests", f"{rate:.1f}")
    latency = rng.randint(850, 990) if breach else rng.randint(180, 620)
    return Reading("latency", "Page latency (p95)", f"{latency} ms", "above 800 ms", str(latency))


KINDS = ("database", "media", "queue", "certificate", "errors", "latency")


def status_page(site: str, host: str, readings: list[Reading], checked: str) -> str:
    rows = "\n".join(f"<tr><td>{r.component}</td><td>{r.reading}</td><td>{r.alert}</td></tr>" for r in readings)
    return (
        f"<html><head><title>{site} website monitoring</title></head><body>\n"
        f"<h1>{site} website: monitoring</h1>\n<p>Host {host}. Last check {checked}. Readings refresh every five minutes.</p>\n"
        f"<table>\n<tr><th>Component</th><th>Reading</th><th>Alert level</th></tr>\n{rows}\n</table>\n"
        "<p>A component past its alert level needs its maintainer's attention.</p>\n</body></html>\n"
    )


class SiteMonitor(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        hr, manager = shared_colleague(ctx, "hr"), shared_colleague(ctx, "engineering_manager")
        engineers = [ctx.names.person() for _ in range(ENGINEERS)]
        maintainer = rng.choice(engineers)
        decoys = [e for e in engineers if e is not maintainer]
        site = ctx.names.word("project")
        host = f"{site.lower()}.{ctx.company.domain}"
        url = f"https://{host}/monitoring"
        kinds = rng.sample(KINDS, SHOWN)
        broken = rng.choice(kinds)
        shown = {k: _reading(k, k == broken, rng) for k in kinds}
        readings, problem = list(shown.values()), shown[broken]
        healthy = [r for r in readings if r is not problem]
        code = f"CHG-{rng.randint(1000, 9999)}"
        due = rng.choice((120, 150, 180))
        npcs = (
            hr,
            manager,
            *(colleague(e, "Software Engineer", "Engineering", "Builds and runs some of the company's web services.") for e in engineers),
        )
        clues = (
            Clue(
                id="k1",
                holder=hr.handle,
                value=f"{maintainer.name} ({maintainer.handle})",
                text=f"The {site} website is maintained by {maintainer.name} ({maintainer.handle}).",
                ask=(r"\b(maintain\w*|looks? after|responsible|in charge|owns?|owner)\b",),
                subject=named(site),
                question=f"Who maintains the {site} website?",
            ),
            Clue(
                id="k2",
                holder=manager.handle,
                value=code,
                text=f"Emergency change on the {site} website authorised: code {code}.",
                ask=(r"\b(authori[sz]\w*|approv\w*|sign[- ]?off|permission)\b",),
                subject=named(site),
                question=f"What is the authorization code for an emergency change on the {site} website?",
            ),
        )
        report = f"The {site} website's {problem.component} is past its alert level: {problem.reading} (alert at {problem.alert})."
        handover = f"Authorization for the emergency change on the {site} website: {code}."
        told = checker("chat_sent", to=maintainer.handle, contains=[problem.key, problem.quote])
        naming_others: list[Predicate] = [checker("chat_sent", to=maintainer.handle, contains=[r.key]) for r in healthy]
        to_decoys: list[Predicate] = [checker("chat_sent", to=d.handle, contains=[problem.key]) for d in decoys]
        deadline = minute_iso(ctx, ctx.arrival_minute + due)
        return TaskDraft(
            title="Monitor a website",
            objective=(
                f"Check the {site} website's monitoring page ({url}). If a component is past its alert level, tell the person who "
                f"maintains the {site} website over chat which component it is (only that one) and its reading as the page shows it, "
                "and send them the Engineering Manager's authorization code for an emergency change, which they need before they "
                "may fix it."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="read the site's monitoring page",
                    check=called("web_fetch", url=f"{host}/monitoring"),
                    feedback="Open the monitoring page the task names (web_fetch) before reporting anything.",
                ),
                Checkpoint(
                    id="c2",
                    text="asked HR who maintains the website",
                    needs=("k1",),
                    check=checker("clue_obtained", clue=ctx.clue_ref("k1")),
                    feedback="Ask HR who is responsible for maintaining a company website; do not guess among the engineers.",
                ),
                Checkpoint(
                    id="c3",
                    text="told the maintainer, and no other engineer, which component is past its alert level, with its reading",
                    needs=("k1",),
                    check=none_but(told, [*naming_others, *to_decoys]),
                    attempt={"any": [checker("chat_sent", to=e.handle, contains=[problem.key]) for e in engineers]},
                    feedback="Tell the maintainer clearly which component is past its alert level and its reading; leave out the "
                    "healthy ones.",
                ),
                Checkpoint(
                    id="c4",
                    text="passed the engineering manager's authorization code to the maintainer before the deadline",
                    needs=("k1", "k2"),
                    check=checker("chat_sent", to=maintainer.handle, contains=[code], before=deadline),
                    attempt={"any": [checker("chat_sent", to=e.handle, contains=["authori"]) for e in engineers]},
                    feedback="Ask the Engineering Manager for the authorization code of an emergency change and pass it to the maintainer.",
                ),
            ),
            pages={url: status_page(site, host, readings, minute_iso(ctx, ctx.arrival_minute)[-5:])},
            timing=Timing(due_minutes=due, work_minutes=25),
            reference=(
                Step(tool="web_fetch", args={"url": url}),
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": maintainer.handle, "text": report},
                    needs=("k1",),
                    guess={"to": decoys[0].handle, "text": report},
                ),
                Step(ask="k2"),
                Step(
                    tool="chat__send_message",
                    args={"to": maintainer.handle, "text": handover},
                    needs=("k1", "k2"),
                    guess={"to": decoys[0].handle, "text": f"The {site} website needs an emergency change; authorization is pending."},
                ),
            ),
            hints=Hints(
                data=f"The page at {url} lists each component's reading and alert level; exactly one is past it.",
                method="Ask HR who maintains the site, tell that engineer the one component past its alert level with its reading, "
                "then ask the Engineering Manager for the change's authorization code and pass it on.",
            ),
        )


register_template(SiteMonitor("site_monitor", "hard", ("chat", "web"), "inquiry"))
