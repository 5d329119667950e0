"""Venue mode a director can trust (issue 39), with two real Gibson processes on loopback:
the hosted site restored from a backup, a second laptop with the same link, and the laptop
restored from an older backup. Nothing is lost, nothing doubled, and each side says what
happened.

Each test starts two or three Gibson sites and runs some twenty management commands, each in
a process of its own forked from the site's warm parent (tests/warm.py), as are the servers:
5-10 s each on 2 cores (30-50 s when each command was a fresh python paying Django's start).

Both sites on SQLite here (a restore is the database file put back, as a director would from
a nightly copy), whatever database the suite runs on.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from .sites import Site
from .test_two_sites import GAMES, MAKE_EVENT, PAIR, SLUG, play, same

# both players of division A's game ``{index}`` of round ``{round}`` report it from their
# phones on the hosted site (the venue enters it when both agree)
BOTH_REPORT = (
    GAMES
    + """
from tournament.services.selfentry import report_own_result
g = games[{index}]
report_own_result(g.player1.entry_token, {mine}, {theirs}, round_number={round})
print(report_own_result(g.player2.entry_token, {theirs}, {mine}, round_number={round}).status)
"""
)

SCORES = (
    GAMES
    + """
print(" ".join(f"{{g.score1}}-{{g.score2}}" for g in games))
"""
)


def backup(site: Site, to: Path) -> None:
    """A consistent copy of the site's database while it runs (SQLite's backup API)."""
    with sqlite3.connect(site.database) as source, sqlite3.connect(to) as copy:
        source.backup(copy)


def restore(site: Site, copy: Path) -> None:
    """The site's database put back from ``copy`` (its server stopped, then started again)."""
    running = site.server is not None
    site.stop()
    for extra in ("-wal", "-shm"):
        Path(str(site.database) + extra).unlink(missing_ok=True)
    shutil.copyfile(copy, site.database)
    if running:
        site.start()


def two_sites(tmp_path: Path) -> tuple[Site, Site, str]:
    hosted = Site("hosted", tmp_path / "hosted")
    venue = Site("venue", tmp_path / "venue")
    hosted.migrate()
    venue.migrate()
    assert hosted.shell(MAKE_EVENT).strip().endswith(SLUG)
    token = hosted.json("venue_link", SLUG, "--venue", "Hall B")["token"]
    hosted.start()
    venue.start()
    venue.json("venue_take", hosted.url, token)
    return hosted, venue, token


@pytest.mark.slow(seconds=7)
def test_a_hosted_site_restored_from_a_backup_gets_everything_again(tmp_path):
    hosted, venue, _token = two_sites(tmp_path)
    try:
        venue.shell(PAIR.format(slug=SLUG, round=1))
        venue.json("venue_push")
        backup(hosted, tmp_path / "hosted-nightly.sqlite3")
        # game 1's players report on the hosted site; the venue enters it (inbox items 1, 2)
        assert hosted.shell(BOTH_REPORT.format(slug=SLUG, round=1, index=0, mine=400, theirs=350))
        assert venue.json("venue_push")["pushed"][SLUG]["reports_pulled"] == 2
        venue.shell(
            GAMES.format(slug=SLUG, round=1)
            + "from tournament import services\n"
            + "g = games[2]\n"
            + "services.record_result(g.round.division, 1, g.player1.number, 410, 390,"
            + " actor='venue-td')\n"
        )
        venue.json("venue_push")

        # the hosted site is restored from last night's backup: no results, an empty inbox
        restore(hosted, tmp_path / "hosted-nightly.sqlite3")
        # game 2's players report on the restored site: its inbox gives ids 1 and 2 again
        hosted.shell(BOTH_REPORT.format(slug=SLUG, round=1, index=1, mine=380, theirs=420))
        pushed = venue.json("venue_push")["pushed"][SLUG]
        assert pushed["reports_pulled"] == 2
        # entered at the venue, not answered from the memory of the old items 1 and 2
        at_venue = venue.shell(SCORES.format(slug=SLUG, round=1)).split()
        assert at_venue[:3] == ["400-350", "380-420", "410-390"]
        # the hosted copy was behind with nothing waiting: it got the whole event again
        same(hosted, venue)
        status = venue.json("venue_status")["links"][0]
        assert status["changes_waiting"] == 0 and status["last_error"] == ""
        assert "restored from a backup" in status["notice"]
        assert "the whole event again" in venue.manage("venue_status").stdout
        assert 'id="venue-rebased"' in hosted.text(f"/t/{SLUG}/")
        # and an empty push later changes nothing more
        assert venue.json("venue_push")["pushed"][SLUG]["changes"] == 0
        same(hosted, venue)
    finally:
        hosted.close()
        venue.close()


@pytest.mark.slow(seconds=9)
def test_a_second_laptop_is_refused_until_a_director_moves_the_link(tmp_path):
    hosted, venue, token = two_sites(tmp_path)
    other = Site("other-laptop", tmp_path / "other")
    try:
        other.migrate()
        other.env["GIBSON_VENUE_LAPTOP_NAME"] = "Spare laptop"
        # before the first push: the second take is refused, naming the first laptop
        refused = other.manage("venue_take", hosted.url, token, "--json", check=False)
        assert refused.returncode != 0
        assert "is held by the laptop" in refused.stdout and "since" in refused.stdout
        assert "venue_move_link" in refused.stdout
        play(venue, 1)
        assert venue.json("venue_push")["ok"]
        same(hosted, venue)
        # the hosted console names the laptop
        status = hosted.shell(
            "from tournament.models import VenueLink\n"
            "link = VenueLink.objects.get()\n"
            "print(link.laptop_name)\n"
        )
        assert status.strip() and "Spare" not in status

        # the first laptop broke: a director moves the link (one audited action)
        moved = hosted.json("venue_move_link", SLUG)
        assert moved["ok"]
        other.start()
        other.json("venue_take", hosted.url, token)
        play(other, 2)
        assert other.json("venue_push")["ok"]
        same(hosted, other)
        # the first laptop's later push is refused, and writes nothing
        play(venue, 2)
        late = venue.manage("venue_push", "--json", check=False)
        assert late.returncode != 0 and "Spare laptop" in late.stdout
        same(hosted, other)
        audit = hosted.shell(
            "from tournament.models import AuditEvent\n"
            "print(AuditEvent.objects.get(action='move_venue_link').summary)\n"
        )
        assert "freed from" in audit
    finally:
        hosted.close()
        venue.close()
        other.close()


@pytest.mark.slow(seconds=9)
def test_a_laptop_restored_from_an_older_backup_asks_before_it_wipes_rounds(tmp_path):
    hosted, venue, _token = two_sites(tmp_path)
    try:
        play(venue, 1)
        venue.json("venue_push")
        backup(venue, tmp_path / "laptop-after-round-1.sqlite3")
        for r in (2, 3):
            play(venue, r)
            venue.json("venue_push")
        same(hosted, venue)

        # the laptop is restored from its backup after round 1, and round 2 is entered again
        restore(venue, tmp_path / "laptop-after-round-1.sqlite3")
        play(venue, 2)
        asked = venue.manage("venue_push", "--json", check=False)
        assert asked.returncode != 0 and "venue_hosted_ahead" in asked.stdout
        # nothing went: the hosted copy still has round 3
        games = hosted.get(f"/api/v1/tournaments/{SLUG}/divisions/a/games/?round=3&limit=50")
        assert games["count"] == 5
        # the laptop shows what each choice would remove
        status = venue.manage("venue_status").stdout
        assert "nothing is pushed until you choose" in status
        assert "division A, round 3: paired, 5 games" in status
        assert venue.json("venue_status")["links"][0]["diverged"]["hosted_only"]
        # the director brings the hosted copy's newer state down
        taken = venue.json("venue_resolve", SLUG, "--take-hosted")
        assert taken["kept"] == "hosted"
        same(hosted, venue)
        # and the event goes on from there
        play(venue, 4)
        assert venue.json("venue_push")["ok"]
        same(hosted, venue)
        rebases = hosted.shell(
            "from tournament.models import AuditEvent\n"
            "print(AuditEvent.objects.filter(action='venue_rebase').count())\n"
        )
        assert rebases.strip() == "0"
    finally:
        hosted.close()
        venue.close()


@pytest.mark.slow(seconds=7)
def test_serve_demo_on_the_laptop_pushes_by_itself(tmp_path):
    hosted = Site("hosted", tmp_path / "hosted")
    venue = Site("venue", tmp_path / "venue")
    server = None
    try:
        hosted.migrate()
        assert hosted.shell(MAKE_EVENT).strip().endswith(SLUG)
        token = hosted.json("venue_link", SLUG, "--venue", "Hall B")["token"]
        hosted.start()
        venue.env["GIBSON_DEMO_PASSWORD"] = "demo-pass-long-enough-1"
        venue.env["GIBSON_VENUE_PUSH_SECONDS"] = "0.5"  # not 2: the test waits for a push
        venue.migrate()
        venue.json("venue_take", hosted.url, token)
        # the director starts serve_demo, nothing else: no venue_sync in a second terminal
        # (a process of its own, forked from the site's warm parent as its commands are)
        server = venue.warm.spawn(
            ["serve_demo", "--addr", f"127.0.0.1:{venue.port}"], venue.env, venue.log
        )
        play(venue, 1)
        deadline = time.monotonic() + 120
        path = f"/api/v1/tournaments/{SLUG}/divisions/a/games/?round=1&limit=50"
        while time.monotonic() < deadline:
            games = hosted.get(path)
            if games["count"] and all(g["score1"] is not None for g in games["results"]):
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"the hosted copy never followed: {hosted.get(path)}")
        assert venue.json("venue_status")["links"][0]["changes_waiting"] == 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=20)
        hosted.close()
        venue.close()
