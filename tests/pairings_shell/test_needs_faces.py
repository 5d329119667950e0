"""'What I need' through its faces: the command, the API (public read, in the schema, cached
per version) and the player's page (a section only while a paired round is being played);
bad input refused with a clear message, changing nothing."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from pairings.needs import DEFAULT_PLACES, division_needs
from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.interchange.imports import import_tsh
from tournament.models import AuditEvent, Division

pytestmark = pytest.mark.django_db

URL = "/api/v1/tournaments/need-open/divisions/a/needs/"


def _division(rounds: int, prize_places: int = 0) -> Division:
    """Four players; round 1 scored (Able beat Baker by 40, Dunn beat Cole by 60); round 2
    paired (Able v Dunn, Baker v Cole), no result yet."""
    t = services.create_tournament(name="Need Open", slug="need-open")
    services.publish_tournament(t, True, None)
    d = services.create_division(t, name="A", rounds=rounds, prize_places=prize_places)
    for name, rating in (
        ("Able, Ann", 1800),
        ("Baker, Bo", 1700),
        ("Cole, Cy", 1600),
        ("Dunn, Di", 1500),
    ):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 420, 380)
    services.record_result(d, 1, 3, 350, 410)
    save_round_pairings(d, 2, [PlannedGame(1, 4), PlannedGame(2, 3)])
    d.refresh_from_db()
    return d


@pytest.fixture
def last_round() -> Division:
    return _division(rounds=2, prize_places=2)


@pytest.fixture
def early() -> Division:
    return _division(rounds=4)


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_last_round_paired_gives_exact_statements(last_round):
    result = division_needs(last_round)
    assert result.mode == "exact"
    assert result.places == 2 and not result.places_default
    by_number = {v.number: v for v in result.players}
    # Able (1-0 +40) plays Dunn (1-0 +60): the winner is 1st, whatever else happens; on a
    # tie both are 1.5-0.5 and Dunn's spread is the better
    assert by_number[1].lines[0] == "1st if you win."
    assert by_number[4].lines[0] == "1st if you win or tie."
    first = by_number[1].needs[0]
    assert first["exact"] and first["status"] == "open"
    assert first["alternatives"] == [
        [{"kind": "margin", "player": 1, "lo": 1, "hi": 500, "bound": 500}]
    ]
    # Baker and Cole (0-1) can no longer be 1st: the winner of Able v Dunn is 2-0
    assert "Can no longer finish above 2nd." in by_number[2].lines


def test_earlier_rounds_give_safe_bounds_and_the_default_places(early):
    result = division_needs(early)
    assert result.mode == "bounds"
    assert result.places == DEFAULT_PLACES and result.places_default
    assert any("no prize places" in a for a in result.assumptions)
    assert all(v.lines for v in result.players)


def test_command_text_and_json(last_round):
    text = run("needs", "need-open", "--division", "A")
    assert "#1 Able, Ann" in text and "1st if you win." in text
    data = json.loads(run("needs", "need-open", "--player", "4", "--json"))
    assert data["mode"] == "exact"
    assert [p["number"] for p in data["players"]] == [4]
    assert data["players"][0]["needs"][0]["text"] == "1st if you win or tie."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("needs", "nope"), "no tournament"),
        (("needs", "need-open", "--division", "Q"), "no division 'Q'"),
        (("needs", "need-open", "--player", "9"), "no player number 9"),
        (("needs", "need-open", "--player", "0"), "--player 0"),
    ],
)
def test_command_refuses_bad_input(last_round, args, message):
    before = AuditEvent.objects.count()
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert AuditEvent.objects.count() == before


def test_api_is_a_public_read_equal_to_the_command(last_round):
    r = APIClient().get(URL)
    assert r.status_code == 200
    assert r.json() == json.loads(run("needs", "need-open", "--json"))
    etag = r["ETag"]
    assert APIClient().get(URL, HTTP_IF_NONE_MATCH=etag).status_code == 304
    one = APIClient().get(URL + "?player=2").json()
    assert [p["number"] for p in one["players"]] == [2]


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("?player=x", 400, "not a whole number"),
        ("?player=0", 400, "at least 1"),
        ("?player=9", 400, "no player number 9"),
    ],
)
def test_api_refuses_bad_input(last_round, query, status, words):
    r = APIClient().get(URL + query)
    assert r.status_code == status
    assert words in json.dumps(r.json())


def test_api_unknown_division_is_404(last_round):
    r = APIClient().get("/api/v1/tournaments/need-open/divisions/zz/needs/")
    assert r.status_code == 404


def test_schema_lists_the_needs_read(db):
    r = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = r.json()["paths"]
    assert "/api/v1/tournaments/{slug}/divisions/{division}/needs/" in paths


def test_player_page_shows_what_you_need_while_the_round_is_played(last_round):
    page = Client().get("/t/need-open/a/player/1/")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'aria-labelledby="needs-heading"' in html and "What you need" in html
    assert "1st if you win." in html


def test_player_page_has_no_section_between_rounds(last_round):
    services.record_result(last_round, 2, 1, 400, 390)
    services.record_result(last_round, 2, 2, 400, 390)
    html = Client().get("/t/need-open/a/player/1/").content.decode()
    assert "What you need" not in html


def test_a_real_division_before_its_last_results(real_data):
    """naspa-2023-a.t with its last round's games unplayed again: every ranked player gets
    an exact answer, the leader's page shows it, and the shell's input is the pure builder's
    on the same games."""
    from pairings.needs import needs_input, needs_input_from, prepared_from_standings
    from tournament.models import Game
    from tournament.selectors import DivisionSnapshot, player_rounds

    tournament = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    services.publish_tournament(tournament, True, None)
    division = tournament.divisions.get()
    Game.objects.filter(round__division=division, round__number=23, player2__isnull=False).update(
        score1=None, score2=None
    )
    result = division_needs(division)
    assert result.mode == "exact"
    assert all(v.lines for v in result.players)
    players, rounds = player_rounds(division)
    pure = needs_input_from(
        players,
        rounds,
        spread_cap=tournament.spread_cap_rule,
        rounds_total=division.rounds,
        prize_places=division.prize_places,
    )
    shell = needs_input(division)[0]
    assert shell.players == pure.players and shell.places == pure.places
    assert sorted(shell.pending, key=repr) == sorted(pure.pending, key=repr)
    assert len(shell.pending) >= 10 and not shell.future_margins
    # the page's path (standings it has, unplayed games) gives the same input
    snapshot = DivisionSnapshot.load(division)
    last = snapshot.last_round()
    pending = [
        (r.player, r.opponent, r.round)
        for r in rounds
        if r.opponent is not None and r.player < r.opponent and r.score is None
    ]
    ready = prepared_from_standings(division, snapshot.standings(tournament, last), pending, last)
    assert ready is not None
    assert ready[0].players == shell.players and ready[0].places == shell.places
    assert sorted(ready[0].pending, key=repr) == sorted(shell.pending, key=repr)
    leader = next(v for v in result.players if v.rank == 1)
    html = Client().get(f"/t/{tournament.slug}/{division.slug}/player/{leader.number}/")
    assert "What you need" in html.content.decode()
    assert leader.lines[0].split(" ")[0] in html.content.decode()


def test_a_withdrawn_player_is_told_so_and_leaves_the_others_exact(last_round):
    """Cole withdraws from round 2: his game becomes a forfeit (Baker's bye), he is not
    ranked, and Able v Dunn is the only game left to play."""
    entry = last_round.entries.get(number=3)
    services.withdraw_player(entry, from_round=2)
    result = division_needs(last_round, 3)
    assert result.players[0].lines == ["Withdrawn: not ranked, no prize place."]
    everyone = division_needs(last_round)
    assert everyone.mode == "exact"
    assert 3 not in {v.number for v in everyone.players}
    data = json.loads(run("needs", "need-open", "--player", "3", "--json"))
    assert data["players"][0]["needs"] == []


def test_a_draft_is_not_read_by_the_public(last_round):
    services.publish_tournament(last_round.tournament, False, None)
    assert APIClient().get(URL).status_code == 404
