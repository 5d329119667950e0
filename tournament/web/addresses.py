"""Which address a request came from: the one place every per-address limit asks.

A client header (X-Forwarded-For) is trusted only behind a proxy the site was told about
(GIBSON_BEHIND_PROXY=1), and then only the entry the proxy appended; otherwise anyone could
claim a new address with each request and never be limited.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def _ip(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None


def client_address(request: HttpRequest) -> str | None:
    """The client's address, for every per-address limit: sign-in (django-axes), the API's
    anonymous rate, wrong self-entry links.

    Behind a proxy (GIBSON_BEHIND_PROXY=1) every request arrives from the proxy, so the client
    is the last X-Forwarded-For entry: the one the proxy itself appended (earlier entries are
    whatever the client claimed, so they are never trusted). Otherwise it is REMOTE_ADDR.
    Only a real IP address is returned (the column is an address on PostgreSQL), else None.
    """
    if getattr(settings, "BEHIND_PROXY", False):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = _ip(forwarded.split(",")[-1])
        if last:
            return last
    return _ip(request.META.get("REMOTE_ADDR", "") or "")
