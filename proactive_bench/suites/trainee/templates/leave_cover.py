"""Handing over a colleague's open tickets while they are on leave (easy; proactive inquiry): to whoever covers for them.

One clue, held by the HR partner (k1, a scenario-wide colleague who may hold
other tasks' clues, each told apart by whom it is about): who covers for the
colleague on leave. Three support agents share one role, so guessing picks the
wrong one two times in three. The tickets sheet lists every agent's tickets,
open and closed; the handover must list exactly the open tickets of the
colleague on leave, to the cover and to nobody else.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, none_but

AGENTS = 3
STATUSES = ("open", "open", "closed", "waiting on customer")


class LeaveCover(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        hr = shared_colleague(ctx, "hr")
        away = ctx.names.person()
        agents = [ctx.names.person() for _ in range(AGENTS)]
        cover = rng.choice(agents)
        decoys = [a for a in agents if a is not cover]
        product = ctx.names.word("project")
        sheet = ctx.names.path(ctx.folder, f"{product.lower()}_tickets", "xlsx")
        owners = [away, *agents]
        base = rng.randint(1000, 8999)
        numbers = rng.sample(range(base, base + 400), 14)
        tickets = [[f"T-{n}", rng.choice(owners).name, rng.choice(STATUSES)] for n in numbers]
        if not any(t[1] == away.name and t[2] == "open" for t in tickets):
            tickets[0][1:] = [away.name, "open"]
        if not any(t[1] == away.name and t[2] != "open" for t in tickets):
            tickets[1][1:] = [away.name, "closed"]
            if not any(t[1] == away.name and t[2] == "open" for t in tickets):  # that was their one open ticket
                tickets[0][1:] = [away.name, "open"]
        handover = [t[0] for t in tickets if t[1] == away.name and t[2] == "open"]
        not_handed = [t[0] for t in tickets if t[0] not in handover]
        clue = Clue(
            id="k1",
            holder=hr.handle,
            value=f"{cover.name} ({cover.handle})",
            text=f"While {away.name} is on leave, {cover.name} ({cover.handle}) covers for them.",
            ask=(r"\b(cover\w*|stand(s|ing)? in|replac\w*|deputi[sz]\w*|backup|fill\w* in)\b",),
            subject=named(away.first, away.last),
            question=f"Who covers for {away.name} while they are on leave?",
        )
        text = f"Handing over {away.name}'s open {product} tickets while they are on leave: {', '.join(handover)}."
        return TaskDraft(
            title="Hand over tickets",
            objective=(
                f"{away.name} of the {product} support team is on leave from today. Send whoever covers for them, over chat, the ids "
                f"of {away.name}'s tickets that are still open ({sheet}); nobody else needs them."
            ),
            npcs=(
                hr,
                *(colleague(a, "Support Agent", "Customer Support", f"Answers {product} support tickets.") for a in agents),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the cover got every open ticket of the colleague on leave, and no other ticket",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=cover.handle, contains=handover),
                        (checker("chat_sent", to=cover.handle, contains=[t]) for t in not_handed),
                    ),
                    attempt={"any": [checker("chat_sent", to=a.handle, contains=[handover[0]]) for a in agents]},
                    feedback="Ask HR who covers for a colleague on leave, and hand over only their open tickets.",
                ),
                Checkpoint(
                    id="c2",
                    text="no other support agent was sent the handover",
                    needs=("k1",),
                    check={
                        "all": [
                            checker("chat_sent", to=cover.handle, contains=[handover[0]]),
                            *({"not": checker("chat_sent", to=d.handle, contains=[handover[0]])} for d in decoys),
                        ]
                    },
                    attempt={"any": [checker("chat_sent", to=a.handle, contains=[handover[0]]) for a in agents]},
                    feedback="Do not broadcast a handover to the whole team; find out who covers.",
                ),
            ),
            files={sheet: xlsx_bytes({"Tickets": [["Ticket", "Owner", "Status"], *tickets]})},
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": cover.handle, "text": text},
                    needs=("k1",),
                    guess={"to": decoys[0].handle, "text": text},
                ),
            ),
            hints=Hints(
                data=f"{sheet} lists each ticket's owner and status; only 'open' tickets are handed over.",
                method="Ask HR who covers for the colleague on leave, then send that person the open tickets only.",
            ),
        )


register_template(LeaveCover("leave_cover", "easy", ("chat", "spreadsheets"), "inquiry"))
