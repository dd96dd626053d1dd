"""Writes inbox/call_2025-11-28.srt: the auto-captions (speaker-labelled) of a supplier-switch project call (invented)."""

from proactive_bench.suites.agentif.attachment_writers import srt_time, workspace_folder, write_srt

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


def cues() -> list[tuple[str, str, str]]:
    """One cue a line, 1.5 s plus a second per 18 characters long, half a second apart, from 2 s in."""
    found, start = [], 2.0
    for text in LINES:
        length = 1.5 + len(text) / 18
        found.append((srt_time(start), srt_time(start + length), text))
        start += length + 0.5
    return found


write_srt(workspace_folder(__file__) / "inbox" / "call_2025-11-28.srt", cues())
