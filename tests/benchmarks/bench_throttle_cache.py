"""The throttle's per-address check against the number of clients the file cache holds.

Run: python tests/benchmarks/bench_throttle_cache.py [--repeat 300] [--short]

Issue 24: "The API throttle's per-address check costs 0.3 ms with one address and 5.2 ms with
20,000, so API 304s came out slower than full answers". The check is a read and a write of
the address's history; Django's FileBasedCache lists its whole folder on every write (to see
whether MAX_ENTRIES is reached). The site's cache (tournament.filecache.FileCache) looks at
most every few seconds. Measured: one address's check with 1 and with 20,000 other entries
in the folder, on Django's class (the anchor) and the site's. Target: the site's check with
20,000 entries costs at most twice its cost with one. Exit status 1 when it does not;
``--short`` (1 and 2,000 entries, 30 checks) reports the target without enforcing it (see
benchkit.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.benchmarks.benchkit import add_short, verdict  # noqa: E402

SIZES = (1, 20000)
TARGET = 2.0


def check_ms(cls: type, entries: int, repeat: int) -> float:
    """Milliseconds per throttle check (get and set of a 600-request history)."""
    folder = tempfile.mkdtemp(prefix="gibson-bench-cull-")
    try:
        cache = cls(folder, {"OPTIONS": {"MAX_ENTRIES": 25000, "CULL_FREQUENCY": 4}})
        for k in range(entries):
            (Path(folder) / f"{k:032x}.djcache").touch()
        history = [time.time()] * 600
        cache.set("throttle_anon_203.0.113.1", history, 60)
        start = time.perf_counter()
        for _ in range(repeat):
            cache.get("throttle_anon_203.0.113.1")
            cache.set("throttle_anon_203.0.113.1", history, 60)
        return (time.perf_counter() - start) / repeat * 1000
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=300)
    add_short(parser)
    args = parser.parse_args()
    sizes = SIZES
    if args.short:
        sizes = (1, 2000)
        args.repeat = min(args.repeat, 30)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")
    os.environ.setdefault("GIBSON_DATA_DIR", tempfile.mkdtemp(prefix="gibson-bench-"))
    import django

    django.setup()
    from django.core.cache.backends.filebased import FileBasedCache

    from tournament.filecache import FileCache

    rows = {
        name: [check_ms(cls, n, args.repeat) for n in sizes]
        for name, cls in (
            ("Django FileBasedCache (anchor)", FileBasedCache),
            ("FileCache", FileCache),
        )
    }
    print(f"{'cache':<32}" + "".join(f"{f'{n} entries':>16}" for n in sizes) + f"{'ratio':>8}")
    for name, (one, many) in rows.items():
        print(f"{name:<32}{one:>13.2f} ms{many:>13.2f} ms{many / one:>8.1f}")
    one, many = rows["FileCache"]
    print(f"\ntarget: FileCache with {sizes[-1]} entries <= {TARGET:.0f}x its cost with one")
    missed = [] if many <= TARGET * one else [f"FileCache {many / one:.1f}x > {TARGET:.0f}x"]
    return verdict(missed, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
