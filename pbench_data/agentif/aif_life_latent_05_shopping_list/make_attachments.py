"""Writes inbox/dinners_week49.csv (next week's dinner plan with ingredients) and inbox/last_week_list.txt (last week's shopping list); invented."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_csv, write_text

DINNERS = [
    ("Monday", "Tomato soup with bread", "tomatoes:6; onions:1; bread:1 loaf"),
    ("Tuesday", "Pasta with pesto", "pasta:500 g; pesto:1 jar; parmesan:1 piece"),
    ("Wednesday", "Vegetable stir-fry with cashews", "rice:500 g; peppers:2; onions:1; cashews:1 bag"),
    ("Thursday", "Omelette with peppers", "eggs:6; milk:1 l; peppers:1"),
    ("Friday", "Homemade pizza", "flour:1 kg; mozzarella:2; tomatoes:4"),
]
LAST_WEEK = """Shopping - week 48 (the order I walk the shop in!)
Nothing with nuts in it - Ella. Always check labels.

PRODUCE
- lemons x2
- potatoes 2 kg
- spinach 1 bag

BAKERY
- rye bread 1 loaf

DAIRY
- butter 1
- yoghurt 1 l

DRY GOODS
- tomato sauce 1 jar (instead of pesto)
- lentils 500 g
- salmon fillets (frozen) 4
"""

inbox = workspace_folder(__file__) / "inbox"
write_csv(inbox / "dinners_week49.csv", [("day", "dinner", "ingredients"), *DINNERS])
write_text(inbox / "last_week_list.txt", LAST_WEEK)
