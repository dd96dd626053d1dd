"""Writes inbox/call_2025-11-28.srt: the auto-captions (speaker-labelled) of a supplier-switch project call (invented)."""

import argparse
from pathlib import Path

LINES = [
    "Priya: OK, I think we're recording. Did anyone watch the derby on Sunday?",
    "Jana: Don't. That penalty shoot-out ruined my weekend.",
    "Priya: Ha, fair. Let's start. Quick round for the notes: Priya, procurement.",
    "Tomás: Tomás here, logistics.",
    "Jana: Jana, finance.",
    "Priya: First item, the courier. The Nordfrakt quote is eleven percent cheaper than what we pay now.",
    "Tomás: And their pickup window fits our late shift, I checked that with the dock team.",
    "Priya: Then we switch the courier to Nordfrakt from the first of January. Everyone fine with that?",
    "Tomás: Fine for logistics.",
    "Jana: Agreed. Second item, packaging. I want the packaging budget frozen at 12,000 euros for next year.",
    "Tomás: No objection, that's what we spent this year anyway.",
    "Priya: So that's decided, frozen at 12,000. Now who does what.",
    "Priya: I'll send the Nordfrakt contract draft to legal by the fifth of December.",
    "Tomás: I'll update the delivery schedule for the new pickup times by the third of December.",
    "Jana: And I'll book the budget review meeting for the tenth of December.",
    "Priya: Good. Back to football for a second, are you going to the match on Saturday?",
    "Jana: Only if it stops raining. OK, bye everyone.",
]


def stamp(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600:02d}:{whole % 3600 // 60:02d}:{whole % 60:02d},{round((seconds - whole) * 1000):03d}"


parser = argparse.ArgumentParser()
parser.add_argument("--out", type=Path, default=Path(__file__).parent / "workspace")
out = parser.parse_args().out / "inbox"
out.mkdir(parents=True, exist_ok=True)
cues, start = [], 2.0
for n, text in enumerate(LINES, start=1):
    length = 1.5 + len(text) / 18
    cues.append(f"{n}\n{stamp(start)} --> {stamp(start + length)}\n{text}\n")
    start += length + 0.5
(out / "call_2025-11-28.srt").write_text("\n".join(cues), encoding="utf-8")
