"""Writes inbox/hall_plan.svg: the floor plan of a function hall with a stage, eight round tables and the exit (invented)."""

from proactive_bench.suites.agentif.attachment_writers import svg_named_shapes, workspace_folder, write_svg

TABLES = {"T1": (150, 170), "T2": (300, 140), "T3": (450, 170), "T4": (150, 310), "T5": (300, 300), "T6": (450, 310), "T7": (220, 450), "T8": (380, 450)}
HALL = [
    '<rect x="10" y="10" width="580" height="540" fill="white" stroke="black" stroke-width="4"/>',
    '<rect id="stage" x="200" y="20" width="200" height="60" fill="#d9c9a3" stroke="black"/>',
    '<text x="300" y="56" text-anchor="middle" font-size="18">STAGE</text>',
    '<rect id="exit" x="260" y="540" width="80" height="12" fill="#2e8b57"/>',
    '<text x="300" y="532" text-anchor="middle" font-size="14">EXIT</text>',
    '<rect id="bar" x="520" y="420" width="60" height="110" fill="#eeeeee" stroke="black"/>',
    '<text x="550" y="480" text-anchor="middle" font-size="14">BAR</text>',
]
TABLE = '<circle id="{name}" cx="{x}" cy="{y}" r="45" fill="#f4f4f4" stroke="black"/>'

write_svg(
    workspace_folder(__file__) / "inbox" / "hall_plan.svg", [*HALL, *svg_named_shapes(TABLES, TABLE, label_offset=(0, 5))],
    width=600, height=560, title="Harbour Room - floor plan (tables seat 8)", font_family="sans-serif",
)
