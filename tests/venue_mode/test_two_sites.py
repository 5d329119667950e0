"""Venue mode end to end (issue 23): two real Gibson processes on loopback.

A two-division event is made on the hosted site and taken by a venue; rounds are paired and
scored on the venue and pushed; the hosted API's standings and games equal the venue's after
each push. The hosted process is stopped for two rounds and catches up on restart; a push
killed with kill -9 (the venue's side, then the hosted server's) loses and doubles nothing;
the venue hands the event back at the end and the hosted site is its writer again.
"""

from __future__ import annotations

import signal
import sqlite3
import time

import pytest

from .sites import Site, comparable, postgres_database

SLUG = "venue-open"
DIVISIONS = ("a", "b")

MAKE_EVENT = """
from django.contrib.auth import get_user_model
from tournament import services
t = services.create_tournament(name="Venue Open")
for name in ("A", "B"):
    d = services.create_division(t, name=name, rounds=8)
    for n in range(1, 11):
        services.register_player(d, name=f"{name}{n:02d}, Player", rating=1200 + 37 * n)
    services.selfentry.ensure_tokens(d, "test")  # players' links, made before the hand-over
services.publish_tournament(t, True, actor="test")
# entries online for B, one place left: the venue settles what the hosted site takes
import datetime as dt
from django.utils import timezone
from tournament.services import online_entries as oe
now = timezone.now()
oe.open_entries(t, now - dt.timedelta(days=1), now + dt.timedelta(days=7), actor="test")
oe.set_division_rule(t.divisions.get(slug="b"), cap=11, actor="test")
u = get_user_model().objects.create_user("hosted-td", "td@example.org", "pw-long-enough-1")
t.directors.add(u)
print(t.slug)
"""

PLAY_ROUND = """
import random
from pairings.services.rounds import pair_round
from tournament import services
from tournament.models import Game, Tournament
t = Tournament.objects.get(slug="{slug}")
rng = random.Random({round})
for d in t.divisions.all():
    pair_round(d, {round}, system="swiss", actor="venue-td")
    games = Game.objects.filter(round__division=d, round__number={round}, player2__isnull=False)
    for g in games:
        score, opp = rng.randint(300, 520), rng.randint(280, 500)
        services.record_result(d, {round}, g.player1.number, score, opp, actor="venue-td")
"""


PAIR = """
from pairings.services.rounds import pair_round
from tournament.models import Tournament
for d in Tournament.objects.get(slug="{slug}").divisions.all():
    pair_round(d, {round}, system="swiss", actor="venue-td")
"""

# division A's games of a round by board: the same three games on both sites
GAMES = """
from tournament.models import Game
games = list(
    Game.objects.filter(
        round__division__tournament__slug="{slug}", round__division__slug="a",
        round__number={round}, player2__isnull=False,
    ).order_by("board", "id")
)
"""

DIRECTOR_FIRST = (
    GAMES
    + """
from tournament import services
g = games[2]
services.record_result(g.round.division, {round}, g.player1.number, 410, 390, actor="venue-td")
"""
)

REPORTS = (
    GAMES
    + """
from tournament.services.selfentry import report_own_result
g1, g2, g3 = games[:3]
print(report_own_result(g1.player1.entry_token, 400, 350, round_number={round}).status)
report_own_result(g1.player2.entry_token, 350, 400, round_number={round})
report_own_result(g2.player1.entry_token, 420, 380, round_number={round})
report_own_result(g3.player1.entry_token, 300, 450, round_number={round})
"""
)

INBOX = """
from tournament.models import VenueInbox
reports = VenueInbox.objects.filter(kind="report").order_by("id")
print(" ".join(reports.values_list("status", flat=True)))
"""

# on the hosted site while the venue is offline: two online entries for B's last place, and
# a player checking in from their link
ENTER_AND_CHECK_IN = """
from django.conf import settings
from tournament.models import Entry, Tournament
# (the entries' mails go on commit: kept in memory, not printed among the links read here)
settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
from tournament.services import online_entries as oe
from tournament.services.checkin import player_check_in
from tournament.services.selfentry import player_actor
t = Tournament.objects.get(slug="{slug}")
b = t.divisions.get(slug="b")
for name in ("Online, Olive", "Online, Otto"):
    done = oe.submit_entry(b, name=name, email="olive@example.org")
    oe.confirm_entry(done.confirm_token)
    print(done.link_token)
a01 = Entry.objects.get(division__tournament=t, division__slug="a", number=1)
print(player_check_in(a01, actor=player_actor(a01)))
"""

SETTLED = """
from tournament.models import Entry, OnlineEntry, VenueInbox
items = VenueInbox.objects.exclude(kind="report").order_by("id")
print(" ".join(f"{{i.kind}}:{{i.status}}" for i in items))
entries = OnlineEntry.objects.order_by("id")
print(" ".join(
    f"{{o.player.name.split()[-1]}}:{{o.status}}:{{o.entry.number if o.entry else '-'}}"
    for o in entries
))
a01 = Entry.objects.get(division__tournament__slug="{slug}", division__slug="a", number=1)
print(a01.checked_in_at is not None)
"""

# at the venue, after the entries came down: its director refuses Olive (Otto, first on
# B's waiting list there, takes her place)
REFUSE_OLIVE = """
from tournament.models import OnlineEntry
from tournament.services import online_entries as oe
olive = OnlineEntry.objects.get(tournament__slug="{slug}", player__name="Online, Olive")
oe.refuse_entry(olive, "no fee received", actor="venue-td")
"""

SCORE_REST = """
import random
from tournament import services
from tournament.models import Game, Tournament
rng = random.Random({round})
for d in Tournament.objects.get(slug="{slug}").divisions.all():
    rest = Game.objects.filter(
        round__division=d, round__number={round}, player2__isnull=False, score1__isnull=True
    )
    for g in rest:
        score, opp = rng.randint(300, 520), rng.randint(280, 500)
        services.record_result(d, {round}, g.player1.number, score, opp, actor="venue-td")
"""


def play(venue: Site, round_number: int) -> None:
    venue.shell(PLAY_ROUND.format(slug=SLUG, round=round_number))


def same(hosted: Site, venue: Site) -> None:
    """The hosted API says what the venue's says: standings and every game, per division."""
    for d in DIVISIONS:
        for what in ("standings/", "games/?limit=200"):
            path = f"/api/v1/tournaments/{SLUG}/divisions/{d}/{what}"
            here, there = comparable(hosted.get(path)), comparable(venue.get(path))
            assert here == there, path
            assert len(str(here)) > 500  # ten players' rows, or the games so far
        # the public standings page: its table, as a visitor's phone shows it
        page = f"/t/{SLUG}/{d}/standings/"
        here, there = table(hosted.text(page)), table(venue.text(page))
        assert here == there and "A01, Player".replace("A", d.upper()) in here, page


def table(html: str) -> str:
    """The standings table of a public page (the page around it names its own site)."""
    start = html.index("<table")
    return html[start : html.index("</table>", start)]


def pushed(venue: Site) -> tuple[int, int]:
    """(changes the hosted site confirmed, changes logged), read from the venue's database
    file directly: fast enough to catch a push in the middle."""
    with sqlite3.connect(venue.database, timeout=5) as db:
        return db.execute(
            "SELECT last_pushed_seq, next_seq - 1 FROM tournament_venuetake"
        ).fetchone()


def mid_push(venue: Site) -> None:
    """Wait until a push has confirmed a batch and has more to send."""
    start, _ = pushed(venue)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, logged = pushed(venue)
        if start < done < logged:
            return
        time.sleep(0.01)
    raise AssertionError(f"the push never was half-way ({start} -> {pushed(venue)})")


def waiting(venue: Site) -> int:
    return venue.json("venue_status")["links"][0]["changes_waiting"]


# two sites, some fifty commands and five server starts, forked from warm parents
@pytest.mark.slow(seconds=16)
def test_a_venue_runs_the_event_and_the_hosted_site_follows(tmp_path):
    database, drop = postgres_database("venue_hosted")
    hosted = Site("hosted", tmp_path / "hosted", database)
    venue = Site("venue", tmp_path / "venue")
    try:
        hosted.migrate()
        venue.migrate()
        assert hosted.shell(MAKE_EVENT).strip().endswith(SLUG)
        token = hosted.json("venue_link", SLUG, "--venue", "Hall B")["token"]
        hosted.start()
        venue.start()
        taken = venue.json("venue_take", hosted.url, token)
        assert (taken["divisions"], taken["entries"]) == (2, 20)
        # the hosted copy is a replica from now: its director's write is refused, naming the venue
        refused = hosted.manage(
            "record_result",
            SLUG,
            "--division",
            "A",
            "--round",
            "1",
            "1",
            "400",
            "300",
            "--json",
            check=False,
        )
        assert refused.returncode != 0

        # online entries and a check-in reach the hosted site while the venue is offline
        entered = hosted.shell(ENTER_AND_CHECK_IN.format(slug=SLUG)).split()
        assert entered[-1] == "sent"
        olive_page = f"/entry/{entered[0]}/"
        first = venue.json("venue_push")
        assert first["pushed"][SLUG]["reports_pulled"] == 3
        settled = hosted.shell(SETTLED.format(slug=SLUG)).splitlines()
        assert settled[0].split() == ["entry:accepted", "entry:accepted", "check_in:accepted"]
        # Olive took B's last place at the venue (its number came up with the push); Otto waits
        assert settled[1].split() == ["Olive:entered:11", "Otto:waiting:-"]
        assert settled[2] == "True"  # the venue's check-in came up with the push
        assert "as <strong>#11</strong>" in hosted.text(olive_page)

        # the venue's later decisions come up too: a refusal there reaches Olive's hosted page
        venue.shell(REFUSE_OLIVE.format(slug=SLUG))
        assert venue.json("venue_push")["ok"]
        settled = hosted.shell(SETTLED.format(slug=SLUG)).splitlines()
        assert settled[1].split() == ["Olive:refused:-", "Otto:entered:11"]
        page = hosted.text(olive_page)
        assert "Refused at the venue: no fee received" in page and "#11" not in page

        for r in (1, 2):
            play(venue, r)
            assert venue.json("venue_push")["ok"]
            assert waiting(venue) == 0
            same(hosted, venue)

        # the link drops: the hosted process is stopped for two rounds
        hosted.stop()
        for r in (3, 4):
            play(venue, r)
            # round 3's push as the real program a director types (its own python start);
            # the other commands here are forked from the site's warm parent (sites.py)
            failed = venue.manage("venue_push", "--json", check=False, fresh=r == 3)
            assert failed.returncode != 0 and "venue_unreachable" in failed.stdout
        status = venue.json("venue_status")["links"][0]
        assert status["changes_waiting"] > 0 and "cannot be reached" in status["last_error"]
        hosted.start()
        venue.json("venue_push")
        assert waiting(venue) == 0
        same(hosted, venue)

        # kill -9 of the venue's push mid-way (one change per batch makes it long)
        play(venue, 5)
        venue.env["GIBSON_VENUE_BATCH_CHANGES"] = "1"
        pusher = venue.popen("venue_push")
        mid_push(venue)
        pusher.send_signal(signal.SIGKILL)
        pusher.wait(timeout=10)
        del venue.env["GIBSON_VENUE_BATCH_CHANGES"]
        assert waiting(venue) > 0  # killed half-way
        venue.json("venue_push")
        assert waiting(venue) == 0
        same(hosted, venue)

        # kill -9 of the hosted server mid-push: its open transaction is lost, nothing else
        play(venue, 6)
        venue.env["GIBSON_VENUE_BATCH_CHANGES"] = "1"
        pusher = venue.popen("venue_push")
        mid_push(venue)
        hosted.stop(signal.SIGKILL)
        pusher.wait(timeout=60)
        assert pusher.returncode != 0  # the link went away under it
        del venue.env["GIBSON_VENUE_BATCH_CHANGES"]
        assert waiting(venue) > 0
        hosted.start()
        venue.json("venue_push")
        same(hosted, venue)

        # players report from their phones on the hosted site while the venue is offline;
        # the venue's director entered one of those games first: the director's entry wins
        venue.shell(PAIR.format(slug=SLUG, round=7))
        venue.json("venue_push")
        venue.shell(DIRECTOR_FIRST.format(slug=SLUG, round=7))
        assert hosted.shell(REPORTS.format(slug=SLUG, round=7)).split()[-1] == "queued"
        assert hosted.shell(INBOX).split() == ["queued"] * 4
        assert venue.json("venue_push")["pushed"][SLUG]["reports_pulled"] == 4
        assert hosted.shell(INBOX).split() == ["accepted", "accepted", "accepted", "refused"]
        same(hosted, venue)
        recorded = venue.shell(
            GAMES.format(slug=SLUG, round=7)
            + "print(games[0].score1, games[0].score2, games[1].score1, games[2].score1)"
        )
        assert recorded.split() == ["400", "350", "None", "410"]

        # the hand-back: the venue's last push, then the hosted site writes again
        venue.shell(SCORE_REST.format(slug=SLUG, round=7))
        released = venue.json("venue_release", SLUG)
        assert released["ok"]
        same(hosted, venue)
        again = venue.manage(
            "record_result",
            SLUG,
            "--division",
            "A",
            "--round",
            "1",
            "1",
            "400",
            "300",
            "--json",
            check=False,
        )
        assert again.returncode != 0 and "venue_released" in again.stdout
        hosted.shell(
            "from pairings.services.rounds import pair_round\n"
            "from tournament.models import Tournament\n"
            f"d = Tournament.objects.get(slug='{SLUG}').divisions.get(slug='a')\n"
            "pair_round(d, 8, system='swiss', actor='hosted-td')\n"
        )
    finally:
        hosted.close()
        venue.close()
        drop()
