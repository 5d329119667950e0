"""Venue mode (issue 23): how fast the hosted copy follows the venue once the link is up.

Two real Gibson processes on loopback, each on its own SQLite database (the hosted one on
PostgreSQL with ``--database-url``): a hosted site serving the API (runserver), and a venue
laptop whose pushes are timed inside its own process (the figure is the push, not Python's
start-up).

1. *A round of results*: a 500-player division (250 games), its round paired and all 250
   results entered at the venue through the services while the link is down; then the link
   returns and one push carries them. Anchor: the venue's own time to enter those 250 results.
   Target: <= 5 s.
2. *A whole event*: a second 500-player tournament whose 23 rounds (5,750 games) were played
   at the venue: built in bulk for speed, with the change log a real event leaves (one change
   per pairing and per result, 5,773 rows); then one push of all of it. Anchor: reading the
   event's whole state on the venue (what the push must at least do). Target: <= 30 s.

``--short``: 50 players, 4 rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
import benchkit  # noqa: E402

MAKE = """
from tournament import services
from tournament.services.entries import NewEntry
from tournament.services.venue import create_link
t = services.create_tournament(name="{name}")
d = services.create_division(t, name="A", rounds={rounds})
rows = [
    NewEntry(name=f"Player{{n:04d}}, {name}", rating=800 + (n * 37) % 1400, line=n)
    for n in range(1, {players} + 1)
]
services.register_players(d, rows, actor="bench")
_link, token = create_link("bench", t, "bench hall")
print("TOKEN", t.slug, token)
"""

ROUND = """
import random, time
from pairings.services.rounds import pair_round
from tournament import services
from tournament.models import Game, Tournament
d = Tournament.objects.get(slug="{slug}").divisions.get()
pair_round(d, 1, system="swiss", actor="bench")
rng = random.Random(1)
started = time.perf_counter()
n = 0
for g in Game.objects.filter(round__division=d, round__number=1, player2__isnull=False):
    score, opp = rng.randint(300, 520), rng.randint(280, 500)
    services.record_result(d, 1, g.player1.number, score, opp, actor="bench")
    n += 1
print("ENTERED", n, time.perf_counter() - started)
"""

EVENT = """
import random, time
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from tournament.models import Entry, Game, Round, Seat, Tournament, VenueChange, VenueTake
t = Tournament.objects.get(slug="{slug}")
d = t.divisions.get()
take = VenueTake.objects.get(tournament=t)
rng = random.Random(2)
pks = list(Entry.objects.filter(division=d).order_by("number").values_list("pk", flat=True))
seq = take.next_seq
changes = []
with transaction.atomic():
    for r in range(1, {rounds} + 1):
        rnd = Round.objects.create(division=d, number=r, system="random", paired_at=timezone.now())
        order = pks[:]
        rng.shuffle(order)
        games = [Game(round=rnd, board=i // 2 + 1, player1_id=order[i], player2_id=order[i + 1],
                      score1=rng.randint(300, 520), score2=rng.randint(280, 500), first=1)
                 for i in range(0, len(order), 2)]
        games = Game.objects.bulk_create(games)
        Seat.objects.bulk_create([Seat(game=g, round=rnd, entry_id=e, side=s) for g in games
                                  for s, e in ((1, g.player1_id), (2, g.player2_id))])
        for kind in ["pair_round"] + ["record_result"] * len(games):
            changes.append(VenueChange(tournament=t, seq=seq, kind=kind, scope="round",
                                       division_id_ref=d.pk, round_number=r))
            seq += 1
    VenueChange.objects.bulk_create(changes)
    VenueTake.objects.filter(pk=take.pk).update(next_seq=seq)
from tournament.services.venue import tournament_state
started = time.perf_counter()
state = tournament_state(t)
print("STATE", len(changes), time.perf_counter() - started)
"""

PUSH = """
import time
from tournament.sync.push import push, take
started = time.perf_counter()
result = push(take("{slug}"))
print("PUSHED", result["changes"], result["batches"], time.perf_counter() - started)
"""


def manage(env: dict, *args: str, timeout: float = 1800) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"manage.py {args[0]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        )
    return done.stdout


def line(out: str, tag: str) -> list[str]:
    for row in out.splitlines():
        if row.startswith(tag + " "):
            return row.split()[1:]
    raise SystemExit(f"no {tag} line in:\n{out[-2000:]}")


def site_env(folder: Path, database_url: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(GIBSON_DATA_DIR=str(folder), GIBSON_SECRET_KEY="bench-venue", GIBSON_DEVELOPMENT="0")
    env["GIBSON_VENUE_ALLOW_PRIVATE"] = "1"  # the two sites talk over loopback
    if database_url:
        env["DATABASE_URL"] = database_url
    folder.mkdir(parents=True, exist_ok=True)
    return env


def migrate_site(env: dict) -> None:
    """A site's empty database: the suite's migrated template copied for a SQLite site
    (tests/migrated.py), ``migrate`` for a PostgreSQL one."""
    if env.get("DATABASE_URL"):
        manage(env, "migrate", "-v", "0")
        return
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.migrated import migrated_sqlite

    migrated_sqlite(Path(env["GIBSON_DATA_DIR"]) / "gibson.sqlite3")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    benchkit.add_short(parser)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=23)
    parser.add_argument(
        "--database-url", help="PostgreSQL URL of a fresh database for the hosted site"
    )
    args = parser.parse_args()
    players, rounds = (50, 4) if args.short else (args.players, args.rounds)
    tmp = Path(tempfile.mkdtemp(prefix="gibson-bench-venue-"))
    hosted_env = site_env(tmp / "hosted", args.database_url)
    venue_env = site_env(tmp / "venue", None)
    server = None
    try:
        migrate_site(hosted_env)
        migrate_site(venue_env)
        one = line(
            manage(
                hosted_env,
                "shell",
                "-v",
                "0",
                "-c",
                MAKE.format(name="Round", rounds=rounds, players=players),
            ),
            "TOKEN",
        )
        whole = line(
            manage(
                hosted_env,
                "shell",
                "-v",
                "0",
                "-c",
                MAKE.format(name="Event", rounds=rounds, players=players),
            ),
            "TOKEN",
        )
        port = benchkit.free_port()
        server = benchkit.spawn(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=hosted_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        benchkit.wait_ready(port, server)
        url = f"http://127.0.0.1:{port}"
        for _slug, token in (one, whole):
            manage(venue_env, "venue_take", url, token)

        # 1. a round of results entered while the link is down, then one push
        benchkit.stop(server)
        entered = line(
            manage(venue_env, "shell", "-v", "0", "-c", ROUND.format(slug=one[0])), "ENTERED"
        )
        server = benchkit.spawn(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=hosted_env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        benchkit.wait_ready(port, server)
        round_push = line(
            manage(venue_env, "shell", "-v", "0", "-c", PUSH.format(slug=one[0])), "PUSHED"
        )

        # 2. a whole event played at the venue, then one push
        built = line(
            manage(venue_env, "shell", "-v", "0", "-c", EVENT.format(slug=whole[0], rounds=rounds)),
            "STATE",
        )
        event_push = line(
            manage(venue_env, "shell", "-v", "0", "-c", PUSH.format(slug=whole[0])), "PUSHED"
        )

        last = f"{url}/api/v1/tournaments/{whole[0]}/divisions/a/games/?round={rounds}&limit=1"
        with urllib.request.urlopen(last, timeout=60) as answer:
            check = json.loads(answer.read())
    finally:
        if server is not None:
            benchkit.stop(server)
        shutil.rmtree(tmp, ignore_errors=True)

    games = players // 2
    rows = [
        (
            f"{games} results reach the hosted copy (push of {round_push[0]} changes)",
            float(round_push[2]),
            f"venue enters them: {float(entered[1]):.2f} s",
            5.0,
        ),
        (
            f"{rounds}-round event ({rounds * games} games, {event_push[0]} changes, "
            f"{event_push[1]} batches) pushed",
            float(event_push[2]),
            f"venue reads its state: {float(built[1]):.2f} s",
            30.0,
        ),
    ]
    print(
        f"venue mode, {players} players ({'short' if args.short else 'full'}); hosted on "
        f"{'PostgreSQL' if args.database_url else 'SQLite'}"
    )
    print(f"{'what':<70} {'seconds':>8}  {'anchor (same run)':<30} target")
    missed = []
    for what, seconds, anchor, target in rows:
        ok = seconds <= target
        print(
            f"{what:<70} {seconds:>8.2f}  {anchor:<30} <= {target:.0f} s {'ok' if ok else 'MISSED'}"
        )
        if not ok:
            missed.append(what)
    broken = (
        [] if check.get("count", check.get("results")) else ["the hosted copy has no last round"]
    )
    return benchkit.verdict(missed, broken, short=args.short)


if __name__ == "__main__":
    sys.exit(main())
