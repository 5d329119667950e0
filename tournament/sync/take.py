"""Taking a tournament from its hosted site onto this instance (the venue's laptop).

One door for the command (``venue_take``) and the console's page: the address and the token
are checked here first (a typo is answered before anything is asked of the hosted site), then
the hosted site hands over its state (from that moment its copy follows this one) and the
services create the tournament here as its authority. Every refusal names what is wrong and
takes nothing: a wrong address, a site that cannot be reached, a token it does not know or
has revoked.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from ..errors import ServiceError
from ..models import Tournament
from ..services.venue import take_tournament
from . import client


def hosted_address(url: Any) -> str:
    """The hosted site's address as given, or a refusal: http(s), a host, nothing else."""
    text = str(url or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query:
        raise ServiceError("venue_bad_url", field="url", url=text[:200])
    return text.rstrip("/")


def take_from_hosted(
    url: Any, token: Any, actor: Any = None, director: Any = None
) -> tuple[Tournament, dict[str, Any]]:
    """Download the tournament ``token`` opens on ``url`` and run it here; returns it and the
    state it was made from."""
    base = hosted_address(url)
    key = str(token or "").strip()
    if not key:
        raise ServiceError("venue_token_needed", field="token")
    state = client.fetch_state(base, key)
    if not isinstance(state, dict) or not isinstance(state.get("divisions"), list):
        raise ServiceError("venue_unreachable", url=base, detail="it is not a Gibson site")
    tournament = take_tournament(state, base, key, actor, director)
    return tournament, state
