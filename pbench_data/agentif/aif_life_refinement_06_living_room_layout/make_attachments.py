"""Writes inbox/living_room.svg: the plan of an invented living room, 1 unit = 1 cm, north at the top."""

from proactive_bench.suites.agentif.attachment_writers import workspace_folder, write_svg

ROOM = [
    '<rect id="room" x="0" y="0" width="500" height="400" fill="none" stroke="black" stroke-width="4"/>',
    '<line id="window" x1="150" y1="0" x2="350" y2="0" stroke="skyblue" stroke-width="8"/>',
    '<line id="door" x1="400" y1="400" x2="480" y2="400" stroke="brown" stroke-width="8"/>',
    '<rect id="sofa" x="40" y="300" width="200" height="90" fill="#c8b89a"/>',
    '<rect id="tv" x="460" y="120" width="40" height="120" fill="#444"/>',
    '<rect id="coffee_table" x="90" y="200" width="110" height="60" fill="#a0785a"/>',
    '<rect id="shelf" x="390" y="330" width="100" height="35" fill="#8b6b4a"/>',
    '<text x="250" y="20" font-size="12" text-anchor="middle">window (150-350)</text>',
    '<text x="440" y="392" font-size="12" text-anchor="middle">door</text>',
]

write_svg(
    workspace_folder(__file__) / "inbox" / "living_room.svg", ROOM,
    width=500, height=400, title="Living room, Rua das Flores 18, 2nd floor (1 unit = 1 cm, north at the top)",
)
