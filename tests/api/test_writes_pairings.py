"""Pairing writes: a round paired by the engine, a round stored as drawn elsewhere, a round
unpaired; the console's functions underneath, directors only, one audit event each, and every
refusal in the one error shape with nothing written."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from pairings.services.store import PlannedGame, delete_round_pairings, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, First, Game, Round

from .conftest import token_client
from .denials import refused_without_change, scorekeeper, stranger
from .test_writes import refused

DIV = "/api/v1/tournaments/api-open/divisions/a/"


def pair_url(round_number: int) -> str:
    return f"{DIV}rounds/{round_number}/pair/"


def pairings_url(round_number: int) -> str:
    return f"{DIV}rounds/{round_number}/pairings/"


def counts() -> tuple:
    """Everything a pairing write could change: games (with their sides), rounds, audit."""
    return (
        Round.objects.count(),
        AuditEvent.objects.count(),
        list(
            Game.objects.order_by("pk").values_list(
                "round__number", "player1__number", "player2__number", "board", "score1", "score2"
            )
        ),
    )


def sides(round_number: int) -> list[tuple[int, int | None, int | None]]:
    games = Game.objects.filter(round__number=round_number).order_by("board", "pk")
    return [(g.player1.number, g.player2.number if g.player2 else None, g.board) for g in games]


@pytest.fixture
def unpaired(event):
    """The event with round 2's pairings removed: round 1 scored, round 2 ready to pair."""
    delete_round_pairings(event[1], 2)
    return event


EXPLICIT = {"games": [{"first": 1, "second": 3, "board": 1}, {"first": 4, "second": 2, "board": 2}]}


# --------------------------------------------------------------------------- who may


def _writes() -> list[tuple[str, str, dict | None]]:
    return [
        ("post", pair_url(2), {"system": "swiss"}),
        ("post", pairings_url(2), EXPLICIT),
        ("delete", pairings_url(2), None),
    ]


@pytest.mark.parametrize("method, url, body", _writes())
def test_anonymous_is_401(unpaired, method, url, body):
    refused_without_change(APIClient(), method, url, body, 401, "not_authenticated", counts)


@pytest.mark.parametrize("method, url, body", _writes())
def test_another_tournaments_director_is_403(unpaired, method, url, body):
    refused_without_change(stranger(), method, url, body, 403, "permission_denied", counts)


@pytest.mark.parametrize("method, url, body", _writes())
def test_a_scorekeeper_is_403(unpaired, django_user_model, method, url, body):
    client = scorekeeper(unpaired[0], django_user_model)
    refused_without_change(client, method, url, body, 403, "permission_denied", counts)


def test_a_token_revoked_a_moment_ago_is_401(unpaired, director):
    client = token_client(director)
    Token.objects.filter(user=director).delete()  # revoked, as the console's page does
    before = counts()
    refused(client.post(pairings_url(2), EXPLICIT, format="json"), 401, "not_authenticated")
    assert counts() == before


# --------------------------------------------------------------------------- the writes


def test_the_director_pairs_a_round_with_the_engine(unpaired, director):
    audits = AuditEvent.objects.count()
    r = token_client(director).post(pair_url(2), {"system": "swiss"}, format="json")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["number"] == 2 and len(body["games"]) == 2
    numbers = sorted(
        n for g in body["games"] for n in (g["player1"]["number"], g["player2"]["number"])
    )
    assert numbers == [1, 2, 3, 4]
    assert AuditEvent.objects.count() == audits + 1
    latest = AuditEvent.objects.latest("pk")
    assert (latest.action, latest.actor) == ("pair_round", director.username)
    assert Round.objects.get(number=2).system == "swiss"
    # the same pairing the console's page proposes (pairings.services.propose_round)
    assert len(sides(2)) == 2


def test_the_engine_pairing_equals_the_consoles_proposal(unpaired, director):
    from pairings.services.rounds import propose_round

    proposal = propose_round(unpaired[1], 2, "swiss")
    r = token_client(director).post(pair_url(2), {"system": "swiss"}, format="json")
    assert r.status_code == 201, r.content
    stored = {
        frozenset((g["player1"]["number"], g["player2"]["number"])) for g in r.json()["games"]
    }
    assert stored == {frozenset(p) for p in proposal.pairs}


def test_the_director_stores_a_round_paired_elsewhere(unpaired, director):
    audits = AuditEvent.objects.count()
    r = token_client(director).post(pairings_url(2), EXPLICIT, format="json")
    assert r.status_code == 201, r.content
    assert sides(2) == [(1, 3, 1), (4, 2, 2)]
    assert set(Game.objects.filter(round__number=2).values_list("first", flat=True)) == {
        First.PLAYER1
    }
    assert AuditEvent.objects.count() == audits + 1
    assert AuditEvent.objects.latest("pk").action == "pair_round"
    body = r.json()
    assert [
        (g["board"], g["player1"]["number"], g["player2"]["number"], g["first"])
        for g in body["games"]
    ] == [(1, 1, 3, 1), (2, 4, 2, 1)]


def test_a_withdrawn_player_gets_the_forfeit_not_a_game(unpaired, director):
    t, d = unpaired
    services.register_player(d, name="Eads, Ed", rating=1400)
    services.withdraw_player(d.entries.get(number=4), from_round=2)
    body = {"games": [{"first": 1, "second": 3, "board": 1}, {"first": 2, "second": 5, "board": 2}]}
    r = token_client(director).post(pairings_url(2), body, format="json")
    assert r.status_code == 201, r.content
    got = sorted(sides(2), key=lambda s: (s[1] is None, s[0]))
    assert got == [(1, 3, 1), (2, 5, 2), (4, None, None)]  # #4's withdrawal forfeit


def test_a_bye_is_stored_without_a_board(unpaired, director):
    t, d = unpaired
    services.register_player(d, name="Eads, Ed", rating=1400)
    body = {
        "games": [
            {"first": 1, "second": 3, "board": 1},
            {"first": 5, "second": 0, "board": 3},
            {"first": 4, "second": 2, "board": 2},
        ]
    }
    r = token_client(director).post(pairings_url(2), body, format="json")
    assert r.status_code == 201, r.content
    bye = Game.objects.get(round__number=2, player2__isnull=True)
    assert (bye.player1.number, bye.board, bye.score1) == (5, None, t.bye_spread)


def test_the_director_unpairs_the_last_round(event, director):
    audits = AuditEvent.objects.count()
    r = token_client(director).delete(pairings_url(2))
    assert r.status_code == 200, r.content
    assert r.json() == {"round": 2, "games_removed": 2}
    assert not Game.objects.filter(round__number=2).exists()
    assert AuditEvent.objects.count() == audits + 1
    assert AuditEvent.objects.latest("pk").action == "delete_pairings"


# --------------------------------------------------------------------------- refusals


def test_malformed_json_is_refused(unpaired, director):
    before = counts()
    for url in (pair_url(2), pairings_url(2)):
        r = token_client(director).post(url, '{"games": [', content_type="application/json")
        refused(r, 400, "malformed_json")
    assert counts() == before


@pytest.mark.parametrize(
    "url, body, code, field",
    [
        (pair_url(2), {"sytem": "swiss"}, "unknown_field", "sytem"),
        (pairings_url(2), {"games": EXPLICIT["games"], "force": True}, "unknown_field", "force"),
        (
            pairings_url(2),
            {"games": [{"first": 1, "second": 3, "boardd": 1}, {"first": 4, "second": 2}]},
            "unknown_field",
            "games.0.boardd",
        ),
        (pair_url(2), {"system": 7}, "wrong_type", "system"),
        (pair_url(2), {"system": "s" * 21}, "wrong_type", "system"),
        (pairings_url(2), {"games": "1-3, 4-2"}, "wrong_type", "games"),
        (pairings_url(2), {"games": []}, "wrong_type", "games"),
        (pairings_url(2), {}, "field_required", "games"),
        (pairings_url(2), {"games": [[1, 3], [4, 2]]}, "wrong_type", "games.0"),
        (
            pairings_url(2),
            {"games": [{"first": "1", "second": 3}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.first",
        ),
        (
            pairings_url(2),
            {"games": [{"first": 1, "second": 3, "board": 1.5}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.board",
        ),
        (
            pairings_url(2),
            {"games": [{"first": 0, "second": 3}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.first",
        ),
        (
            pairings_url(2),
            {"games": [{"first": 1, "second": -3}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.second",
        ),
        (
            pairings_url(2),
            {"games": [{"first": 1, "second": 3, "board": 0}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.board",
        ),
        (
            pairings_url(2),
            {"games": [{"first": 1, "second": 10**40}, {"first": 4, "second": 2}]},
            "wrong_type",
            "games.0.second",
        ),
    ],
)
def test_bad_bodies_are_refused_at_their_fields(unpaired, director, url, body, code, field):
    before = counts()
    refused(token_client(director).post(url, body, format="json"), 400, code, field)
    assert counts() == before


@pytest.mark.parametrize(
    "games, code",
    [
        ([(1, 3), (4, 9)], "pairing_unknown_player"),
        ([(1, 3), (4, 1)], "pairing_twice"),
        ([(1, 3)], "pairing_missing"),
        ([(1, 1), (4, 2)], "pairing_self"),
        ([(1, 3), (4, 0), (2, 0)], "pairing_byes"),
    ],
)
def test_a_pairing_that_does_not_pair_the_field_is_refused(unpaired, director, games, code):
    body = {"games": [{"first": a, "second": b} for a, b in games]}
    before = counts()
    refused(token_client(director).post(pairings_url(2), body, format="json"), 400, code, "games")
    assert counts() == before


def test_a_board_used_twice_is_refused(unpaired, director):
    body = {"games": [{"first": 1, "second": 3, "board": 1}, {"first": 4, "second": 2, "board": 1}]}
    before = counts()
    err = refused(
        token_client(director).post(pairings_url(2), body, format="json"),
        400,
        "pairing_board_twice",
        "games",
    )
    assert err["params"]["board"] == 1
    assert counts() == before


def test_a_withdrawn_player_cannot_be_paired(unpaired, director):
    services.withdraw_player(unpaired[1].entries.get(number=4), from_round=2)
    before = counts()
    body = {"games": [{"first": 1, "second": 3}, {"first": 4, "second": 2}]}
    refused(
        token_client(director).post(pairings_url(2), body, format="json"),
        400,
        "pairing_withdrawn",
        "games",
    )
    assert counts() == before


def test_an_already_paired_round_is_refused_unless_its_scored_games_are_kept(event, director):
    """The engine never re-pairs a paired round; stored pairings replace one (issue 17) only
    while every scored game stays with the same two players."""
    client = token_client(director)
    before = counts()
    refused(
        client.post(pair_url(2), {"system": "swiss"}, format="json"), 400, "pairing_already_paired"
    )
    error = refused(
        client.post(pairings_url(1), EXPLICIT, format="json"), 400, "pairing_changes_scored_game"
    )
    assert {error["params"]["player1"], error["params"]["player2"]} in ({1, 2}, {3, 4})
    assert counts() == before
    r = client.post(pairings_url(2), EXPLICIT, format="json")
    assert r.status_code == 201, r.content


def test_a_round_whose_earlier_round_is_unpaired_or_unscored_is_refused(unpaired, director):
    client = token_client(director)
    before = counts()
    refused(
        client.post(pairings_url(3), EXPLICIT, format="json"),
        400,
        "earlier_round_unpaired",
        "round",
    )
    refused(
        client.post(pair_url(3), {"system": "swiss"}, format="json"),
        400,
        "earlier_round_unpaired",
        "round",
    )
    assert counts() == before
    # round 2 paired but without results: the engine refuses round 3 (unless lagged)...
    save_round_pairings(unpaired[1], 2, [PlannedGame(1, 3), PlannedGame(2, 4)])
    before = counts()
    refused(
        client.post(pair_url(3), {"system": "swiss"}, format="json"),
        400,
        "earlier_round_incomplete",
        "round",
    )
    assert counts() == before
    # ...while a round drawn elsewhere may be stored, as TSH pairs a lagged round
    body = {"games": [{"first": 1, "second": 4}, {"first": 2, "second": 3}]}
    assert client.post(pairings_url(3), body, format="json").status_code == 201


def test_no_system_or_an_unknown_one_is_refused(unpaired, director):
    client = token_client(director)
    before = counts()
    refused(client.post(pair_url(2), {}, format="json"), 400, "no_system_scheduled", "system")
    refused(
        client.post(pair_url(2), {"system": "chess"}, format="json"),
        400,
        "unknown_system",
        "system",
    )
    assert counts() == before


@pytest.mark.parametrize("round_number", [0, 10000, 2**40])
def test_a_round_number_out_of_range_is_refused(unpaired, director, round_number):
    client = token_client(director)
    before = counts()
    refused(
        client.post(pair_url(round_number), {"system": "swiss"}, format="json"),
        400,
        "pairing_round_number",
        "round",
    )
    refused(
        client.post(pairings_url(round_number), EXPLICIT, format="json"),
        400,
        "pairing_round_number",
        "round",
    )
    refused(client.delete(pairings_url(round_number)), 400, "pairing_round_number", "round")
    assert counts() == before


def test_unpairing_is_refused_for_a_round_not_paired_one_before_the_last_or_one_scored(
    event, director
):
    client = token_client(director)
    before = counts()
    refused(client.delete(pairings_url(3)), 400, "no_pairings", "round")
    refused(client.delete(pairings_url(1)), 400, "pairing_later_paired")
    services.record_result(event[1], 2, 1, 400, 300)
    before = counts()
    refused(client.delete(pairings_url(2)), 400, "results_block_unpairing", "round")
    assert counts() == before


def test_unknown_division_is_404(unpaired, director):
    r = token_client(director).post(
        "/api/v1/tournaments/api-open/divisions/zz/rounds/2/pairings/", EXPLICIT, format="json"
    )
    refused(r, 404, "not_found")


def test_the_bye_moves_to_an_unscored_player_by_replacing_the_round(db):
    """Issue 17's "add a bye" in the API is the replace endpoint with a bye entry: in an odd
    round in play #3 takes the bye and its opponent #4 the bye player #5's game; the scored
    game stays exactly and the round still pairs every player once."""
    t = services.create_tournament(name="Bye Open", slug="bye-open")
    d = services.create_division(t, name="A", rounds=3)
    for k in range(5):
        services.register_player(d, name=f"Player, P{k + 1}", rating=1800 - 10 * k)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 0)])
    services.record_result(d, 1, 1, 420, 380)
    client = token_client(make_director(t, "byedirector"))
    url = "/api/v1/tournaments/bye-open/divisions/a/rounds/1/pairings/"
    body = {
        "games": [{"first": 1, "second": 2}, {"first": 4, "second": 5}, {"first": 3, "second": 0}]
    }
    r = client.post(url, body, format="json")
    assert r.status_code == 201, r.content
    got = sorted(
        (g.player1.number, g.player2.number if g.player2 else 0, g.score1)
        for g in Game.objects.filter(round__division=d, round__number=1)
    )
    assert got == [(1, 2, 420), (3, 0, t.bye_spread), (4, 5, None)]
    # Two byes in this odd round do not pair the field: refused, nothing changed.
    before = counts()
    body = {
        "games": [
            {"first": 1, "second": 2},
            {"first": 4, "second": 0},
            {"first": 5, "second": 0},
            {"first": 3, "second": 0},
        ]
    }
    refused(client.post(url, body, format="json"), 400, "pairing_byes")
    assert counts() == before


@pytest.fixture
def even_in_play(db):
    """Six players, round 1 in play: 1-2 scored, 3-4 and 5-6 unscored, no bye."""
    t = services.create_tournament(name="Bye Even", slug="bye-even")
    d = services.create_division(t, name="A", rounds=3)
    for k in range(6):
        services.register_player(d, name=f"Player, P{k + 1}", rating=1800 - 10 * k)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4), PlannedGame(5, 6)])
    services.record_result(d, 1, 1, 420, 380)
    return t, d


BYES = "/api/v1/tournaments/bye-even/divisions/a/rounds/1/byes/"


def _round_1(d) -> list[tuple[int, int, int | None]]:
    return sorted(
        (g.player1.number, g.player2.number if g.player2 else 0, g.score1)
        for g in Game.objects.filter(round__division=d, round__number=1)
    )


def test_byes_endpoint_adds_and_removes_a_bye_in_an_even_round(even_in_play):
    """The case the replace endpoint cannot say: a bye in an even round gives the opponent a
    bye too (two byes), and removing one pairs the two bye players again."""
    t, d = even_in_play
    client = token_client(make_director(t, "byes-td"))
    r = client.post(BYES, {"player": 3}, format="json")
    assert r.status_code == 200, r.content
    assert _round_1(d) == [(1, 2, 420), (3, 0, t.bye_spread), (4, 0, t.bye_spread), (5, 6, None)]
    assert AuditEvent.objects.latest("pk").action == "repair_unscored"
    assert len(r.json()["games"]) == 4
    r = client.post(BYES, {"player": 4, "remove": True}, format="json")
    assert r.status_code == 200, r.content
    assert _round_1(d) == [(1, 2, 420), (4, 3, None), (5, 6, None)]


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"player": 1}, "pairing_changes_scored_game", "player"),
        ({"player": 3, "remove": True}, "pairing_no_bye", "player"),
        ({"player": 3, "opponent": 4}, "pairing_malformed", "opponent"),
        ({"player": 9}, "pairing_not_in_round", "player"),
        ({"player": 3, "bye": 1}, "unknown_field", "bye"),
        ({}, "field_required", "player"),
    ],
)
def test_byes_endpoint_refusals_change_nothing(even_in_play, body, code, field):
    t, d = even_in_play
    client = token_client(make_director(t, "byes-td"))
    before = counts()
    refused(client.post(BYES, body, format="json"), 400, code, field)
    assert counts() == before


def test_byes_endpoint_is_for_the_tournaments_directors(even_in_play, django_user_model):
    t, d = even_in_play
    body = {"player": 3}
    refused_without_change(APIClient(), "post", BYES, body, 401, "not_authenticated", counts)
    refused_without_change(stranger(), "post", BYES, body, 403, "permission_denied", counts)
    keeper = scorekeeper(t, django_user_model)
    refused_without_change(keeper, "post", BYES, body, 403, "permission_denied", counts)
