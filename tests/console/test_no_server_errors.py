"""No console request answers 500, whatever it is sent.

Every console URL (and the site-level console pages) is requested as the tournament's director
with GET and with POSTs whose every known field name carries hostile values: empty, letters,
negative, huge, a NUL byte, a superscript digit, 1e999, 5,000 characters, Arabic-Indic digits.
The test client re-raises any exception a view lets through, so a traceback fails the test; a
response must be a page (2xx/3xx) or a refusal (4xx), never 5xx.
"""

from __future__ import annotations

import pytest
from django.urls import URLPattern

from pairings.services.store import PlannedGame, save_round_pairings
from tests.core.conftest import make_director
from tournament import services
from tournament.web.console import setup as console_setup
from tournament.web.console import urls as console_urls

pytestmark = pytest.mark.django_db

JUNK = ["", "x", "-1", "0", "99999999999999999999", "\x00", "²", "1e999", "a" * 5000, "٣"]
FIELDS = [
    "line",
    "reopened",
    "name",
    "rating",
    "player_class",
    "lines",
    "entry",
    "pick",
    "new",
    "confirm",
    "round",
    "seed_rating",
    "action",
    "games",
    "pins",
    "system",
    "swap-a",
    "swap-b",
    "pin-a",
    "pin-b",
    "publish-games",
    "reason",
    "score1",
    "score2",
    "game",
    "on",
    "role",
    "user",
    "username",
    "email",
    "password",
    "password1",
    "password2",
    "first_round",
    "last_round",
    "lag",
    "number_a",
    "number_b",
    "start_date",
    "end_date",
    "venue",
    "realm",
    "bye_spread",
    "forfeit_spread",
    "spread_cap",
    "max_rounds",
    "gibson_spread",
    "late_entry",
    "paper",
    "slug",
    "rounds",
    "rating_system",
    "rating_list",
    "prize_places",
    "published",
    "card",
    "pk",
    "divisions-TOTAL_FORMS",
    "divisions-INITIAL_FORMS",
    "divisions-0-name",
    "divisions-0-rounds",
    # weekends and federation files (issue 22)
    "event",
    "position",
    "seed_from_earlier",
    "anyway",
    "ids",
    # entries online and check-in (issue 22)
    "opens",
    "closes",
    "a-cap",
    "a-rating_min",
    "a-rating_max",
    "a-fee_amount",
    "a-fee_currency",
    "to",
    "here",
]


@pytest.fixture
def event(client):
    t = services.create_tournament(name="Sweep Open")
    d = services.create_division(t, name="A", rounds=4)
    for name in ["Ann", "Bob", "Cat", "Dan", "Eve"]:
        services.register_player(d, name=f"{name}, Test", rating=1500)
    save_round_pairings(
        d, 1, [PlannedGame(1, 2, board=1), PlannedGame(3, 4, board=2), PlannedGame(5, 0)]
    )
    services.record_result(d, 1, 1, 400, 300)
    client.force_login(make_director(t, "sweep-td"))
    return t, d


def _paths(t, d) -> list[str]:
    """Every console path with its arguments filled: real ones and hostile ones."""
    out = []
    for pattern in console_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        route = str(pattern.pattern)
        for division in (d.slug, "nope"):
            for rnd in ("1", "2", "999999"):
                for pk in ("1", "999999"):
                    path = (
                        route.replace("<str:division>", division)
                        .replace("<int:round>", rnd)
                        .replace("<int:pk>", pk)
                        .replace("<str:key>", "naspa" if pk == "1" else "nope")
                    )
                    out.append(f"/t/{t.slug}/console/{path}")
    for pattern in console_setup.site_patterns:
        out.append(f"/console/{pattern.pattern}")
    return sorted(set(out))


# The sweep is cut in shards, each a test of its own, so the suite's workers share it: whole,
# it was the suite's longest test (40 s quiet, over 2 minutes under load), which one worker
# ran alone at the end of a run.
SHARDS = 6


@pytest.mark.slow(seconds=4)
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_console_url_with_hostile_input_answers_without_a_server_error(client, event, shard):
    """Slow by nature: every console URL (~200 with real and hostile arguments) gets a GET,
    an empty POST and each junk value twice, ~3,000 requests through the whole stack (a
    sixth of them in each shard)."""
    t, d = event
    every = _paths(t, d)
    assert len(every) > 20
    paths = every[shard::SHARDS]
    answered = 0
    for path in paths:
        response = client.get(path)
        assert response.status_code < 500, (path, "GET")
        answered += 1
        for junk in JUNK:
            data = {name: junk for name in FIELDS}
            response = client.post(path, data)
            assert response.status_code < 500, (path, repr(junk[:20]))
            response = client.post(path, data, HTTP_HX_REQUEST="true")
            assert response.status_code < 500, (path, repr(junk[:20]), "htmx")
            answered += 2
        response = client.post(path, {})
        assert response.status_code < 500, (path, "empty POST")
    assert answered > 400 // SHARDS


def test_the_sweep_left_the_played_game_alone(client, event):
    """Hostile posts change nothing they should not: the recorded game keeps its scores."""
    t, d = event
    for path in _paths(t, d):
        if "/results/" in path:
            for junk in JUNK:
                client.post(path, {"line": f"1 {junk} 2", "reason": junk})
    game = d.round_set.get(number=1).games.get(player1__number=1)
    assert (game.score1, game.score2) == (400, 300)
