"""How long the front tier (nginx, ``manage.py serve --front``) may keep an answer.

nginx keeps an answer for whole seconds counted from the second it arrived in, so "1 s" means
up to 2 s and a result could wait that long. Here each answer the app made for everyone is
told to the tier as ``X-Accel-Expires: @<the current second>``: kept until that second ends,
at most one second. nginx reads the header and never passes it to the client.

Only an answer the app itself marked ``public`` (pages, feeds, the API's anonymous reads: all
keyed by the data's versions) with no cookie being set, to a GET or HEAD without an
Authorization header, is marked; anything else is left as it is, and the tier never stores an
answer without the mark or one marked private (tournament/management/front.py). On only when
``GIBSON_FRONT_CACHE`` is set (``serve --front`` sets it for gunicorn): without the tier the
header would only be noise.

A player's page is the exception: a division has one per player, and a result changes them
all (rank, estimate, chances), so keeping each for one second made the tier ask gunicorn for
every card every second: 500 rebuilds a second at 500 players (30-60 ms each), more than two
cores do, and the crowd waited seconds for cards. A card's keep is
``players / CARD_REBUILDS_PER_SECOND`` seconds (at least one), each card in its own turn
(``expires_at``): a division's cards then cost about that many rebuilds a second, whatever
the crowd, and a card shows a result within that many seconds (50 s at 500 players; 2 s at
20). ``serve --front``'s refresher (tournament/management/front_refresh.py) asks for each card
at its turn, so a visitor never waits for a rebuild; the mark keeps a card one turn more than
that, so the copy the refresher replaces has not yet expired when it does. Standings, rounds
and feeds keep their one second.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponseBase

from tournament.turns import CARD_REBUILDS_PER_SECOND, card_keep, next_turn

__all__ = ["CARD_REBUILDS_PER_SECOND", "FrontCacheMark", "expires_at", "keep_seconds"]

HEADER = "X-Accel-Expires"
_NOT_SHARED = ("private", "no-store", "no-cache")
SIZE_SECONDS = 60.0  # a division's number of players, read again after this long
_sizes: dict[tuple[str, str], tuple[float, int]] = {}


def shareable(request: HttpRequest, response: HttpResponseBase) -> bool:
    """Whether ``response`` is the same for every anonymous visitor: the app said so
    (``public``, nothing private), it sets no cookie, and the request carried no credentials."""
    if request.method not in ("GET", "HEAD") or response.status_code not in (200, 304):
        return False
    if "HTTP_AUTHORIZATION" in request.META or response.cookies:
        return False
    control = response.get("Cache-Control", "").lower()
    return "public" in control and not any(word in control for word in _NOT_SHARED)


def division_size(slug: str, division: str) -> int:
    """The number of players in a division (0 if there is none such), read once a minute per
    process: the tier's keep time only needs its order of magnitude."""
    now = time.monotonic()
    known = _sizes.get((slug, division))
    if known is not None and now - known[0] < SIZE_SECONDS:
        return known[1]
    from tournament.models import Entry

    size = Entry.objects.filter(division__tournament__slug=slug, division__slug=division).count()
    _sizes[(slug, division)] = (now, size)
    return size


def keep_seconds(request: HttpRequest) -> int:
    """The turn of this answer in seconds: one, but a player's page in a big division."""
    match = request.resolver_match
    if match is None or match.view_name != "public:player":
        return 1
    return card_keep(division_size(match.kwargs["slug"], match.kwargs["division"]))


def expires_at(request: HttpRequest, now: int) -> int:
    """The last second (Unix time) the tier may keep this answer in: this one, but for a
    player's page. Player N's turn comes when ``(second + N) % keep`` is ``keep - 1``, so
    the cards of a division come round ``players / keep`` a second, evenly, never all
    together (a crowd that opened every card in the same few seconds would otherwise have
    them all rebuilt in the same few seconds, ``keep`` seconds later). A card is kept to the
    end of its next turn but one: the refresher asks for it at its next turn, before it
    expires; without the refresher, a visitor's request updates it one turn later."""
    match = request.resolver_match
    if match is None or match.view_name != "public:player":
        return now
    keep = keep_seconds(request)
    number = match.kwargs.get("number", "")
    turn = int(number) if number.isascii() and number.isdigit() else 0
    return next_turn(now, turn, keep) + keep


class FrontCacheMark:
    """Middleware, first in the list (it must see the cookies every other one set)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        if not getattr(settings, "FRONT_CACHE", False):
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if shareable(request, response):
            response[HEADER] = f"@{expires_at(request, int(time.time()))}"
        return response
