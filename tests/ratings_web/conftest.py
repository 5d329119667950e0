"""A small rating world for the public rating pages, built through the services.

Two published tournaments rated on list "club" (nsa2008), an imported event with no division
(a list-only history), a draft tournament (never public), an upcoming tournament, a club with
members, contact details on every player (which no page may show), hostile names (a formula
and a ``<script>``), and a hand-made list "perf" whose event has known pre-event ratings.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from ratings.division import rate_division
from ratings.engine import RatedGame
from ratings.models import RatingList
from ratings.services import create_rating_list, submit_event
from tournament import services
from tournament.models import Club, Membership, Player


@pytest.fixture(autouse=True)
def page_cache(settings):
    """These tests change ratings straight in the tables (not through the services that move
    the versions) and count the queries of building a page, so they see pages uncached;
    test_page_cache.py turns the cache on."""
    settings.GIBSON_SITE_PAGE_CACHE = False


FORMULA = '=HYPERLINK("http://evil.example/","click")'
SCRIPT = "<script>alert(1)</script> Smith"


@dataclass
class World:
    club: RatingList
    perf: RatingList
    ann: Player
    bob: Player
    cat: Player
    dan: Player
    eve: Player
    spring: object
    summer: object
    draft: object
    upcoming: object


def _player(name: str, n: int, country: str = "") -> Player:
    return Player.objects.create(
        name=name, country=country, email=f"p{n}@secret-mail.example", phone=f"+1 555 01{n:02d}"
    )


def _event(name, start, players, rounds, published=True, classes=None):
    """A tournament of ``players`` [(player, seed)] with ``rounds`` [[(i, j, si, sj), ...]]
    (indexes into players; j None = bye with score si)."""
    t = services.create_tournament(name=name, start_date=start, published=published)
    d = services.create_division(t, name="A", rounds=max(len(rounds), 1))
    for i, (p, seed) in enumerate(players):
        services.register_player(d, player=p, rating=seed, player_class=(classes or {}).get(i, ""))
    for r, games in enumerate(rounds, start=1):
        planned = [
            PlannedGame(i + 1, (j + 1) if j is not None else 0, board=b + 1)
            for b, (i, j, _si, _sj) in enumerate(games)
        ]
        save_round_pairings(d, r, planned, system="manual")
        for i, j, si, sj in games:
            if j is None:
                services.record_result(d, r, i + 1, si)
            else:
                services.record_result(d, r, i + 1, si, sj)
    return t, d


@pytest.fixture
def world(db) -> World:
    ann = _player("Ann Alpha", 1, "CAN")
    bob = _player("Bob Beta", 2, "USA")
    cat = _player("Cat Gamma", 3, "USA")
    dan = _player(FORMULA, 4, "CAN")
    eve = _player(SCRIPT, 5, "GBR")
    alpha = Club.objects.create(name="Alpha Club", slug="alpha", country="CAN")
    Membership.objects.create(player=ann, club=alpha)
    Membership.objects.create(player=dan, club=alpha)
    Club.objects.create(name="Empty Club", slug="empty")

    club = create_rating_list("Club List", slug="club")
    # an imported history event: no division here, only the list's games
    submit_event(
        club,
        name="Old Club Night",
        date=datetime.date(2023, 1, 10),
        configured_rounds=2,
        games=[RatedGame(1, ann.pk, bob.pk, 400, 350), RatedGame(2, bob.pk, ann.pk, 420, 380)],
        start={ann.pk: (1500, 100), bob.pk: (1400, 100)},
    )
    spring_t, spring = _event(
        "Spring Open",
        datetime.date(2024, 3, 1),
        [(ann, 1500), (bob, 1400), (cat, 1600), (dan, 1450)],
        [
            [(0, 1, 450, 300), (2, 3, 400, 410)],
            [(0, 2, 390, 420), (1, 3, 380, 380)],
            [(0, 3, 512, 301), (1, 2, 300, 500)],
        ],
        classes={0: "A", 1: "A", 2: "A", 3: "B"},
    )
    rate_division(spring, club, date=datetime.date(2024, 3, 1))
    summer_t, summer = _event(
        "Summer Open",
        datetime.date(2024, 6, 1),
        [(ann, 1500), (bob, 1400), (eve, 1300)],
        [[(0, 1, 410, 400), (2, None, 50, None)], [(1, 2, 350, 360), (0, None, 50, None)]],
        classes={1: "C"},
    )
    rate_division(summer, club, date=datetime.date(2024, 6, 1))
    # a draft: its games are nobody's business yet
    draft_t, _ = _event(
        "Secret Draft",
        datetime.date(2024, 7, 1),
        [(ann, 1500), (bob, 1400)],
        [[(0, 1, 999, 100)]],
        published=False,
    )
    upcoming_t, _ = _event(
        "Future Cup",
        datetime.date(2099, 1, 1),
        [(ann, 1500), (cat, 1600)],
        [],
        classes={0: "B"},
    )
    # hand-made performance event: pre-event ratings are the start ratings given here
    perf = create_rating_list("Perf List", slug="perf")
    opp = [_player(f"Opp {r}", 10 + i) for i, r in enumerate((1400, 1600, 1700, 1300))]
    submit_event(
        perf,
        name="Perf Night",
        date=datetime.date(2024, 2, 1),
        configured_rounds=4,
        games=[
            RatedGame(1, cat.pk, opp[0].pk, 400, 300),  # win v 1400
            RatedGame(2, opp[0].pk, cat.pk, 400, 300),  # loss v 1400
            RatedGame(3, cat.pk, opp[1].pk, 400, 300),  # win v 1600
            RatedGame(4, opp[1].pk, cat.pk, 400, 300),  # loss v 1600
        ],
        start={cat.pk: (1500, 100), opp[0].pk: (1400, 100), opp[1].pk: (1600, 100)},
    )
    submit_event(
        perf,
        name="Perf Day",
        date=datetime.date(2024, 2, 2),
        configured_rounds=3,
        games=[
            RatedGame(1, eve.pk, opp[2].pk, 400, 300),  # win v 1700
            RatedGame(2, eve.pk, opp[3].pk, 400, 300),  # win v 1300
            RatedGame(3, opp[0].pk, eve.pk, 400, 300),  # loss v opp[0] (1400 before?)
        ],
        start={eve.pk: (1500, 100), opp[2].pk: (1700, 100), opp[3].pk: (1300, 100)},
    )
    return World(
        club=club,
        perf=perf,
        ann=ann,
        bob=bob,
        cat=cat,
        dan=dan,
        eve=eve,
        spring=spring_t,
        summer=summer_t,
        draft=draft_t,
        upcoming=upcoming_t,
    )
