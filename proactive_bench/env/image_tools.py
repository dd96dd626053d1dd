"""``view_image`` (group ``images``): look at a picture in the workspace (a heatmap, a floor plan, a map).

The tool checks the file is a PNG or JPEG picture and returns its size; the
picture itself reaches the model beside the tool's result (the ``react``
agent adds it to the conversation as an image part: :func:`picture`), so a
model that reads images sees it and one that does not sees only the size.
Reading a picture with ``read_file`` gives its bytes as text: what is drawn in
it stays unread.
"""

from __future__ import annotations

import io

from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, Field

from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import Workspace

IMAGE_LIMIT = 4_000_000
"""The largest picture ``view_image`` shows, in bytes."""
MIME = {"PNG": "image/png", "JPEG": "image/jpeg"}


class ImageArgs(BaseModel):
    path: str = Field(description="A PNG or JPEG file, relative to the workspace root.")


def picture(workspace: Workspace, path: str) -> tuple[str, bytes, tuple[int, int]]:
    """The picture at ``path``: its MIME type, its bytes and its size; ToolError when it is none (or too large)."""
    if not workspace.resolve(path).is_file():
        raise ToolError(f"no such file: {path}")
    data = workspace.read_bytes(path, IMAGE_LIMIT + 1)
    if len(data) > IMAGE_LIMIT:
        raise ToolError(f"{path} is larger than {IMAGE_LIMIT} bytes")
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind, size = image.format or "", image.size
    except (UnidentifiedImageError, OSError):
        kind, size = "", (0, 0)
    if kind not in MIME:
        raise ToolError(f"{path} is not a PNG or JPEG picture")
    return MIME[kind], data, size


@register_tool("view_image", group="images")
def view_image(env: ToolEnv, args: ImageArgs) -> dict[str, object]:
    """Look at a PNG or JPEG picture in the workspace (a chart, a heatmap, a floor plan, a map): the picture is shown to you."""
    mime, _data, (width, height) = picture(env.workspace, args.path)
    return {"path": args.path, "type": mime, "width": width, "height": height, "shown": "the picture follows this result"}
