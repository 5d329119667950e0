"""The tests' one way to pick a server's port (tests/ports.py): outside the range outgoing
connections take their ports from, in the worker's own band, never twice, never one in use."""

from __future__ import annotations

import socket
from pathlib import Path

from tests import ports


def test_ports_come_from_below_the_ephemeral_range_in_the_workers_band(monkeypatch):
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    seen = set()
    for worker in ("gw0", "gw7", ""):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        band = ports._band()
        assert band.stop <= low
        assert not seen & set(band)  # two workers never share a port
        seen |= set(band)
        port = ports.free_port()
        assert port in band


def test_a_port_is_never_given_twice_nor_one_in_use(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw5")
    band = ports._band()
    taken = socket.socket()
    try:
        first = next(p for p in band if p not in ports._given)
        taken.bind(("127.0.0.1", first))
        taken.listen()
        order = [first, first + 1, first + 2]
        monkeypatch.setattr(ports.random, "sample", lambda seq, k: order)
        given = ports.free_port()
        assert given == first + 1  # the port in use is passed over
        assert ports.free_port() == first + 2  # and one given is not given again
    finally:
        taken.close()
