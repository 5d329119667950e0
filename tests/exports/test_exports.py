"""Exports through the shell: `manage.py export`, the tourney.js feed, real data round trips."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats import parse_tou, parse_tourney_js, read_t, tourney_js_divisions
from tournament.formats.tou import tou_name
from tournament.interchange import exports
from tournament.interchange.exports import division_players
from tournament.interchange.imports import import_tsh
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def naspa(real_data):
    """naspa-2023-a.t imported, with the event date set for the .TOU export."""
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23, name="Lake George 2023")
    Tournament.objects.filter(pk=t.pk).update(start_date=dt.date(2023, 2, 17))
    t.refresh_from_db()
    return t


@pytest.fixture
def original(real_data):
    return read_t(real_data / "naspa-2023-a.t")


def _export(slug: str, fmt: str, out: Path, *extra: str) -> dict:
    return json.loads(run("export", slug, "--format", fmt, "--out", str(out), "--json", *extra))


# --- acceptance: all.tsh re-imports to the same data ------------------------------------------


def test_all_tsh_reimports_to_the_same_data(naspa, original, tmp_path):
    out = tmp_path / "all.tsh"
    report = _export(naspa.slug, "all.tsh", out)
    division_name = naspa.divisions.get().name  # the file's stem: naspa-2023-a
    assert report["format"] == "all.tsh"
    assert report["divisions"] == [{"name": division_name, "players": 26}]
    text = out.read_text(encoding="utf-8")
    assert text.count("#begin_file name=") == 1 and "#end_file name=" in text
    again = import_tsh(out)
    assert again.pk != naspa.pk
    (division,) = again.divisions.all()
    players = division_players(division)
    assert len(players) == 26
    for got, want in zip(players, original, strict=True):
        assert (got.number, got.name, got.member_id, got.rating) == (
            want.number,
            want.name,
            want.member_id,
            want.rating,
        )
        assert got.opponents == want.opponents
        assert got.scores == want.scores
        assert got.fields == want.fields
    assert players == original


# --- acceptance: the .TOU, line by line ---------------------------------------------------------


def test_tou_structure_line_by_line(naspa, original, tmp_path):
    out = tmp_path / "event.tou"
    report = _export(naspa.slug, "tou", out)
    division_name = naspa.divisions.get().name
    assert report["divisions"] == [{"name": division_name, "players": 26, "rounds": 23}]
    data = out.read_bytes()
    data.decode("ascii")  # ASCII only
    assert data.endswith(b"*** END OF FILE ***\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends in CRLF
    lines = data.decode("ascii").split("\r\n")
    assert lines[0] == "*M17.02.2023 Lake George 2023"
    assert lines[1] == f"*{division_name}"
    assert lines[2] == " " * 38 + "0"
    block = re.compile(r" ([ 12])(\d{3}) ([ +\d]{3})")  # scores zero-padded: one token each
    for p, line in zip(original, lines[3:29], strict=True):
        assert line[:20] == f"{tou_name(p.name):<20}"
        # rating programs split() the line: name tokens, then 23 (score, opponent) pairs
        assert len(line.split()) == len(tou_name(p.name).split()) + 2 * 23
        blocks = block.findall(line[20:])
        assert len(line) == 20 + 9 * 23 and len(blocks) == 23
        for rnd, (outcome, score, opp_field) in enumerate(blocks, start=1):
            opp, own = p.opponents[rnd - 1], p.scores[rnd - 1]
            if opp == 0:  # bye or forfeit: a game against oneself
                assert opp_field.strip() == ("+" if own > 0 else "") + str(p.number)  # bye: '+'
                assert (outcome, int(score)) == (("2" if own > 0 else " "), abs(own))
                continue
            theirs = original[opp - 1].scores[rnd - 1]
            assert int(score) == own
            assert outcome == ("2" if own > theirs else "1" if own == theirs else " ")
            first = "+" if p.p12[rnd - 1] == 1 else ""
            assert opp_field.strip() == f"{first}{opp}"
    assert lines[29:] == ["*** END OF FILE ***", ""]
    # and our reader gives the games back
    name, date, [(division, players)] = parse_tou(data.decode("ascii"))
    assert (name, date, division) == ("Lake George 2023", dt.date(2023, 2, 17), division_name)
    assert [p.opponents for p in players] == [p.opponents for p in original]
    assert [p.scores for p in players] == [p.scores for p in original]


def test_tou_date_option_overrides_and_missing_date_is_refused(real_data, tmp_path):
    t = import_tsh(real_data / "naspa-2023-a.t", name="No Date")
    out = tmp_path / "x.tou"
    with pytest.raises(CommandError, match="needs the event date"):
        run("export", t.slug, "--format", "tou", "--out", str(out))
    assert not out.exists()
    with pytest.raises(CommandError, match="--date '17/02/2023'"):
        run("export", t.slug, "--format", "tou", "--out", str(out), "--date", "17/02/2023")
    assert not out.exists()
    run("export", t.slug, "--format", "tou", "--out", str(out), "--date", "2023-02-18")
    assert out.read_bytes().startswith(b"*M18.02.2023 No Date\r\n")


# --- csv and tourney.js ----------------------------------------------------------------------


def test_standings_csv(naspa, original, tmp_path):
    out = tmp_path / "standings.csv"
    text_report = run("export", naspa.slug, "--format", "csv", "--out", str(out))
    assert text_report.startswith(f"wrote {out} (csv, ")
    rows = [line.split(",") for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0] == exports.CSV_HEADER
    body = rows[1:]
    assert len(body) == 26
    # ranks are TSH's own final ranks for the active players; the withdrawn player is unranked
    for division, rank, number, *_ in body:
        assert division == naspa.divisions.get().name
        p = original[int(number) - 1]
        if p.off is None:
            assert int(rank) == p.rrank[23]
        else:
            assert rank == ""
    # the name column survives the comma inside "Surname, Given"
    import csv

    parsed = list(csv.reader(out.read_text(encoding="utf-8").splitlines()))
    assert parsed[1][3] == original[int(parsed[1][2]) - 1].name
    assert parsed[-1][3] == "Keras, Lydia" and parsed[-1][4:6] == ["5", "18"]


def test_tourney_js_export_is_public(naspa, original, tmp_path):
    entry = naspa.divisions.get().entries.get(number=1)
    entry.extra = [*entry.extra, ["password", ["hunter2"]]]
    entry.save()
    out = tmp_path / "tourney.js"
    _export(naspa.slug, "tourney.js", out)
    text = out.read_text(encoding="utf-8")
    assert "hunter2" not in text
    [(name, players)] = tourney_js_divisions(parse_tourney_js(text))
    assert name == naspa.divisions.get().name and players == original


# --- bad input: clear error, nothing written ---------------------------------------------------


def test_small_division_refused_for_all_tsh(tmp_path):
    t = services.create_tournament(name="Tiny")
    d = services.create_division(t, name="A", rounds=3)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    out = tmp_path / "all.tsh"
    with pytest.raises(CommandError, match="under 4 players: A"):
        run("export", t.slug, "--format", "all.tsh", "--out", str(out))
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("export", "nope", "--format", "csv", "--out", "{tmp}/x.csv"), "no tournament"),
        (("export", "{slug}", "--format", "pdf", "--out", "{tmp}/x"), "invalid choice"),
        (("export", "{slug}", "--format", "csv", "--out", "{tmp}/missing/x.csv"), "does not exist"),
        (("export", "{slug}", "--format", "csv", "--out", "{tmp}"), "is a folder"),
    ],
)
def test_bad_arguments(naspa, tmp_path, args, message):
    args = tuple(a.format(slug=naspa.slug, tmp=tmp_path) for a in args)
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert list(tmp_path.iterdir()) == []


def test_tournament_without_divisions_is_refused(tmp_path):
    t = services.create_tournament(name="Empty")
    with pytest.raises(CommandError, match="no divisions"):
        run("export", t.slug, "--format", "csv", "--out", str(tmp_path / "x.csv"))
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file_and_leaves_no_temp(naspa, tmp_path, monkeypatch):
    out = tmp_path / "standings.csv"
    out.write_text("old\n")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(CommandError, match="cannot write"):
        run("export", naspa.slug, "--format", "csv", "--out", str(out))
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["standings.csv"]


def test_successful_write_replaces_and_is_readable(naspa, tmp_path):
    out = tmp_path / "standings.csv"
    out.write_text("old\n")
    run("export", naspa.slug, "--format", "csv", "--out", str(out))
    assert out.read_text().startswith("division,rank")
    assert oct(out.stat().st_mode & 0o777) == "0o644"
    assert [p.name for p in tmp_path.iterdir()] == ["standings.csv"]


# --- the live feed ---------------------------------------------------------------------------


def test_tourney_js_feed(naspa, original, client):
    response = client.get(f"/t/{naspa.slug}/tourney.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")
    assert "max-age=" in response["Cache-Control"]
    max_age = int(re.search(r"max-age=(\d+)", response["Cache-Control"]).group(1))
    assert 0 < max_age <= 60
    data = parse_tourney_js(response.content.decode("utf-8"))
    assert data["config"]["event_name"] == "Lake George 2023"
    [(name, players)] = tourney_js_divisions(data)
    assert players == original
    assert client.head(f"/t/{naspa.slug}/tourney.js").status_code == 200
    # a poller sending the ETag back gets 304 until something changes
    etag = response["ETag"]
    again = client.get(f"/t/{naspa.slug}/tourney.js", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    other = client.get(f"/t/{naspa.slug}/tourney.js", HTTP_IF_NONE_MATCH='"stale"')
    assert other.status_code == 200


def test_tourney_js_feed_unknown_slug_and_writes(naspa, client):
    assert client.get("/t/no-such-event/tourney.js").status_code == 404
    assert client.post(f"/t/{naspa.slug}/tourney.js").status_code == 405
    assert client.put(f"/t/{naspa.slug}/tourney.js").status_code == 405


def test_tourney_js_feed_follows_new_results(client):
    t = services.create_tournament(name="Live")
    d = services.create_division(t, name="A", rounds=2)
    for name in ("Able, Ann", "Baker, Bo"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2)])
    first = client.get(f"/t/{t.slug}/tourney.js")
    before = parse_tourney_js(first.content.decode())
    assert before["divisions"][0]["players"][1]["scores"] == []
    url = f"/t/{t.slug}/tourney.js"
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    services.record_result(d, 1, 1, 420, 380)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] != first["ETag"]
    after = parse_tourney_js(changed.content.decode())
    assert after["divisions"][0]["players"][1]["scores"] == [420]
    assert after["divisions"][0]["players"][2]["scores"] == [380]


def test_standings_csv_cells_never_run_as_spreadsheet_formulas():
    """OWASP's CSV-injection rule: text starting = + - @ tab CR gets a quote mark; numbers,
    such as a negative spread, stay numbers a spreadsheet can add up."""
    import csv
    import io

    from tournament.interchange.exports import standings_csv

    t = services.create_tournament(name="Formula Open")
    d = services.create_division(t, name="@SUM(A1)", rounds=2)
    services.register_player(d, name='=HYPERLINK("http://evil.example","x")', rating=1500)
    services.register_player(d, name="+cmd|' /C calc'!A0", rating=1400)
    services.register_player(d, name="Plain, Name", rating=1300)
    services.register_player(d, name="-2+3", rating=1200)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 300, 420)
    services.record_result(d, 1, 3, 400, 350)
    rows = list(csv.reader(io.StringIO(standings_csv(t))))
    body = {r[3]: r for r in rows[1:]}
    assert set(body) == {
        '\'=HYPERLINK("http://evil.example","x")',
        "'+cmd|' /C calc'!A0",
        "Plain, Name",
        "'-2+3",
    }
    assert all(r[0] == "'@SUM(A1)" for r in rows[1:])
    spreads = {r[3]: r[6] for r in rows[1:]}
    assert spreads['\'=HYPERLINK("http://evil.example","x")'] == "-120"  # a number, no quote
    assert spreads["Plain, Name"] == "50"
