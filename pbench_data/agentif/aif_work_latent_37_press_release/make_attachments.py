"""Writes the bakery chain's press style guide (Markdown) with an earlier release as its example."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text

GUIDE = """# Ffwrn Bakeries - press style guide

Every release we send to the papers and the local radio is written the same way, so editors can lift it as it is.

## Shape of a release

- A headline of twelve words at most, in sentence case, with no full stop.
- The first paragraph starts with a dateline: the town in capitals, a comma, the date of sending, an en dash.
- Paragraphs are short: three sentences at most.
- One quote from a named person with their role.
- After the last paragraph, a line with ENDS on its own, then a section headed "Notes to editors".

## Numbers and dates

- Numbers from one to nine in words, 10 and above in figures.
- Dates as day month year: 18 October 2025, never 18/10/2025. Add the weekday for an event.

## Example (March 2025)

# Ffwrn opens its ninth bakery in Aberaeron

ABERAERON, 3 March 2025 – Ffwrn Bakeries will open its ninth shop on Saturday 15 March 2025 on Market Street,
creating 11 jobs, six of them for bakers.

"Aberaeron has asked for us for years," said Mari Lloyd, founder of Ffwrn Bakeries. "We're glad to be there at last."

The shop opens at 7am and bakes on site every morning.

ENDS

## Notes to editors

Ffwrn Bakeries was founded in Aberystwyth in 2014 and bakes with Welsh flour. Press contact: press@ffwrn.example.
"""

write_text(workspace_folder(__file__) / "brand" / "press_style_guide.md", GUIDE)
