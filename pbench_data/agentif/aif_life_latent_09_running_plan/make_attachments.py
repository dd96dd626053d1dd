"""Writes inbox/coach_plan_weeks1-4.xlsx: an invented half-marathon coach's plan for weeks 1 to 4."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_sheet

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def week(n: int) -> list[tuple[int, str, str, float]]:
    """One week of the coach's pattern: the easy runs grow by 1 km and the long run by 2 km a week."""
    easy, long_run = 5 + n, 8 + 2 * n
    sessions = {
        "Mon": ("Rest", 0), "Tue": ("Easy run", easy), "Wed": ("Intervals 6 x 400 m", 7), "Thu": ("Easy run", easy),
        "Fri": ("Rest", 0), "Sat": ("Recovery jog", 4), "Sun": ("Long run", long_run),
    }
    return [(n, day, *sessions[day]) for day in DAYS]


ROWS = [
    ("week", "day", "session", "km"),
    *(row for n in range(1, 5) for row in week(n)),
    (),
    ("Coach's note: keep the easy runs truly easy, you should be able to talk.",),
]
write_sheet(workspace_folder(__file__) / "inbox" / "coach_plan_weeks1-4.xlsx", "Plan", ROWS)
