"""A free loopback port for a server a test (or a benchmark) starts, one way for all of them.

The kernel's own choice (``bind(("127.0.0.1", 0))``) comes from the ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``, 32768-60999 on Linux), the same range every
outgoing connection takes its local port from. Between the test closing its probe socket and
the server binding the port, a client connection anywhere on the machine (a benchmark's 256
connections, another worker's requests) could take it, and the server refused to start:
"Address already in use" (4 tests of one run, while a benchmark ran beside the suite). These
ports come from below that range, where no outgoing connection is ever given a port, in a
band of their own for each xdist worker (so two workers never pick the same), never twice
in one process (the kernel may hand a released port to the next bind: two calls for one
server's two ports gave the same one), and each checked free by binding it.
"""

from __future__ import annotations

import os
import random
import socket

LOW = 10_000  # below every registered service a test machine would run, above the well-known
BAND = 2_500  # ports a worker may pick from: 8 workers (the suite's cap) end at 30,000
_given: set[int] = set()


def _band() -> range:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    index = int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 8
    start = LOW + BAND * (index % 9)  # 0..7 the workers; 8 a run without xdist, a benchmark
    return range(start, start + BAND)


def free_port() -> int:
    """A loopback port nobody listens on now, outside the ephemeral range, new to this process."""
    band = _band()
    for port in random.sample(band, len(band)):
        if port in _given:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        _given.add(port)
        return port
    raise RuntimeError(f"no free loopback port in {band.start}-{band.stop - 1}")
