"""``view_image``: a workspace picture checked and sized (the picture itself reaches the model through the scaffold)."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from proactive_bench.env import Memory, ToolBox, ToolEnv, Workspace, picture, resolve_tool_names


def png(size: tuple[int, int] = (40, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


def _box(tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory()), resolve_tool_names(["images"]))


def test_view_image_sizes_a_png_and_a_jpeg_and_picture_gives_their_bytes(tmp_path: Path) -> None:
    box = _box(tmp_path)
    data = png()
    box.env.workspace.write_bytes("plans/floor.png", data)
    record = box.call("view_image", {"path": "plans/floor.png"})
    assert record.ok and record.result["response"]["width"] == 40 and record.result["response"]["height"] == 30
    assert picture(box.env.workspace, "plans/floor.png") == ("image/png", data, (40, 30))
    jpeg = io.BytesIO()
    Image.new("RGB", (8, 8)).save(jpeg, format="JPEG")
    box.env.workspace.write_bytes("photo.jpg", jpeg.getvalue())
    assert box.call("view_image", {"path": "photo.jpg"}).result["response"]["type"] == "image/jpeg"


def test_view_image_refuses_what_is_not_a_picture_or_not_there_or_outside(tmp_path: Path) -> None:
    box = _box(tmp_path)
    box.env.workspace.write_text("notes.png", "not really a picture")
    for path, error in (("notes.png", "is not a PNG or JPEG picture"), ("missing.png", "no such file"), ("../x.png", "")):
        record = box.call("view_image", {"path": path})
        assert not record.ok and error in str(record.result["error"])
