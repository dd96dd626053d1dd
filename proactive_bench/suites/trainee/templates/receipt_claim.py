"""A restaurant receipt claimed (easy; information synthesis): what finance pays back, from a photographed receipt and a rule.

Two clues: the rule for restaurant bills on trips to the city (a cap per bill, drinks with
alcohol not paid back) is the finance controller's (k1, a scenario-wide
colleague who may hold other tasks' clues, told apart by the city they name);
the receipt's lines, total and date are only in its photo (k2, an image
clue). Claiming the receipt's total, the natural guess, is always wrong: it
holds alcohol.
"""

from __future__ import annotations

from datetime import timedelta

from proactive_bench.suites.trainee.model import Checkpoint, Clue, Hints, Step, TaskDraft, Timing
from proactive_bench.suites.trainee.pictures import receipt
from proactive_bench.suites.trainee.template import TemplateContext, checker, named, register_template, shared_colleague
from proactive_bench.suites.trainee.templates.parts import TemplateHeading, called

FOOD = (
    ("Soup of the day", 650, 900),
    ("Grilled fish", 1800, 2900),
    ("Risotto", 1500, 2300),
    ("Green salad", 700, 1100),
    ("Sparkling water", 300, 550),
    ("Espresso", 250, 400),
    ("Apple tart", 650, 950),
    ("Lamb stew", 1900, 2700),
)
ALCOHOL = (("House red wine", 2200, 3400), ("Draught beer", 550, 800), ("Gin and tonic", 900, 1300))
CAPS = (35, 40, 45, 50, 60)


def euros(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


class ReceiptClaim(TemplateHeading):
    def instantiate(self, ctx: TemplateContext) -> TaskDraft:
        rng = ctx.rng
        controller = shared_colleague(ctx, "finance_controller")
        traveller = ctx.names.person()
        city = ctx.names.word("city")
        venue = f"{ctx.names.word('venue')} Bistro"
        food = [(name, rng.randrange(lo, hi, 10)) for name, lo, hi in rng.sample(FOOD, rng.randint(3, 5))]
        drinks = [(name, rng.randrange(lo, hi, 10)) for name, lo, hi in rng.sample(ALCOHOL, rng.randint(1, 2))]
        lines = food + drinks
        rng.shuffle(lines)
        total = sum(p for _, p in lines)
        eligible = sum(p for _, p in food)
        cap = rng.choice(CAPS) * 100
        paid = min(eligible, cap)
        day = ctx.company.day - timedelta(days=rng.randint(3, 20))
        picture = ctx.names.path(ctx.folder, "restaurant_receipt", "png")
        payroll = f"payroll@{ctx.company.domain}"
        subject = f"{traveller.name}: {city} restaurant claim"
        printed = [
            venue.upper(),
            f"Date: {day.isoformat()}",
            "-" * 30,
            *(f"{n:<20}{euros(p):>10}" for n, p in lines),
            "-" * 30,
            f"{'TOTAL EUR':<20}{euros(total):>10}",
        ]
        clues = (
            Clue(
                id="k1",
                holder=controller.handle,
                value=f"up to {cap // 100} EUR",
                text=f"Restaurant bills on trips to {city} are paid back up to {cap // 100} EUR each; drinks with alcohol are not paid back.",
                ask=(r"\b(cap|limit|maximum|allowance|rule|polic\w*|paid back|reimburs\w*)\b",),
                subject=named(city),
                question=f"What is the rule for paying back restaurant bills on trips to {city}?",
            ),
            Clue(id="k2", holder=f"file:{picture}", value=f"dated {day.isoformat()}", text=f"the receipt, dated {day.isoformat()}"),
        )
        body = f"{traveller.name}, restaurant bill in {city} on {day.isoformat()}: {euros(paid)} EUR to pay back."
        return TaskDraft(
            title="Claim a restaurant receipt",
            objective=(
                f"{traveller.name} sent a photo of a restaurant receipt from a trip to {city} ({picture}). Work out how much of it the "
                f"company pays back under its rules for restaurant bills for {city} and e-mail payroll ({payroll}) the amount in EUR (like 12.50) and "
                f"the receipt's date (YYYY-MM-DD), with the subject '{subject}'."
            ),
            npcs=(controller,),
            clues=clues,
            checkpoints=(
                Checkpoint(
                    id="c1",
                    text="the amount follows the rule for restaurant bills: no alcohol, at most the cap",
                    needs=("k1", "k2"),
                    check={
                        "any": [
                            checker("email_sent", to=payroll, subject_contains=subject, body_contains=[form])
                            for form in (euros(paid), euros(paid).replace(".", ","))
                        ]
                    },
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Ask the Finance Controller for the rule for restaurant bills of the city, and add up the receipt's lines it pays "
                    "(view_image).",
                ),
                Checkpoint(
                    id="c2",
                    text="the receipt's date is given",
                    needs=("k2",),
                    check=checker("email_sent", to=payroll, subject_contains=subject, body_contains=[day.isoformat()]),
                    attempt=called("gmail__send_email", subject=subject),
                    feedback="Read the receipt itself (view_image): its date is on it.",
                ),
            ),
            files={picture: receipt(printed, ctx.seed)},
            timing=Timing(due_minutes=rng.choice((120, 150, 180)), work_minutes=15),
            reference=(
                Step(ask="k1"),
                Step(ask="k2"),
                Step(
                    tool="gmail__send_email",
                    args={"email_addresses": [payroll], "subject": subject, "body": body},
                    needs=("k1", "k2"),
                    guess={
                        "email_addresses": [payroll],
                        "subject": subject,
                        "body": f"{traveller.name}, restaurant bill in {city}: {euros(total)} EUR.",
                    },
                ),
            ),
            hints=Hints(
                data=f"Each line of the receipt and its date are on the photo {picture}; the Finance Controller has the rule for restaurant bills.",
                method="Add up the lines the rule pays for, then apply the cap.",
            ),
        )


register_template(ReceiptClaim("receipt_claim", "easy", ("chat", "images", "email"), "analysis"))
