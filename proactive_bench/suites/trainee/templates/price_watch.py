"""Watching a supplier's web shop (easy; proactive inquiry and monitoring): the products now below the buyer's target price.

The supplier's price page is a web page (``web_fetch``). Each product's
target price is the buyer's (k1, one clue: the targets of the products the
buyer follows). The buyer must get exactly the products whose shop price is at
or below target, with the shop's price; naming a product above its target
fails, and guessing a target from the page's own figures cannot tell which.
"""

from __future__ import annotations

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.template import TemplateContext, checker, colleague, named, register_template
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, none_but

PRODUCTS = (
    "copy paper", "toner cartridge", "label printer", "desk lamp", "whiteboard markers", "shredder",
    "USB-C hub", "ergonomic mouse", "webcam", "cable organiser",
)  # fmt: skip
SHOWN = 6


class PriceWatch(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        buyer = ctx.names.person()
        shop = ctx.names.word("vendor")
        products = rng.sample(PRODUCTS, SHOWN)
        price = {p: rng.randrange(800, 24000, 10) for p in products}
        while True:
            target = {p: price[p] + rng.choice((-1, 1)) * rng.randrange(100, 2000, 10) for p in products}
            cheap = [p for p in products if price[p] <= target[p]]
            if 1 <= len(cheap) <= 3:
                break
        dear = [p for p in products if p not in cheap]

        def eur(cents: int) -> str:
            return f"{cents // 100}.{cents % 100:02d}"

        host = f"shop.{shop.lower()}.example"
        url = f"https://{host}/office-supplies"
        page = (
            f"<html><head><title>{shop} office supplies</title></head><body><h1>{shop}: today's prices</h1>\n<table>\n"
            + "".join(f"<tr><td>{p}</td><td>EUR {eur(price[p])}</td></tr>\n" for p in products)
            + "</table></body></html>\n"
        )
        targets = "; ".join(f"{p} at most EUR {eur(target[p])}" for p in products)
        clue = Clue(
            id="k1",
            holder=buyer.handle,
            value=targets,
            text=f"My target prices at {shop}: {targets}.",
            ask=(r"\b(target|most you|at most|buy at|price (point|limit)|worth buying)\b",),
            subject=named(shop),
            question=f"What are your target prices for the products on the {shop} shop?",
        )
        report = "Now at or below target at " + shop + ": " + "; ".join(f"{p} EUR {eur(price[p])}" for p in cheap) + "."
        return TaskDraft(
            title="Watch supplier prices",
            objective=(
                f"Check today's prices on the {shop} web shop ({url}) against the buyer's target prices and tell the buyer, "
                f"{buyer.name}, over chat which products are now at or below target, each with the shop's price; name no other "
                "product."
            ),
            npcs=(colleague(buyer, "Buyer", "Procurement", "Buys the office supplies; waits for good prices."),),
            clues=(clue,),
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="every product at or below target is named with the shop's price",
                    needs=("k1",),
                    check=checker("chat_sent", to=buyer.handle, contains=[x for p in cheap for x in (p, eur(price[p]))]),
                    attempt={"any": [checker("chat_sent", to=buyer.handle, contains=[p]) for p in products]},
                    feedback="Ask the buyer for their target prices, then compare them with the shop's page (web_fetch).",
                ),
                Checkpoint(
                    id="c2",
                    text="no product above its target is named",
                    needs=("k1",),
                    check=none_but(
                        checker("chat_sent", to=buyer.handle, contains=[cheap[0]]),
                        (checker("chat_sent", to=buyer.handle, contains=[p]) for p in dear),
                    ),
                    attempt={"any": [checker("chat_sent", to=buyer.handle, contains=[p]) for p in products]},
                    feedback="Report only what is at or below target.",
                ),
            ),
            pages={url: page},
            timing=Timing(due_minutes=rng.choice((60, 90, 120)), work_minutes=15),
            reference=(
                Step(tool="web_fetch", args={"url": url}),
                Step(ask="k1"),
                Step(
                    tool="chat__send_message",
                    args={"to": buyer.handle, "text": report},
                    needs=("k1",),
                    guess={"to": buyer.handle, "text": "Today's prices: " + "; ".join(f"{p} EUR {eur(price[p])}" for p in products)},
                ),
            ),
            hints=Hints(
                data=f"The shop's prices are on {url}; the buyer keeps a target price per product.",
                method="Compare each product's price with its target; report those at or below it.",
            ),
        )


register_template(PriceWatch("price_watch", "easy", ("chat", "web"), "inquiry"))
