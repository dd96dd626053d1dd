"""Registering a visitor (easy; proactive inquiry): the arrival time from the host, the entrance from the office manager.

Two clues: when the visitor arrives is their host's (k1); which entrance
visitors use at the office this month is the office manager's (k2, a
scenario-wide colleague who may hold other tasks' clues, told apart by the
office they name). Reception must get the visitor's name, the time and the
entrance; the main door, the natural guess, is never it.
"""

from __future__ import annotations

from datetime import time

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

ENTRANCES = ("north gate", "courtyard door", "loading bay door", "east lobby", "garden entrance")
TIMES = tuple(time(h, m) for h in range(9, 16) for m in (0, 15, 30, 45))


class VisitorAccess(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager = shared_colleague(ctx, "office_manager")
        host, visitor = ctx.names.person(), ctx.names.person()
        company = ctx.names.word("vendor")
        office = ctx.names.word("city")
        entrance = rng.choice(ENTRANCES)
        arrival = rng.choice(TIMES).strftime("%H:%M")
        desk = f"reception.{office.lower()}@{ctx.company.domain}"
        subject = f"Visitor tomorrow: {visitor.name}"
        clues = (
            Clue(
                id="k1",
                holder=host.handle,
                value=f"arrives at {arrival}",
                text=f"{visitor.name} arrives at {arrival} tomorrow.",
                ask=(r"\b(when|what time|arriv\w*|expected)\b",),
                subject=named(visitor.first, visitor.last),
                question=f"What time does {visitor.name} arrive tomorrow?",
            ),
            Clue(
                id="k2",
                holder=manager.handle,
                value=f"the {entrance}",
                text=f"This month visitors to the {office} office come in by the {entrance}.",
                ask=(r"\b(entrance|door|gate|come in|way in|enter)\b",),
                subject=named(office),
                question=f"Which entrance do visitors to the {office} office use this month?",
            ),
        )
        others = [e for e in ENTRANCES if e != entrance]
        body = f"{visitor.name} of {company} visits {host.name} tomorrow, arriving at {arrival}, by the {entrance}."
        return TaskDraft(
            title="Register a visitor",
            objective=(
                f"{visitor.name} of {company} visits {host.name} at the {office} office tomorrow. Register the visit with reception "
                f"({desk}) by e-mail with the subject '{subject}': the visitor, their host, the arrival time (HH:MM) and the "
                "entrance visitors use this month."
            ),
            npcs=(manager, colleague(host, "Account Director", "Sales", f"Looks after {company}; hosts their visits.")),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="reception has the arrival time, and no other time",
                    needs=("k1",),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject, body_contains=[arrival]),
                        (
                            checker("email_sent", to=desk, subject_contains=subject, body_contains=[t.strftime("%H:%M")])
                            for t in TIMES
                            if t.strftime("%H:%M") != arrival
                        ),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the host when their visitor arrives.",
                ),
                Checkpoint(
                    id="c2",
                    text="reception has the right entrance, and no other",
                    needs=("k2",),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject, body_contains=[entrance]),
                        (checker("email_sent", to=desk, subject_contains=subject, body_contains=[e]) for e in others),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Office Manager which entrance visitors use; it changes.",
                ),
            ),
            timing=Timing(due_minutes=rng.choice((90, 120, 180)), work_minutes=10),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [desk], "subject": subject, "body": body},
                    needs=("k1", "k2"),
                    guess={
                        "email_addresses": [desk],
                        "subject": subject,
                        "body": f"{visitor.name} visits {host.name} tomorrow at 09:00, main door.",
                    },
                ),
            ),
            hints=Hints(
                data="The host knows the arrival time; the Office Manager knows the entrance.", method="Ask both, then send one e-mail."
            ),
        )


register_template(VisitorAccess("visitor_access", "easy", ("chat", "email"), "inquiry"))
