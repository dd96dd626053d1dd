"""Data completion (easy): fill the gaps of a monthly sales sheet by the rule the data analyst states.

Data: regions × six months of unit sales, three cells blank. The clue (k1,
held by the data analyst): a blank month is the mean of the months either side
of it in the same row, rounded to a whole unit. Deliverable: the three cells
written into the sheet and the analyst told over chat. Guessing the row's
average (the usual shortcut) gives other numbers.
"""

from __future__ import annotations

import re

from openpyxl.utils import get_column_letter

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, register_template
from proactive_bench.suites.trainee.templates.parts import Row, TemplateHeading

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun")
BLANKS = 3


class DataCompletion(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        analyst, assistant = ctx.names.person(), ctx.names.person()
        regions = [ctx.names.word("region") for _ in range(4)]
        rows: list[Row] = [[region, *(rng.randint(80, 400) for _ in MONTHS)] for region in regions]
        candidates = [(r, m) for r in range(len(regions)) for m in range(1, len(MONTHS) - 1)]  # interior months only
        rng.shuffle(candidates)
        cells: list[tuple[int, int]] = []
        for cell in candidates:  # no two blanks side by side: each has both neighbours
            if len(cells) < BLANKS and all(cell[0] != c[0] or abs(cell[1] - c[1]) > 1 for c in cells):
                cells.append(cell)
        cells.sort()
        answers, guesses = {}, {}
        for r, m in cells:
            left, right = rows[r][m], rows[r][m + 2]  # row holds the region first: month m sits at index m + 1
            answers[(r, m)] = round((left + right) / 2)
        for r, m in cells:
            rows[r][m + 1] = None
        for r, m in cells:
            known = [v for v in rows[r][1:] if v is not None]
            guess = round(sum(known) / len(known))
            guesses[(r, m)] = guess if guess != answers[(r, m)] else guess + 7
        sheet = ctx.names.path(ctx.folder, "regional_sales", "xlsx")
        ref = {(r, m): f"{get_column_letter(m + 2)}{r + 2}" for r, m in cells}
        value_text = "mean of the months either side"
        npcs = (
            colleague(analyst, "Data Analyst", "Sales Operations", "Careful with numbers; maintains the sales data conventions."),
            colleague(assistant, "Sales Assistant", "Sales", "Chatty; collects the regional figures each month."),
        )
        clue = Clue(
            id="k1",
            holder=analyst.handle,
            value=value_text,
            text=f"Our convention: a missing month is the {value_text} in the same row, rounded to a whole unit.",
            ask=(r"\b(fill|complet\w*|missing|blank|gaps?|imput\w*|convention)\b",),
            subject=(r"\bregional[ _]sales\b", r"\bsales (sheet|data|figures|numbers|file|spreadsheet)\b"),
            question="How should I fill the missing months in the sales sheet?",
        )
        fills = {ref[c]: answers[c] for c in cells}
        guessed = {ref[c]: guesses[c] for c in cells}
        checkpoints = [
            Checkpoint(
                id=f"c{n}",
                text=f"cell {ref[c]} holds the completed value",
                needs=("k1",),
                check=checker("xlsx_cell", path=sheet, sheet="Sales", cell=ref[c], value=answers[c], tolerance=0.5),
                attempt={"tool_called": {"name": "xlsx_write", "args": {"path": re.escape(sheet)}}},
                feedback="Ask the Data Analyst how gaps are filled; do not invent your own rule.",
            )
            for n, c in enumerate(cells, start=1)
        ]
        checkpoints.append(
            Checkpoint(
                id=f"c{len(cells) + 1}",
                text="the analyst was told the sheet is complete",
                check=checker("chat_sent", to=analyst.handle, contains=[sheet.rsplit("/", 1)[-1]]),
                feedback="Tell the person who owns the data when you have changed it, naming the file.",
            )
        )
        return TaskDraft(
            title="Complete sales data",
            objective=(
                f"Some monthly figures are missing in {sheet} (sheet Sales). Complete them the way the company does it, "
                f"then let {analyst.name} know over chat that the file ({sheet.rsplit('/', 1)[-1]}) is complete."
            ),
            npcs=npcs,
            clues=(clue,),
            checkpoints=tuple(checkpoints),
            files={sheet: xlsx_bytes({"Sales": [["Region", *MONTHS], *rows]})},
            timing=Timing(due_minutes=rng.choice((120, 180)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="xlsx_write",
                    args={"path": sheet, "sheet": "Sales", "cells": fills},
                    needs=("k1",),
                    guess={"path": sheet, "sheet": "Sales", "cells": guessed},
                ),
                Step(tool="chat__send_message", args={"to": analyst.handle, "text": f"{sheet.rsplit('/', 1)[-1]} is complete."}),
            ),
            hints=Hints(
                data=f"The blanks are cells {', '.join(fills)} of {sheet}.",
                method="Each blank month is the rounded mean of the two neighbouring months in its row.",
            ),
        )


register_template(DataCompletion("data_completion", "easy", ("chat", "spreadsheets"), "analysis"))
