"""TSH .t lines on the Players page (issue 31, a director's weekend).

Pasting a division's .t roster into the paste box gave 20 false "longer than 200 characters"
errors: the box read each line as "Name rating" and the pairings and scores as the name. Now
.t lines, pasted or uploaded, register their players (names, ratings, classes, ids) in file
order; a .t with results is refused unless the director takes only its roster, and always in
a division that already has games (its results cannot be merged with the division's own).
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Entry, Game, Player

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

# Twenty players as TSH writes a roster before round 1: rating, then "; " and no scores, some
# with a NASPA id after the name, a class, career games.
ROSTER = "# division B, entered by TSH\n" + "".join(
    f"Player{n:02d}, Pat{f':NA{n:04d}' if n % 5 == 0 else ''} {2000 - n * 10} ;"
    f"{' ; class B' if n > 15 else ''} ; lifeg {n * 7}\n"
    for n in range(1, 21)
)

# Two players after round 2: pairings and scores (TSH's own file mid-event).
WITH_RESULTS = "Able, Ann 1800 2 2; 420 390; p12 1 2\nBaker, Bo 1700 1 1; 380 400; p12 2 1\n"


@pytest.fixture
def division():
    t = services.create_tournament(name="T Open", actor="test", late_entry="forfeit")
    return services.create_division(t, name="B", rounds=7, actor="test")


@pytest.fixture
def td(client, division):
    client.force_login(make_director(division.tournament, "t-td"))
    return client


def url(division, name="players_paste"):
    return reverse(f"console:{name}", args=(division.tournament.slug, division.slug))


def counts():
    return (
        Entry.objects.count(),
        Player.objects.count(),
        Game.objects.count(),
        AuditEvent.objects.count(),
    )


def error_at(response, field_id):
    html = response.content.decode()
    marker = f'id="{field_id}_error">'
    assert marker in html, html[:3000]
    return html.split(marker, 1)[1].split("</p>", 1)[0]


def test_pasted_t_roster_registers_every_player_in_file_order(td, division):
    response = td.post(url(division), {"lines": ROSTER}, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200, body[:3000]
    assert "longer than 200" not in body
    assert "Registered 20 players: #1 Player01, Pat, #2 Player02, Pat," in body
    entries = list(division.entries.order_by("number").select_related("player"))
    assert [(e.number, e.player.name, e.seed_rating) for e in entries[:2]] == [
        (1, "Player01, Pat", 1990),
        (2, "Player02, Pat", 1980),
    ]
    assert entries[4].player.naspa_id == "NA0005"  # the ":ID" is the player's NASPA id
    assert [e.player_class for e in entries[14:17]] == ["", "B", "B"]
    assert not Game.objects.exists()


def test_an_uploaded_t_file_registers_its_roster(td, division):
    services.register_player(division, name="Zed, Zoe", rating=1000, actor="test")
    upload = SimpleUploadedFile("b.t", ROSTER.encode("iso-8859-1"), "text/plain")
    response = td.post(url(division), {"t_file": upload}, **HTMX)
    assert response.status_code == 200, response.content.decode()[:3000]
    assert "Registered 20 players: #2 Player01, Pat," in response.content.decode()
    assert division.entries.count() == 21


def test_a_t_with_results_is_refused_unless_only_its_roster_is_taken(td, division):
    before = counts()
    refused = td.post(url(division), {"lines": WITH_RESULTS}, **HTMX)
    assert refused.status_code == 400
    message = error_at(refused, "id_lines")
    assert message.startswith("line 1: Able, Ann has pairings or scores (2 lines with results)")
    assert "records no games" in message
    assert counts() == before
    taken = td.post(url(division), {"lines": WITH_RESULTS, "roster_only": "on"}, **HTMX)
    assert taken.status_code == 200
    assert "Registered 2 players: #1 Able, Ann, #2 Baker, Bo." in taken.content.decode()
    assert not Game.objects.exists()  # the file's games were left out, as asked


def test_a_t_with_results_is_refused_in_a_division_with_games(td, division):
    for name in ("Cole, Cy", "Dunn, Di"):
        services.register_player(division, name=name, rating=1500, actor="test")
    save_round_pairings(division, 1, [PlannedGame(1, 2)], system="manual", actor="test")
    before = counts()
    for data in ({"lines": WITH_RESULTS}, {"lines": WITH_RESULTS, "roster_only": "on"}):
        refused = td.post(url(division), data, **HTMX)
        assert refused.status_code == 400
        assert "division B has games of its own" in error_at(refused, "id_lines")
    assert counts() == before


@pytest.mark.parametrize(
    "text, message",
    [
        ("Able, Ann 1800 ;\nBaker, Bo ;\n", "line 2: malformed player line: no rating"),
        ("Able, Ann 1800 ;\nBaker, Bo 1700\n", "line 2: malformed player line: no &#x27;;&#x27;"),
        (
            "Able, Ann 1800 ;\nBaker, Bo 3500 ;\n",
            "line 2: player 2 (Baker, Bo): rating 3500 is out of range",
        ),
        ("Able, Ann 1800 ;\nable, ann 1700 ;\n", "line 2: able, ann is already on line 1"),
    ],
)
def test_a_bad_t_line_is_named_and_nothing_registered(td, division, text, message):
    before = counts()
    refused = td.post(url(division), {"lines": text}, **HTMX)
    assert refused.status_code == 400
    assert message in error_at(refused, "id_lines")
    assert counts() == before
