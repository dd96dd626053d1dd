"""Writes inbox/epi_week5.srt: the subtitles of an invented epidemiology lecture on measures of disease frequency."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_srt

CUES = [
    ("00:00:04,200", "00:00:09,900", "Good morning. Today is all about counting disease properly."),
    ("00:00:10,100", "00:00:16,500", "Last week we looked at study designs. This week, the measures we report from them."),
    ("00:01:02,300", "00:01:09,800", "Let's define prevalence first: the proportion of a population that has the condition at one point in time."),
    ("00:01:10,000", "00:01:15,400", "So it is a snapshot. Old and new cases both count."),
    ("00:02:20,700", "00:02:29,100", "Now the definition of incidence: the number of new cases arising in a population at risk over a stated period."),
    ("00:02:29,300", "00:02:35,000", "New cases only. People who already have the disease are not at risk of getting it."),
    ("00:03:41,500", "00:03:50,200", "Which brings us to person-time, defined as the sum of the time each person was observed while at risk."),
    ("00:03:50,400", "00:03:56,800", "Ten people followed for two years give twenty person-years."),
    ("00:05:12,000", "00:05:20,600", "In an outbreak we often use the attack rate, defined as the share of exposed people who fall ill during the outbreak."),
    ("00:05:20,800", "00:05:26,300", "Think of a wedding buffet: 40 guests ate the salad, 12 got sick."),
    ("00:06:48,900", "00:06:57,700", "Finally, let's define the case fatality rate: the proportion of people with the disease who die of it."),
    ("00:06:57,900", "00:07:03,200", "It says how deadly a disease is among those who have it, not in the whole population."),
    ("00:08:15,000", "00:08:22,400", "Some of you asked about odds ratios. We will define those next week with case-control studies."),
    ("00:08:22,600", "00:08:27,000", "For the quiz, make sure you can tell prevalence from incidence."),
]

write_srt(workspace_folder(__file__) / "inbox" / "epi_week5.srt", CUES)
