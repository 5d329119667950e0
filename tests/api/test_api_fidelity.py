"""Issue 35's API items: a division by its name as well as its slug, a negative round or
player number refused as such (``below_minimum``, not ``number_too_large``), the minimums in
the OpenAPI schema, and no notes for the code's readers in the published descriptions."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tournament import services

BASE = "/api/v1/tournaments/api-open/divisions/"


def _schema() -> dict:
    r = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    return r.json()


def test_a_division_is_found_by_its_name_as_well_as_its_slug(event):
    t, d = event
    by_slug = APIClient().get(BASE + "a/standings/")
    by_name = APIClient().get(BASE + "A/standings/")
    assert by_slug.status_code == by_name.status_code == 200
    assert by_name.json() == by_slug.json()
    spaced = services.create_division(t, name="Div 1", rounds=3)
    assert spaced.slug != "Div 1"
    assert APIClient().get(BASE + "Div%201/").json()["name"] == "Div 1"
    assert APIClient().get(BASE + "div%201/").json()["name"] == "Div 1"  # one such name
    assert APIClient().get(BASE + "zz/").status_code == 404


@pytest.mark.parametrize("path", ["standings/", "chances/"])
def test_a_negative_round_is_refused_as_below_the_minimum(event, path):
    r = APIClient().get(BASE + "a/" + path, {"after_round": "-1"})
    assert r.status_code == 400
    error = r.json()["errors"][0]
    assert (error["field"], error["code"]) == ("after_round", "below_minimum")
    assert "at least 0" in error["message"]


def test_a_negative_player_or_round_filter_is_refused(event):
    for key in ("round", "player"):
        r = APIClient().get(BASE + "a/games/", {key: "-1"})
        assert r.status_code == 400, key
        assert r.json()["errors"][0]["field"] == key
    assert APIClient().get(BASE + "a/games/", {"round": "1"}).status_code == 200


def test_the_schema_gives_the_minimums(db):
    paths = _schema()["paths"]

    def params(path: str) -> dict[str, dict]:
        return {p["name"]: p["schema"] for p in paths[path]["get"].get("parameters", [])}

    div = "/api/v1/tournaments/{slug}/divisions/{division}/"
    assert params(div + "standings/")["after_round"]["minimum"] == 0
    assert params(div + "chances/")["after_round"]["minimum"] == 0
    assert params(div + "needs/")["player"]["minimum"] == 1
    games = params(div + "games/")
    assert games["round"]["minimum"] == 1 and games["player"]["minimum"] == 1
    assert params(div + "rounds/{round}/clock/")["round"]["minimum"] == 1
    assert params(div + "entries/{number}/")["number"]["minimum"] == 1
    for path, operations in paths.items():
        for name in ("round", "number"):
            if "{" + name + "}" in path:
                for op in operations.values():
                    [p] = [p for p in op["parameters"] if p["name"] == name and p["in"] == "path"]
                    assert p["schema"]["minimum"] == 1, (path, name)


INTERNAL = re.compile(
    r"(?<!manage)\.py\b|\btournament\.\w|\bselectors\b|a fifth of a second|SQLite|PostgreSQL"
    r"|issue \d"
)


def test_no_note_for_the_code_s_readers_is_published(db):
    found = []

    def walk(node, where):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str) and INTERNAL.search(value):
                    found.append((where, value[:120]))
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    walk(_schema(), "")
    assert found == []
