"""tourney.js carries every key TSH writes, so TSH's enhanced scoreboard (esb.js) can load it."""

from __future__ import annotations

import pytest

from tournament.formats.tourney_js import (
    TERMDICT,
    parse_tourney_js,
    tourney_js_divisions,
    write_tourney_js,
)
from tournament.formats.tsh import parse_t
from tournament.interchange.exports import export_tourney_js
from tournament.interchange.imports import import_tsh

pytestmark = pytest.mark.django_db


@pytest.fixture
def real(real_data):
    tournament = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    text = (real_data / "naspa-2023-a.t").read_text(encoding="latin-1")
    return tournament, parse_t(text), export_tourney_js(tournament)


def test_top_level_esb_and_profile(real):
    _t, _players, data = real
    assert data["esb"] == {"message": {"mode": "reveal", "text": ""}}
    assert "profile" in data


def test_division_keys_typed_as_tsh_types_them(real):
    tournament, players, data = real
    division = data["divisions"][0]
    n = len(players)
    assert division["maxr"] == 22 and division["maxrp"] == 22
    assert len(division["first_out_of_the_money"]) == 23
    assert all(isinstance(v, int) for v in division["first_out_of_the_money"])
    assert division["rating_list"] == "nsa" and division["rating_system"] == "nsa2008"
    assert division["seeds"] == [p.rrank[0] for p in players]  # ties share, as TSH
    by_rating = sorted(players, key=lambda p: (-p.rating, p.number))
    assert division["seeds"][by_rating[0].number - 1] == 1
    assert isinstance(division["classes"], dict) and sum(division["classes"].values()) == n


def test_first_out_of_the_money_is_the_rank_past_the_prize_places(real):
    tournament, players, _data = real
    tournament.divisions.update(prize_places=5)
    data = export_tourney_js(tournament)
    assert data["divisions"][0]["first_out_of_the_money"] == [6] * 23


def test_termdict_labels_every_code_the_scoreboard_prints(real):
    _t, _players, data = real
    messages = data["config"]["_termdict"]["messages"]
    assert messages == TERMDICT["messages"]
    for code in ("Rank", "W_L", "Spread", "Opponent", "data_loaded", "ord1st", "ordnth"):
        assert messages[code]["code"] == code and messages[code]["brief"]


def test_player_keys_and_newr_equal_the_t_file(real):
    _t, players, data = real
    rows = data["divisions"][0]["players"]
    assert rows[0] is None
    for p in players:
        row = rows[p.number]
        assert "photo" in row and "photomood" in row
        assert row["newr"] is None  # TSH keeps it in etc.newr (tsh.js PlayerNewRating)
        assert row["etc"]["newr"] == p.newr, p.name
        assert len(row["etc"]["newr"]) == 23


def test_undefined_is_unquoted_and_00_never_appears(real):
    _t, _players, data = real
    text = write_tourney_js(data)
    assert text.startswith("newt={") and '"00"' not in text
    assert '"players":[undefined,' in text
    assert '"photomood":undefined' in text
    assert "null" not in text
    again = parse_tourney_js(text)
    rrank = again["divisions"][0]["players"][1]["etc"]["rrank"]
    assert all(v is None or isinstance(v, int) for v in rrank)


def test_round_trip_keeps_unknown_keys(tmp_path, real):
    _t, _players, data = real
    data["spare_top"] = {"x": [1, 2]}
    data["divisions"][0]["spare_division"] = "kept"
    data["divisions"][0]["players"][3]["spare_player"] = [7]
    data["divisions"][0]["players"][3]["photo"] = "p3.jpg"
    data["esb"] = {"message": {"mode": "scroll", "text": "Lunch at noon"}}
    path = tmp_path / "tourney.js"
    path.write_text(write_tourney_js(data), encoding="utf-8")
    again = export_tourney_js(import_tsh(path, rounds=23))
    assert again["spare_top"] == {"x": [1, 2]}
    assert again["esb"]["message"]["text"] == "Lunch at noon"
    assert again["divisions"][0]["spare_division"] == "kept"
    assert again["divisions"][0]["players"][3]["spare_player"] == [7]
    assert again["divisions"][0]["players"][3]["photo"] == "p3.jpg"
    assert "spare_player" not in again["divisions"][0]["players"][4]
    for key in ("seeds", "maxr", "maxrp", "first_out_of_the_money", "rating_system"):
        assert again["divisions"][0][key] == data["divisions"][0][key], key


def test_script_end_and_line_separators_are_escaped():
    name = "Evil</script><script>alert(1)</script>\u2028\u2029, Ann"
    text = write_tourney_js(
        {
            "config": {},
            "divisions": [
                {
                    "name": "A",
                    "players": [
                        None,
                        {
                            "etc": {},
                            "id": 1,
                            "name": name,
                            "pairings": [],
                            "rating": 0,
                            "scores": [],
                        },
                    ],
                }
            ],
        }
    )
    assert "</" not in text and "\u2028" not in text and "\u2029" not in text
    assert "<\\/script>" in text and "\\u2028\\u2029" in text
    [(_name, [player])] = tourney_js_divisions(parse_tourney_js(text))
    assert player.full_name == name


@pytest.mark.parametrize("seed", range(10))
def test_whole_numbers_written_inline_give_the_same_feed(seed) -> None:
    """``_js`` writes a list's or dict's whole numbers without a call each; on random nested
    values (whole numbers, bools, None, floats, strings with ``</`` and non-ASCII, int keys,
    tuples) it writes exactly what the call-per-item writer (``_js_call_each``) wrote."""
    import random

    from tournament.formats.tourney_js import _js, _js_call_each

    rng = random.Random(seed)

    def value(depth: int) -> object:
        kind = rng.randrange(9 if depth < 4 else 6)
        if kind == 0:
            return rng.randint(-(10**12), 10**12)
        if kind == 1:
            return rng.choice([True, False, None])
        if kind == 2:
            return rng.choice([0.0, -1.5, 1e300, 3.25])
        if kind == 3:
            return rng.choice(["", "a</b>", "Łódź", "\u2028x", 'q"uote'])
        if kind in (4, 5):
            return rng.randint(0, 600)
        if kind == 6:
            return {
                rng.choice([1, "k", "n</"]) if rng.random() < 0.3 else str(i): value(depth + 1)
                for i in range(rng.randrange(6))
            }
        if kind == 7:
            return tuple(value(depth + 1) for _ in range(rng.randrange(6)))
        return [value(depth + 1) for _ in range(rng.randrange(12))]

    for _ in range(50):
        v = value(0)
        assert _js(v) == _js_call_each(v)
