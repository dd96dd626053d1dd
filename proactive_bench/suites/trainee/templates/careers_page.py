"""Keeping a careers page current (easy; proactive inquiry and monitoring): the filled positions it still lists, taken down.

The careers page is a web page (``web_fetch``) listing open positions with
their reference numbers. Which of them were filled this week is the HR
partner's (k1, a scenario-wide colleague who may hold other tasks' clues, told
apart by the site they name). The web team must get exactly the filled
positions still on the page: a position filled but already gone from the page,
or one still open, must not be named.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

ROLES = (
    "Data Engineer", "Payroll Specialist", "UX Researcher", "Warehouse Supervisor", "Account Executive", "QA Analyst",
    "Office Coordinator", "Solutions Architect", "Content Designer", "Field Technician",
)  # fmt: skip
LISTED = 6


class CareersPage(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        hr = shared_colleague(ctx, "hr")
        brand = ctx.names.word("project")
        host = f"careers.{brand.lower()}.{ctx.company.domain}"
        url = f"https://{host}/openings"
        base = rng.randint(100, 899)
        roles = rng.sample(ROLES, LISTED + 1)
        refs = {role: f"JOB-{base + n * 7}" for n, role in enumerate(roles)}
        listed, gone = roles[:LISTED], roles[LISTED]
        filled = rng.sample(listed, rng.randint(1, 3))
        still_open = [r for r in listed if r not in filled]
        desk = f"webteam@{ctx.company.domain}"
        subject = f"{brand} careers page: take down"
        page = (
            f"<html><head><title>{brand} careers</title></head><body><h1>Work with {brand}</h1>\n<ul>\n"
            + "".join(f"<li>{role} ({refs[role]}): apply by e-mail</li>\n" for role in listed)
            + "</ul></body></html>\n"
        )
        told = ", ".join([*(f"{r} ({refs[r]})" for r in filled), f"{gone} ({refs[gone]})"])
        clue = Clue(
            id="k1",
            holder=hr.handle,
            value=told,
            text=f"Positions of the {brand} careers page filled this week: {told}.",
            ask=(r"\b(filled|closed|taken|hired|no longer open|still open)\b",),
            subject=named(brand),
            question=f"Which positions on the {brand} careers page were filled this week?",
        )
        body = "Please take these filled positions off the page: " + ", ".join(refs[r] for r in filled) + "."
        return TaskDraft(
            title="Update a careers page",
            objective=(
                f"The {brand} careers page ({url}) may still list positions that have been filled. E-mail the web team ({desk}) the "
                f"reference numbers of the filled positions the page still shows, with the subject '{subject}'; name no open "
                "position."
            ),
            npcs=(hr,),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every filled position still on the page is named",
                    needs=("k1",),
                    check=checker("email_sent", to=desk, subject_contains=subject, body_contains=[refs[r] for r in filled]),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask HR which positions were filled before asking for changes to a careers page.",
                ),
                Checkpoint(
                    id="c2",
                    text="no open position, and none already off the page, is named",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject),
                        (checker("email_sent", to=desk, subject_contains=subject, body_contains=[refs[r]]) for r in [*still_open, gone]),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Check the page itself (web_fetch): ask to remove only what it still shows and HR says is filled.",
                ),
            ),
            pages={url: page},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(tool="web_fetch", args={"url": url}),
                Step(ask="k1"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [desk], "subject": subject, "body": body},
                    needs=("k1",),
                    guess={"email_addresses": [desk], "subject": subject, "body": "Please take down " + ", ".join(refs[r] for r in listed)},
                ),
            ),
            hints=Hints(
                data=f"The page at {url} lists each open position with its reference; HR knows which were filled.",
                method="Fetch the page, ask HR which positions were filled, and name only the filled ones the page still lists.",
            ),
        )


register_template(CareersPage("careers_page", "easy", ("chat", "web", "email"), "inquiry"))
