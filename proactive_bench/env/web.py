"""``web_search`` and ``web_fetch`` over the episode's offline web corpus (no internet).

The corpus is the folder ``env.web_root`` (``episodes/<persona>/web``): pages
are ``.md``, ``.markdown``, ``.html``, ``.htm`` and ``.txt`` files. An optional
``index.yaml`` maps a URL to a page::

    https://www.example.org/dosing: {file: dosing.html, title: Dosing guide}

A page the index does not name gets the URL ``https://<its path in the corpus>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import yaml
from pydantic import BaseModel, Field

import proactive_bench.env.jail as jail
from proactive_bench.env.toolbox import ToolEnv, ToolError, register_tool
from proactive_bench.env.workspace import PathEscapeError, resolve_inside
from proactive_bench.yaml_files import parse_yaml

PAGE_SUFFIXES = {".md", ".markdown", ".html", ".htm", ".txt"}
TITLE_WEIGHT = 3
SNIPPET_CHARS = 200
FETCH_LIMIT = 50_000
PARSED_PAGES = 128
"""How many HTML pages' readable text is kept, keyed by the page's own text (each search and fetch reads the corpus again)."""
PARSED_PAGE_CHARS = 200_000
"""Larger pages are parsed on every read, so that the kept texts stay small."""


class SearchArgs(BaseModel):
    query: str = Field(min_length=1, description="Search words.")
    max_results: int = Field(default=5, ge=1, le=20, description="At most this many results.")


class FetchArgs(BaseModel):
    url: str = Field(min_length=1, description="A URL from web_search results.")


@dataclass(frozen=True)
class Page:
    url: str
    title: str
    text: str


class _TextExtractor(HTMLParser):
    """Readable text of an HTML page: no tags, scripts or styles; block elements start new lines."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "table", "ul", "ol", "pre"}
    HIDDEN = {"script", "style", "head", "noscript", "template"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title = ""
        self._hidden = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_title = self._in_title or tag == "title"
        self._hidden += tag in self.HIDDEN
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"
        self._hidden -= tag in self.HIDDEN and self._hidden > 0
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._hidden:
            self.parts.append(data)


def html_to_text(html: str) -> tuple[str, str]:
    """``(title, readable text)`` of an HTML document (a page already parsed is looked up by its text: never stale)."""
    return _parsed_html(html) if len(html) <= PARSED_PAGE_CHARS else _parse_html(html)


@lru_cache(maxsize=PARSED_PAGES)
def _parsed_html(html: str) -> tuple[str, str]:
    """:func:`_parse_html`, kept for the last pages parsed."""
    return _parse_html(html)


def _parse_html(html: str) -> tuple[str, str]:
    """``(title, readable text)``, parsed now."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return " ".join(parser.title.split()), "\n".join(line for line in lines if line)


def _read_page(root: Path, relative: str, url: str, title: str | None) -> Page:
    """A corpus page read through the jail (no link swapped in after the check is followed; jail.Refused otherwise)."""
    raw = jail.read_file(root, relative).decode("utf-8", errors="replace")
    stem = PurePosixPath(jail.shown(relative)).stem
    if PurePosixPath(relative).suffix.lower() in {".html", ".htm"}:
        html_title, text = html_to_text(raw)
        return Page(url, title or html_title or stem, text)
    heading = next((line.lstrip("#").strip() for line in raw.splitlines() if line.startswith("#")), "")
    return Page(url, title or heading or stem, raw.strip())


def load_corpus(root: Path | None) -> list[Page]:
    """Every page of the corpus, read through the jail; index entries whose file is missing or outside the corpus are errors.
    Pages the index does not name are the corpus's regular files (:func:`jail.walk`: no link is followed)."""
    if root is None or not root.is_dir():
        return []
    root = root.resolve()
    try:
        index = parse_yaml(jail.read_file(root, "index.yaml").decode("utf-8", errors="replace"))
    except jail.Missing:
        index = {}
    except (yaml.YAMLError, jail.Refused) as exc:
        raise ToolError(f"the web corpus index cannot be read: {exc}") from None
    if not isinstance(index, dict):
        raise ToolError("the web corpus index must map URLs to pages")
    pages, indexed = [], set()
    for url, entry in index.items():
        entry = entry if isinstance(entry, dict) else {"file": entry}
        name = str(entry.get("file", ""))
        try:
            resolve_inside(root, name, "web corpus")
            relative = jail.real_relative(root, name).as_posix()
            pages.append(_read_page(root, relative, normalize_url(str(url)), entry.get("title")))
        except PathEscapeError as exc:
            raise ToolError(f"web corpus index entry {url}: {exc}") from None
        except jail.Missing:
            raise ToolError(f"web corpus index entry {url}: no file {entry.get('file')!r}") from None
        except jail.Refused as exc:
            raise ToolError(f"web corpus index entry {url}: {entry.get('file')!r}: {exc}") from None
        indexed.add(relative)
    for found in jail.walk(root).files():
        if PurePosixPath(found.path).suffix.lower() not in PAGE_SUFFIXES or found.path in indexed:
            continue
        try:
            pages.append(_read_page(root, found.path, "https://" + jail.shown(found.path), None))
        except jail.Refused:  # changed since the walk
            continue
    return pages


def normalize_url(url: str) -> str:
    """Scheme added if missing; fragment and trailing slashes dropped."""
    url = url.strip().split("#", 1)[0]
    scheme, _, rest = url.partition("://") if "://" in url else ("https", "", url)
    return f"{scheme.lower()}://{rest.rstrip('/')}"


def terms(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def snippet(text: str, words: set[str]) -> str:
    """About SNIPPET_CHARS characters of the text around the first query word it contains."""
    lowered = text.lower()
    hits = [i for w in words if (i := lowered.find(w)) != -1]
    start = max(0, min(hits) - SNIPPET_CHARS // 4) if hits else 0
    return " ".join(text[start : start + SNIPPET_CHARS].split())


@register_tool("web_search", group="web")
def web_search(env: ToolEnv, args: SearchArgs) -> list[dict[str, str]]:
    """Search the web (an offline corpus for this task); returns title, url and snippet, best first."""
    words = terms(args.query)
    if not words:
        raise ToolError("the query has no words")
    scored = []
    for page in load_corpus(env.web_root):
        score = TITLE_WEIGHT * len(words & terms(page.title)) + len(words & terms(page.text))
        if score:
            scored.append((-score, page.url, page))
    return [{"title": p.title, "url": p.url, "snippet": snippet(p.text, words)} for _, _, p in sorted(scored)[: args.max_results]]


@register_tool("web_fetch", group="web")
def web_fetch(env: ToolEnv, args: FetchArgs) -> dict[str, str]:
    """Fetch a web page as readable text (from the offline corpus; other URLs are unreachable)."""
    url = normalize_url(args.url)
    page = next((p for p in load_corpus(env.web_root) if p.url == url), None)
    if page is None:
        raise ToolError(f"{args.url}: not in this offline corpus (there is no internet access)")
    text = (
        page.text if len(page.text) <= FETCH_LIMIT else page.text[:FETCH_LIMIT] + f"\n[... {len(page.text) - FETCH_LIMIT} more characters]"
    )
    return {"url": page.url, "title": page.title, "text": text}
