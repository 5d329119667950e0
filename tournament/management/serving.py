"""What the commands that serve the site share: refusing a busy address before anything runs.

``serve_demo`` (runserver on a laptop) and ``serve`` (gunicorn) both check the address first,
so a second copy started by mistake says which port is taken instead of printing a "ready"
line for a server that never comes up.
"""

from __future__ import annotations

import socket

from django.core.management import CommandError


def split_addr(addr: str) -> tuple[str, int]:
    """HOST:PORT (IPv6 hosts in brackets) as (host, port); a malformed address is refused."""
    host, _, port = addr.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise CommandError(f"--addr {addr!r}: give HOST:PORT, e.g. 127.0.0.1:8000")
    return host, int(port)


def check_free(addr: str) -> None:
    """Refuse a busy or malformed address up front, naming it."""
    host, port = split_addr(addr)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(
                f"cannot serve on {addr}: {exc.strerror or exc} (is another server running "
                "there? set --addr or GIBSON_ADDR to a free port)"
            ) from exc
