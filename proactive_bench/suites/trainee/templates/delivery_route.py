"""Ordering a van's stops (hard; strategic modeling and optimization): the shortest round from the depot that serves the
time-critical stop first.

One clue: which customer must be served first (a morning time window) is the
dispatcher's (k1). The distance table covers the depot and every stop; the
route starts and ends at the depot, visits the time-critical stop first, and
among those orders is the shortest (unique, solved exactly here). The shortest
round overall, the natural answer, does not start there.
"""

from __future__ import annotations

from itertools import permutations

from proactive_bench.suites.trainee.files import xlsx_bytes
from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called, file_holds, none_but

STOPS = ("Alder Street", "Brook Lane", "Castle Yard", "Dock Road", "Elm Parade", "Foundry Row")
DEPOT = "Depot"


def length(order: tuple[str, ...], km: dict[tuple[str, str], int]) -> int:
    path = (DEPOT, *order, DEPOT)
    return sum(km[(a, b)] for a, b in zip(path, path[1:], strict=False))


class DeliveryRoute(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        dispatcher, driver = ctx.names.person(), ctx.names.person()
        van = f"{ctx.names.word('project')} van"
        while True:
            stops = rng.sample(STOPS, 4)
            places = [DEPOT, *stops]
            km: dict[tuple[str, str], int] = {}
            for a in places:
                for b in places:
                    if a < b:
                        km[(a, b)] = km[(b, a)] = rng.randint(3, 25)
                    elif a == b:
                        km[(a, b)] = 0
            first = rng.choice(stops)
            rounds = {order: length(order, km) for order in permutations(stops)}
            bound = {o: n for o, n in rounds.items() if o[0] == first}
            best = min(bound, key=bound.__getitem__)
            free = min(rounds, key=rounds.__getitem__)
            if list(bound.values()).count(bound[best]) == 1 and free[0] != first and list(rounds.values()).count(rounds[free]) <= 2:
                break
        route = " > ".join(best)
        sheet = ctx.names.path(ctx.folder, "distances_km", "xlsx")
        out = ctx.names.path(ctx.folder, "route", "txt")
        clue = Clue(
            id="k1",
            holder=dispatcher.handle,
            value=f"{first} must be first",
            text=f"For the {van} today, {first} must be first: they only take deliveries before 10:00.",
            ask=(r"\b(first|time window|priority|before 10|urgent)\b",),
            subject=named(van.split()[0]),
            question=f"Which stop must the {van} serve first today?",
        )
        free_route = " > ".join(free)
        wrong = [" > ".join(o) for o in rounds if o != best]  # every other order: listing them all is no answer
        return TaskDraft(
            title="Plan a delivery route",
            objective=(
                f"Plan today's round of the {van}: from the depot to each of its four stops and back ({sheet} has the distances in "
                f"km). One stop has a morning time window and must come first; otherwise the round must be as short as possible. "
                f"Write the stops in order to {out} on one line, separated by ' > ' (without the depot), and send the route to the "
                f"driver, {driver.name}, over chat."
            ),
            npcs=(
                colleague(dispatcher, "Dispatcher", "Logistics", "Takes the customers' delivery windows."),
                colleague(driver, "Driver", "Logistics", f"Drives the {van}."),
            ),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the route serves the time-critical stop first and is the shortest such round",
                    needs=("k1",),
                    check=file_holds(out, [route], wrong),
                    attempt=called("write_file", path=out),
                    feedback="Ask the dispatcher about time windows before ordering stops, then compare the possible orders.",
                ),
                Checkpoint(
                    id="c2",
                    text="the driver got the same route",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=driver.handle, contains=[route]),
                        (checker("chat_sent", to=driver.handle, contains=[w]) for w in wrong),
                    ),
                    attempt=checker("chat_sent", to=driver.handle, contains=[" > "]),
                    feedback="Send the driver the route you planned.",
                ),
            ),
            files={sheet: xlsx_bytes({"Distances": [["km", *places], *([a, *(km[(a, b)] for b in places)] for a in places)]})},
            timing=Timing(due_minutes=rng.choice((60, 90, 120)), work_minutes=25),
            reference=(
                Step(ask="k1"),
                Step(
                    tool="write_file",
                    args={"path": out, "content": route + "\n"},
                    needs=("k1",),
                    guess={"path": out, "content": free_route + "\n"},
                ),
                Step(
                    tool="chat__send_message",
                    args={"to": driver.handle, "text": f"Today's route: {route}"},
                    needs=("k1",),
                    guess={"to": driver.handle, "text": f"Today's route: {free_route}"},
                ),
            ),
            hints=Hints(
                data=f"{sheet} has the distance between every two places; the dispatcher knows which stop has a time window.",
                method="Fix the time-critical stop first, try every order of the other three, and keep the shortest round.",
            ),
        )


register_template(DeliveryRoute("delivery_route", "hard", ("chat", "spreadsheets", "files"), "optimization"))
