"""``.TOU`` import: the two real files in cocoscrabble/ratings' test data (fixtures/tou/).

``import_tsh`` tells a ``.TOU`` from TSH's files by its content (the ``*M`` date header), reads
both the fixed-width form (isropn20.tou) and the token form with single spaces and no high-word
line (hoodriver.tou), and exporting the imported event as ``.TOU`` then importing that export
gives back the same players, opponents and scores.
"""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tournament.formats import parse_tou
from tournament.interchange.exports import division_players, render_export
from tournament.interchange.imports import import_tsh
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

TOU = Path(__file__).resolve().parents[2] / "fixtures" / "tou"
REAL = {"hoodriver.tou": (20, 20), "isropn20.tou": (35, 22)}  # players, rounds


def _facts(t: Tournament) -> list[tuple[str, list[tuple[str, list, list]]]]:
    return [
        (d.name, [(p.name, p.opponents, p.scores) for p in division_players(d)])
        for d in t.divisions.order_by("position", "id")
    ]


@pytest.mark.parametrize("file_name", sorted(REAL))
def test_import_tsh_command_detects_tou_by_content(file_name, tmp_path):
    # a neutral name: the content, not the suffix, says it is a .TOU
    source = tmp_path / "results.txt"
    shutil.copy(TOU / file_name, source)
    out = StringIO()
    call_command("import_tsh", str(source), "--json", stdout=out)
    result = json.loads(out.getvalue())
    t = Tournament.objects.get(slug=result["tournament"])
    players, rounds = REAL[file_name]
    [(dname, rows)] = _facts(t)
    assert dname == "A" and len(rows) == players
    assert all(len(opps) == rounds for _, opps, _ in rows)
    name, date, _ = parse_tou((TOU / file_name).read_text("ascii"))
    assert t.name == name and t.start_date == date


@pytest.mark.parametrize("file_name", sorted(REAL))
def test_real_tou_keeps_every_score_and_opponent(file_name):
    text = (TOU / file_name).read_text("ascii")
    _, _, [(_, parsed)] = parse_tou(text, source=file_name)
    t = import_tsh(TOU / file_name)
    [(_, rows)] = _facts(t)
    assert [(p.name, p.opponents, p.scores) for p in parsed] == rows
    # every played game is the same game seen from both sides
    for number, (_, opps, _) in enumerate(rows, start=1):
        for rnd, opp in enumerate(opps):
            if opp:
                assert rows[opp - 1][1][rnd] == number


def test_real_files_byes_and_absences_come_in_signed():
    t = import_tsh(TOU / "isropn20.tou")
    [(_, rows)] = _facts(t)
    own = [
        (name, rnd, s)
        for name, opps, scores in rows
        for rnd, (o, s) in enumerate(zip(opps, scores, strict=True), start=1)
        if o == 0
    ]
    assert ("Ami Tzubery", 20, 1) in own  # '2001  +9' on his own number: a bye, won
    assert ("Allan Bernstein", 14, 1) in own  # '2001 +24'
    assert ("Allan Bernstein", 15, 0) in own  # '   0  24': a round he was absent


@pytest.mark.parametrize("file_name", sorted(REAL))
def test_export_then_import_is_identical(file_name, tmp_path):
    first = import_tsh(TOU / file_name)
    exported = render_export(first, "tou").data
    out = tmp_path / "again.tou"
    out.write_bytes(exported)
    second = import_tsh(out)
    assert _facts(second) == _facts(first)
    assert (second.name, second.start_date) == (first.name, first.start_date)
    # and the second export is the first byte for byte
    assert render_export(second, "tou").data == exported


def test_the_console_upload_takes_a_tou_too():
    from tournament.interchange.imports import import_upload

    t = import_upload("isropn20.TOU", (TOU / "isropn20.tou").read_bytes(), actor="test")
    [(_, rows)] = _facts(t)
    assert len(rows) == 35 and not t.published  # a draft, as every upload
