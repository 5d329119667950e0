"""Club pages cached under the club's version, the way tournament pages are (see
tournament.cache, whose cache, keys, ETags and stored pages this reuses).

A club's stamp is its primary key and creation time, its ``content_version`` (audit() adds 1
with every write to the club, its members, seasons and nights, and to any game of its nights),
its rating list's version (club ratings are shown) and today's date (the current season is the
one running today). The clubs index is stamped by every club's version at once. Each stamp is
one small query, so a conditional GET is answered 304 before the page is built, and an
anonymous visitor is served the whole page from the shared cache once another built it.
Signed-in visitors get a page built for them (it carries their CSRF token and name) from data
cached under the same stamp (:func:`club_data`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.db import connection
from django.http import HttpRequest, HttpResponseBase, HttpResponseNotModified
from django.utils import timezone
from django.utils.translation import get_language

from tournament import cache as pages

from ...models import Club


@dataclass(frozen=True)
class ClubVersion:
    """What a club page's keys are built from; ``stamp`` names one state of the club."""

    pk: int
    stamp: str


def _digits(value: Any) -> str:
    return "".join(ch for ch in str(value or 0) if ch.isalnum())


_CLUB_SQL: str | None = None
_CLUBS_SQL: str | None = None


def club_version(slug: str) -> ClubVersion | None:
    """The stamp of the club named by ``slug`` (one query); None for an unknown club."""
    global _CLUB_SQL
    if _CLUB_SQL is None:
        from ratings.models import RatingList

        c, rl = Club._meta.db_table, RatingList._meta.db_table
        _CLUB_SQL = (
            f'SELECT c.id, c.created, c.content_version, l.content_version FROM "{c}" c '
            f'LEFT JOIN "{rl}" l ON l.id = c.rating_list_id WHERE c.slug = %s'
        )
    with connection.cursor() as cursor:
        cursor.execute(_CLUB_SQL, [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, created, version, lists = row
    today = timezone.localdate().isoformat()
    return ClubVersion(pk, f"club.{pk}.{_digits(created)}.{version}.{lists or 0}.{today}")


def clubs_version() -> str:
    """One stamp for the clubs index: any write to any club (or a club added or removed)
    gives a new one. One query."""
    global _CLUBS_SQL
    if _CLUBS_SQL is None:
        c = Club._meta.db_table
        _CLUBS_SQL = f'SELECT COUNT(*), MAX(id), SUM(content_version) FROM "{c}"'
    with connection.cursor() as cursor:
        cursor.execute(_CLUBS_SQL)
        row = cursor.fetchone()
    return "clubs." + ".".join(_digits(v) for v in row) + "." + timezone.localdate().isoformat()


def club_data(version: ClubVersion, name: str, compute: Callable[[], Any], *parts: Any) -> Any:
    """Data a club page derives (ladder, records, ...), computed once per stamp for every
    viewer and process (tournament.cache.cached)."""
    key = "d:" + ":".join(
        [version.stamp, pages.PUBLIC, *pages.language_parts(), name, *map(str, parts)]
    )
    return pages.cached(key, compute)


def closed_data(club: Club, stamp: str, name: str, compute: Callable[[], Any], *parts: Any) -> Any:
    """Data derived from a club's closed nights only (records, a season's ladder), kept under
    ``stamp`` (selectors.closed_nights_stamp) rather than the club's version: results of the
    night being played change the club's version, not these."""
    key = "d:" + ":".join(
        [
            "closed",
            str(club.pk),
            _digits(club.created),
            stamp,
            *pages.language_parts(),
            name,
            *map(str, parts),
        ]
    )
    return pages.cached(key, compute)


def club_page(name: str, stamp: Callable[..., ClubVersion | None]) -> Callable:
    """Decorate ``view(request, *args, version=ClubVersion | None, **kwargs)``.

    ``stamp(*args, **kwargs)`` gives the version the page is keyed by (None: unknown, the
    view answers 404). For anonymous visitors the ETag is decided before the view runs and
    the whole page is cached per version; refusals are never cached.
    """

    def decorate(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            version = stamp(*args, **kwargs)
            if version is None:
                return view(request, *args, version=None, **kwargs)
            if request.user.is_authenticated or "messages" in request.COOKIES:
                response = view(request, *args, version=version, **kwargs)
                if response.status_code == 200:
                    response["Cache-Control"] = "private, no-cache"
                return response
            # one page (and ETag) a language: the same club in French is another page
            page_name = f"{name}:{get_language()}"
            etag = f'"{pages._page_key(version, request, page_name)}"'
            if pages._matches(request, etag):
                return pages._public_headers(HttpResponseNotModified(), etag)
            key = "p:" + etag.strip('"')
            page = pages.cache_get(key)
            if not isinstance(page, pages.CachedPage):
                response = view(request, *args, version=version, **kwargs)
                if response.status_code != 200 or response.streaming:
                    return response  # a refusal or error page: never cached
                page = pages._page_of(response)
                pages.cache_set(key, page)
                pages._remember(key, page)
            return pages._public_headers(pages._response(page, request, etag), etag)

        return wrapped

    return decorate


def by_slug(slug: str, *args: Any, **kwargs: Any) -> ClubVersion | None:
    """The stamp of a page of one club, named by its ``slug`` URL argument."""
    return club_version(slug)


def of_all_clubs(*args: Any, **kwargs: Any) -> ClubVersion:
    """The stamp of the clubs index."""
    return ClubVersion(0, clubs_version())
