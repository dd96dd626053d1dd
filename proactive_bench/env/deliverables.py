"""What a grader sees of a workspace file: its text, and for visual files a picture.

Text: documents (pdf, docx, xlsx, pptx) through their libraries, every other
file as UTF-8 (csv, srt, md, html, svg ...), always read through the jail.
Picture: an image file (png, jpg, gif, webp) as it is; an HTML or SVG file
rendered to PNG by headless Chromium from a ``data:`` URL (so the page can
reach neither the network nor other files). A file without a picture comes
with the one-line reason (no Chromium, too large, not visual), so a judge
that falls back to text can say why.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import PurePosixPath

import proactive_bench.env.jail as jail
from proactive_bench.env.browser import BrowserError, chromium, screenshot_png
from proactive_bench.env.documents import DocumentError, document_text, is_document
from proactive_bench.env.workspace import Workspace

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
RENDERED_TYPES = {".html": "text/html", ".htm": "text/html", ".svg": "image/svg+xml"}
MAX_IMAGE_BYTES = 4_000_000
MAX_RENDERED_BYTES = 90_000
"""An HTML/SVG file goes to Chromium as a base64 ``data:`` URL on its command line (Linux caps one argument at 128 KiB)."""
MAX_DOCUMENT_BYTES = 20_000_000


@dataclass(frozen=True)
class Picture:
    """A visual file as an image a vision model can be shown."""

    path: str
    data: bytes
    mime: str
    how: str
    """``image`` (the file itself) or ``rendered`` (HTML/SVG through Chromium)."""


def is_visual(path: str) -> bool:
    """Whether the file is an image, or HTML/SVG that is judged as it renders."""
    suffix = PurePosixPath(path).suffix.lower()
    return suffix in IMAGE_TYPES or suffix in RENDERED_TYPES


def file_text(workspace: Workspace, relative: str, max_chars: int) -> str:
    """A file's text as a grader reads it: documents extracted, other files decoded; a refused file as its jail marker."""
    if not is_document(relative):
        return jail.text_or_marker(workspace.root, relative, max_chars)
    try:
        data = jail.read_file(workspace.root, relative, limit=MAX_DOCUMENT_BYTES)
    except jail.Refused as exc:
        return exc.marker()
    try:
        return document_text(data, relative)
    except DocumentError as exc:
        return f"[unreadable: {exc}]"


def file_picture(workspace: Workspace, relative: str) -> Picture | str:
    """The file as a picture, or the one-line reason there is none."""
    suffix = PurePosixPath(relative).suffix.lower()
    if suffix not in IMAGE_TYPES and suffix not in RENDERED_TYPES:
        return f"{relative}: not a visual file"
    limit = MAX_IMAGE_BYTES if suffix in IMAGE_TYPES else MAX_RENDERED_BYTES
    try:
        data = jail.read_file(workspace.root, relative, prefix=limit + 1)
    except jail.Refused as exc:
        return f"{relative}: {exc.marker()}"
    if len(data) > limit:
        return f"{relative}: larger than {limit:,} bytes, not rendered"
    if suffix in IMAGE_TYPES:
        return Picture(relative, data, IMAGE_TYPES[suffix], "image")
    if chromium() is None:
        return f"{relative}: chromium is not installed, so the page was not rendered"
    url = f"data:{RENDERED_TYPES[suffix]};base64,{base64.b64encode(data).decode('ascii')}"
    try:
        return Picture(relative, screenshot_png(url), "image/png", "rendered")
    except BrowserError as exc:
        return f"{relative}: rendering failed ({exc})"
