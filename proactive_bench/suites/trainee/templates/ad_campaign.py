"""Advertising campaign planning (hard): the channel mix that reaches the most people within a budget only the manager states.

Data: a channel sheet (channel, cost, expected reach). The clue (k1, held by
the marketing manager): the campaign budget. The task is a 0/1 knapsack:
choose channels, each at most once, with total cost within the budget and the
largest total reach. Deliverables: the chosen channels (one per line) in a plan
file, the total reach in an answer file, and the plan e-mailed to the manager.
Guessing a round budget of twice the real one picks another mix.
"""

from __future__ import annotations

from itertools import combinations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, email_step, file_holds

CHANNELS = (
    "Podcast spots",
    "Transit posters",
    "Search ads",
    "Newsletter sponsorship",
    "Radio slots",
    "Social video",
    "Campus flyers",
    "Influencer posts",
    "Cinema pre-roll",
    "Billboard week",
)


def best_mix(channels: list[tuple[str, int, int]], budget: int) -> tuple[tuple[str, ...], int]:
    """The mix of largest reach within the budget (ties: the cheaper, then by name), and its reach."""
    best: tuple[int, int, tuple[str, ...]] = (0, 0, ())
    for size in range(1, len(channels) + 1):
        for mix in combinations(channels, size):
            cost, reach = sum(c[1] for c in mix), sum(c[2] for c in mix)
            if cost <= budget and (reach, -cost) > (best[0], -best[1]):
                best = (reach, cost, tuple(sorted(c[0] for c in mix)))
    return best[2], best[0]


class AdCampaign(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        manager, analyst = ctx.names.person(), ctx.names.person()
        product = ctx.names.word("project")
        for _ in range(100):
            picked = rng.sample(CHANNELS, 6)
            channels = [(name, rng.randrange(1000, 6001, 250), rng.randrange(5000, 60001, 500)) for name in picked]
            budget = rng.randrange(6000, 12001, 500)
            mix, reach = best_mix(channels, budget)
            guessed_mix, _ = best_mix(channels, budget * 2)
            if mix and guessed_mix != mix:
                break
        else:  # pragma: no cover - the draw above always finds one in practice
            raise RuntimeError("ad_campaign: no channel set separates the budget from a guess")
        sheet = ctx.names.path(ctx.folder, "channels", "xlsx")
        plan = ctx.names.path(ctx.folder, "media_plan", "txt")
        answer = ctx.names.path(ctx.folder, "total_reach", "txt")
        unused = [c[0] for c in channels if c[0] not in mix]
        npcs = (
            colleague(manager, "Marketing Manager", "Marketing", f"Owns the {product} launch and its money; to the point."),
            colleague(analyst, "Marketing Analyst", "Marketing", "Measures campaign reach; happy to talk numbers."),
        )
        clue = Clue(
            id="k1",
            holder=manager.handle,
            value=f"budget is {budget}",
            text=f"The {product} launch campaign budget is {budget}, all channels included.",
            ask=(r"\b(budget|spend|how much (money|can))\b",),
            subject=named(product),
            question=f"What is the budget for the {product} launch campaign?",
        )
        body = "\n".join(mix)
        write_plan = {"path": plan, "content": body + "\n"}
        return TaskDraft(
            title="Plan an ad campaign",
            objective=(
                f"Plan the media mix for the {product} launch: from the channels in {sheet}, choose the ones (each at most "
                f"once) that reach the most people within the campaign budget. Write the chosen channel names to {plan}, "
                f"one per line, the total expected reach as a number to {answer}, and e-mail the plan to {manager.name} "
                f"({manager.email}) with the subject '{product} media plan'."
            ),
            npcs=npcs,
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the plan lists exactly the best channel mix within budget",
                    needs=("k1",),
                    check=file_holds(plan, mix, unused),
                    attempt=called("write_file", path=plan),
                    feedback="Ask the Marketing Manager for the budget, then choose the mix that maximises reach within it.",
                ),
                Checkpoint(
                    id="c2",
                    text="the total reach of that mix is reported",
                    needs=("k1",),
                    check=checker("answer_matches", path=answer, expected=reach, mode="number"),
                    attempt=called("write_file", path=answer),
                    feedback="Model the choice as a knapsack: each channel in or out, total cost within the budget, reach summed.",
                ),
                Checkpoint(
                    id="c3",
                    text="the plan was e-mailed to the marketing manager",
                    needs=("k1",),
                    check=checker("email_sent", to=manager.email, subject_contains=f"{product} media plan", body_contains=list(mix)),
                    attempt=called("gmail__send_email", email_addresses=manager.email),
                    feedback="Send the final plan to the person who owns the budget.",
                ),
            ),
            files={sheet: xlsx_bytes({"Channels": [["Channel", "Cost", "Expected reach"], *map(list, channels)]})},
            timing=Timing(due_minutes=rng.choice((180, 240)), work_minutes=30),
            reference=(
                Step(ask="k1"),
                Step(tool="write_file", args=write_plan, needs=("k1",), guess={"path": plan, "content": "\n".join(guessed_mix) + "\n"}),
                Step(
                    tool="write_file",
                    args={"path": answer, "content": f"{reach}\n"},
                    needs=("k1",),
                    guess={"path": answer, "content": f"{best_mix(channels, budget * 2)[1]}\n"},
                ),
                email_step(
                    manager.email,
                    f"{product} media plan",
                    f"{body}\nTotal reach: {reach}",
                    needs=("k1",),
                    guessed_body="\n".join(guessed_mix),
                ),
            ),
            hints=Hints(
                data=f"The channels with cost and expected reach are in {sheet}; {manager.name} sets the budget.",
                method="Treat it as a 0/1 knapsack: try every subset of channels (six channels: 63 subsets), keep those within budget, take the largest reach.",
            ),
        )


register_template(AdCampaign("ad_campaign", "hard", ("chat", "spreadsheets", "files", "email"), "optimization"))
