"""Siting pop-up kiosks (hard; strategic modeling): the permitted grid cells with the most footfall, as many as the budget allows.

Two clues: how many kiosks the pop-up can pay for is the retail manager's
(k1), and the footfall of each grid cell is only in a heatmap picture (k2, an
image clue: ``view_image``; the permits sheet lists the cells a kiosk may go
in, with their rents, but no footfall). The busiest cell overall has no
permit, so a reading that ignores permits fails, and listing every permitted
cell fails the "only those" checks.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import heatmap
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

ROWS, COLUMNS = "ABCDE", "123456"
PERMITS = 9
"""Cells with a permit (the kiosks go among them)."""
KIOSKS = (2, 3, 4)
GUESSED_KIOSKS = 5


class KioskSiting(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager, analyst = ctx.names.person(), ctx.names.person()
        brand, city = ctx.names.word("project"), ctx.names.word("city")
        cells = [f"{r}{c}" for r in ROWS for c in COLUMNS]
        counts = rng.sample(range(80, 990), len(cells))  # footfall per cell, all different
        footfall = dict(zip(cells, counts, strict=True))
        busiest = max(cells, key=footfall.__getitem__)
        permitted = sorted(rng.sample([c for c in cells if c != busiest], PERMITS))
        kiosks = rng.choice(KIOSKS)
        chosen = sorted(permitted, key=footfall.__getitem__, reverse=True)[:kiosks]
        rest = [c for c in permitted if c not in chosen]
        picture = ctx.names.path(ctx.folder, "footfall_heatmap", "png")
        sheet = ctx.names.path(ctx.folder, "permits", "xlsx")
        out = ctx.names.path(ctx.folder, "kiosk_sites", "txt")
        grid = [[footfall[f"{r}{c}"] for c in COLUMNS] for r in ROWS]
        rents = {c: rng.randrange(400, 1600, 50) for c in permitted}
        by_rent = sorted(permitted, key=rents.__getitem__)
        clues = (
            Clue(
                id="k1",
                holder=manager.handle,
                value=f"{kiosks} kiosks",
                text=f"The {brand} pop-up in {city} has budget for {kiosks} kiosks.",
                ask=(r"\b(how many|number of|count|budget)\b",),
                subject=named(brand),
                question=f"How many kiosks does the {brand} pop-up have budget for?",
            ),
            Clue(
                id="k2",
                holder=f"file:{picture}",
                value=", ".join(chosen),
                text=f"footfall by cell; the busiest permitted cells: {', '.join(chosen)}",
            ),
        )
        ranked = "\n".join(chosen)
        guessed = by_rent[:GUESSED_KIOSKS]  # the cheapest cells, as many as a guess would take
        return TaskDraft(
            title="Site pop-up kiosks",
            objective=(
                f"Choose the grid cells of {city} for the {brand} pop-up kiosks: as many kiosks as the pop-up has budget for, each in a "
                f"cell with a permit ({sheet}), the cells with the most footfall ({picture}, a heatmap of footfall per cell). Write "
                f"the chosen cells to {out}, one per line, and e-mail them to {manager.name} ({manager.email}) with the subject "
                f"'{brand} kiosk sites'."
            ),
            npcs=(
                colleague(manager, "Retail Manager", "Retail", f"Runs the {brand} pop-up programme and holds its budget."),
                colleague(analyst, "Data Analyst", "Strategy", "Keeps the city footfall studies; quiet and thorough."),
            ),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the chosen cells are exactly the permitted cells with the most footfall, as many as the budget allows",
                    needs=("k1", "k2"),
                    check=file_holds(out, chosen, [*rest, busiest]),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Retail Manager how many kiosks there is budget for, and read the footfall off the heatmap "
                    "(view_image) for the permitted cells only.",
                ),
                Checkpoint(
                    id="c2",
                    text="the same cells were e-mailed to the retail manager, and no other permitted cell",
                    needs=("k1", "k2"),
                    check=none_but(
                        checker("email_sent", to=manager.email, subject_contains=f"{brand} kiosk sites", body_contains=chosen),
                        (checker("email_sent", to=manager.email, body_contains=[c]) for c in [*rest, busiest]),
                    ),
                    attempt=called("gmail__send_email", subject=f"{brand} kiosk sites"),
                    feedback="Send the manager only the chosen cells.",
                ),
            ),
            files={
                picture: heatmap(f"{city}: footfall per grid cell (people per hour)", ROWS, COLUMNS, grid, "people per hour"),
                sheet: xlsx_bytes({"Permits": [["Cell", "Monthly rent"], *([c, rents[c]] for c in permitted)]}),
            },
            timing=Timing(due_minutes=rng.choice((150, 180, 210)), work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": ranked + "\n"},
                    needs=("k1", "k2"),
                    guess={"path": out, "content": "\n".join(guessed) + "\n"},
                ),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [manager.email], "subject": f"{brand} kiosk sites", "body": ranked},
                    needs=("k1", "k2"),
                    guess={"email_addresses": [manager.email], "subject": f"{brand} kiosk sites", "body": "\n".join(guessed)},
                ),
            ),
            hints=Hints(
                data=f"The footfall of each cell is written in its square of {picture}; the permitted cells are in {sheet}.",
                method="Ask the Retail Manager for the number of kiosks, then rank the permitted cells by their footfall on the heatmap "
                "and take that many from the top.",
            ),
        )


register_template(KioskSiting("kiosk_siting", "hard", ("chat", "images", "spreadsheets", "files", "email"), "optimization"))
