"""Graders for the app-heavy sessions (category Q): the race-village playlist and the shoot-props cart."""

from __future__ import annotations

import re
from typing import Any

from .common import app_rows, texts

NOOR = 1
"""Noor's user id in every app of the episode."""


def _co_playlist_songs(evidence: Any) -> list[dict[str, Any]] | None:
    """Songs of Noor's newest playlist whose title has the co-brand ×, or None when there is none."""
    mine = [p for p in app_rows(evidence, "spotify_playlist") if p["owner_id"] == NOOR and "×" in p["title"]]
    if not mine:
        return None
    playlist = max(mine, key=lambda p: p["id"])
    ids = [r["song_id"] for r in app_rows(evidence, "spotify_playlist_song") if r["playlist_id"] == playlist["id"]]
    songs = {s["id"]: s for s in app_rows(evidence, "spotify_song")}
    return [songs[i] for i in ids if i in songs]


def _has_and_avoids(evidence: Any, wanted: int, bad: Any) -> bool:
    songs = _co_playlist_songs(evidence)
    return bool(songs) and any(s["id"] == wanted for s in songs) and not any(bad(s) for s in songs)


def s05_clean_only(evidence: Any) -> bool:
    """The clean version of "Uphill Both Ways" is in the playlist and no explicit version is."""
    return _has_and_avoids(evidence, 513, lambda s: "(explicit)" in s["title"].lower())


def s05_radio_edit(evidence: Any) -> bool:
    """The radio edit of "Long Way Round" is in and no song runs over five minutes."""
    return _has_and_avoids(evidence, 515, lambda s: s["duration"] > 300)


def s05_no_conflict(evidence: Any) -> bool:
    """"Morning Miles" is in and nothing by Copper Lanterns (Summitra's ambassadors, artist 53) is."""
    return _has_and_avoids(evidence, 517, lambda s: s["artist_id"] == 53)


_RUNTIME = re.compile(r"\b(\d{1,3}):([0-5]\d)\b|\b(\d{2,3}) ?min")


def s05_runtime_stated(evidence: Any) -> bool:
    """The playlist notes state the playlist's actual total runtime (m:ss within 30 s, or whole minutes)."""
    songs = _co_playlist_songs(evidence)
    if not songs:
        return False
    total = sum(s["duration"] for s in songs)
    for _path, text in texts(evidence, "content/playlists/*.md"):
        for line in text.splitlines():
            if not re.search(r"total|runtime|run time|length", line, re.I):
                continue
            for m in _RUNTIME.finditer(line):
                seconds = int(m.group(1)) * 60 + int(m.group(2)) if m.group(1) else int(m.group(3)) * 60
                if abs(seconds - total) <= (30 if m.group(1) else 60):
                    return True
    return False


def _cart(evidence: Any) -> list[tuple[dict[str, Any], int]]:
    """(product, quantity) of every item in Noor's cart."""
    products = {p["id"]: p for p in app_rows(evidence, "amazon_product")}
    return [(products[r["product_id"]], r["quantity"]) for r in app_rows(evidence, "amazon_cart_item") if r["account_id"] == NOOR and r["quantity"] > 0 and r["product_id"] in products]


def s06_two_each(evidence: Any) -> bool:
    """Two backpacks and two lunch boxes in the cart, one per child model."""
    cart = _cart(evidence)
    per_type = {t: sum(q for p, q in cart if p["product_type_id"] == t) for t in (21, 22)}
    return per_type == {21: 2, 22: 2}


def s06_cart_total_stated(evidence: Any) -> bool:
    """The props note states the cart's actual total, to the cent, on a line about the total."""
    cart = _cart(evidence)
    if not cart:
        return False
    total = round(sum(p["price"] * q for p, q in cart), 2)
    for _path, text in texts(evidence, "content/shoots/*props*.md"):
        for line in text.splitlines():
            if re.search(r"\btotal\b", line, re.I) and re.search(rf"\$\s?{total:,.2f}|\$\s?{total:.2f}", line):
                return True
    return False
