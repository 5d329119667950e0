"""Caching of public pages under versions kept in the database.

Every write bumps ``Tournament.content_version`` (``services.audit``) or
``RatingList.content_version`` (``ratings.services``) in its own transaction, so a key built from
those numbers names exactly one state of the data: nothing is ever invalidated or expires to
be right, a change simply makes new keys, and each change is computed once for all worker
processes (the cache is shared: Redis or files, see settings.CACHES).

A page's key also holds the viewer's role: ``public`` or ``staff`` (the tournament's directors
and scorekeepers), so a staff view of a draft never lands where the public could read it.
Whole rendered pages are cached only for anonymous visitors (a signed-in page carries a CSRF
token and the user's name); signed-in viewers share the derived data under their role's key.

The ETag is the key itself, so a poller that sends it back is answered 304 after one small
query, before any page is built. A cache that fails (Redis down) is skipped, never an error.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseBase, HttpResponseNotModified
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.http import parse_etags

from .access import can_keep_score
from .languages import LANGUAGE_VARY
from .models import Tournament

log = logging.getLogger(__name__)

PUBLIC = "public"
STAFF = "staff"
# What a browser may keep without asking again: a phone going back to the standings shows
# a result at most this late (a reload asks at once; the live pages poll every 15 s). It
# was 10 s; asking again costs one small query when nothing changed (a 304), or nothing
# behind the front tier, which answers it from its copy (tournament/web/front.py).
MAX_AGE_SECONDS = 1
PUBLIC_CACHE_CONTROL = f"public, max-age={MAX_AGE_SECONDS}"
# A cached entry is never wrong (its key names its data), only unused after a change: an
# hour keeps the cache from filling with old versions.
TIMEOUT_SECONDS = 3600
# After a cache failure the cache is left alone this long in this process, so a dead Redis
# costs one failed attempt per process and interval, not one per request.
RETRY_AFTER_SECONDS = 10.0
MIN_GZIP_BYTES = 200

_down_until = 0.0


# --- a cache that may fail ---------------------------------------------------------------------


def _failed(what: str, exc: Exception) -> None:
    global _down_until
    _down_until = time.monotonic() + RETRY_AFTER_SECONDS
    log.warning(
        "page cache %s failed (%s); serving without it for %.0f s", what, exc, RETRY_AFTER_SECONDS
    )


# Values read from the shared cache are kept in this process too: a key names one state of
# the data for ever, so a copy can never be stale, and the hot pages skip the file read and
# unpickling. Nothing is computed here: computing is what the shared cache is for.
_LOCAL: OrderedDict[str, Any] = OrderedDict()
LOCAL_ENTRIES = 64


def _remember(key: str, value: Any) -> None:
    _LOCAL[key] = value
    _LOCAL.move_to_end(key)
    while len(_LOCAL) > LOCAL_ENTRIES:
        _LOCAL.popitem(last=False)


def cache_get(key: str, *, local: bool = True) -> Any:
    """The cached value, or None when absent or when the cache cannot be reached."""
    if local and key in _LOCAL:
        _LOCAL.move_to_end(key)
        return _LOCAL[key]
    if time.monotonic() < _down_until:
        return None
    try:
        value = cache.get(key)
    except Exception as exc:  # any backend error: the page is built instead
        _failed("read", exc)
        return None
    if value is not None and local:
        _remember(key, value)
    return value


def cache_add(key: str, value: Any, timeout: int) -> bool:
    """Store only if absent (a build lock); True when the cache is down (build anyway)."""
    if time.monotonic() < _down_until:
        return True
    try:
        return bool(cache.add(key, value, timeout))
    except Exception as exc:
        _failed("write", exc)
        return True


def cache_delete(key: str) -> None:
    if time.monotonic() < _down_until:
        return
    try:
        cache.delete(key)
    except Exception as exc:
        _failed("write", exc)


def cache_set(key: str, value: Any) -> None:
    """Store a value; a failure only costs the next request its own computation."""
    if time.monotonic() < _down_until:
        return
    try:
        cache.set(key, value, TIMEOUT_SECONDS)
    except Exception as exc:
        _failed("write", exc)


def reset_failures() -> None:
    """Forget an earlier cache failure and this process's copies (tests switching caches)."""
    global _down_until
    _down_until = 0.0
    _LOCAL.clear()


# How long a build may hold its lock, and how long others wait for its result before
# computing it themselves.
BUILD_LOCK_SECONDS = 30
WAIT_SECONDS = 5.0


def cached(key: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` once per key for every process sharing the cache.

    After a change, the first request takes a lock and computes; the others (every worker
    is asked for the new standings within the same second) wait for its result instead of
    computing the same thing four times over.
    """
    value = cache_get(key)
    if value is not None:
        return value
    lock = "lock:" + key
    if not cache_add(lock, 1, BUILD_LOCK_SECONDS):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            time.sleep(0.02)
            value = cache_get(key)
            if value is not None:
                return value
    try:
        value = compute()
        cache_set(key, value)
        _remember(key, value)
    finally:
        cache_delete(lock)
    return value


# --- versions ----------------------------------------------------------------------------------


class Version:
    """A tournament's version stamp, read in one small query; the tournament itself is read
    only when a page is built (a 304 or a cached page never needs it)."""

    def __init__(self, pk: int, published: bool, stamp: str, language: str = "") -> None:
        self.pk = pk
        self.published = published
        self.stamp = stamp  # identity and version, plus its divisions' rating lists' versions
        self.language = language  # the tournament's own (tournament.web.language)

    @cached_property
    def tournament(self) -> Tournament:
        return Tournament.objects.get(pk=self.pk)


def _version_sql() -> str:
    from ratings.models import RatingList

    from .models import Division

    t, d, rl = (m._meta.db_table for m in (Tournament, Division, RatingList))
    return (
        f"SELECT t.id, t.published, t.created, t.content_version, t.language, "
        f'(SELECT SUM(l.content_version) FROM "{d}" d JOIN "{rl}" l ON l.id = d.rating_list_id '
        f'WHERE d.tournament_id = t.id) FROM "{t}" t WHERE t.slug = %s'
    )


def tournament_version(slug: str) -> Version | None:
    """The version stamp of the tournament named by ``slug`` (one query); None if unknown.

    The stamp holds the tournament's creation time beside its primary key, so a key never
    names another tournament that got the same primary key (a database restored, a test
    rolled back), and the sum of its divisions' rating lists' versions, since a division
    shows estimates under its list's system. Plain SQL: the ORM's compiling of this query
    cost more than running it, on the path every conditional GET takes.
    """
    global _VERSION_SQL
    if _VERSION_SQL is None:
        _VERSION_SQL = _version_sql()
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL, [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, published, created, version, language, lists = row
    created_digits = "".join(ch for ch in str(created) if ch.isdigit())
    stamp = f"{pk}.{created_digits}.{version}.{lists or 0}"
    return Version(pk, bool(published), stamp, language)


_VERSION_SQL: str | None = None


def request_version(request: HttpRequest, slug: str) -> Version | None:
    """:func:`tournament_version` read once per request: the language middleware reads it for
    the tournament's language, and the page's cache then needs it again (one query, not two).
    Only for reading requests: a write changes the version before its answer is made."""
    if request.method not in ("GET", "HEAD"):
        return tournament_version(slug)
    kept = getattr(request, "_gibson_versions", None)
    if kept is None:
        kept = request._gibson_versions = {}
    if slug not in kept:
        kept[slug] = tournament_version(slug)
    return kept[slug]


def language_parts() -> list[str]:
    """The active language as a part of a data key: none for English (keys as before)."""
    language = page_language()
    return [] if language == settings.LANGUAGE_CODE else [language]


def page_language() -> str:
    """The language a page is being made in: part of every key of rendered or worded data,
    so that no cache ever answers a French visitor with an English page or the reverse."""
    return translation.get_language() or settings.LANGUAGE_CODE


def viewer_role(request: HttpRequest, tournament: Tournament) -> str:
    """``staff`` for the tournament's directors and scorekeepers, else ``public``.

    An anonymous visitor costs no query (no session cookie, no session read).
    """
    user = request.user
    if not user.is_authenticated:
        return PUBLIC
    return STAFF if can_keep_score(user, tournament) else PUBLIC


def data_key(version: Version, role: str, *parts: Any) -> str:
    """A key for derived data of ``version`` seen by ``role`` in the page's language (derived
    data holds worded text too: rendered rows, what a player needs)."""
    return "d:" + ":".join([version.stamp, role, *language_parts(), *map(str, parts)])


def _page_key(
    version: Version | None, request: HttpRequest, name: str, *, language: str | None = None
) -> str:
    """The public page's key and ETag; with no version, the key of its latest copy.

    A page holds words, so its key holds the ``language`` it is made in (by default the
    active one); a feed the same in every language (tourney.js) gives ``""`` and keeps one
    key for all. English, the source language, adds nothing: its keys are those of before."""
    stamp = version.stamp if version is not None else "latest"
    raw = f"{stamp}|{PUBLIC}|{name}|{request.path}|{request.META.get('QUERY_STRING', '')}"
    language = page_language() if language is None else language
    if language and language != settings.LANGUAGE_CODE:
        raw += f"|{language}"
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


def _matches(request: HttpRequest, etag: str) -> bool:
    """If-None-Match holds ``etag`` (weak comparison: gzip makes an ETag weak)."""
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    wanted = [e.removeprefix("W/") for e in parse_etags(header)]
    return "*" in wanted or etag in wanted


def _accepts_gzip(request: HttpRequest) -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "").lower()


@dataclass
class CachedPage:
    """A page's body as sent, plain and gzipped (compressed once per version, not per hit)."""

    content: bytes
    gzipped: bytes | None
    content_type: str
    headers: dict[str, str]  # the view's own (Access-Control-Allow-Origin on the feed)


def _page_of(response: HttpResponse) -> CachedPage:
    """A built page as the cache keeps it: body, gzipped once, and the view's own headers."""
    body = response.content
    zipped = gzip.compress(body, 6, mtime=0) if len(body) >= MIN_GZIP_BYTES else None
    own = {
        header: value
        for header, value in response.items()
        if header.lower() not in {"content-type", "content-length", "etag"}
    }
    return CachedPage(body, zipped, response["Content-Type"], own)


def _response(page: CachedPage, request: HttpRequest, etag: str) -> HttpResponse:
    if page.gzipped is not None and _accepts_gzip(request):
        response = HttpResponse(page.gzipped, content_type=page.content_type)
        response["Content-Encoding"] = "gzip"
        response["ETag"] = f"W/{etag}"
    else:
        response = HttpResponse(page.content, content_type=page.content_type)
        response["ETag"] = etag
    for header, value in page.headers.items():
        response[header] = value
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


def not_modified(etag: str, *, by_language: bool = True) -> HttpResponseNotModified:
    """A 304 for ``etag`` naming the Vary its 200 names (HTTP asks it, and a shared cache that
    refreshes a stored copy from a 304's headers would otherwise lose it): the encoding (a page
    is kept plain and gzipped, see :func:`_response`) and, for a page with words
    (``by_language``), the language's headers, as the language middleware marks the 200."""
    response = HttpResponseNotModified()
    response["ETag"] = etag
    patch_vary_headers(response, ("Accept-Encoding", *(LANGUAGE_VARY if by_language else ())))
    return response


def _public_headers(response: HttpResponseBase, etag: str) -> HttpResponseBase:
    if not response.has_header("ETag"):
        response["ETag"] = etag
    response["Cache-Control"] = PUBLIC_CACHE_CONTROL
    return response


def public_page(name: str, *, public_only: bool = False, by_language: bool = True) -> Callable:
    """Decorate ``view(request, slug, ..., version=Version)``: conditional GET and page cache.

    For an anonymous visitor of a published tournament the ETag is decided from the version
    before the view runs (304 after one query), and the whole page is served from the shared
    cache when another request already built it. Signed-in viewers always get a page built
    for them (from cached data), ``private``; a draft's, ``private, no-store``.
    ``public_only`` views (feeds) treat every viewer as anonymous; ``by_language=False``
    ones (feeds again) are the same in every language, so one copy serves them all.
    """

    def decorate(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(
            request: HttpRequest, slug: str, *args: Any, known: Version | None = None, **kwargs: Any
        ):
            # ``known``: the version a caller already read (the feed, for Last-Modified)
            version = known if known is not None else request_version(request, slug)
            if version is None:
                return view(request, slug, *args, version=None, **kwargs)
            anonymous = public_only or not request.user.is_authenticated
            if not (anonymous and version.published):
                response = view(request, slug, *args, version=version, **kwargs)
                if response.status_code == 200:
                    response["Cache-Control"] = (
                        "private, no-cache" if version.published else "private, no-store"
                    )
                return response
            language = None if by_language else ""
            etag = f'"{_page_key(version, request, name, language=language)}"'
            if _matches(request, etag):
                return _public_headers(not_modified(etag, by_language=by_language), etag)
            # A page with a message waiting for this visitor is built for them alone.
            usable = "messages" not in request.COOKIES
            latest = "latest:" + _page_key(None, request, name, language=language)
            response, fresh = serve_cached(
                request,
                etag,
                latest,
                lambda: view(request, slug, *args, version=version, **kwargs),
                usable=usable,
                by_language=by_language,
            )
            return _public_headers(response, etag) if fresh else response

        return wrapped

    return decorate


def _page_cache_key(etag: str) -> str:
    return "p:" + etag.strip('"').removeprefix("W/").strip('"')


def serve_cached(
    request: HttpRequest,
    etag: str,
    latest: str,
    build: Callable[[], HttpResponseBase],
    *,
    usable: bool = True,
    by_language: bool = False,
) -> tuple[HttpResponseBase, bool]:
    """The response named by ``etag``: from the shared cache, or built once for every process
    and kept (plain and gzipped); and whether it is that version (False: a refusal, or the
    copy of the last version under its own ETag, served while another process builds this
    one). ``latest`` keys the last version's copy of the same address. ``build`` may raise
    (a refusal): nothing is cached then. Public pages and the API's standings both use it;
    ``by_language``: the page has words (its 304 varies on the language, see not_modified).
    """
    key = _page_cache_key(etag)
    page = cache_get(key) if usable else None
    if isinstance(page, CachedPage):
        return _response(page, request, etag), True
    building = usable and not cache_add("lock:" + key, 1, BUILD_LOCK_SECONDS)
    if building:
        # Another process is building this version: the page as of the last version (a
        # second old), under its own ETag, rather than a fifth copy of the work. ``latest``
        # names that version's ETag only (a small read while every build lasts); its page is
        # the one cached under that ETag, read from the shared cache once per process.
        old_etag = cache_get(latest, local=False)
        old_page = cache_get(_page_cache_key(old_etag)) if isinstance(old_etag, str) else None
        if isinstance(old_page, CachedPage):
            if _matches(request, old_etag):  # the poller has it already
                response: HttpResponseBase = not_modified(old_etag, by_language=by_language)
            else:
                response = _response(old_page, request, old_etag)
            response["Cache-Control"] = "public, max-age=1"
            return response, False
    try:
        response = build()
    finally:
        if usable and not building:
            cache_delete("lock:" + key)
    if response.status_code != 200 or response.streaming:
        return response, False
    if usable and not response.has_header("Content-Encoding"):
        page = _page_of(response)
        cache_set(key, page)
        cache_set(latest, etag)
        response = _response(page, request, etag)
    return response, True


# --- pages that read across tournaments and rating lists ---------------------------------------


def _site_sql() -> str:
    from ratings.models import RatingList

    t, rl = Tournament._meta.db_table, RatingList._meta.db_table
    return (
        f'SELECT (SELECT COUNT(*) FROM "{t}"), (SELECT MAX(id) FROM "{t}"), '
        f'(SELECT MAX(created) FROM "{t}"), '
        f'(SELECT SUM(content_version) FROM "{t}"), (SELECT COUNT(*) FROM "{rl}"), '
        f'(SELECT MAX(id) FROM "{rl}"), (SELECT SUM(content_version) FROM "{rl}")'
    )


_SITE_SQL: str | None = None


def site_version() -> str:
    """One stamp for pages that read across every tournament and rating list (rating lists,
    player profiles, head-to-head): versions only grow, so any write anywhere gives a new stamp
    (with the counts and highest ids, a deleted and re-created row does too). One query."""
    global _SITE_SQL
    if _SITE_SQL is None:
        _SITE_SQL = _site_sql()
    with connection.cursor() as cursor:
        cursor.execute(_SITE_SQL)
        row = cursor.fetchone()
    return ".".join("".join(ch for ch in str(v or 0) if ch.isalnum()) for v in row)


def site_page(name: str) -> Callable:
    """Decorate a public view that reads across tournaments and lists: for anonymous visitors
    the ETag comes from :func:`site_version` before the view runs (304 after one query) and the
    whole page is cached per version; signed-in visitors get a page built for them."""

    def decorate(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any):
            if (
                request.user.is_authenticated
                or "messages" in request.COOKIES
                or not getattr(settings, "GIBSON_SITE_PAGE_CACHE", True)
            ):
                return view(request, *args, **kwargs)
            stamp = site_version()
            raw = (
                f"site|{stamp}|{name}|{request.path}|{request.META.get('QUERY_STRING', '')}"
                + "".join(f"|{part}" for part in language_parts())
            )
            etag = '"' + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32] + '"'
            if _matches(request, etag):
                return _public_headers(not_modified(etag), etag)
            key = "p:" + etag.strip('"')

            def build() -> CachedPage | HttpResponseBase:
                response = view(request, *args, **kwargs)
                if response.status_code != 200 or response.streaming:
                    return response
                return _page_of(response)

            page = cache_get(key)
            if not isinstance(page, CachedPage):
                built = build()
                if not isinstance(built, CachedPage):
                    return built  # a refusal or error page: never cached
                page = built
                cache_set(key, page)
                _remember(key, page)
            return _public_headers(_response(page, request, etag), etag)

        return wrapped

    return decorate
