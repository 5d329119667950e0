"""Move a player to another division and renumber by seed rating, through the API (issue 17):
the console's services underneath, directors only, one audit event each, every refusal in the
one error shape with its code and nothing written."""

from __future__ import annotations

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.models import AuditEvent, Entry

from .conftest import token_client
from .denials import refused_without_change, scorekeeper, stranger
from .test_writes import refused

pytestmark = pytest.mark.django_db

DIV = "/api/v1/tournaments/move-open/divisions/"


@pytest.fixture
def open_event():
    """Two divisions before round 1: A has three players entered out of rating order."""
    t = services.create_tournament(name="Move Open", slug="move-open")
    services.publish_tournament(t, True, None)
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for name, rating in (("Cole, Cy", 1600), ("Able, Ann", 1800), ("Baker, Bo", 1700)):
        services.register_player(a, name=name, rating=rating)
    services.register_player(b, name="Dunn, Di", rating=1500)
    return t, a, b


@pytest.fixture
def td(open_event):
    return token_client(make_director(open_event[0], "movedirector"))


def numbers(division) -> list[tuple[int, str]]:
    return list(division.entries.order_by("number").values_list("number", "player__name"))


def counts() -> tuple:
    return (
        AuditEvent.objects.count(),
        sorted(Entry.objects.values_list("division__name", "number", "player__name")),
    )


def test_a_director_moves_a_player_to_another_division(open_event, td):
    t, a, b = open_event
    r = td.post(DIV + "a/entries/1/move/", {"division": "b"}, format="json")
    assert r.status_code == 200, r.content
    assert r.json() == {
        "division": "b",
        "number": 2,
        "name": "Cole, Cy",
        "from_division": "a",
        "from_number": 1,
    }
    assert numbers(a) == [(1, "Able, Ann"), (2, "Baker, Bo")]
    assert numbers(b) == [(1, "Dunn, Di"), (2, "Cole, Cy")]
    assert AuditEvent.objects.latest("pk").action == "move_entry"


def test_a_director_renumbers_by_seed_rating(open_event, td):
    t, a, b = open_event
    r = td.post(DIV + "a/renumber/", format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["moved"] == 3
    assert body["numbers"][0] == {"old": 2, "new": 1, "name": "Able, Ann", "seed_rating": 1800}
    assert numbers(a) == [(1, "Able, Ann"), (2, "Baker, Bo"), (3, "Cole, Cy")]
    assert AuditEvent.objects.latest("pk").action == "renumber"


def test_after_round_1_both_are_refused(open_event, td):
    t, a, b = open_event
    save_round_pairings(a, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    before = counts()
    refused(td.post(DIV + "a/renumber/", format="json"), 400, "reg_numbers_fixed", "entry")
    error = refused(
        td.post(DIV + "a/entries/1/move/", {"division": "b"}, format="json"),
        400,
        "reg_numbers_fixed",
    )
    assert error["params"]["round"] == 1
    assert counts() == before


@pytest.mark.parametrize(
    ("url", "body", "status", "code", "field"),
    [
        ("a/entries/1/move/", {"division": "zz"}, 400, "unknown_division", "division"),
        ("a/entries/1/move/", {"division": "a"}, 400, "reg_move_where", "division"),
        ("a/entries/1/move/", {}, 400, "field_required", "division"),
        ("a/entries/1/move/", {"division": "b", "to": "c"}, 400, "unknown_field", "to"),
        ("a/entries/9/move/", {"division": "b"}, 404, "not_found", None),
        ("zz/entries/1/move/", {"division": "b"}, 404, "not_found", None),
        ("zz/renumber/", {}, 404, "not_found", None),
    ],
)
def test_bad_requests_are_refused_with_their_code(open_event, td, url, body, status, code, field):
    before = counts()
    refused(td.post(DIV + url, body, format="json"), status, code, field)
    assert counts() == before


@pytest.mark.parametrize(
    ("url", "body"), [("a/entries/1/move/", {"division": "b"}), ("a/renumber/", {})]
)
def test_only_the_tournaments_directors_may(open_event, django_user_model, url, body):
    from rest_framework.test import APIClient

    t = open_event[0]
    refused_without_change(APIClient(), "post", DIV + url, body, 401, "not_authenticated", counts)
    refused_without_change(stranger(), "post", DIV + url, body, 403, "permission_denied", counts)
    keeper = scorekeeper(t, django_user_model)
    refused_without_change(keeper, "post", DIV + url, body, 403, "permission_denied", counts)


def test_the_schema_documents_both_endpoints(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    paths = schema["paths"]
    move = paths["/api/v1/tournaments/{slug}/divisions/{division}/entries/{number}/move/"]
    ref = move["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert request["required"] == ["division"]
    renumber = paths["/api/v1/tournaments/{slug}/divisions/{division}/renumber/"]
    assert {"200", "400", "403"} <= set(renumber["post"]["responses"])
