"""Scoring a tender (hard; information synthesis and analysis): the bidder with the best weighted score, by the lead's weights.

One clue: the weights of the tender's criteria are the procurement lead's
(k1). The sheet scores each bidder 1-10 on price, quality and delivery; with
equal weights, the natural guess, another bidder wins, and so does the bidder
best on price alone. The recommendation must name the winner and its weighted
score, and no other bidder.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds

BIDDERS = ("Alderbrook Ltd", "Bracken & Sons", "Calloway Works", "Dunlin Supply", "Emberton Group", "Fenwick Trading")
CRITERIA = ("price", "quality", "delivery")
WEIGHTS = ((50, 30, 20), (20, 50, 30), (30, 20, 50), (40, 40, 20), (25, 25, 50), (60, 20, 20))


def weighted(scores: tuple[int, ...], weights: tuple[int, ...]) -> float:
    return sum(s * w for s, w in zip(scores, weights, strict=True)) / 100


class TenderScoring(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        lead = ctx.names.person()
        tender = ctx.names.word("project")
        weights = rng.choice(WEIGHTS)
        while True:
            bidders = rng.sample(BIDDERS, 4)
            scores = {b: tuple(rng.randint(3, 10) for _ in CRITERIA) for b in bidders}
            ranked = sorted(bidders, key=lambda b: weighted(scores[b], weights), reverse=True)
            top, second = (weighted(scores[b], weights) for b in ranked[:2])
            even = max(bidders, key=lambda b: sum(scores[b]))
            cheapest = max(bidders, key=lambda b: scores[b][0])
            if top - second >= 0.3 and even != ranked[0] and cheapest != ranked[0] and len({sum(scores[b]) for b in bidders}) == 4:
                break
        winner = ranked[0]
        score = f"{weighted(scores[winner], weights):.1f}"
        sheet = ctx.names.path(ctx.folder, f"{tender.lower()}_bids", "xlsx")
        out = ctx.names.path(ctx.folder, f"{tender.lower()}_recommendation", "md")
        told = ", ".join(f"{c} {w}%" for c, w in zip(CRITERIA, weights, strict=True))
        clue = Clue(
            id="k1",
            holder=lead.handle,
            value=told,
            text=f"The {tender} tender weighs {told}.",
            ask=(r"\b(weight\w*|criteria|how .* scored|scoring)\b",),
            subject=named(tender),
            question=f"What weights do the criteria of the {tender} tender have?",
        )
        recommendation = f"# {tender} tender\n\nRecommended bidder: {winner}, weighted score {score} ({told}).\n"
        guess = f"# {tender} tender\n\nRecommended bidder: {even}, weighted score {sum(scores[even]) / 3:.1f}.\n"
        return TaskDraft(
            title="Score a tender",
            objective=(
                f"Recommend the winner of the {tender} tender: the bidder with the best weighted score over the criteria in {sheet} "
                f"(scores 1-10), weighted as the tender's criteria are weighted. Write {out} naming the winner and its weighted score "
                "(one decimal) and no other bidder."
            ),
            npcs=(colleague(lead, "Procurement Lead", "Procurement", f"Runs the {tender} tender and set its scoring."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the recommended bidder is the one with the best weighted score, and no other bidder is named",
                    needs=("k1",),
                    check=file_holds(out, [winner], [b for b in bidders if b != winner]),
                    attempt=called("write_file", path=out),
                    feedback="Ask the Procurement Lead how a tender's criteria are weighted before scoring it.",
                ),
                Checkpoint(
                    id="c2",
                    text="the winner's weighted score is given",
                    needs=("k1",),
                    check=file_holds(out, [score]),
                    attempt=called("write_file", path=out),
                    feedback="Show the weighted score that decided it.",
                ),
            ),
            files={sheet: xlsx_bytes({"Bids": [["Bidder", *(c.capitalize() for c in CRITERIA)], *([b, *scores[b]] for b in bidders)]})},
            timing=Timing(due_minutes=rng.choice((120, 150, 180)), work_minutes=20),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file", args={"path": out, "content": recommendation}, needs=("k1",), guess={"path": out, "content": guess}
                ),
            ),
            hints=Hints(
                data=f"Each bidder's scores are in {sheet}; the Procurement Lead has the weights.",
                method="Multiply each score by its criterion's weight, add them up, and take the bidder with the highest total.",
            ),
        )


register_template(TenderScoring("tender_scoring", "hard", ("chat", "spreadsheets", "files"), "analysis"))
