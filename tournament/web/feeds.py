"""Machine-readable live feeds that other programs poll.

``tourney.js`` at a stable URL makes the project a drop-in live source for the broadcast
overlays and results pages written for TSH: they fetch the file every few seconds, so the
response is the public copy (no passwords), read-only, and cacheable for a few seconds only.

TSH's own viewers (tsh.js, used by the enhanced scoreboard esb.js) poll with
``If-Modified-Since`` from the ``Last-Modified`` they were given, never with an ETag, so the
feed answers both: the ETag from the tournament's version (``caching.public_page``) and a
``Last-Modified`` from the moment this process's cache first saw that version.
"""

from __future__ import annotations

import time

from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
)
from django.utils.http import http_date, parse_http_date_safe
from django.views.decorators.http import require_safe

from tournament.interchange.exports import export_tourney_js

from ..cache import (
    MAX_AGE_SECONDS,
    PUBLIC_CACHE_CONTROL,
    TIMEOUT_SECONDS,
    Version,
    _page_key,
    _remember,
    cache_add,
    cache_get,
    not_modified,
    public_page,
    request_version,
)
from ..formats.tourney_js import write_tourney_js
from ..selectors.rows import division_read

__all__ = ["MAX_AGE_SECONDS", "tourney_js"]

FEED_NAME = "tourney.js"


@public_page(FEED_NAME, public_only=True, by_language=False)
def _feed(request: HttpRequest, slug: str, version: Version | None) -> HttpResponse:
    """The feed, built once per version for every worker; pollers that send the ETag back get
    a bodiless 304 after one query until a write changes the tournament. Only published
    tournaments have a feed, and it is the same for everyone (``public_only``)."""
    if version is None or not version.published:
        raise Http404(f"no published tournament {slug!r}")
    feed = export_tourney_js(
        version.tournament, public=True, read=lambda division: division_read(version, division)
    )
    body = write_tourney_js(feed).encode("utf-8")
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Access-Control-Allow-Origin"] = "*"  # overlays run on other origins
    return response


def first_seen(stamp: str) -> float:
    """When a version of the tournament was first served (Unix time), kept in the shared cache.

    Every write makes a new version stamp, first seen after the write, so this time never
    precedes the data it stands for. When the cache forgets it (expiry, a cache that is down)
    a later time is taken: a poller then gets one full answer too many, never a stale 304.
    """
    key = "lm:" + stamp
    seen = cache_get(key)  # a poll of a known version: this process's copy, no cache I/O
    if isinstance(seen, float):
        return seen
    now = time.time()
    if cache_add(key, now, TIMEOUT_SECONDS):  # first: the time is ours (or the cache is down)
        _remember(key, now)
        return now
    seen = cache_get(key, local=False)  # another worker was first
    if isinstance(seen, float):
        _remember(key, seen)  # the time of a version never changes: keep it in the process
        return seen
    return now


def modified_times(stamp: str, now: float | None = None) -> tuple[int, int]:
    """``(modified, sent)``: the whole second of ``first_seen`` that an ``If-Modified-Since``
    must reach for a 304, and the ``Last-Modified`` to send now.

    HTTP dates have whole seconds, so a write later in the second a poller was answered would
    carry the same date and the poller would be told "not modified" for ever. While that second
    lasts, the date sent is one second earlier: the poller's next request gets the full feed
    (and from then on a date that no later write can share).
    """
    modified = int(first_seen(stamp))
    now = time.time() if now is None else now
    return modified, modified if int(now) > modified else modified - 1


@require_safe
def tourney_js(request: HttpRequest, slug: str) -> HttpResponseBase:
    """``/t/SLUG/tourney.js``: the ETag answer of ``_feed``, plus ``Last-Modified`` and a 304
    to ``If-Modified-Since`` (ignored when ``If-None-Match`` is sent, as HTTP says)."""
    version = request_version(request, slug)
    if version is None or not version.published:
        raise Http404(f"no published tournament {slug!r}")
    modified, sent = modified_times(version.stamp)
    if "If-None-Match" not in request.headers:
        since = parse_http_date_safe(request.headers.get("If-Modified-Since", ""))
        if since is not None and since >= modified:
            etag = f'"{_page_key(version, request, FEED_NAME, language="")}"'
            response: HttpResponseBase = not_modified(etag, by_language=False)
            response["Cache-Control"] = PUBLIC_CACHE_CONTROL
            response["Last-Modified"] = http_date(sent)
            response["Access-Control-Allow-Origin"] = "*"
            return response
    response = _feed(request, slug, known=version)
    # Only an answer of this version carries the date: while another worker builds it, the
    # last version's copy is served under its own ETag, and that copy must not look this new.
    etag = f'"{_page_key(version, request, FEED_NAME, language="")}"'
    if response.status_code in (200, 304) and response.get("ETag", "").removeprefix("W/") == etag:
        response["Last-Modified"] = http_date(sent)
    if response.status_code in (200, 304):
        # a 304 to If-None-Match is made before the view runs: it needs the origin too, or a
        # scoreboard on another origin cannot read it (tournament/api/cors.py)
        response["Access-Control-Allow-Origin"] = "*"
    return response
