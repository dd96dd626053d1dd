"""Welcoming a new hire (easy; proactive inquiry): their buddy and their desk, each known to a different scenario-wide colleague.

Two clues, each held by a scenario-wide colleague who may hold other tasks'
clues (told apart by the new hire they name): the new hire's onboarding buddy
is the HR partner's (k1); their desk is the office manager's (k2). The team
lead, the natural guess for a buddy, never is one; the desk cannot be
guessed.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called

TEAMMATES = 3


class OnboardingWelcome(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        hr, manager = shared_colleague(ctx, "hr"), shared_colleague(ctx, "office_manager")
        lead, newcomer = ctx.names.person(), ctx.names.person()
        mates = [ctx.names.person() for _ in range(TEAMMATES)]
        buddy = rng.choice(mates)
        team = ctx.names.word("project")
        desk = f"desk {rng.randint(2, 7)}.{rng.randint(10, 48)}"
        address = f"{newcomer.first.lower()}.{newcomer.last.lower()}@mailbox.example"
        subject = f"Welcome to the {team} team"
        clues = (
            Clue(
                id="k1",
                holder=hr.handle,
                value=f"buddy is {buddy.name}",
                text=f"{newcomer.name}'s onboarding buddy is {buddy.name} ({buddy.email}).",
                ask=(r"\b(buddy|mentor|onboarding partner)\b",),
                subject=named(newcomer.first, newcomer.last),
                question=f"Who is {newcomer.name}'s onboarding buddy?",
            ),
            Clue(
                id="k2",
                holder=manager.handle,
                value=desk,
                text=f"{newcomer.name} sits at {desk}.",
                ask=(r"\b(desk|seat|sit\w*|workspace|where)\b",),
                subject=named(newcomer.first, newcomer.last),
                question=f"Which desk will {newcomer.name} sit at?",
            ),
        )
        body = f"Dear {newcomer.first}, welcome! Your onboarding buddy is {buddy.name} ({buddy.email}) and you sit at {desk}."
        return TaskDraft(
            title="Welcome a new hire",
            objective=(
                f"{newcomer.name} joins the {team} team tomorrow. E-mail them at {address} with the subject '{subject}': who their "
                "onboarding buddy is (name and e-mail) and which desk they sit at."
            ),
            npcs=(
                hr,
                manager,
                colleague(lead, "Team Lead", team, f"Leads the {team} team, which {newcomer.first} is joining."),
                *(colleague(m, "Analyst", team, f"Works in the {team} team.") for m in mates),
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the welcome names the onboarding buddy, and no other teammate as buddy",
                    needs=("k1",),
                    check={
                        "all": [
                            checker("email_sent", to=address, subject_contains=subject, body_contains=[buddy.name]),
                            *(
                                {"not": checker("email_sent", to=address, body_contains=[other.name])}
                                for other in [lead, *mates]
                                if other is not buddy
                            ),
                        ]
                    },
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask HR who a new hire's onboarding buddy is.",
                ),
                Checkpoint(
                    id="c2",
                    text="the welcome gives the new hire's desk",
                    needs=("k2",),
                    check=checker("email_sent", to=address, subject_contains=subject, body_contains=[desk.split()[1]]),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Office Manager where a new hire sits.",
                ),
            ),
            timing=Timing(due_minutes=rng.choice((120, 180, 240)), work_minutes=10),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [address], "subject": subject, "body": body},
                    needs=("k1", "k2"),
                    guess={
                        "email_addresses": [address],
                        "subject": subject,
                        "body": f"Dear {newcomer.first}, welcome! {lead.name} will show you around; your desk will be ready.",
                    },
                ),
            ),
            hints=Hints(
                data="HR assigns onboarding buddies; the Office Manager assigns desks.",
                method="Ask each for the new hire by name, then send one welcome e-mail with both.",
            ),
        )


register_template(OnboardingWelcome("onboarding_welcome", "easy", ("chat", "email"), "inquiry"))
