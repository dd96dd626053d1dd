"""Writes inbox/garden_plan.svg: a back-garden plan with six raised beds between the house wall and the south fence (invented)."""

from proactive_bench.suites.agentif.attachment_writers import svg_named_shapes, workspace_folder, write_svg

BEDS = {"B1": (60, 110), "B2": (230, 110), "B3": (400, 110), "A1": (60, 330), "A2": (230, 330), "A3": (400, 330)}
BED = '<rect id="{name}" x="{x}" y="{y}" width="120" height="90" fill="#7fae6b" stroke="black"/>'
GARDEN = [
    '<rect x="0" y="0" width="580" height="60" fill="#bbbbbb"/>',
    '<text x="290" y="36" text-anchor="middle" font-size="15">House wall (north side) - beds next to it are in shade until 14:00</text>',
    '<rect x="0" y="470" width="580" height="30" fill="#8b6b3e"/>',
    '<text x="290" y="490" text-anchor="middle" font-size="15" fill="white">South fence - low, full sun all day</text>',
    '<rect x="500" y="230" width="70" height="60" fill="#c9b18f" stroke="black"/>',
    '<text x="535" y="265" text-anchor="middle" font-size="13">Shed</text>',
    '<path d="M 545 120 L 545 80 M 535 92 L 545 80 L 555 92" stroke="black" fill="none"/>',
    '<text x="545" y="74" text-anchor="middle" font-size="13">N</text>',
]

write_svg(
    workspace_folder(__file__) / "inbox" / "garden_plan.svg", [*GARDEN, *svg_named_shapes(BEDS, BED, label_offset=(60, 50))],
    width=580, height=500, title="Back garden - raised beds (each 1.2 x 2.4 m)", font_family="sans-serif",
)
