"""Writes inbox/soil_lecture.srt: subtitles of a recorded lecture, running 2.5 s ahead of the audio (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_srt

CUES = [
    ("00:00:00,500", "00:00:04,000", "[intro music]"),
    ("00:00:04,000", "00:00:07,700", "Good morning, everyone, and welcome back to Soil Science."),
    ("00:00:08,100", "00:00:12,900", "Today we look at why some soils hold water and others don't."),
    ("00:00:13,300", "00:00:17,600", "The short answer is the size of the particles."),
    ("00:00:18,000", "00:00:22,400", "Clay particles are tiny, so the pores between them are tiny too."),
    ("00:00:22,900", "00:00:27,500", "Sand has large pores, and water drains through them quickly."),
    ("00:00:28,000", "00:00:32,300", "Loam, a mix of both, is what most gardeners hope for."),
    ("00:00:32,800", "00:00:36,000", "Let's start with a simple experiment."),
]

write_srt(workspace_folder(__file__) / "inbox" / "soil_lecture.srt", CUES)
