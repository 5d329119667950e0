"""tourney.js keys TSH's viewers read unguarded, typed and placed as TSH writes them.

A run of TSH's enhanced scoreboard (esb.js 1.72 with tsh.js of TSH 3.350) on our feed stopped
at ``config.rating_system.match``, printed no new ratings (tsh.js reads ``p.etc.newr[r0]``),
"0th" for every rank of an event imported without ``etc.rrank`` (``p.etc.rrank[r0 + 1]``) and
``[unknown code: ...]`` for the scoreboard's own controls.
"""

from __future__ import annotations

import re

import pytest

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats.tourney_js import TERMDICT, parse_tourney_js, write_tourney_js
from tournament.formats.tsh import read_t, standings_input
from tournament.interchange.exports import export_tourney_js
from tournament.interchange.imports import import_tsh
from tournament.models import Realm, Tournament
from tournament.standings import compute_standings, ranks_by_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def real(real_data):
    tournament = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    return tournament, read_t(real_data / "naspa-2023-a.t")


@pytest.fixture
def real_2006(real_data):
    tournament = import_tsh(real_data / "naspa-2006-b.t")
    return tournament, read_t(real_data / "naspa-2006-b.t")


def _feed(tournament: Tournament) -> dict:
    """The feed as a viewer reads it: written, then read back (undefined -> None)."""
    return parse_tourney_js(write_tourney_js(export_tourney_js(tournament)))


# --- config.rating_system ----------------------------------------------------------------------


def test_config_rating_system_is_always_a_string(real):
    tournament, _players = real
    assert "rating_system" not in (tournament.config or {}).get("settings", {})  # no config.tsh
    data = _feed(tournament)
    assert data["config"]["rating_system"] == "nsa2008"
    assert data["config"]["rating_system"] == data["divisions"][0]["rating_system"]


def test_config_rating_system_follows_the_first_division(real):
    tournament, _players = real
    tournament.divisions.update(rating_system="wespa-tsh")
    assert _feed(tournament)["config"]["rating_system"] == "wespa-tsh"


def test_config_rating_system_without_divisions_is_the_realm_default():
    t = services.create_tournament(name="Empty Open", realm=Realm.ABSP)
    data = _feed(t)
    assert data["divisions"] == [] and data["config"]["rating_system"] == "absp"


def test_config_rating_system_that_is_not_a_string_is_replaced():
    t = services.create_tournament(name="Odd Config")
    Tournament.objects.filter(pk=t.pk).update(config={"settings": {"rating_system": [1]}})
    t.refresh_from_db()
    assert _feed(t)["config"]["rating_system"] == "nsa2008"


# --- newr --------------------------------------------------------------------------------------


def test_newr_is_in_etc_one_int_per_round_and_the_player_key_is_undefined(real):
    tournament, players = real
    text = write_tourney_js(export_tourney_js(tournament))
    data = parse_tourney_js(text)
    assert '"newr":undefined' in text
    rows = data["divisions"][0]["players"]
    for p in players:
        row = rows[p.number]
        assert "newr" in row and row["newr"] is None
        newr = row["etc"]["newr"]
        assert len(newr) == 23 and all(type(v) is int for v in newr)
        assert newr == p.newr, p.name  # TSH's own estimates


def test_newr_is_computed_for_a_file_that_never_had_it(real_2006):
    tournament, players = real_2006
    assert all("newr" not in p.fields for p in players)
    rows = _feed(tournament)["divisions"][0]["players"]
    for p in players:
        newr = rows[p.number]["etc"]["newr"]
        assert len(newr) == 14 and all(type(v) is int for v in newr), p.name


# --- rrank and rcrank --------------------------------------------------------------------------


def test_rrank_equals_tsh_for_every_player_and_round_the_file_has(real):
    tournament, players = real
    rows = _feed(tournament)["divisions"][0]["players"]
    checked = 0
    for p in players:
        ours = rows[p.number]["etc"]["rrank"]
        assert all(type(v) is int for v in ours), p.name
        assert ours == p.rrank, p.name  # same values, same length (24: seeding + 23 rounds)
        checked += len(p.rrank)
    assert checked == 25 * 24 + 21  # Lydia Keras, withdrawn from round 20, ends at round 20


def test_rrank_is_computed_for_a_file_that_never_had_it(real_2006):
    tournament, players = real_2006
    assert all("rrank" not in p.fields for p in players)
    data = _feed(tournament)
    division = data["divisions"][0]
    entrants, rounds = standings_input(players)
    for after in (0, 1, 7, 14):
        for row in compute_standings(entrants, rounds, after_round=after):
            assert division["players"][row.number]["etc"]["rrank"][after] == row.rank
    for p in players:
        rrank = division["players"][p.number]["etc"]["rrank"]
        assert len(rrank) == 15 and all(type(v) is int for v in rrank)
        assert rrank[0] == division["seeds"][p.number - 1]  # index 0: the seeding


def test_seeds_share_a_place_on_equal_ratings_as_tsh(real):
    tournament, players = real
    seeds = _feed(tournament)["divisions"][0]["seeds"]
    assert seeds == [p.rrank[0] for p in players]
    assert seeds[17] == seeds[20] == 20  # players 18 and 21 are both rated 1380


def test_rrank_covers_the_round_in_progress():
    """TSH writes ranks through its MostScores: a round with some results in counts them."""
    t = services.create_tournament(name="Partial Open")
    d = services.create_division(t, name="A", rounds=3)
    for name, rating in (
        ("Able, Ann", 1500),
        ("Baker, Bo", 1600),
        ("Cole, Cy", 1400),
        ("Dunn, Di", 1700),
    ):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 400, 300)
    services.record_result(d, 1, 3, 500, 300)
    save_round_pairings(d, 2, [PlannedGame(1, 3), PlannedGame(2, 4)])
    services.record_result(d, 2, 1, 350, 351)  # 1 v 3 in; 2 v 4 not yet
    rows = _feed(t)["divisions"][0]["players"]
    ranks = {n: rows[n]["etc"]["rrank"] for n in (1, 2, 3, 4)}
    assert ranks == {1: [3, 2, 2], 2: [2, 3, 3], 3: [4, 1, 1], 4: [1, 4, 4]}
    assert all("rcrank" not in rows[n]["etc"] for n in (1, 2, 3, 4))  # no cap, no rcrank


@pytest.mark.parametrize("standings_cap", [False, True])
def test_rcrank_under_a_spread_cap(real, standings_cap):
    tournament, players = real
    Tournament.objects.filter(pk=tournament.pk).update(
        spread_cap=100, standings_spread_cap=standings_cap
    )
    tournament.refresh_from_db()
    data = _feed(tournament)
    # TSH's list form: its tsh.js caps only when given a list (esb.js then shows rcrank)
    assert data["config"]["spread_cap"] == [100]
    rows = data["divisions"][0]["players"]
    entrants, rounds = standings_input(players)
    capped = ranks_by_round(entrants, rounds, last_round=23, spread_cap=100)
    for p in players:
        etc = rows[p.number]["etc"]
        assert len(etc["rcrank"]) == len(etc["rrank"]) and all(
            type(v) is int for v in etc["rcrank"]
        )
        assert etc["rcrank"] == [v for v in capped[p.number] if v is not None]
        # with the cap for the standings only, rrank stays TSH's uncapped rank
        assert etc["rrank"] == (p.rrank if standings_cap else etc["rcrank"]), p.name
    after_12 = compute_standings(entrants, rounds, after_round=12, spread_cap=100)
    for row in after_12:
        if row.rank is not None:
            assert rows[row.number]["etc"]["rcrank"][12] == row.rank
    assert any(rows[p.number]["etc"]["rcrank"] != p.rrank for p in players)  # the cap bites


def test_ranks_by_round_equals_the_standings_after_every_round(real_data):
    for name in ("naspa-2023-a.t", "naspa-2006-b.t"):
        players = read_t(real_data / name)
        entrants, rounds = standings_input(players)
        last = max(len(p.scores) for p in players)
        ranks = ranks_by_round(entrants, rounds, last_round=last, sum_before_spread=True)
        for after in range(last + 1):
            rows = compute_standings(entrants, rounds, after_round=after, sum_before_spread=True)
            for row in rows:
                if row.rank is not None:
                    assert ranks[row.number][after] == row.rank, (name, after, row.number)


def test_ranks_by_round_refuses_what_the_standings_refuse(real_data):
    players = read_t(real_data / "naspa-2023-a.t")
    entrants, rounds = standings_input(players)
    with pytest.raises(ValueError, match="two results"):
        ranks_by_round(entrants, [*rounds, rounds[0]], last_round=23)
    with pytest.raises(ValueError, match="share a player number"):
        ranks_by_round([*entrants, entrants[0]], rounds, last_round=23)
    with pytest.raises(ValueError, match="unknown"):
        ranks_by_round(entrants[:-1], rounds, last_round=23)
    with pytest.raises(ValueError, match="unknown"):
        compute_standings(entrants[:-1], rounds)


# --- _termdict ---------------------------------------------------------------------------------

_VIEWER_CODES = (
    "Close_Pane",
    "Reload_Now",
    "reload",
    "reload_stopped",
    "Scoreboard_Settings",
    "scroll_stopped",
    "Split_Left_and_Right",
    "Split_Top_and_Bottom",
    "View_Next_Round",
    "View_Previous_Round",
    "repeat",
    "npeat",
)


@pytest.mark.parametrize("code", _VIEWER_CODES)
def test_termdict_has_the_scoreboard_controls_and_repeat_terms(real, code):
    tournament, _players = real
    messages = _feed(tournament)["config"]["_termdict"]["messages"]
    entry = messages[code]
    assert entry == {"brief": entry["brief"], "code": code, "type": "label"}
    assert isinstance(entry["brief"], str) and entry["brief"].strip()
    assert "[unknown code" not in entry["brief"]
    assert messages == TERMDICT["messages"]


def test_npeat_takes_the_count_and_repeat_takes_none():
    messages = TERMDICT["messages"]
    # tsh.js replaces each %d / %s with one argument: npeat gets [n], repeat gets none
    assert len(re.findall(r"%[-.\d]*[ds]", messages["npeat"]["brief"])) == 1
    assert re.findall(r"%[-.\d]*[ds]", messages["repeat"]["brief"]) == []
    assert re.sub(r"%[-.\d]*[ds]", "3", messages["npeat"]["brief"]) == "3-peat"
