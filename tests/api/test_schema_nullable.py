"""Every API answer conforms to the OpenAPI schema on an event with every nullable value in it.

Typed clients are generated from the schema: a field the API answers with ``null`` must be
declared nullable there, or the client breaks (issue 18 item 6: ``"rating_list": null`` on every
division without a rating list was declared a required string). The event here has a division
without a rating list, a withdrawn player, a bye, a forfeit and a paired round not yet scored,
and each read operation's answer is checked against the schema's own response schema
(OpenAPI 3.0's ``nullable`` turned into JSON Schema's ``null`` type), so a field answered with
a null that the schema does not allow fails the test with its path.
"""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _json_schema(node: Any, components: dict) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema: ``$ref`` resolved, ``nullable`` as a null type."""
    if isinstance(node, list):
        return [_json_schema(v, components) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        return _json_schema(components[name], components)
    out = {k: _json_schema(v, components) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


@pytest.fixture
def schema() -> dict:
    r = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    return r.json()


def _check(schema: dict, path: str, url: str) -> Any:
    response = Client().get(url, HTTP_ACCEPT="application/json")
    assert response.status_code == 200, (url, response.content[:300])
    body = response.json()
    op = schema["paths"][path]["get"]
    declared = op["responses"]["200"]["content"]["application/json"]["schema"]
    validator = jsonschema.Draft7Validator(_json_schema(declared, schema["components"]["schemas"]))
    errors = [
        f"{url} {'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator.iter_errors(body)
    ]
    assert not errors, "\n".join(errors)
    return body


def test_every_read_answers_by_its_schema_with_nulls_in_it(schema, nullable_event):
    t, d = nullable_event
    base = "/api/v1/tournaments/{slug}/divisions/{division}/"
    reads = {
        "/api/v1/tournaments/": "/api/v1/tournaments/",
        "/api/v1/tournaments/{slug}/": f"/api/v1/tournaments/{t.slug}/",
        "/api/v1/tournaments/{slug}/divisions/": f"/api/v1/tournaments/{t.slug}/divisions/",
    }
    division = f"/api/v1/tournaments/{t.slug}/divisions/{d.slug}/"
    reads[base] = division
    for tail in ("entries/", "games/", "rounds/", "standings/"):
        reads[base + tail] = division + tail
    bodies = {path: _check(schema, path, url) for path, url in reads.items()}
    # the nulls the event is built to have are really in the answers
    assert bodies[base]["rating_list"] is None
    games = bodies[base + "games/"]
    games = games.get("results", games) if isinstance(games, dict) else games
    assert any(g["player2"] is None for g in games)  # a bye / forfeit
    assert any(g["score1"] is None for g in games)  # a game not yet scored
    for entry in d.entries.all():
        body = _check(schema, base + "entries/{number}/", f"{division}entries/{entry.number}/")
        if entry.number == 6:
            assert body.get("withdrawn_round") == 2 or body.get("withdrawn") is not None
        _check(schema, "/api/v1/players/{id}/", f"/api/v1/players/{entry.player_id}/")


def test_rating_list_is_declared_nullable(schema):
    components = schema["components"]["schemas"]
    division = next(v for k, v in components.items() if k == "Division")
    assert division["properties"]["rating_list"].get("nullable") is True


def test_club_reads_answer_by_their_schema(schema, club_data):
    """The club side too: a club without a current season, members, ladders."""
    from tournament.clubs import services as clubs

    organiser = club_data.organiser
    bare = clubs.create_club(name="Bare", slug="bare", actor=organiser)
    _check(schema, "/api/v1/clubs/", "/api/v1/clubs/")
    for slug in (club_data.club.slug, bare.slug):
        club = _check(schema, "/api/v1/clubs/{slug}/", f"/api/v1/clubs/{slug}/")
        for tail in ("members/", "nights/", "seasons/"):
            _check(schema, "/api/v1/clubs/{slug}/" + tail, f"/api/v1/clubs/{slug}/{tail}")
        if slug == bare.slug:
            assert club["current_season"] is None
    for season in (club_data.season, club_data.archived):
        _check(
            schema,
            "/api/v1/clubs/{slug}/seasons/{season}/ladder/",
            f"/api/v1/clubs/{club_data.club.slug}/seasons/{season.pk}/ladder/",
        )
