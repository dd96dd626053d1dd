"""Writes inbox/hall_plan.svg: the floor plan of a function hall with a stage, eight round tables and the exit (invented)."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_text

TABLES = {"T1": (150, 170), "T2": (300, 140), "T3": (450, 170), "T4": (150, 310), "T5": (300, 300), "T6": (450, 310), "T7": (220, 450), "T8": (380, 450)}

PARTS = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="560" viewBox="0 0 600 560" font-family="sans-serif">',
    '  <title>Harbour Room - floor plan (tables seat 8)</title>',
    '  <rect x="10" y="10" width="580" height="540" fill="white" stroke="black" stroke-width="4"/>',
    '  <rect id="stage" x="200" y="20" width="200" height="60" fill="#d9c9a3" stroke="black"/>',
    '  <text x="300" y="56" text-anchor="middle" font-size="18">STAGE</text>',
    '  <rect id="exit" x="260" y="540" width="80" height="12" fill="#2e8b57"/>',
    '  <text x="300" y="532" text-anchor="middle" font-size="14">EXIT</text>',
    '  <rect id="bar" x="520" y="420" width="60" height="110" fill="#eeeeee" stroke="black"/>',
    '  <text x="550" y="480" text-anchor="middle" font-size="14">BAR</text>',
    *(f'  <circle id="{name}" cx="{x}" cy="{y}" r="45" fill="#f4f4f4" stroke="black"/>\n'
      f'  <text x="{x}" y="{y + 5}" text-anchor="middle" font-size="16">{name}</text>' for name, (x, y) in TABLES.items()),
    "</svg>",
]
write_text(workspace_folder(__file__) / "inbox" / "hall_plan.svg", "\n".join(PARTS) + "\n")
