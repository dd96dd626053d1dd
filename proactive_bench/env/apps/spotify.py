"""Spotify: a simulated music-streaming service.

Tables:
- ``spotify_user``: accounts (name, email, password); the user logs in with email + password,
  other users own playlists and write reviews.
- ``spotify_artist``, ``spotify_album``, ``spotify_song``: the catalogue (one main artist per
  song and album; songs may belong to an album, ordered by ``track_number``).
- ``spotify_playlist`` and ``spotify_playlist_song``: playlists (public or private) and their
  ordered entries.
- ``spotify_collection``: one row per (user, kind, item) for likes, library entries, saved
  playlists, followed artists and downloads; ``kind`` is one of :data:`COLLECTIONS`.
- ``spotify_song_review``: one review (rating 1-5, text) per user and song.
- ``spotify_player``: each user's play queue (song ids) and the index of the current song.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, NaiveDatetime
from sqlalchemy import Column, String, UniqueConstraint, func
from sqlalchemy.types import JSON
from sqlmodel import Field, Session, col, select

from proactive_bench.env.apps.base import (
    AppModel,
    AppSpec,
    PageArgs,
    get_row,
    logged_in,
    matches_query,
    now,
    paginate,
    register_app,
)
from proactive_bench.env.toolbox import NoArgs, ToolEnv, ToolError, register_tool

APP = "spotify"
LINK = "https://spotify.com"
CollectionKind = Literal[
    "liked_song", "library_song", "liked_album", "library_album", "saved_playlist", "followed_artist", "downloaded_song"
]


class SpotifyUser(AppModel, table=True):
    __tablename__ = "spotify_user"
    id: int = Field(default=None, primary_key=True)
    name: str
    email: str = Field(unique=True)
    password: str | None = None


class SpotifyArtist(AppModel, table=True):
    __tablename__ = "spotify_artist"
    id: int = Field(default=None, primary_key=True)
    name: str
    genre: str = ""


class SpotifyAlbum(AppModel, table=True):
    __tablename__ = "spotify_album"
    id: int = Field(default=None, primary_key=True)
    title: str
    artist_id: int
    genre: str = ""
    release_date: date | None = None


class SpotifySong(AppModel, table=True):
    __tablename__ = "spotify_song"
    id: int = Field(default=None, primary_key=True)
    title: str
    artist_id: int
    album_id: int | None = None
    track_number: int | None = None
    genre: str = ""
    duration: int = 0
    """Length in seconds."""
    release_date: date | None = None
    play_count: int = 0


class SpotifyPlaylist(AppModel, table=True):
    __tablename__ = "spotify_playlist"
    id: int = Field(default=None, primary_key=True)
    title: str
    owner_id: int
    is_public: bool = False
    created_at: NaiveDatetime | None = None


class SpotifyPlaylistSong(AppModel, table=True):
    __tablename__ = "spotify_playlist_song"
    __table_args__ = (UniqueConstraint("playlist_id", "song_id"),)
    id: int = Field(default=None, primary_key=True)
    playlist_id: int
    song_id: int


class SpotifyCollection(AppModel, table=True):
    __tablename__ = "spotify_collection"
    __table_args__ = (UniqueConstraint("user_id", "kind", "item_id"),)
    id: int = Field(default=None, primary_key=True)
    user_id: int
    kind: CollectionKind = Field(sa_type=String)
    item_id: int
    added_at: NaiveDatetime | None = None


class SpotifySongReview(AppModel, table=True):
    __tablename__ = "spotify_song_review"
    __table_args__ = (UniqueConstraint("song_id", "user_id"),)
    id: int = Field(default=None, primary_key=True)
    song_id: int
    user_id: int
    rating: int
    text: str = ""
    created_at: NaiveDatetime | None = None
    updated_at: NaiveDatetime | None = None


class SpotifyPlayer(AppModel, table=True):
    __tablename__ = "spotify_player"
    user_id: int = Field(primary_key=True)
    queue: list[int] = Field(default_factory=list, sa_column=Column(JSON))
    position: int | None = None
    """Index of the current song in ``queue``; None when nothing is playing."""


def _find_user(db: Session, email: str) -> SpotifyUser | None:
    return db.exec(select(SpotifyUser).where(SpotifyUser.email == email)).first()


register_app(
    AppSpec(
        APP,
        "Music streaming: songs, albums, artists, playlists, likes, library, reviews, play queue and downloads.",
        (
            SpotifyUser,
            SpotifyArtist,
            SpotifyAlbum,
            SpotifySong,
            SpotifyPlaylist,
            SpotifyPlaylistSong,
            SpotifyCollection,
            SpotifySongReview,
            SpotifyPlayer,
        ),
        find_account=_find_user,
    )
)


# ---- shared helpers -----------------------------------------------------------------


def _session(env: ToolEnv) -> AbstractContextManager[tuple[Session, SpotifyUser]]:
    """A transaction and the logged-in account."""
    return logged_in(env, APP)


def _stamp(value: datetime | date | None) -> str | None:
    return value.isoformat() if value else None


def _count(db: Session, model: type[AppModel], *conditions: Any) -> int:
    return db.exec(select(func.count()).select_from(model).where(*conditions)).one()


def _collected(db: Session, kind: CollectionKind, item_id: int) -> int:
    return _count(db, SpotifyCollection, SpotifyCollection.kind == kind, SpotifyCollection.item_id == item_id)


def _user_out(user: SpotifyUser) -> dict[str, Any]:
    return {"user_id": user.id, "name": user.name, "email": user.email}


def _artist_out(db: Session, artist: SpotifyArtist) -> dict[str, Any]:
    return {
        "artist_id": artist.id,
        "name": artist.name,
        "genre": artist.genre,
        "follower_count": _collected(db, "followed_artist", artist.id),
        "shareable_link": f"{LINK}/artists/{artist.id}",
    }


def _song_out(db: Session, song: SpotifySong) -> dict[str, Any]:
    album = db.get(SpotifyAlbum, song.album_id) if song.album_id else None
    ratings = db.exec(select(SpotifySongReview.rating).where(SpotifySongReview.song_id == song.id)).all()
    return {
        "song_id": song.id,
        "title": song.title,
        "artist_id": song.artist_id,
        "artist_name": get_row(db, SpotifyArtist, song.artist_id, "artist").name,
        "album_id": song.album_id,
        "album_title": album.title if album else None,
        "genre": song.genre,
        "duration": song.duration,
        "release_date": _stamp(song.release_date),
        "play_count": song.play_count,
        "like_count": _collected(db, "liked_song", song.id),
        "review_count": len(ratings),
        "rating": round(sum(ratings) / len(ratings), 2) if ratings else None,
        "shareable_link": f"{LINK}/songs/{song.id}",
    }


def _album_out(db: Session, album: SpotifyAlbum) -> dict[str, Any]:
    return {
        "album_id": album.id,
        "title": album.title,
        "artist_id": album.artist_id,
        "artist_name": get_row(db, SpotifyArtist, album.artist_id, "artist").name,
        "genre": album.genre,
        "release_date": _stamp(album.release_date),
        "like_count": _collected(db, "liked_album", album.id),
        "shareable_link": f"{LINK}/albums/{album.id}",
    }


def _playlist_out(db: Session, playlist: SpotifyPlaylist) -> dict[str, Any]:
    owner = get_row(db, SpotifyUser, playlist.owner_id, "user")
    return {
        "playlist_id": playlist.id,
        "title": playlist.title,
        "owner": {"user_id": owner.id, "name": owner.name},
        "is_public": playlist.is_public,
        "song_count": _count(db, SpotifyPlaylistSong, SpotifyPlaylistSong.playlist_id == playlist.id),
        "like_count": _collected(db, "saved_playlist", playlist.id),
        "created_at": _stamp(playlist.created_at),
        "shareable_link": f"{LINK}/playlists/{playlist.id}",
    }


def _review_out(db: Session, review: SpotifySongReview) -> dict[str, Any]:
    author = get_row(db, SpotifyUser, review.user_id, "user")
    return {
        "song_review_id": review.id,
        "song_id": review.song_id,
        "user": {"user_id": author.id, "name": author.name},
        "rating": review.rating,
        "text": review.text,
        "created_at": _stamp(review.created_at),
        "updated_at": _stamp(review.updated_at),
    }


def _song_brief(db: Session, song_id: int) -> dict[str, Any]:
    song = get_row(db, SpotifySong, song_id, "song")
    return {"song_id": song.id, "title": song.title, "artist_name": get_row(db, SpotifyArtist, song.artist_id, "artist").name}


def _playlist(db: Session, me: SpotifyUser, playlist_id: int, *, own: bool = False) -> SpotifyPlaylist:
    """A playlist the user may see (public or own); with ``own``, one the user may edit."""
    playlist = db.get(SpotifyPlaylist, playlist_id)
    if playlist is None or (not playlist.is_public and playlist.owner_id != me.id):
        raise ToolError(f"no playlist with id {playlist_id}")
    if own and playlist.owner_id != me.id:
        raise ToolError(f"playlist {playlist_id} belongs to another user; you can only edit your own playlists")
    return playlist


def _playlist_song_ids(db: Session, playlist_id: int) -> list[int]:
    query = select(SpotifyPlaylistSong.song_id).where(SpotifyPlaylistSong.playlist_id == playlist_id)
    return list(db.exec(query.order_by(col(SpotifyPlaylistSong.id))).all())


def _album_song_ids(db: Session, album_id: int) -> list[int]:
    query = select(SpotifySong.id).where(SpotifySong.album_id == album_id)
    return list(db.exec(query.order_by(col(SpotifySong.track_number), col(SpotifySong.id))).all())


# ---- collections: likes, library, follows, saved playlists, downloads ----------------


@dataclass(frozen=True)
class Collection:
    model: type[AppModel]
    what: str
    state: str
    """How an item in the collection is described: "liked", "in your library", ..."""
    added: str
    removed: str


COLLECTIONS: dict[CollectionKind, Collection] = {
    "liked_song": Collection(SpotifySong, "song", "liked", "Song liked.", "Song unliked."),
    "library_song": Collection(SpotifySong, "song", "in your library", "Song added to library.", "Song removed from library."),
    "liked_album": Collection(SpotifyAlbum, "album", "liked", "Album liked.", ""),
    "library_album": Collection(SpotifyAlbum, "album", "in your library", "Album added to library.", ""),
    "saved_playlist": Collection(SpotifyPlaylist, "playlist", "saved", "Playlist saved.", ""),
    "followed_artist": Collection(SpotifyArtist, "artist", "followed", "Artist followed.", "Artist unfollowed."),
    "downloaded_song": Collection(SpotifySong, "song", "downloaded", "Song downloaded.", "Downloaded song removed."),
}
DESCRIBE: dict[type[AppModel], Callable[[Session, Any], dict[str, Any]]] = {
    SpotifySong: _song_out,
    SpotifyAlbum: _album_out,
    SpotifyArtist: _artist_out,
    SpotifyPlaylist: _playlist_out,
}


def _entry(db: Session, me: SpotifyUser, kind: CollectionKind, item_id: int) -> SpotifyCollection | None:
    query = select(SpotifyCollection).where(
        SpotifyCollection.user_id == me.id, SpotifyCollection.kind == kind, SpotifyCollection.item_id == item_id
    )
    return db.exec(query).first()


def _collect(env: ToolEnv, kind: CollectionKind, item_id: int) -> dict[str, str]:
    spec = COLLECTIONS[kind]
    with _session(env) as (db, me):
        if spec.model is SpotifyPlaylist:
            _playlist(db, me, item_id)
        else:
            get_row(db, spec.model, item_id, spec.what)
        if _entry(db, me, kind, item_id):
            raise ToolError(f"{spec.what} {item_id} is already {spec.state}")
        db.add(SpotifyCollection(user_id=me.id, kind=kind, item_id=item_id, added_at=now(db)))
    return {"message": spec.added}


def _uncollect(env: ToolEnv, kind: CollectionKind, item_id: int) -> dict[str, str]:
    spec = COLLECTIONS[kind]
    with _session(env) as (db, me):
        get_row(db, spec.model, item_id, spec.what)
        entry = _entry(db, me, kind, item_id)
        if entry is None:
            raise ToolError(f"{spec.what} {item_id} is not {spec.state}")
        db.delete(entry)
    return {"message": spec.removed}


def _collection(db: Session, me: SpotifyUser, kind: CollectionKind) -> list[dict[str, Any]]:
    """The items of one collection, most recently added first."""
    spec = COLLECTIONS[kind]
    query = select(SpotifyCollection).where(SpotifyCollection.user_id == me.id, SpotifyCollection.kind == kind)
    entries = db.exec(query.order_by(col(SpotifyCollection.id).desc())).all()
    out = []
    for entry in entries:
        item = db.get(spec.model, entry.item_id)
        if item is not None:
            out.append({**DESCRIBE[spec.model](db, item), "added_at": _stamp(entry.added_at)})
    return out


def _show_collection(env: ToolEnv, kind: CollectionKind, page: PageArgs) -> list[dict[str, Any]]:
    with _session(env) as (db, me):
        return paginate(_collection(db, me, kind), page)


# ---- argument models ------------------------------------------------------------------


class SongArgs(BaseModel):
    song_id: int = Field(description="The song's id.")


class AlbumArgs(BaseModel):
    album_id: int = Field(description="The album's id.")


class ArtistArgs(BaseModel):
    artist_id: int = Field(description="The artist's id.")


class PlaylistArgs(BaseModel):
    playlist_id: int = Field(description="The playlist's id.")


class PlaylistSongArgs(BaseModel):
    playlist_id: int = Field(description="The id of one of your playlists.")
    song_id: int = Field(description="The song's id.")


class QueryPageArgs(PageArgs):
    query: str | None = Field(default=None, description="Words to look for (all must match); empty lists everything.")


class SearchSongsArgs(QueryPageArgs):
    genre: str | None = Field(default=None, description="Only songs of this genre (see spotify__show_genres).")
    artist_id: int | None = Field(default=None, description="Only songs by this artist.")


class SearchArtistsArgs(QueryPageArgs):
    genre: str | None = Field(default=None, description="Only artists of this genre.")


class CreatePlaylistArgs(BaseModel):
    title: str = Field(min_length=1, description="The new playlist's title.")
    is_public: bool = Field(default=False, description="Whether other users can find and see the playlist.")


class ReviewSongArgs(BaseModel):
    song_id: int = Field(description="The song's id.")
    rating: int = Field(ge=1, le=5, description="Rating from 1 (worst) to 5 (best).")
    text: str = Field(default="", description="The review text.")


class UpdateReviewArgs(BaseModel):
    song_review_id: int = Field(description="The id of your review.")
    rating: int | None = Field(default=None, ge=1, le=5, description="New rating from 1 to 5.")
    text: str | None = Field(default=None, description="New review text.")


class ReviewArgs(BaseModel):
    song_review_id: int = Field(description="The review's id.")


class SongReviewsArgs(PageArgs):
    song_id: int = Field(description="The song's id.")


class PlayArgs(BaseModel):
    song_id: int | None = Field(default=None, description="Play this song.")
    playlist_id: int | None = Field(default=None, description="Play this playlist from its first song.")
    album_id: int | None = Field(default=None, description="Play this album from its first track.")


class QueuePositionArgs(BaseModel):
    position: int = Field(ge=1, description="The song's position in the queue, from 1 (see spotify__show_queue).")


# ---- catalogue ---------------------------------------------------------------------


def _genre_is(genre: str | None, value: str) -> bool:
    return genre is None or genre.strip().lower() == value.lower()


@register_tool("spotify__search_songs", group=APP)
def search_songs(env: ToolEnv, args: SearchSongsArgs) -> list[dict[str, Any]]:
    """Search songs by title, artist or album words, optionally filtered by genre or artist."""
    with _session(env) as (db, _me):
        query = select(SpotifySong).order_by(col(SpotifySong.id))
        if args.artist_id is not None:
            query = query.where(SpotifySong.artist_id == args.artist_id)
        songs = [_song_out(db, s) for s in db.exec(query).all() if _genre_is(args.genre, s.genre)]
        found = [s for s in songs if matches_query(args.query, s["title"], s["artist_name"], s["album_title"])]
        return paginate(found, args)


@register_tool("spotify__search_artists", group=APP)
def search_artists(env: ToolEnv, args: SearchArtistsArgs) -> list[dict[str, Any]]:
    """Search artists by name, optionally filtered by genre."""
    with _session(env) as (db, _me):
        artists = db.exec(select(SpotifyArtist).order_by(col(SpotifyArtist.id))).all()
        found = [a for a in artists if _genre_is(args.genre, a.genre) and matches_query(args.query, a.name)]
        return [_artist_out(db, a) for a in paginate(found, args)]


@register_tool("spotify__search_albums", group=APP)
def search_albums(env: ToolEnv, args: QueryPageArgs) -> list[dict[str, Any]]:
    """Search albums by title or artist name."""
    with _session(env) as (db, _me):
        albums = [_album_out(db, a) for a in db.exec(select(SpotifyAlbum).order_by(col(SpotifyAlbum.id))).all()]
        return paginate([a for a in albums if matches_query(args.query, a["title"], a["artist_name"])], args)


@register_tool("spotify__search_playlists", group=APP)
def search_playlists(env: ToolEnv, args: QueryPageArgs) -> list[dict[str, Any]]:
    """Search public playlists and your own playlists by title or owner name."""
    with _session(env) as (db, me):
        rows = db.exec(select(SpotifyPlaylist).order_by(col(SpotifyPlaylist.id))).all()
        visible = [_playlist_out(db, p) for p in rows if p.is_public or p.owner_id == me.id]
        return paginate([p for p in visible if matches_query(args.query, p["title"], p["owner"]["name"])], args)


@register_tool("spotify__search_users", group=APP)
def search_users(env: ToolEnv, args: QueryPageArgs) -> list[dict[str, Any]]:
    """Search Spotify users by name or email."""
    with _session(env) as (db, _me):
        users = db.exec(select(SpotifyUser).order_by(col(SpotifyUser.id))).all()
        return paginate([_user_out(u) for u in users if matches_query(args.query, u.name, u.email)], args)


@register_tool("spotify__show_genres", group=APP)
def show_genres(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """List the genres in the catalogue with how many songs each has."""
    with _session(env) as (db, _me):
        genres = {g.lower() for model in (SpotifySong, SpotifyAlbum, SpotifyArtist) for g in db.exec(select(model.genre)).all() if g}
        songs = db.exec(select(SpotifySong.genre)).all()
        return [{"genre": g, "song_count": sum(1 for s in songs if s.lower() == g)} for g in sorted(genres)]


@register_tool("spotify__show_song", group=APP)
def show_song(env: ToolEnv, args: SongArgs) -> dict[str, Any]:
    """Show a song's details, including its shareable link and average rating."""
    with _session(env) as (db, _me):
        return _song_out(db, get_row(db, SpotifySong, args.song_id, "song"))


@register_tool("spotify__show_artist", group=APP)
def show_artist(env: ToolEnv, args: ArtistArgs) -> dict[str, Any]:
    """Show an artist's details with their albums and songs."""
    with _session(env) as (db, _me):
        artist = get_row(db, SpotifyArtist, args.artist_id, "artist")
        albums = db.exec(select(SpotifyAlbum).where(col(SpotifyAlbum.artist_id) == artist.id).order_by(col(SpotifyAlbum.id))).all()
        songs = db.exec(select(col(SpotifySong.id)).where(col(SpotifySong.artist_id) == artist.id).order_by(col(SpotifySong.id))).all()
        return {
            **_artist_out(db, artist),
            "albums": [{"album_id": a.id, "title": a.title} for a in albums],
            "songs": [_song_brief(db, s) for s in songs],
        }


@register_tool("spotify__show_album", group=APP)
def show_album(env: ToolEnv, args: AlbumArgs) -> dict[str, Any]:
    """Show an album's details and its tracks in order."""
    with _session(env) as (db, _me):
        album = get_row(db, SpotifyAlbum, args.album_id, "album")
        return {**_album_out(db, album), "songs": [_song_brief(db, s) for s in _album_song_ids(db, album.id)]}


@register_tool("spotify__show_playlist", group=APP)
def show_playlist(env: ToolEnv, args: PlaylistArgs) -> dict[str, Any]:
    """Show a public or own playlist and its songs in order."""
    with _session(env) as (db, me):
        playlist = _playlist(db, me, args.playlist_id)
        return {**_playlist_out(db, playlist), "songs": [_song_brief(db, s) for s in _playlist_song_ids(db, playlist.id)]}


# ---- likes, library, follows, downloads --------------------------------------------


@register_tool("spotify__like_song", group=APP)
def like_song(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Like a song (it then shows in your liked songs)."""
    return _collect(env, "liked_song", args.song_id)


@register_tool("spotify__unlike_song", group=APP)
def unlike_song(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Remove a song from your liked songs."""
    return _uncollect(env, "liked_song", args.song_id)


@register_tool("spotify__show_liked_songs", group=APP)
def show_liked_songs(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the songs you liked, most recent first."""
    return _show_collection(env, "liked_song", args)


@register_tool("spotify__add_song_to_library", group=APP)
def add_song_to_library(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Add a song to your library."""
    return _collect(env, "library_song", args.song_id)


@register_tool("spotify__remove_song_from_library", group=APP)
def remove_song_from_library(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Remove a song from your library."""
    return _uncollect(env, "library_song", args.song_id)


@register_tool("spotify__show_song_library", group=APP)
def show_song_library(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the songs in your library, most recently added first."""
    return _show_collection(env, "library_song", args)


@register_tool("spotify__like_album", group=APP)
def like_album(env: ToolEnv, args: AlbumArgs) -> dict[str, str]:
    """Like an album."""
    return _collect(env, "liked_album", args.album_id)


@register_tool("spotify__add_album_to_library", group=APP)
def add_album_to_library(env: ToolEnv, args: AlbumArgs) -> dict[str, str]:
    """Add an album to your library."""
    return _collect(env, "library_album", args.album_id)


@register_tool("spotify__show_album_library", group=APP)
def show_album_library(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the albums in your library, most recently added first."""
    return _show_collection(env, "library_album", args)


@register_tool("spotify__like_playlist", group=APP)
def like_playlist(env: ToolEnv, args: PlaylistArgs) -> dict[str, str]:
    """Save (like) a public playlist to your playlist library."""
    return _collect(env, "saved_playlist", args.playlist_id)


@register_tool("spotify__show_playlist_library", group=APP)
def show_playlist_library(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List your own playlists, then the playlists you saved."""
    with _session(env) as (db, me):
        own = db.exec(select(SpotifyPlaylist).where(col(SpotifyPlaylist.owner_id) == me.id).order_by(col(SpotifyPlaylist.id))).all()
        saved = [p for p in _collection(db, me, "saved_playlist") if p["is_public"] and p["owner"]["user_id"] != me.id]
        return paginate([_playlist_out(db, p) for p in own] + saved, args)


@register_tool("spotify__follow_artist", group=APP)
def follow_artist(env: ToolEnv, args: ArtistArgs) -> dict[str, str]:
    """Follow an artist."""
    return _collect(env, "followed_artist", args.artist_id)


@register_tool("spotify__unfollow_artist", group=APP)
def unfollow_artist(env: ToolEnv, args: ArtistArgs) -> dict[str, str]:
    """Stop following an artist."""
    return _uncollect(env, "followed_artist", args.artist_id)


@register_tool("spotify__show_artist_following", group=APP)
def show_artist_following(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List the artists you follow, most recent first."""
    return _show_collection(env, "followed_artist", args)


@register_tool("spotify__download_song", group=APP)
def download_song(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Download a song for offline listening."""
    return _collect(env, "downloaded_song", args.song_id)


@register_tool("spotify__remove_downloaded_song", group=APP)
def remove_downloaded_song(env: ToolEnv, args: SongArgs) -> dict[str, str]:
    """Remove a downloaded song from this device."""
    return _uncollect(env, "downloaded_song", args.song_id)


@register_tool("spotify__show_downloaded_songs", group=APP)
def show_downloaded_songs(env: ToolEnv, args: PageArgs) -> list[dict[str, Any]]:
    """List your downloaded songs, most recent first."""
    return _show_collection(env, "downloaded_song", args)


# ---- playlists -------------------------------------------------------------------------


@register_tool("spotify__create_playlist", group=APP)
def create_playlist(env: ToolEnv, args: CreatePlaylistArgs) -> dict[str, Any]:
    """Create an empty playlist (private unless is_public)."""
    with _session(env) as (db, me):
        playlist = SpotifyPlaylist(title=args.title.strip(), owner_id=me.id, is_public=args.is_public, created_at=now(db))
        db.add(playlist)
        db.flush()
        return {"playlist_id": playlist.id, "message": f"Playlist {playlist.title!r} created."}


@register_tool("spotify__add_song_to_playlist", group=APP)
def add_song_to_playlist(env: ToolEnv, args: PlaylistSongArgs) -> dict[str, str]:
    """Add a song at the end of one of your playlists."""
    with _session(env) as (db, me):
        playlist = _playlist(db, me, args.playlist_id, own=True)
        get_row(db, SpotifySong, args.song_id, "song")
        if args.song_id in _playlist_song_ids(db, playlist.id):
            raise ToolError(f"song {args.song_id} is already in playlist {playlist.id}")
        db.add(SpotifyPlaylistSong(playlist_id=playlist.id, song_id=args.song_id))
    return {"message": "Song added to playlist."}


@register_tool("spotify__remove_song_from_playlist", group=APP)
def remove_song_from_playlist(env: ToolEnv, args: PlaylistSongArgs) -> dict[str, str]:
    """Remove a song from one of your playlists."""
    with _session(env) as (db, me):
        playlist = _playlist(db, me, args.playlist_id, own=True)
        query = select(SpotifyPlaylistSong).where(
            SpotifyPlaylistSong.playlist_id == playlist.id, SpotifyPlaylistSong.song_id == args.song_id
        )
        entry = db.exec(query).first()
        if entry is None:
            raise ToolError(f"song {args.song_id} is not in playlist {playlist.id}")
        db.delete(entry)
    return {"message": "Song removed from playlist."}


# ---- reviews ---------------------------------------------------------------------------


@register_tool("spotify__review_song", group=APP)
def review_song(env: ToolEnv, args: ReviewSongArgs) -> dict[str, Any]:
    """Rate (1-5) and review a song; one review per song (use spotify__update_song_review to change it)."""
    with _session(env) as (db, me):
        get_row(db, SpotifySong, args.song_id, "song")
        query = select(SpotifySongReview).where(SpotifySongReview.song_id == args.song_id, SpotifySongReview.user_id == me.id)
        existing = db.exec(query).first()
        if existing:
            raise ToolError(f"you already reviewed song {args.song_id} (song_review_id {existing.id}); use spotify__update_song_review")
        stamp = now(db)
        review = SpotifySongReview(
            song_id=args.song_id, user_id=me.id, rating=args.rating, text=args.text, created_at=stamp, updated_at=stamp
        )
        db.add(review)
        db.flush()
        return {"song_review_id": review.id, "message": "Song review posted."}


@register_tool("spotify__update_song_review", group=APP)
def update_song_review(env: ToolEnv, args: UpdateReviewArgs) -> dict[str, str]:
    """Change the rating and/or text of one of your song reviews."""
    if args.rating is None and args.text is None:
        raise ToolError("give a new rating, a new text, or both")
    with _session(env) as (db, me):
        review = get_row(db, SpotifySongReview, args.song_review_id, "song review")
        if review.user_id != me.id:
            raise ToolError(f"song review {review.id} was written by another user; you can only update your own")
        review.rating = args.rating if args.rating is not None else review.rating
        review.text = args.text if args.text is not None else review.text
        review.updated_at = now(db)
        db.add(review)
    return {"message": "Song review updated."}


@register_tool("spotify__show_song_review", group=APP)
def show_song_review(env: ToolEnv, args: ReviewArgs) -> dict[str, Any]:
    """Show one song review."""
    with _session(env) as (db, _me):
        return _review_out(db, get_row(db, SpotifySongReview, args.song_review_id, "song review"))


@register_tool("spotify__show_song_reviews", group=APP)
def show_song_reviews(env: ToolEnv, args: SongReviewsArgs) -> list[dict[str, Any]]:
    """List a song's reviews, newest first."""
    with _session(env) as (db, _me):
        get_row(db, SpotifySong, args.song_id, "song")
        query = select(SpotifySongReview).where(SpotifySongReview.song_id == args.song_id)
        reviews = db.exec(query.order_by(col(SpotifySongReview.id).desc())).all()
        return [_review_out(db, r) for r in paginate(list(reviews), args)]


# ---- player ------------------------------------------------------------------------------


def _player(db: Session, me: SpotifyUser) -> SpotifyPlayer:
    """The user's player (a fresh, unsaved one if the user never played anything)."""
    return db.get(SpotifyPlayer, me.id) or SpotifyPlayer(user_id=me.id, queue=[], position=None)


def _start(db: Session, player: SpotifyPlayer, position: int) -> dict[str, Any]:
    """Make the song at ``position`` current, count the play, and describe it."""
    player.position = position
    song = get_row(db, SpotifySong, player.queue[position], "song")
    song.play_count += 1
    db.add_all([player, song])
    return {**_song_out(db, song), "position": position + 1}


def _current(player: SpotifyPlayer) -> int:
    if player.position is None or not player.queue:
        raise ToolError("nothing is playing; use spotify__play_music first")
    return player.position


@register_tool("spotify__play_music", group=APP)
def play_music(env: ToolEnv, args: PlayArgs) -> dict[str, Any]:
    """Play a song, a playlist or an album (give exactly one id); this replaces the queue."""
    given = [v for v in (args.song_id, args.playlist_id, args.album_id) if v is not None]
    if len(given) != 1:
        raise ToolError("give exactly one of song_id, playlist_id or album_id")
    with _session(env) as (db, me):
        if args.song_id is not None:
            queue = [get_row(db, SpotifySong, args.song_id, "song").id]
        elif args.playlist_id is not None:
            queue = _playlist_song_ids(db, _playlist(db, me, args.playlist_id).id)
        else:
            queue = _album_song_ids(db, get_row(db, SpotifyAlbum, args.album_id, "album").id)
        if not queue:
            raise ToolError("nothing to play: it has no songs")
        player = _player(db, me)
        player.queue = queue
        song = _start(db, player, 0)
        return {"message": f"Now playing {song['title']!r}.", "current_song": song, "queue_length": len(queue)}


@register_tool("spotify__show_current_song", group=APP)
def show_current_song(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Show the song that is playing and its position in the queue."""
    with _session(env) as (db, me):
        player = _player(db, me)
        position = _current(player)
        return {**_song_out(db, get_row(db, SpotifySong, player.queue[position], "song")), "position": position + 1}


@register_tool("spotify__next_song", group=APP)
def next_song(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Skip to the next song in the queue."""
    with _session(env) as (db, me):
        player = _player(db, me)
        position = _current(player)
        if position + 1 >= len(player.queue):
            raise ToolError("already at the last song of the queue")
        return _start(db, player, position + 1)


@register_tool("spotify__previous_song", group=APP)
def previous_song(env: ToolEnv, args: NoArgs) -> dict[str, Any]:
    """Go back to the previous song in the queue."""
    with _session(env) as (db, me):
        player = _player(db, me)
        position = _current(player)
        if position == 0:
            raise ToolError("already at the first song of the queue")
        return _start(db, player, position - 1)


@register_tool("spotify__add_to_queue", group=APP)
def add_to_queue(env: ToolEnv, args: SongArgs) -> dict[str, Any]:
    """Add a song at the end of the play queue (it starts playing if the queue was empty)."""
    with _session(env) as (db, me):
        get_row(db, SpotifySong, args.song_id, "song")
        player = _player(db, me)
        player.queue = [*player.queue, args.song_id]
        if player.position is None:
            _start(db, player, len(player.queue) - 1)
        db.add(player)
        return {"message": "Song added to queue.", "position": len(player.queue)}


@register_tool("spotify__remove_song_from_queue", group=APP)
def remove_song_from_queue(env: ToolEnv, args: QueuePositionArgs) -> dict[str, str]:
    """Remove the song at a queue position (not the one playing)."""
    with _session(env) as (db, me):
        player = _player(db, me)
        index = args.position - 1
        if index >= len(player.queue):
            raise ToolError(f"no song at position {args.position}; the queue has {len(player.queue)} songs")
        if index == player.position:
            raise ToolError("that song is playing; skip it before removing it from the queue")
        player.queue = player.queue[:index] + player.queue[index + 1 :]
        if player.position is not None and index < player.position:
            player.position -= 1
        db.add(player)
    return {"message": "Song removed from queue."}


@register_tool("spotify__show_queue", group=APP)
def show_queue(env: ToolEnv, args: NoArgs) -> list[dict[str, Any]]:
    """Show the play queue in order, marking the song that is playing."""
    with _session(env) as (db, me):
        player = _player(db, me)
        return [
            {"position": i + 1, "is_current": i == player.position, **_song_brief(db, song_id)} for i, song_id in enumerate(player.queue)
        ]
