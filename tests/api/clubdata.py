"""A club built through tournament.clubs.services for the API's tests (and the schemathesis
run, whose schema names this club's slug as its example): members (one lapsed), a guest, two
closed nights of two games each in a running season, an archived season before it, and a
second club with a season of its own."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.contrib.auth.models import User

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.clubs import services as clubs
from tournament.clubs.models import Night, Season
from tournament.models import Club, Player

CLUB_SECRETS = ("rae@example.org", "+1 555 0199", "sam@example.org", "+44 20 7946 0000")

# (round, first, second, first's score, second's score) by player number, for both nights
NIGHT_GAMES = [(1, 1, 2, 420, 380), (1, 3, 4, 350, 410), (2, 1, 3, 390, 300), (2, 2, 4, 400, 400)]


@dataclass
class ClubData:
    club: Club
    organiser: User
    season: Season  # running (today is within its dates), both nights in it
    archived: Season  # earlier, no nights, archived
    nights: list[Night]
    other: Club
    other_season: Season


def build_club() -> ClubData:
    """The club "riverside" (SLUG_EXAMPLE in tournament.api.clubs) and the club "hilltop"."""
    organiser = User.objects.create_user("riverside-organiser", password="pw-long-enough-1")
    club = clubs.create_club(
        name="Riverside",
        slug="riverside",
        actor=organiser,
        city="Springfield",
        country="USA",
        meets="Tuesdays 7pm, Library",
    )
    for name in ("Reed, Rae", "Shaw, Sam", "Tate, Tia", "Vale, Viv"):
        clubs.add_member(club, name, actor=organiser, since=datetime.date(2024, 1, 9))
    Player.objects.filter(name="Reed, Rae").update(email=CLUB_SECRETS[0], phone=CLUB_SECRETS[1])
    Player.objects.filter(name="Shaw, Sam").update(email=CLUB_SECRETS[2])
    lapsed = club.memberships.get(player__name="Vale, Viv")
    clubs.update_member(lapsed, actor=organiser, active=False)
    today = datetime.date.today()
    start = today - datetime.timedelta(days=60)
    archived = clubs.create_season(
        club,
        name="Earlier",
        actor=organiser,
        preset="two-one",
        start_date=start - datetime.timedelta(days=90),
        end_date=start - datetime.timedelta(days=1),
    )
    clubs.archive_season(archived, actor=organiser)
    season = clubs.create_season(
        club,
        name="Current",
        actor=organiser,
        preset="wins",
        start_date=start,
        end_date=today + datetime.timedelta(days=30),
    )
    nights = []
    for days in (21, 14):
        night = clubs.create_night(
            club,
            date=today - datetime.timedelta(days=days),
            players=["Reed, Rae", "Shaw, Sam", "Tate, Tia"],
            guests=["Gray, Gus"],
            games=2,
            draw="random",
            actor=organiser,
        )
        division = night.tournament.divisions.get()
        for rnd in (1, 2):
            pairs = [PlannedGame(a, b) for r, a, b, _, _ in NIGHT_GAMES if r == rnd]
            save_round_pairings(division, rnd, pairs, actor=organiser)
        for rnd, a, _b, score, opp in NIGHT_GAMES:
            services.record_result(division, rnd, a, score, opp, actor=organiser)
        nights.append(clubs.close_night(night, actor=organiser))
    Player.objects.filter(name="Gray, Gus").update(phone=CLUB_SECRETS[3])
    other = clubs.create_club(
        name="Hilltop", slug="hilltop", actor=organiser, city="Shelbyville", country="USA"
    )
    other_season = clubs.create_season(
        other, name="Current", actor=organiser, start_date=start, end_date=today
    )
    club.refresh_from_db()
    return ClubData(club, organiser, season, archived, nights, other, other_season)
