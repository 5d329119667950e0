"""Names byte for byte and plain-JSON feeds (issue 18, item 5 c and d).

Readers match players by exact name, and real feeds carry double spaces inside names: Gibson
keeps a name exactly as the file wrote it (only the ends trimmed), on import and on every export.
A tourney.js without the ``newt=`` prefix (plain JSON, which other readers accept) imports like
TSH's own feed.
"""

from __future__ import annotations

import json

import pytest

from tournament.formats import parse_t, parse_tourney_js
from tournament.interchange.exports import export_files, export_tourney_js
from tournament.interchange.imports import import_tsh
from tournament.models import Entry

pytestmark = pytest.mark.django_db

# round 1: 1-2 and 3-4; round 2: 1-3 and 2-4
DIVISION = (
    "Ann  Smith 1500 2 3; 400 380\n"
    "Bo   Lee, Jr. 1400 1 4; 350 410\n"
    "Cy Cole 1300 4 1; 390 300\n"
    "Di \u00a0Dee 1200 3 2; 360 330\n"
)
NAMES = ["Ann  Smith", "Bo   Lee, Jr.", "Cy Cole", "Di \u00a0Dee"]


def _names(t) -> list[str]:
    return list(
        Entry.objects.filter(division__tournament=t)
        .order_by("number")
        .values_list("player__name", flat=True)
    )


def test_parse_t_keeps_the_spaces_inside_a_name():
    assert [p.name for p in parse_t(DIVISION)] == NAMES


def test_names_survive_import_and_every_export_byte_for_byte(tmp_path):
    source = tmp_path / "a.t"
    source.write_text(DIVISION, encoding="utf-8")
    t = import_tsh(source)
    assert _names(t) == NAMES
    [t_file] = [text for name, text in export_files(t).items() if name.endswith(".t")]
    assert [p.name for p in parse_t(t_file)] == NAMES
    feed = export_tourney_js(t)
    [division] = feed["divisions"]
    assert [p["name"] for p in division["players"][1:]] == NAMES


def test_a_feed_with_double_spaces_imports_them(tmp_path):
    source = tmp_path / "a.t"
    source.write_text(DIVISION, encoding="utf-8")
    feed = export_tourney_js(import_tsh(source))
    js = tmp_path / "tourney.js"
    js.write_text("newt=" + json.dumps(feed) + ";", encoding="utf-8")
    assert _names(import_tsh(js)) == NAMES


@pytest.mark.parametrize("file_name", ["tourney.json", "feed.txt", "tourney.js"])
def test_a_plain_json_feed_imports_like_a_newt_feed(file_name, tmp_path):
    source = tmp_path / "a.t"
    source.write_text(DIVISION, encoding="utf-8")
    feed = export_tourney_js(import_tsh(source))
    plain = tmp_path / file_name
    plain.write_text(json.dumps(feed, indent=1), encoding="utf-8")
    prefixed = tmp_path / "newt.js"
    prefixed.write_text("newt=" + json.dumps(feed) + ";", encoding="utf-8")
    a, b = import_tsh(plain), import_tsh(prefixed)
    assert _names(a) == _names(b) == NAMES
    assert export_tourney_js(a)["divisions"] == export_tourney_js(b)["divisions"]


def test_the_slow_reader_takes_a_plain_object_too():
    # 'undefined' is not JSON: the JavaScript-data reader runs, and needs no 'newt='
    data = parse_tourney_js('{"config": {}, "divisions": [], "x": undefined}')
    assert data == {"config": {}, "divisions": [], "x": None}
