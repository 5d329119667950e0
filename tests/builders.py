"""Test data several test modules build alike, built by one function each (so a change to how
a club night or a division is made is written once). Each goes through the services, as a
director or organiser would."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.clubs import services as club_services
from tournament.models import Tournament

PW = "pw-long-enough-1"


def club_with_a_night(organiser: str, *, preset: str) -> tuple[Any, Any, Any, User]:
    """A club (Riverside Scrabble) with four members, a season around today whose ladder
    scores by ``preset``, and one closed night of one game (two boards, the first-named player
    of each winning 400-350): (club, season, night, organiser)."""
    org = User.objects.create_user(organiser, password=PW)
    club = club_services.create_club(name="Riverside Scrabble", actor=org, city="Riverton")
    names = ("Ann Lee", "Bob Ray", "Cat Ames", "Dan Oak")
    players = [club_services.add_member(club, n, actor=org).player for n in names]
    today = timezone.localdate()
    season = club_services.create_season(
        club,
        name="Winter",
        start_date=(today - datetime.timedelta(days=30)).isoformat(),
        end_date=(today + datetime.timedelta(days=30)).isoformat(),
        actor=org,
        preset=preset,
    )
    night = club_services.create_night(
        club, date=today, players=players, guests=[], games=1, draw="random", actor=org
    )
    club_services.pair_next_game(night, actor=org)
    division = night.tournament.divisions.get()
    for game in division.round_set.get(number=1).games.all():
        services.record_result(division, 1, game.player1.number, 400, 350)
    club_services.close_night(night, actor=org)
    return club, season, night, org


def last_round_paired(name: str, slug: str) -> Tournament:
    """A published tournament of one division A: ten players close together after two
    rounds, round 3 (the last) paired, four prize places. What each needs has open places
    with long statements, clinched and lost ones."""
    t = services.create_tournament(name=name, slug=slug)
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=3, prize_places=4)
    for i in range(10):
        services.register_player(d, name=f"P{i:02d}, Pat", rating=2000 - i * 10)
    save_round_pairings(d, 1, [PlannedGame(2 * i + 1, 2 * i + 2) for i in range(5)])
    for i in range(5):
        services.record_result(d, 1, 2 * i + 1, 400 + i * 3, 380 - i * 2)
    pairs = [(1, 3), (5, 7), (9, 2), (4, 6), (8, 10)]
    save_round_pairings(d, 2, [PlannedGame(a, b) for a, b in pairs])
    for a, scores in zip(
        (1, 5, 9, 4, 8),
        ((400, 390), (410, 400), (380, 400), (405, 395), (390, 385)),
        strict=True,
    ):
        services.record_result(d, 2, a, *scores)
    pairs = [(1, 5), (3, 9), (7, 4), (2, 6), (8, 10)]
    save_round_pairings(d, 3, [PlannedGame(a, b) for a, b in pairs])
    return t
