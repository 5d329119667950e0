"""TSH import/export against real NASPA files: ranks, consistency, lossless round trips."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tournament.formats.tsh import parse_t
from tournament.models import Game, Tournament

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def run_json(*args: str):
    return json.loads(run(*args, "--json"))


def test_2023_ranks_match_rrank_after_every_round(real_data):
    result = run_json("import_tsh", str(real_data / "naspa-2023-a.t"), "--rounds", "23")
    assert result["divisions"] == [{"name": "naspa-2023-a", "players": 26, "rounds": 23}]
    slug = result["tournament"]
    players = parse_t((real_data / "naspa-2023-a.t").read_text(encoding="latin-1"))
    checked = 0
    for r in range(0, 24):  # round 0 is the seeding: TSH's rrank[0]
        rows = {row["number"]: row for row in run_json("standings", slug, "--after-round", str(r))}
        for p in players:
            if p.off is not None:
                continue
            assert rows[p.number]["rank"] == p.rrank[r], (p.name, r)
            checked += 1
    assert checked == 25 * 24


def test_2006_imports_and_standings_are_consistent(real_data):
    result = run_json("import_tsh", str(real_data / "naspa-2006-b.t"))
    assert result["divisions"][0]["players"] == 109
    rows = run_json("standings", result["tournament"], "--after-round", "14")
    assert len(rows) == 109
    players = {
        p.number: p for p in parse_t((real_data / "naspa-2006-b.t").read_text(encoding="latin-1"))
    }
    for row in rows:
        p = players[row["number"]]
        spread = wins = 0.0
        for r in range(14):
            opp, mine = p.opponents[r], p.scores[r]
            theirs = players[opp].scores[r] if opp else 0
            spread += mine - theirs
            wins += 1 if mine > theirs else 0.5 if mine == theirs else 0
        assert (row["wins"], row["spread"]) == (wins, spread), p.name
        assert row["wins"] + row["losses"] == 14
    order = [(-r["wins"], r["losses"], -r["spread"]) for r in rows]
    assert order == sorted(order)
    assert [r["rank"] for r in rows][:3] == [1, 2, 3]


@pytest.mark.parametrize("name", ["naspa-2023-a.t", "naspa-2006-b.t"])
def test_export_reproduces_the_file_exactly(real_data, tmp_path, name):
    source = real_data / name
    slug = run_json("import_tsh", str(source))["tournament"]
    run("export_tsh", slug, "--out", str(tmp_path))
    original = parse_t(source.read_text(encoding="latin-1"))
    exported = parse_t((tmp_path / name).read_text(encoding="utf-8"))
    assert len(exported) == len(original)
    for a, b in zip(original, exported, strict=True):
        assert (a.name, a.member_id, a.rating) == (b.name, b.member_id, b.rating)
        assert a.opponents == b.opponents and a.scores == b.scores, a.name
        assert a.fields == b.fields, a.name
    assert (tmp_path / "config.tsh").exists()


def test_importing_twice_makes_two_tournaments(real_data):
    first = run_json("import_tsh", str(real_data / "naspa-2023-a.t"))["tournament"]
    second = run_json("import_tsh", str(real_data / "naspa-2023-a.t"))["tournament"]
    assert first != second
    assert Tournament.objects.count() == 2
    assert (
        Game.objects.filter(round__division__tournament__slug=first).count()
        == Game.objects.filter(round__division__tournament__slug=second).count()
    )


def write(tmp_path: Path, text: str, name: str = "bad.t") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


GOOD = "Able, Ann 1800 2; 400\nBaker, Bo 1700 1; 350\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Able, Ann 1800 2; 400\nBaker, Bo 1700 1 x; 350\n", "bad.t line 2"),
        ("Able, Ann 1800 3; 400\nBaker, Bo 1700 1; 350\n", "bad.t line 1"),
        (
            "Able, Ann 1800 2 3; 400 300\nBaker, Bo 1700 1 1; 350 300\nCole, Cy 1600 0 1; 50 300\n",
            "round 2",
        ),
        ("Able, Ann 1800 2; 1900\nBaker, Bo 1700 1; 350\n", "outside 0..1500"),
        ("Able, Ann 1800 2; 400\nBaker, Bo 1700 1;\n", "only #1 Able, Ann has a score"),
    ],
)
def test_bad_files_are_refused_and_nothing_is_written(tmp_path, text, message):
    with pytest.raises(CommandError, match=message):
        run("import_tsh", write(tmp_path, text))
    assert Tournament.objects.count() == 0
    assert Game.objects.count() == 0


def test_missing_file_and_bad_rounds(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        run("import_tsh", str(tmp_path / "nope.t"))
    with pytest.raises(CommandError, match="at least 1"):
        run("import_tsh", write(tmp_path, GOOD), "--rounds", "0")
    assert Tournament.objects.count() == 0


def test_config_and_all_tsh_and_tourney_js(tmp_path, real_data):
    (tmp_path / "a.t").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.t").write_text(GOOD.replace("Able, Ann", "Cole, Cy"), encoding="utf-8")
    (tmp_path / "config.tsh").write_text(
        "division A a.t\ndivision B b.t\nconfig event_name = 'Spring Open'\n"
        "config max_rounds = 7\nconfig bye_spread = 75\nconfig mystery_key = 3\n",
        encoding="utf-8",
    )
    result = run_json("import_tsh", str(tmp_path / "config.tsh"))
    assert result["tournament"] == "spring-open"
    assert [d["name"] for d in result["divisions"]] == ["A", "B"]
    t = Tournament.objects.get(slug="spring-open")
    assert t.bye_spread == 75 and {d.rounds for d in t.divisions.all()} == {7}
    assert any("mystery_key" in w for w in result["warnings"])
    # all.tsh and tourney.js written by us re-import to the same data
    from tournament.formats.tourney_js import write_tourney_js
    from tournament.interchange.exports import export_archive, export_tourney_js

    (tmp_path / "all.tsh").write_text(export_archive_allowing_small(t), encoding="utf-8")
    again = run_json("import_tsh", str(tmp_path / "all.tsh"))
    assert [d["players"] for d in again["divisions"]] == [2, 2]
    (tmp_path / "tourney.js").write_text(write_tourney_js(export_tourney_js(t)), encoding="utf-8")
    js = run_json("import_tsh", str(tmp_path / "tourney.js"))
    assert [d["name"] for d in js["divisions"]] == ["A", "B"]
    with pytest.raises(Exception, match="under 4 players"):
        export_archive(t)


def export_archive_allowing_small(t):
    from tournament.interchange.exports import export_archive

    return export_archive(t, min_players=1)


def test_standings_carry_the_rating_estimates_tsh_printed(real_data, client):
    source = str(real_data / "naspa-2023-a.t")
    slug = run_json("import_tsh", source, "--rounds", "23")["tournament"]
    players = {
        p.number: p for p in parse_t((real_data / "naspa-2023-a.t").read_text(encoding="latin-1"))
    }
    for r in (1, 12, 13, 23):
        rows = run_json("standings", slug, "--after-round", str(r))
        for row in rows:
            assert row["estimate"] == players[row["number"]].newr[r - 1], (row["name"], r)
    page = client.get(
        f"/t/{slug}/{Tournament.objects.get(slug=slug).divisions.get().name}/standings/",
        {"after": 12},
    )
    smylie = players[1]
    assert f'<td class="num">{smylie.newr[11]}</td>' in page.content.decode()
