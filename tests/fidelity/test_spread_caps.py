"""Spread caps in every form TSH writes: read, honoured by round, edited, written back.

TSH writes ``config spread_cap = 250``, ``[250]`` and per-round lists ``[100, 100, 150]`` in
config.tsh, and the list in tourney.js's config (its tsh.js caps only when given a list).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tournament.errors import ServiceError
from tournament.interchange.exports import export_tourney_js, export_tsh, tournament_config
from tournament.interchange.import_prepare import _setting_caps
from tournament.interchange.imports import import_tsh
from tournament.selectors import division_standings
from tournament.services import update_tournament
from tournament.services.tournaments import check_tournament_settings
from tournament.standings import PlayerRound, StandingsPlayer, compute_standings

# Four players, three rounds (A=1, B=2, C=3, D=4):
#   round 1: A 500-100 B (A +400), C 400-350 D (C +50)
#   round 2: A 300-310 C (C +10),  B 400-300 D (B +100)
#   round 3: A 300-450 D (D +150), B 500-100 C (B +400)
GAMES = [
    (1, 1, 2, 500, 100),
    (1, 3, 4, 400, 350),
    (2, 1, 3, 300, 310),
    (2, 2, 4, 400, 300),
    (3, 1, 4, 300, 450),
    (3, 2, 3, 500, 100),
]
T_FILE = "\n".join(
    [
        "Able, Ann 1500 2 3 4; 500 300 300",
        "Best, Bob 1400 1 4 3; 100 400 500",
        "Cole, Cat 1300 4 1 2; 400 310 100",
        "Dunn, Dan 1200 3 2 1; 350 300 450",
    ]
)


def _rounds() -> list[PlayerRound]:
    out = []
    for rnd, a, b, sa, sb in GAMES:
        out.append(PlayerRound(rnd, a, b, sa, sb))
        out.append(PlayerRound(rnd, b, a, sb, sa))
    return out


PLAYERS = [StandingsPlayer(n, name, 1600 - 100 * n) for n, name in enumerate("ABCD", start=1)]


def _by_number(rows) -> dict[int, tuple[int | None, int]]:
    return {row.number: (row.rank, row.spread) for row in rows}


@pytest.mark.parametrize(
    ("value", "caps"),
    [
        (250, [250]),
        ("250", [250]),
        ([250], [250]),
        (["100", "100", "150"], [100, 100, 150]),
        ([100, 100, 150], [100, 100, 150]),
        ("[100, 100, 150]", [100, 100, 150]),
        (None, []),
        ("", []),
        ([100, 0], []),  # a cap of 0 caps nothing: the list is left out whole
        ([100, "x"], []),
        ("lots", []),
        (0, []),
    ],
)
def test_every_form_of_spread_cap_is_read(value, caps):
    assert _setting_caps({"spread_cap": value}) == caps


def test_per_round_caps_equal_a_hand_computation():
    # spreads by hand: uncapped A +400-10-150=240, B -400+100+400=100, C +50+10-400=-340,
    # D -50-100+150=0; capped [100, 100, 150]: A +100-10-150=-60, B -100+100+150=150,
    # C +50+10-150=-90, D -50-100+150=0.
    plain = _by_number(compute_standings(PLAYERS, _rounds()))
    assert plain == {1: (3, 240), 2: (1, 100), 3: (2, -340), 4: (4, 0)}
    capped = _by_number(compute_standings(PLAYERS, _rounds(), spread_cap=[100, 100, 150]))
    assert capped == {1: (4, -60), 2: (1, 150), 3: (2, -90), 4: (3, 0)}
    # the last cap holds for later rounds: [100, 150] caps round 3 at 150 as well
    assert _by_number(compute_standings(PLAYERS, _rounds(), spread_cap=[100, 150])) == {
        1: (4, -60),
        2: (1, 150),
        3: (2, -90),
        4: (3, 0),
    }
    # one cap of 100 everywhere ranks differently (A -10 above D -50): the rounds matter
    single = _by_number(compute_standings(PLAYERS, _rounds(), spread_cap=[100]))
    assert single == {1: (3, -10), 2: (1, 100), 3: (2, -40), 4: (4, -50)}
    # capped only for ranking: the ranks of the capped spread, the real spread shown
    ranking = _by_number(
        compute_standings(PLAYERS, _rounds(), spread_cap=[100, 100, 150], standings_spread_cap=True)
    )
    assert ranking == {1: (4, 240), 2: (1, 100), 3: (2, -340), 4: (3, 0)}


def _event(folder: Path, cap_text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.t").write_text(T_FILE + "\n")
    (folder / "config.tsh").write_text(
        f"division A a.t\nconfig max_rounds = 3\nconfig spread_cap = {cap_text}\n"
    )
    return folder / "config.tsh"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "single", "per_round", "spreads"),
    [
        # 250: only A's +400 and B's +400 are clipped
        ("250", 250, [], {1: 90, 2: 100, 3: -190, 4: 0}),
        ("[100]", 100, [], {1: -10, 2: 100, 3: -40, 4: -50}),
        ("[100, 100, 150]", None, [100, 100, 150], {1: -60, 2: 150, 3: -90, 4: 0}),
    ],
)
def test_config_tsh_caps_imported_and_honoured(tmp_path, text, single, per_round, spreads):
    tournament = import_tsh(_event(tmp_path / "event", text))
    assert (tournament.spread_cap, tournament.spread_caps) == (single, per_round)
    rows = division_standings(tournament.divisions.get())
    assert {row.number: row.spread for row in rows} == spreads


@pytest.mark.django_db
def test_round_trip_config_import_export_keeps_the_list(tmp_path):
    tournament = import_tsh(_event(tmp_path / "event", "[100, 100, 150]"))
    before = [(r.number, r.rank, r.spread) for r in division_standings(tournament.divisions.get())]
    assert tournament_config(tournament).settings["spread_cap"] == [100, 100, 150]

    # config.tsh -> import -> config.tsh -> import
    export_tsh(tournament, tmp_path / "out")
    assert "spread_cap = [100, 100, 150]" in (tmp_path / "out" / "config.tsh").read_text()
    again = import_tsh(tmp_path / "out" / "config.tsh")
    assert (again.spread_cap, again.spread_caps) == (None, [100, 100, 150])
    after = [(r.number, r.rank, r.spread) for r in division_standings(again.divisions.get())]
    assert after == before

    # tourney.js carries the list too (TSH's tsh.js caps only when given a list) and its
    # ranks are the capped ones
    feed = export_tourney_js(tournament)
    assert feed["config"]["spread_cap"] == [100, 100, 150]
    players = [p for p in feed["divisions"][0]["players"] if p]  # TSH counts from 1
    rranks = {p["id"]: p["etc"]["rrank"][3] for p in players}
    assert rranks == {r[0]: r[1] for r in before}
    (tmp_path / "tourney.js").write_text("newt=" + json.dumps(feed) + ";\n")
    from_feed = import_tsh(tmp_path / "tourney.js")
    assert (from_feed.spread_cap, from_feed.spread_caps) == (None, [100, 100, 150])


@pytest.mark.django_db
def test_config_tsh_standings_spread_cap_is_read_and_written_back(tmp_path):
    """``config standings_spread_cap = 1`` was an unknown key to the config reader (kept as a
    line, never read), so the import ranked and showed the capped spread."""
    path = _event(tmp_path / "event", "[100, 100, 150]")
    path.write_text(path.read_text() + "config standings_spread_cap = 1\n")
    tournament = import_tsh(path)
    assert tournament.standings_spread_cap
    rows = division_standings(tournament.divisions.get())
    assert {row.number: row.spread for row in rows} == {1: 240, 2: 100, 3: -340, 4: 0}
    export_tsh(tournament, tmp_path / "out")
    written = (tmp_path / "out" / "config.tsh").read_text()
    assert written.count("standings_spread_cap") == 1
    assert import_tsh(tmp_path / "out" / "config.tsh").standings_spread_cap


@pytest.mark.django_db
def test_one_cap_is_written_as_a_one_element_list(tmp_path):
    tournament = import_tsh(_event(tmp_path / "event", "250"))
    assert tournament_config(tournament).settings["spread_cap"] == [250]
    assert export_tourney_js(tournament)["config"]["spread_cap"] == [250]


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("100,100,150", (None, [100, 100, 150])),
        ("[100, 100, 150]", (None, [100, 100, 150])),
        ("250", (250, [])),
        ("250, 250", (250, [])),
        (250, (250, [])),
        ("", (None, [])),
        (None, (None, [])),
    ],
)
def test_setup_takes_one_cap_or_a_list(typed, stored):
    out = check_tournament_settings({"spread_cap": typed})
    assert (out["spread_cap"], out["spread_caps"]) == stored


@pytest.mark.parametrize("typed", ["100,0", "100,-5", "100,,x", "99999999"])
def test_setup_refuses_a_bad_cap_at_its_field(typed):
    with pytest.raises(ServiceError) as caught:
        check_tournament_settings({"spread_cap": typed})
    assert caught.value.field == "spread_cap"


@pytest.mark.django_db
def test_update_tournament_stores_per_round_caps(tmp_path):
    tournament = import_tsh(_event(tmp_path / "event", "250"))
    update_tournament(tournament, actor="test", spread_cap="100,100,150")
    tournament.refresh_from_db()
    assert (tournament.spread_cap, tournament.spread_caps) == (None, [100, 100, 150])
    rows = division_standings(tournament.divisions.get())
    assert {row.number: row.spread for row in rows} == {1: -60, 2: 150, 3: -90, 4: 0}
    update_tournament(tournament, actor="test", spread_cap="")
    tournament.refresh_from_db()
    assert (tournament.spread_cap, tournament.spread_caps, tournament.spread_cap_list) == (
        None,
        [],
        [],
    )


@pytest.mark.django_db
def test_api_reads_spread_cap_and_spread_caps_both_in_the_schema(tmp_path):
    from django.test import Client

    tournament = import_tsh(_event(tmp_path / "event", "[100, 100, 150]"))
    tournament.published = True
    tournament.save()
    client = Client()
    base = f"/api/v1/tournaments/{tournament.slug}/"
    body = client.get(base).json()
    assert (body["spread_cap"], body["spread_caps"]) == (None, [100, 100, 150])
    division = client.get(base + "divisions/").json()["results"][0]
    assert (division["spread_cap"], division["spread_caps"]) == (None, [100, 100, 150])
    update_tournament(tournament, actor="test", spread_cap="250")
    body = client.get(base).json()
    assert (body["spread_cap"], body["spread_caps"]) == (250, [250])

    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    parts = schema["components"]["schemas"]
    for name in ("Tournament", "Division"):
        props = parts[name]["properties"]
        assert props["spread_cap"].get("nullable") is True, name
        assert props["spread_caps"]["type"] == "array", name
        assert props["spread_caps"]["items"]["type"] == "integer", name
