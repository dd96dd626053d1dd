"""File system: the episode's real workspace files behind a login.

Table: ``file_system_account`` (username, password). The tools act on the files of
``env.workspace``. Every path is relative to the workspace root and goes through
:meth:`Workspace.resolve`, so absolute paths, ``..`` and symlinks that lead out of the
workspace are errors. Directory copies keep symlinks as links (never following them) and
are refused, like directory moves, when a symlink would end up pointing outside the
workspace or the directory holds hard-linked files. Directories are walked, copied and deleted
iteratively (:func:`jail.walk`, never recursion), so no nesting depth breaks a tool.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlmodel import Field, Session

import proactive_bench.env.jail as jail
from proactive_bench.env.apps.base import AppModel, AppSpec, register_app
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import PathEscapeError, Workspace

APP = "file_system"


class FileSystemAccount(AppModel, table=True):
    __tablename__ = "file_system_account"
    username: str = Field(primary_key=True)
    password: str


def _find_account(db: Session, username: str) -> FileSystemAccount | None:
    return db.get(FileSystemAccount, username)


register_app(
    AppSpec(
        APP,
        "The user's files: list, read, create, copy, move and delete files and directories in the workspace.",
        (FileSystemAccount,),
        find_account=_find_account,
    )
)


# ---- path helpers ----------------------------------------------------------------------


def _workspace(env: ToolEnv) -> Workspace:
    """The workspace, once the user is logged in."""
    env.require_apps().require_login(APP)
    return env.workspace


def _rel(ws: Workspace, path: Path) -> str:
    """A path's workspace-relative name, without following symlinks."""
    rel = path.relative_to(ws.root).as_posix()
    return rel or "."


def _inside(ws: Workspace, path: Path) -> bool:
    target = path.resolve()
    return target == ws.root or ws.root in target.parents


def _existing(ws: Workspace, relative: str, kind: str) -> Path:
    """An existing file (``kind="file"``) or directory inside the workspace."""
    path = ws.resolve(relative)
    if not path.exists():
        raise ToolError(f"no {kind} at {relative!r}")
    if kind == "file" and not path.is_file():
        raise ToolError(f"{relative!r} is not a file")
    if kind == "directory" and not path.is_dir():
        raise ToolError(f"{relative!r} is not a directory")
    return path


def _destination(ws: Workspace, relative: str, overwrite: bool = False) -> Path:
    """Where a file may be written: not a directory, existing only when overwriting."""
    path = ws.resolve(relative)
    if path == ws.root or path.is_dir():
        raise ToolError(f"{relative!r} is a directory")
    if path.exists() and not overwrite:
        raise ToolError(f"{relative!r} already exists; pass overwrite=true to replace it")
    jail.make_folders(path.parent)
    return path


def _reaches_out(ws: Workspace, path: Path) -> bool:
    """A symlink to outside the workspace, or a hard-linked file (it may share data with one outside)."""
    if path.is_symlink():
        return not _inside(ws, path)
    return path.is_file() and path.stat().st_nlink > 1


def _below(tree: Path) -> list[Path]:
    """Everything under ``tree``, walked iteratively without following links."""
    return [tree / entry.path for entry in jail.walk(tree, jail.UNLIMITED).entries]


def _check_links(ws: Workspace, tree: Path) -> None:
    """Refuse a directory holding links that reach outside the workspace."""
    bad = [_rel(ws, path) for path in _below(tree) if _reaches_out(ws, path)]
    if bad:
        raise PathEscapeError(f"links would reach outside the workspace: {', '.join(sorted(bad))}")


def _tree_transfer(ws: Workspace, source: str, destination: str, *, move: bool) -> Path:
    """Check a directory copy or move, run it, and undo it if a link ends up escaping."""
    src = _existing(ws, source, "directory")
    if src == ws.root:
        raise ToolError("the workspace root cannot be copied or moved")
    dst = ws.resolve(destination)
    if dst.exists():
        raise ToolError(f"{destination!r} already exists")
    if dst == src or src in dst.parents:
        raise ToolError(f"{destination!r} is inside {source!r}")
    _check_links(ws, src)
    jail.make_folders(dst.parent)
    if move:
        shutil.move(src, dst)
    else:
        _copy_tree(src, dst)
    try:
        _check_links(ws, dst)
    except PathEscapeError:
        if move:
            shutil.move(dst, src)
        else:
            jail.remove_tree(dst)
        raise
    return dst


def _copy_tree(src: Path, dst: Path) -> None:
    """Copy a directory as ``shutil.copytree(symlinks=True)`` does (links kept as links, metadata copied), without
    recursion; a FIFO, socket or device file in it is refused before anything is copied."""
    scan = jail.walk(src, jail.UNLIMITED)
    special = [jail.shown(entry.path) for entry in scan.entries if entry.kind == "refused" and entry.stat.st_nlink <= 1]
    if special:
        raise ToolError(f"special files cannot be copied: {', '.join(special)}")
    dst.mkdir()
    folders = [(src, dst)]
    for entry in scan.entries:
        source, target = src / entry.path, dst / entry.path
        if entry.kind == "dir":
            target.mkdir()
            folders.append((source, target))
        elif entry.kind == "link":
            os.symlink(entry.target, target)
        else:
            shutil.copy2(source, target, follow_symlinks=False)  # a link swapped in since the walk stays a link (and is checked)
    for source, target in reversed(folders):  # after their contents: copying changes a folder's times
        shutil.copystat(source, target)


def _entry(ws: Workspace, path: Path) -> dict[str, Any]:
    kind = "directory" if path.is_dir() else "file" if path.is_file() else "broken link"
    entry: dict[str, Any] = {"path": _rel(ws, path), "type": kind}
    if kind == "file":
        entry["size"] = path.stat().st_size
    if path.is_symlink():
        entry["link_to"] = _rel(ws, path.resolve())
    return entry


# ---- argument models ------------------------------------------------------------------


class ShowDirectoryArgs(BaseModel):
    directory_path: str = Field(default=".", description="Directory relative to the workspace root ('.' is the root).")
    recursive: bool = Field(default=False, description="Also list everything inside subdirectories.")


class DirectoryArgs(BaseModel):
    directory_path: str = Field(description="Directory path relative to the workspace root.")


class DeleteDirectoryArgs(DirectoryArgs):
    recursive: bool = Field(default=False, description="Also delete everything inside; needed for non-empty directories.")


class FileArgs(BaseModel):
    file_path: str = Field(description="File path relative to the workspace root.")


class CreateFileArgs(FileArgs):
    content: str = Field(default="", description="The new file's text.")


class FileTransferArgs(BaseModel):
    source_file_path: str = Field(description="The file to copy or move, relative to the workspace root.")
    destination_file_path: str = Field(description="The new file path (not a directory), relative to the workspace root.")
    overwrite: bool = Field(default=False, description="Replace the destination file if it exists.")


class DirectoryTransferArgs(BaseModel):
    source_directory_path: str = Field(description="The directory to copy or move, relative to the workspace root.")
    destination_directory_path: str = Field(description="The new directory path (must not exist yet).")


# ---- tools -------------------------------------------------------------------------------


@register_tool("file_system__show_directory", group=APP)
def show_directory(env: ToolEnv, args: ShowDirectoryArgs) -> list[dict[str, Any]]:
    """List a directory's files and subdirectories (with sizes), optionally recursively."""
    ws = _workspace(env)
    root = _existing(ws, args.directory_path, "directory")
    if args.recursive:
        paths = _below(root)
    else:
        paths = list(root.iterdir())
    return [_entry(ws, p) for p in sorted(paths) if _inside(ws, p)]


@register_tool("file_system__create_directory", group=APP)
def create_directory(env: ToolEnv, args: DirectoryArgs) -> dict[str, str]:
    """Create a directory (and any missing parents)."""
    ws = _workspace(env)
    path = ws.resolve(args.directory_path)
    if path.exists():
        raise ToolError(f"{args.directory_path!r} already exists")
    jail.make_folders(path)
    return {"directory_path": _rel(ws, path), "message": "Directory created."}


@register_tool("file_system__create_file", group=APP)
def create_file(env: ToolEnv, args: CreateFileArgs) -> dict[str, str]:
    """Create a new text file (error if it exists); missing parent directories are created."""
    ws = _workspace(env)
    path = _destination(ws, args.file_path)
    path.write_text(args.content, encoding="utf-8")
    return {"file_path": _rel(ws, path), "message": "File created."}


@register_tool("file_system__show_file", group=APP)
def show_file(env: ToolEnv, args: FileArgs) -> dict[str, Any]:
    """Show a file's text content."""
    ws = _workspace(env)
    path = _existing(ws, args.file_path, "file")
    data = ws.read_bytes(args.file_path, jail.DEFAULT_LIMITS.file_bytes)  # opened without following a link swapped in since
    return {"file_path": _rel(ws, path), "size": len(data), "content": data.decode("utf-8", errors="replace")}


@register_tool("file_system__delete_file", group=APP)
def delete_file(env: ToolEnv, args: FileArgs) -> dict[str, str]:
    """Delete a file."""
    path = _existing(_workspace(env), args.file_path, "file")
    path.unlink()
    return {"message": "File deleted."}


def _file_transfer(env: ToolEnv, args: FileTransferArgs, action: Callable[[Path, Path], Any]) -> str:
    ws = _workspace(env)
    src = _existing(ws, args.source_file_path, "file")
    dst = ws.resolve(args.destination_file_path)
    if dst == src:
        raise ToolError("source and destination are the same file")
    dst = _destination(ws, args.destination_file_path, args.overwrite)
    action(src, dst)
    return _rel(ws, dst)


@register_tool("file_system__copy_file", group=APP)
def copy_file(env: ToolEnv, args: FileTransferArgs) -> dict[str, str]:
    """Copy a file to a new path (overwrite=true replaces an existing file)."""
    return {"file_path": _file_transfer(env, args, shutil.copyfile), "message": "File copied."}


@register_tool("file_system__move_file", group=APP)
def move_file(env: ToolEnv, args: FileTransferArgs) -> dict[str, str]:
    """Move or rename a file (overwrite=true replaces an existing file)."""
    return {"file_path": _file_transfer(env, args, os.replace), "message": "File moved."}


@register_tool("file_system__copy_directory", group=APP)
def copy_directory(env: ToolEnv, args: DirectoryTransferArgs) -> dict[str, str]:
    """Copy a directory and everything in it to a new path."""
    ws = _workspace(env)
    dst = _tree_transfer(ws, args.source_directory_path, args.destination_directory_path, move=False)
    return {"directory_path": _rel(ws, dst), "message": "Directory copied."}


@register_tool("file_system__move_directory", group=APP)
def move_directory(env: ToolEnv, args: DirectoryTransferArgs) -> dict[str, str]:
    """Move or rename a directory."""
    ws = _workspace(env)
    dst = _tree_transfer(ws, args.source_directory_path, args.destination_directory_path, move=True)
    return {"directory_path": _rel(ws, dst), "message": "Directory moved."}


@register_tool("file_system__delete_directory", group=APP)
def delete_directory(env: ToolEnv, args: DeleteDirectoryArgs) -> dict[str, str]:
    """Delete a directory; non-empty directories need recursive=true."""
    ws = _workspace(env)
    path = _existing(ws, args.directory_path, "directory")
    if path == ws.root:
        raise ToolError("the workspace root cannot be deleted")
    if any(path.iterdir()):
        if not args.recursive:
            raise ToolError(f"{args.directory_path!r} is not empty; pass recursive=true to delete it with its contents")
        jail.empty_folder(path)
    path.rmdir()
    return {"message": "Directory deleted."}
