"""The address printed under every scorecard QR code, and the warning when it cannot work.

A scorecard's QR code opens ``SITE_URL/e/TOKEN/`` on a player's phone. ``SITE_URL`` defaults to
``http://127.0.0.1:8000``, which is the venue laptop itself: fine while the director tries things
on that laptop, useless on a phone. A site served to the room (``--addr 0.0.0.0:8000`` or the
laptop's own address) with that default prints cards that open nowhere, and nobody finds out
until round 1's scores should come in. So:

- ``serve``/``serve_demo --addr HOST:PORT`` with a concrete HOST and no ``GIBSON_SITE_URL``
  take the site URL from the address (:func:`site_url_from_addr`);
- a non-loopback listening address with a loopback site URL is said loudly at start and on the
  desk's print page (:func:`unreachable_warning`).

Pure (no Django): the commands, the desk and the tests share it.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# The commands put the address they listen on here (inherited by gunicorn's workers), so the
# desk can say the cards would not open on phones.
LISTEN_ENV = "GIBSON_LISTEN_ADDR"
SITE_URL_ENV = "GIBSON_SITE_URL"

_WILDCARDS = {"", "0.0.0.0", "::", "*"}


def split_host(addr: str) -> tuple[str, str]:
    """HOST:PORT as (host, port) strings, IPv6 brackets removed; no checking (serving does)."""
    host, _, port = addr.rpartition(":")
    return host.strip("[]"), port


def is_loopback(host: str) -> bool:
    """True for localhost and 127.0.0.0/8 or ::1: an address only the laptop itself reaches."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def site_url_from_addr(addr: str) -> str | None:
    """``http://HOST:PORT`` for a concrete listening address; None for a wildcard (0.0.0.0, ::),
    which says where the server listens but not which address phones reach it at."""
    host, port = split_host(addr)
    if host in _WILDCARDS:
        return None
    if ":" in host:  # IPv6 in a URL takes brackets
        host = f"[{host}]"
    return f"http://{host}:{port}"


def unreachable_warning(listen_addr: str, site_url: str) -> str | None:
    """The loud sentence when players' phones cannot open the printed cards, else None.

    The site listens beyond the laptop (a wildcard or a non-loopback address) but the URL in
    every QR code names the laptop itself (127.0.0.1, localhost)."""
    if not listen_addr:
        return None
    host, _ = split_host(listen_addr)
    if host not in _WILDCARDS and is_loopback(host):
        return None  # served to this laptop only: the loopback URL is the right one
    site_host = urlsplit(site_url).hostname or ""
    if not is_loopback(site_host):
        return None
    return (
        f"WARNING: the site listens on {listen_addr} but scorecard QR codes point to "
        f"{site_url}, which only this computer opens: the cards would not open on players' "
        f"phones. Set {SITE_URL_ENV} to the address phones reach (e.g. "
        f"http://192.168.1.20:8000) and restart."
    )
