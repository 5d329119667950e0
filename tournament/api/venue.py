"""/api/v1/venue/: the door a venue instance uses to its hosted tournament (venue mode).

Authenticated by the venue link's token alone (``Authorization: Venue <token>``), which
opens its own tournament and nothing else; account tokens and sessions are not read here.
The services (tournament.services.venue) check the token, the tournament and every change;
this face only carries the request and the answer. Throttled per address: a venue pushes
every few seconds at most, and a guessed token costs a request like any other.
"""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import throttling
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..errors import ServiceError
from ..services import venue
from ..throttle import client_address
from .throttling import FALLBACK_CACHE


class VenueRateThrottle(throttling.SimpleRateThrottle):
    """Per address: 240 requests a minute is a push every quarter second."""

    cache = FALLBACK_CACHE
    scope = "venue"
    rate = "240/minute"

    def get_cache_key(self, request: Request, view: Any) -> str:
        return f"throttle_venue_{client_address(request) or 'unknown'}"


def venue_token(request: Request) -> str:
    header = request.META.get("HTTP_AUTHORIZATION", "")
    kind, _, token = header.partition(" ")
    return token.strip() if kind == "Venue" else ""


def venue_laptop(request: Request) -> tuple[str, str]:
    """The laptop asking (a link is bound to one): its id and its name as sent."""
    return (
        request.META.get("HTTP_X_GIBSON_LAPTOP", "").strip()[:64],
        request.META.get("HTTP_X_GIBSON_LAPTOP_NAME", "").strip()[:100],
    )


# what a gzipped batch may grow to once read (a 13,000-game event is a few MB of JSON)
MAX_UNZIPPED = 64 * 1024 * 1024


def venue_body(request: Request) -> Any:
    """The batch as sent: plain JSON, or gzipped JSON (``Content-Encoding: gzip``, how the
    laptop sends a whole event again: under the request limit for ten times the games)."""
    if request.META.get("HTTP_CONTENT_ENCODING", "").lower() != "gzip":
        return request.data
    try:
        reader = zlib.decompressobj(wbits=31)
        raw = reader.decompress(request.body, MAX_UNZIPPED)
        if reader.unconsumed_tail:
            raise ServiceError("venue_bad_change", detail="the batch is larger than 64 MB")
        return json.loads(raw)
    except (zlib.error, gzip.BadGzipFile, ValueError) as exc:
        raise ServiceError("venue_bad_change", detail=f"not gzipped JSON: {exc}") from exc


class VenueView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [VenueRateThrottle]


@extend_schema(exclude=True)  # between Gibson instances, not the public API
class VenueState(VenueView):
    """GET: the tournament's full state; from now the hosted copy follows the venue."""

    def get(self, request: Request) -> Response:
        return Response(venue.take_state(venue_token(request), venue_laptop(request)))


@extend_schema(exclude=True)  # between Gibson instances, not the public API
class VenuePush(VenueView):
    """POST: one batch of the venue's changes, applied in order and exactly once."""

    def post(self, request: Request) -> Response:
        return Response(
            venue.apply_push(venue_token(request), venue_body(request), venue_laptop(request))
        )


@extend_schema(exclude=True)  # between Gibson instances, not the public API
class VenueRelease(VenueView):
    """POST: the venue hands the tournament back (the link is revoked)."""

    def post(self, request: Request) -> Response:
        return Response(venue.release_link(venue_token(request), venue_laptop(request)))


@extend_schema(exclude=True)  # between Gibson instances, not the public API
class VenueInboxView(VenueView):
    """GET: players' reports waiting for the venue; POST: the venue's answers to them."""

    def get(self, request: Request) -> Response:
        return Response(venue.inbox_for(venue_token(request), venue_laptop(request)))

    def post(self, request: Request) -> Response:
        return Response(
            venue.settle_inbox(venue_token(request), request.data, venue_laptop(request))
        )


@extend_schema(exclude=True)  # between Gibson instances, not the public API
class VenueCopy(VenueView):
    """GET: what the hosted copy holds now, for its laptop (to compare, or to bring down)."""

    def get(self, request: Request) -> Response:
        return Response(venue.copy_state(venue_token(request), venue_laptop(request)))
