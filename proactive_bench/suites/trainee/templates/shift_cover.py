"""Covering a short shift (easy; time management and scheduling): offer it to the one colleague who may take it.

One clue: which shift is short is the operations lead's (k1). The rota lists
each colleague's shifts and hours this week, with the weekly cap: the shift
goes to a colleague not already working that day who stays within the cap
after it, the one with the fewest hours among them. Offering it to everyone
fails; so does the natural guess, the colleague with the fewest hours overall
(who is on that day).
"""

from __future__ import annotations

from datetime import timedelta

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, none_but

STAFF = 5
CAP = 40
SHIFT_HOURS = 8
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat")


class ShiftCover(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        staff = [ctx.names.person() for _ in range(STAFF)]
        site = ctx.names.word("city")
        while True:
            rota = {p.handle: sorted(rng.sample(DAYS, rng.randint(2, 5))) for p in staff}
            hours = {h: len(days) * SHIFT_HOURS + rng.choice((0, 0, 2, 4)) for h, days in rota.items()}
            short = rng.choice(DAYS)
            eligible = [p for p in staff if short not in rota[p.handle] and hours[p.handle] + SHIFT_HOURS <= CAP]
            fewest = min(staff, key=lambda p: hours[p.handle])
            if not eligible or short not in rota[fewest.handle]:
                continue
            pick = min(eligible, key=lambda p: hours[p.handle])
            if [hours[p.handle] for p in eligible].count(hours[pick.handle]) == 1 and len(eligible) < STAFF - 1:
                break
        others = [p for p in staff if p is not pick]
        day = ctx.company.day + timedelta(days=(DAYS.index(short) - ctx.company.day.weekday()) % 7 or 7)
        sheet = ctx.names.path(ctx.folder, f"{site.lower()}_rota", "xlsx")
        shift = f"{short} {day.isoformat()}"
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=f"short on {short}",
            text=f"The {site} warehouse is one person short on {short} ({day.isoformat()}), the day shift.",
            ask=(r"\b(which (shift|day)|short\w*|gap|uncovered|missing)\b",),
            subject=named(site),
            question=f"Which shift is the {site} warehouse short on?",
        )
        offer = f"Could you take the day shift on {shift} at the {site} warehouse? We are one person short."
        return TaskDraft(
            title="Cover a shift",
            objective=(
                f"The {site} warehouse is one person short on a shift this week. Offer it over chat to the one colleague who may "
                f"take it ({sheet}): not already working that day, within the {CAP}-hour weekly cap after an {SHIFT_HOURS}-hour shift, "
                "and with the fewest hours among those. Name the day (YYYY-MM-DD). Do not ask anyone else."
            ),
            npcs=(
                colleague(lead, "Operations Lead", "Operations", f"Runs the {site} warehouse's rota."),
                *(colleague(p, "Warehouse Associate", "Operations", f"Works shifts at the {site} warehouse.") for p in staff),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the shift was offered to the colleague who may take it, with its day",
                    needs=("k1",),
                    check=checker("chat_sent", to=pick.handle, contains=[day.isoformat()]),
                    attempt={"any": [checker("chat_sent", to=p.handle, contains=["shift"]) for p in staff]},
                    feedback="Ask the Operations Lead which shift is short, then check the rota for who is free and under the cap.",
                ),
                Checkpoint(
                    id="c2",
                    text="nobody else was asked",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=pick.handle, contains=["shift"]),
                        (checker("chat_sent", to=p.handle, contains=["shift"]) for p in others),
                    ),
                    attempt={"any": [checker("chat_sent", to=p.handle, contains=["shift"]) for p in staff]},
                    feedback="Offer a shift to the one person the rules allow, not to the whole team.",
                ),
            ),
            files={
                sheet: xlsx_bytes(
                    {
                        "Rota": [
                            ["Name", "Chat handle", "Shifts this week", "Hours this week"],
                            *([p.name, p.handle, ", ".join(rota[p.handle]), hours[p.handle]] for p in staff),
                        ]
                    }
                )
            },
            timing=Timing(due_minutes=rng.choice((90, 120, 150)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": pick.handle, "text": offer},
                    needs=("k1",),
                    guess={"to": fewest.handle, "text": "Could you take an extra shift this week at the warehouse?"},
                ),
            ),
            hints=Hints(
                data=f"{sheet} lists each colleague's shifts and hours this week; the weekly cap is {CAP} hours.",
                method="Drop everyone working that day or who would pass the cap, then take the one with the fewest hours.",
            ),
        )


register_template(ShiftCover("shift_cover", "easy", ("chat", "spreadsheets"), "scheduling"))
