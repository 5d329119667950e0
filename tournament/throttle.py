"""The caller's address, the gate's store and the heavy-request count, below the faces.

Every face that limits requests asks here: the pages (``tournament.web.gate``, the
middleware that answers a shut gate; ``tournament.web.ratelimit``, the 429 page), the API's
throttles and venue door, django-axes (``AXES_CLIENT_IP_CALLABLE``). Only the wording of a
refusal stays with each face.

Which address: a client header (X-Forwarded-For) is trusted only behind a proxy the site was
told about (GIBSON_BEHIND_PROXY=1), and then only the entry the proxy appended; otherwise
anyone could claim a new address with each request and never be limited.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time

from django.conf import settings
from django.core.cache import cache
from django.core.cache import cache as default_cache
from django.core.cache.backends.locmem import LocMemCache
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


# --- the gate's store (tournament.web.gate answers it) ----------------------------------------


def gate_key(kind: str, subject: str) -> str:
    # a digest: a self-entry token is a secret and must not be a cache key (a file name)
    digest = hashlib.sha256(subject.encode("utf-8", "replace")).hexdigest()[:32]
    return f"gibson-gate:{kind}:{digest}"


def shut(kind: str, subject: str, seconds: float, *, until: float | None = None) -> None:
    """Refuse ``kind`` requests of ``subject`` at the gate for ``seconds`` (until ``until``, a
    time.time(), when given). A cache failure leaves the gate open."""
    if seconds <= 0:
        return
    end = until if until is not None else time.time() + seconds
    try:
        cache.set(gate_key(kind, subject), end, timeout=math.ceil(seconds) + 1)
    except Exception:  # noqa: BLE001 - any cache backend's failure: the limits still decide
        pass


def wait_at_gate(kind: str, subject: str) -> int:
    """Seconds ``subject`` must still wait for ``kind`` requests (0: the gate is open)."""
    try:
        end = cache.get(gate_key(kind, subject))
    except Exception:  # noqa: BLE001
        return 0
    if not isinstance(end, (int, float)):
        return 0
    left = end - time.time()
    return math.ceil(left) if left > 0 else 0


# --- requests that cost seconds, counted per address (tournament.web.ratelimit words the 429) ---

_LOCAL = LocMemCache("gibson-heavy", {"TIMEOUT": 3600, "OPTIONS": {}})
_UNITS = {"second": 1, "minute": 60, "hour": 3600}


def parse_rate(text: str) -> tuple[int, int]:
    """``"60/minute"`` -> (60, 60): how many requests in how many seconds."""
    count, _, unit = str(text).partition("/")
    seconds = _UNITS.get(unit.strip().lower().rstrip("s"))
    if not count.strip().isdigit() or seconds is None or int(count) < 1:
        raise ValueError(f"a rate is 'N/second', 'N/minute' or 'N/hour', not {text!r}")
    return int(count), seconds


def _count(key: str, window: int) -> int:
    """Add one to ``key``'s count for this window: the site's cache, this process's if it fails
    (Redis down must not turn every PDF into a 500; each worker then keeps its own count)."""
    for store in (default_cache, _LOCAL):
        try:
            store.add(key, 0, window + 5)
            return int(store.incr(key))
        except Exception:  # noqa: BLE001 - any cache backend's failure
            continue
    return 0


def heavy_wait(request: HttpRequest) -> int:
    """Seconds this address must wait before its next heavy request (0: go ahead, counted)."""
    limit, window = parse_rate(settings.HEAVY_RATE)
    now = time.time()
    slot = int(now // window)
    address = client_address(request) or "unknown"
    if _count(f"gibson-heavy:{address}:{slot}", window) <= limit:
        return 0
    return max(1, math.ceil((slot + 1) * window - now))


def rate_wait(request: HttpRequest, name: str, rate: str) -> int:
    """Seconds this address must wait before its next ``name`` request at ``rate`` ("5/hour");
    0: go ahead, counted."""
    limit, window = parse_rate(rate)
    now = time.time()
    slot = int(now // window)
    address = client_address(request) or "unknown"
    if _count(f"gibson-{name}:{address}:{slot}", window) <= limit:
        return 0
    return max(1, math.ceil((slot + 1) * window - now))
