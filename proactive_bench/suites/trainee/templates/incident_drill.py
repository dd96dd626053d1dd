"""Answering a failover drill (easy, time-critical): when the alert fires, page this week's on-call engineer and file it.

A fixed task: the drill's alert preempts whatever the agent is doing. Two
clues: who is on call this week is in the on-call rota file (k1, a file clue;
paging the reliability lead instead is the natural guess), and the severity a
drill of this service is filed under is known only to the reliability lead
(k2). Paging counts only within a few minutes of the alert; the incident desk
e-mail must name exactly one severity, the right one.
"""

from __future__ import annotations

import re
from datetime import timedelta

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, minute_iso, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, email_step, none_but

START_MINUTES = (75, 105, 135, 165, 195, 225, 255)
RESPONSE_MINUTES = 10
"""How soon after the alert the on-call engineer must be paged."""
SEVERITIES = ("SEV-1", "SEV-2", "SEV-3", "SEV-4")
GUESSED_SEVERITY = "SEV-1"
ENGINEERS = 2


class IncidentDrill(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        engineers = [ctx.names.person() for _ in range(ENGINEERS)]
        service = ctx.names.word("project")
        on_call = rng.choice(engineers)
        severity = rng.choice([s for s in SEVERITIES if s != GUESSED_SEVERITY])
        at = rng.choice(START_MINUTES)
        alert, by = minute_iso(ctx, at), minute_iso(ctx, at + RESPONSE_MINUTES)
        desk = f"{service.lower()}-incidents@{ctx.company.domain}"
        rota = ctx.names.path(ctx.folder, "oncall_rota", "txt")
        monday = ctx.company.day - timedelta(days=ctx.company.day.weekday())
        weeks = [monday + timedelta(weeks=w) for w in range(-2, 3)]
        rotation = [engineers[(engineers.index(on_call) + w) % ENGINEERS] for w in range(-2, 3)]
        lines = [f"week of {week.isoformat()}: {person.name} ({person.handle})" for week, person in zip(weeks, rotation, strict=True)]
        npcs = (
            colleague(
                lead, "Reliability Lead", "Infrastructure", f"Calm under pressure; owns the {service} runbooks and the incident process."
            ),
            *(
                colleague(e, "Site Reliability Engineer", "Infrastructure", f"Keeps the {service} service running; takes turns on call.")
                for e in engineers
            ),
        )
        clues = (
            Clue(
                id="k1",
                holder=f"file:{rota}",
                value=f"week of {monday.isoformat()}: {on_call.name} ({on_call.handle})",
                text=f"week of {monday.isoformat()}: {on_call.name} ({on_call.handle})",
            ),
            Clue(
                id="k2",
                holder=lead.handle,
                value=f"filed as {severity}",
                text=f"Failover drills of {service} are always filed as {severity}, whatever the alert says.",
                ask=(r"\b(severity|sev|priority|level|classif\w*)\b",),
                subject=named(service),
                question=f"What severity should a {service} failover drill be filed under?",
            ),
        )
        page = f"Drill {service}: failover alert fired at {alert[-5:]}, please take it."
        report = f"{service} failover drill at {alert[-5:]}. Severity: {severity}. On call: {on_call.name}."
        paged_any = {"any": [checker("chat_sent", to=p.handle, after=alert) for p in (lead, *engineers)]}
        return TaskDraft(
            title="Answer a failover drill",
            objective=(
                f"At {alert[-5:]} the {service} monitoring fires a planned failover-drill alert. As soon as it does, page this "
                f"week's on-call engineer over chat with a message containing 'drill {service}', and e-mail the incident desk "
                f"({desk}) with the subject '{service} drill' and the severity the drill is filed under. The rota is in {rota}."
            ),
            npcs=npcs,
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text=f"this week's on-call engineer, and no one else, was paged within {RESPONSE_MINUTES} minutes of the alert",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=on_call.handle, contains=[f"drill {service}"], after=alert, before=by),
                        (checker("chat_sent", to=p.handle, contains=[f"drill {service}"]) for p in (lead, *engineers) if p != on_call),
                    ),
                    attempt=paged_any,
                    feedback="Read the on-call rota for the current week, and page the moment the alert fires.",
                ),
                Checkpoint(
                    id="c2",
                    text="the incident desk got the drill with its one right severity",
                    needs=("k2",),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=f"{service} drill", body_contains=[severity]),
                        (checker("email_sent", to=desk, body_contains=[s]) for s in SEVERITIES if s != severity),
                    ),
                    attempt=checker("email_sent", to=desk),
                    feedback="Ask the Reliability Lead which severity a drill is filed under; do not assume the highest.",
                ),
                Checkpoint(
                    id="c3",
                    text=f"the incident desk was told in the first {RESPONSE_MINUTES} minutes after the alert",
                    check={
                        "app_rows_added": {
                            "table": "gmail_email",
                            "where": {
                                "recipient_emails": re.escape(desk),
                                "subject": re.escape(f"{service} drill"),
                                "sent_at": "^("
                                + "|".join(re.escape(minute_iso(ctx, m)) for m in range(at, at + RESPONSE_MINUTES + 1))
                                + ")",
                            },
                        }
                    },
                    feedback="Report an alert to the incident desk within minutes, even in the middle of other work.",
                ),
            ),
            files={rota: "On-call rota (Infrastructure)\n" + "\n".join(lines) + "\n"},
            rows={
                "calendar_event": [
                    {
                        "title": f"{service} failover drill",
                        "start": alert,
                        "end": minute_iso(ctx, at + 30),
                        "location": "",
                        "attendees": [ctx.company.intern.email],
                        "description": "Planned drill; respond as to a real alert.",
                    }
                ]
            },
            timing=Timing(kind="fixed", at_minute=at, work_minutes=6),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(wait_until_minute=at),
                Step(
                    tool="chat__send_message",
                    args={"to": on_call.handle, "text": page},
                    needs=("k1",),
                    guess={"to": lead.handle, "text": page},
                ),
                email_step(
                    desk,
                    f"{service} drill",
                    report,
                    needs=("k1", "k2"),
                    guessed_body=f"{service} failover drill at {alert[-5:]}. Severity: {GUESSED_SEVERITY}.",
                ),
            ),
            hints=Hints(
                data=f"The current week's line of {rota} names the on-call engineer; the Reliability Lead knows drill severities.",
                method=f"Prepare before {alert[-5:]}: read the rota and ask the severity; when the alert fires, page and e-mail at once.",
            ),
        )


register_template(IncidentDrill("incident_drill", "easy", ("chat", "files", "email"), "inquiry"))
