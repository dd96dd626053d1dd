"""Writes inbox/availability.xlsx: an invented support team's busy hours in the week of 6 October 2025 (x = busy)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

DAYS = ["2025-10-06 Mon", "2025-10-07 Tue", "2025-10-08 Wed", "2025-10-09 Thu", "2025-10-10 Fri"]
HOURS = ["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"]
PEOPLE = ["Dana Nowicka", "Piotr Zielinski", "Agnieszka Wojcik", "Tomasz Lewandowski", "Kasia Dabrowska"]
FREE_FOR_ALL = {("2025-10-07 Tue", "10:00"), ("2025-10-09 Thu", "14:00"), ("2025-10-10 Fri", "11:00")}


def busy(person: int, day: int, hour: int) -> bool:
    """A fixed pattern of busy hours: every slot outside FREE_FOR_ALL has someone busy."""
    if (DAYS[day], HOURS[hour]) in FREE_FOR_ALL:
        return False
    return (person + 2 * day + 3 * hour) % 5 == 0 or (person == 0 and hour == 0)


ROWS = [
    ("day", "hour", *PEOPLE, "Zofia Mazur (manager, not in team retros)"),
    *((day, hour, *("x" if busy(p, d, h) else "" for p in range(len(PEOPLE))), "x" if (d + h) % 2 == 0 else "")
      for d, day in enumerate(DAYS) for h, hour in enumerate(HOURS)),
]
write_sheet(workspace_folder(__file__) / "inbox" / "availability.xlsx", "Week 41", ROWS)
