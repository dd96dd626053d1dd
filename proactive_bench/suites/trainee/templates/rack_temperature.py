"""Server-room temperatures (easy; proactive inquiry and monitoring): the racks running above the room's limit, off a heatmap.

Two clues: the room's maximum inlet temperature is the facilities engineer's
(k1); the racks' temperatures are only drawn in a heatmap (k2, an image clue).
The hottest rack is always above the limit, a guessed limit of 27 °C flags a
different set, and listing every rack fails the "no other rack" check.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import heatmap
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, none_but

AISLES, POSITIONS = "ABCD", "12345678"
LIMITS = (24, 25, 26, 29, 30)
GUESSED_LIMIT = 27


def above(temps: dict[str, int], limit: int) -> list[str]:
    return [rack for rack, t in temps.items() if t > limit]


class RackTemperature(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        engineer = ctx.names.person()
        room = ctx.names.word("city")
        limit = rng.choice(LIMITS)
        racks = [f"{a}{p}" for a in AISLES for p in POSITIONS]
        while True:
            temps = {r: rng.choice((19, 20, 21, 22, 23)) if rng.random() < 0.8 else rng.randint(22, 33) for r in racks}
            hot = above(temps, limit)
            if 2 <= len(hot) <= 6 and hot != above(temps, GUESSED_LIMIT) and limit not in temps.values():
                break
        picture = ctx.names.path(ctx.folder, "inlet_temperatures", "png")
        desk = f"facilities@{ctx.company.domain}"
        subject = f"{room} server room: racks over temperature"
        grid = [[temps[f"{a}{p}"] for p in POSITIONS] for a in AISLES]
        cool = [r for r in racks if r not in hot]
        clues = (
            Clue(
                id="k1",
                holder=engineer.handle,
                value=f"at most {limit} °C",
                text=f"Inlet air in the {room} server room must stay at most {limit} °C.",
                ask=(r"\b(max\w*|limit|highest|threshold|allowed|safe)\b",),
                subject=named(room),
                question=f"What is the maximum inlet temperature allowed in the {room} server room?",
            ),
            Clue(id="k2", holder=f"file:{picture}", value=f"over {limit}: {', '.join(hot)}", text=f"over {limit}: {', '.join(hot)}"),
        )
        body = f"Racks above the inlet limit ({limit} °C) in the {room} server room: {', '.join(hot)}."
        return TaskDraft(
            title="Check server-room temperatures",
            objective=(
                f"The inlet temperature of each rack of the {room} server room is in {picture} (aisles A-D, positions 1-8). E-mail "
                f"the facilities desk ({desk}) the racks above the room's limit, with the subject '{subject}'; name no rack that is "
                "within it."
            ),
            npcs=(colleague(engineer, "Facilities Engineer", "Facilities", f"Looks after the {room} server room's cooling."),),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every rack above the limit is reported",
                    needs=("k1", "k2"),
                    check=checker("email_sent", to=desk, subject_contains=subject, body_contains=hot),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Facilities Engineer for the room's temperature limit and read every rack off the heatmap "
                    "(view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="no rack within the limit is reported",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("email_sent", to=desk, subject_contains=subject),
                        (checker("email_sent", to=desk, subject_contains=subject, body_contains=[r]) for r in cool),
                    ),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Report only the racks above the limit.",
                ),
            ),
            files={picture: heatmap(f"{room} server room: rack inlet temperature (°C)", list(AISLES), list(POSITIONS), grid, "°C")},
            timing=Timing(due_minutes=rng.choice((60, 90, 120)), work_minutes=15),
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
                        "body": f"Racks above the inlet limit in the {room} server room: {', '.join(above(temps, GUESSED_LIMIT))}.",
                    },
                ),
            ),
            hints=Hints(
                data=f"Each rack's temperature is written in its square of {picture}; the Facilities Engineer has the limit.",
                method="List the racks whose temperature is above the limit, and only those.",
            ),
        )


register_template(RackTemperature("rack_temperature", "easy", ("chat", "images", "email"), "inquiry"))
