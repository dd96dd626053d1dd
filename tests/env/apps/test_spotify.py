"""The spotify app: catalogue search, likes and library, playlists, reviews, player, persistence."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from proactive_bench.env.apps.base import AppStore, SeedError
from proactive_bench.env.memory import Memory
from proactive_bench.env.toolbox import ToolBox, ToolEnv, resolve_tool_names
from proactive_bench.env.workspace import Workspace
from tests.helpers.app_calls import err, ok

SEED = """
app_clock:
  - {id: 1, now: "2026-03-05T10:30:00"}
spotify_user:
  - {id: 1, name: Lauren McCoy, email: la-mcco@gmail.com, password: wjhPa4l}
  - {id: 2, name: Omar Diaz, email: omar@example.com, password: other}
  - {id: 3, name: Kim Lee, email: kim@example.com}
spotify_artist:
  - {id: 1, name: Aurora Lane, genre: pop}
  - {id: 2, name: The Static Owls, genre: rock}
spotify_album:
  - {id: 1, title: Midnight Letters, artist_id: 1, genre: pop, release_date: "2021-05-01"}
spotify_song:
  - {id: 54, title: Heartstrings Symphony, artist_id: 1, album_id: 1, track_number: 2, genre: pop, duration: 215}
  - {id: 55, title: Paper Moon, artist_id: 1, album_id: 1, track_number: 1, genre: pop, duration: 190}
  - {id: 56, title: Static Heart, artist_id: 2, genre: rock, duration: 240}
  - {id: 57, title: Night Drive, artist_id: 2, genre: rock, duration: 200}
spotify_playlist:
  - {id: 1, title: Omar's Road Trip, owner_id: 2, is_public: true}
  - {id: 2, title: Omar's Secret Mix, owner_id: 2, is_public: false}
spotify_playlist_song:
  - {id: 1, playlist_id: 1, song_id: 57}
  - {id: 2, playlist_id: 1, song_id: 56}
spotify_song_review:
  - {id: 1, song_id: 54, user_id: 2, rating: 4, text: Lovely strings.}
spotify_collection:
  - {id: 1, user_id: 1, kind: liked_song, item_id: 56}
"""


def _store(tmp_path: Path) -> AppStore:
    return AppStore(tmp_path / "apps.sqlite")


def _box(apps: AppStore, tmp_path: Path) -> ToolBox:
    return ToolBox(ToolEnv(Workspace(tmp_path / "ws"), Memory(), apps), resolve_tool_names(["spotify"]))


@pytest.fixture
def box(tmp_path: Path) -> ToolBox:
    apps = _store(tmp_path)
    (tmp_path / "seed").mkdir()
    (tmp_path / "seed" / "spotify.yaml").write_text(SEED)
    apps.seed_from(tmp_path / "seed")
    box = _box(apps, tmp_path)
    assert box.call("spotify__login", {"username": "la-mcco@gmail.com", "password": "wjhPa4l"}).ok
    return box


def test_login_is_checked_by_email_and_password(box: ToolBox) -> None:
    assert ok(box, "spotify__logout")["message"] == "logged out of spotify"
    assert "not logged in to spotify" in err(box, "spotify__show_song", song_id=54)
    assert err(box, "spotify__login", username="la-mcco@gmail.com", password="nope") == "spotify: wrong username or password"
    assert not box.call("spotify__login", {"username": "kim@example.com", "password": ""}).ok  # no password set
    token = ok(box, "spotify__login", username="la-mcco@gmail.com", password="wjhPa4l")["access_token"]
    assert ok(box, "spotify__show_song", song_id=54, access_token=token)["title"] == "Heartstrings Symphony"


def test_show_song_has_shareable_link_and_rating(box: ToolBox) -> None:
    song = ok(box, "spotify__show_song", song_id=54)
    assert song["shareable_link"] == "https://spotify.com/songs/54"
    assert (song["artist_name"], song["album_title"], song["rating"], song["review_count"]) == ("Aurora Lane", "Midnight Letters", 4.0, 1)
    assert err(box, "spotify__show_song", song_id=999) == "no song with id 999"
    assert "song_id" in err(box, "spotify__show_song", song_id="abc")


def test_searches_filter_and_paginate(box: ToolBox) -> None:
    def titles(rows: Any) -> Any:
        return [r["title"] for r in rows]

    assert titles(ok(box, "spotify__search_songs", query="heart")) == ["Heartstrings Symphony", "Static Heart"]
    assert titles(ok(box, "spotify__search_songs", query="heart", genre="Rock")) == ["Static Heart"]
    assert titles(ok(box, "spotify__search_songs", artist_id=1)) == ["Heartstrings Symphony", "Paper Moon"]
    assert titles(ok(box, "spotify__search_songs", query="midnight letters")) == ["Heartstrings Symphony", "Paper Moon"]
    assert titles(ok(box, "spotify__search_songs", page_index=1, page_limit=3)) == ["Night Drive"]
    assert [a["name"] for a in ok(box, "spotify__search_artists", genre="rock")] == ["The Static Owls"]
    assert [a["album_id"] for a in ok(box, "spotify__search_albums", query="aurora")] == [1]
    assert titles(ok(box, "spotify__search_playlists", query="omar")) == ["Omar's Road Trip"]  # private one hidden
    assert [u["user_id"] for u in ok(box, "spotify__search_users", query="omar")] == [2]
    assert ok(box, "spotify__show_genres") == [{"genre": "pop", "song_count": 2}, {"genre": "rock", "song_count": 2}]
    assert "page_limit" in err(box, "spotify__search_songs", page_limit=0)


def test_show_artist_album_and_playlist(box: ToolBox) -> None:
    artist = ok(box, "spotify__show_artist", artist_id=1)
    assert [a["album_id"] for a in artist["albums"]] == [1] and [s["song_id"] for s in artist["songs"]] == [54, 55]
    assert [s["song_id"] for s in ok(box, "spotify__show_album", album_id=1)["songs"]] == [55, 54]  # by track number
    playlist = ok(box, "spotify__show_playlist", playlist_id=1)
    assert playlist["owner"]["name"] == "Omar Diaz" and [s["song_id"] for s in playlist["songs"]] == [57, 56]
    assert err(box, "spotify__show_playlist", playlist_id=2) == "no playlist with id 2"


def test_like_follow_library_and_download(box: ToolBox) -> None:
    assert ok(box, "spotify__like_song", song_id=54) == {"message": "Song liked."}
    assert err(box, "spotify__like_song", song_id=54) == "song 54 is already liked"
    assert [s["song_id"] for s in ok(box, "spotify__show_liked_songs")] == [54, 56]
    assert ok(box, "spotify__show_song", song_id=54)["like_count"] == 1
    assert ok(box, "spotify__unlike_song", song_id=56) == {"message": "Song unliked."}
    assert err(box, "spotify__unlike_song", song_id=56) == "song 56 is not liked"
    assert ok(box, "spotify__follow_artist", artist_id=1) == {"message": "Artist followed."}
    assert [(a["artist_id"], a["follower_count"]) for a in ok(box, "spotify__show_artist_following")] == [(1, 1)]
    assert err(box, "spotify__follow_artist", artist_id=9) == "no artist with id 9"
    assert ok(box, "spotify__unfollow_artist", artist_id=1)["message"] == "Artist unfollowed."
    assert ok(box, "spotify__show_artist_following") == []
    ok(box, "spotify__add_song_to_library", song_id=57)
    assert [s["song_id"] for s in ok(box, "spotify__show_song_library")] == [57]
    ok(box, "spotify__remove_song_from_library", song_id=57)
    assert ok(box, "spotify__show_song_library") == []
    assert ok(box, "spotify__like_album", album_id=1)["message"] == "Album liked."
    ok(box, "spotify__add_album_to_library", album_id=1)
    assert [a["album_id"] for a in ok(box, "spotify__show_album_library")] == [1]
    ok(box, "spotify__download_song", song_id=55)
    assert [s["song_id"] for s in ok(box, "spotify__show_downloaded_songs")] == [55]
    ok(box, "spotify__remove_downloaded_song", song_id=55)
    assert ok(box, "spotify__show_downloaded_songs") == []


def test_playlists_are_created_edited_and_saved_with_permissions(box: ToolBox) -> None:
    created = ok(box, "spotify__create_playlist", title="Focus")
    pid = created["playlist_id"]
    assert created == {"playlist_id": pid, "message": "Playlist 'Focus' created."} and pid == 3
    ok(box, "spotify__add_song_to_playlist", playlist_id=pid, song_id=55)
    ok(box, "spotify__add_song_to_playlist", playlist_id=pid, song_id=54)
    assert err(box, "spotify__add_song_to_playlist", playlist_id=pid, song_id=54) == "song 54 is already in playlist 3"
    assert [s["song_id"] for s in ok(box, "spotify__show_playlist", playlist_id=pid)["songs"]] == [55, 54]
    ok(box, "spotify__remove_song_from_playlist", playlist_id=pid, song_id=55)
    assert err(box, "spotify__remove_song_from_playlist", playlist_id=pid, song_id=55) == "song 55 is not in playlist 3"
    assert "only edit your own" in err(box, "spotify__remove_song_from_playlist", playlist_id=1, song_id=57)
    assert "only edit your own" in err(box, "spotify__add_song_to_playlist", playlist_id=1, song_id=54)
    assert err(box, "spotify__like_playlist", playlist_id=2) == "no playlist with id 2"
    assert ok(box, "spotify__like_playlist", playlist_id=1) == {"message": "Playlist saved."}
    assert [p["playlist_id"] for p in ok(box, "spotify__show_playlist_library")] == [3, 1]
    assert [p["title"] for p in ok(box, "spotify__search_playlists", query="focus")] == ["Focus"]  # own private one
    assert "title" in err(box, "spotify__create_playlist", title="")


def test_reviews_one_per_song_and_only_own_updates(box: ToolBox) -> None:
    posted = ok(box, "spotify__review_song", song_id=54, rating=5, text="Beautiful melody while working.")
    rid = posted["song_review_id"]
    assert posted == {"song_review_id": 2, "message": "Song review posted."}
    assert "already reviewed song 54 (song_review_id 2)" in err(box, "spotify__review_song", song_id=54, rating=3)
    assert "rating" in err(box, "spotify__review_song", song_id=55, rating=6)
    assert ok(box, "spotify__update_song_review", song_review_id=rid, rating=4) == {"message": "Song review updated."}
    review = ok(box, "spotify__show_song_review", song_review_id=rid)
    assert (review["rating"], review["text"], review["user"]["name"]) == (4, "Beautiful melody while working.", "Lauren McCoy")
    assert review["created_at"] == "2026-03-05T10:30:00"
    assert "only update your own" in err(box, "spotify__update_song_review", song_review_id=1, rating=1)
    assert err(box, "spotify__update_song_review", song_review_id=rid) == "give a new rating, a new text, or both"
    assert [r["song_review_id"] for r in ok(box, "spotify__show_song_reviews", song_id=54)] == [2, 1]
    assert [r["song_review_id"] for r in ok(box, "spotify__show_song_reviews", song_id=54, page_index=1, page_limit=1)] == [1]
    assert ok(box, "spotify__show_song", song_id=54)["rating"] == 4.0
    assert err(box, "spotify__show_song_review", song_review_id=42) == "no song review with id 42"


def test_player_queue_navigation(box: ToolBox) -> None:
    assert "nothing is playing" in err(box, "spotify__show_current_song")
    assert err(box, "spotify__play_music") == "give exactly one of song_id, playlist_id or album_id"
    assert err(box, "spotify__play_music", song_id=54, album_id=1) == "give exactly one of song_id, playlist_id or album_id"
    played = ok(box, "spotify__play_music", album_id=1)
    assert played["current_song"]["song_id"] == 55 and played["queue_length"] == 2
    assert ok(box, "spotify__next_song")["song_id"] == 54
    assert err(box, "spotify__next_song") == "already at the last song of the queue"
    ok(box, "spotify__add_to_queue", song_id=57)
    assert [(q["position"], q["song_id"], q["is_current"]) for q in ok(box, "spotify__show_queue")] == [
        (1, 55, False),
        (2, 54, True),
        (3, 57, False),
    ]
    assert "is playing" in err(box, "spotify__remove_song_from_queue", position=2)
    assert "no song at position 9" in err(box, "spotify__remove_song_from_queue", position=9)
    ok(box, "spotify__remove_song_from_queue", position=1)
    current = ok(box, "spotify__show_current_song")
    assert (current["song_id"], current["position"]) == (54, 1)
    assert err(box, "spotify__previous_song") == "already at the first song of the queue"
    assert ok(box, "spotify__next_song")["song_id"] == 57
    assert ok(box, "spotify__previous_song")["song_id"] == 54
    assert ok(box, "spotify__show_song", song_id=54)["play_count"] == 2
    assert ok(box, "spotify__play_music", playlist_id=1)["current_song"]["song_id"] == 57
    assert err(box, "spotify__play_music", playlist_id=2) == "no playlist with id 2"


def test_state_persists_across_sessions_and_restores(box: ToolBox, tmp_path: Path) -> None:
    ok(box, "spotify__like_song", song_id=54)
    ok(box, "spotify__play_music", song_id=57)
    apps = box.env.require_apps()
    snap = apps.snapshot()
    ok(box, "spotify__follow_artist", artist_id=2)
    ok(box, "spotify__review_song", song_id=55, rating=2)

    again = _box(_store(tmp_path), tmp_path)  # a later session of the same episode
    assert [a["artist_id"] for a in ok(again, "spotify__show_artist_following")] == [2]
    assert [s["song_id"] for s in ok(again, "spotify__show_liked_songs")] == [54, 56]
    assert ok(again, "spotify__show_current_song")["song_id"] == 57

    apps.restore(snap)
    assert ok(again, "spotify__show_artist_following") == []
    assert [r["song_review_id"] for r in ok(again, "spotify__show_song_reviews", song_id=55)] == []
    assert [s["song_id"] for s in ok(again, "spotify__show_liked_songs")] == [54, 56]


def test_seed_rejects_unknown_collection_kinds(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "spotify.yaml").write_text("spotify_collection:\n  - {user_id: 1, kind: liked_songs, item_id: 1}\n")
    with pytest.raises(SeedError, match=r"spotify_collection\[0\]\.kind"):
        AppStore().seed_from(tmp_path / "bad")
