"""The ABSP results CSV (issue 18, item 5e): ``export --format absp`` and the desk's link.

Columns ``Division,Round,Player1,Score1,Player2,Score2``, one row per played game; byes and
forfeits (games with no opponent, never rated) get no row, nor does a pairing not yet scored.
"""

from __future__ import annotations

import csv
import io
import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.formats import read_t
from tournament.interchange.exports import ABSP_HEADER, absp_results_csv
from tournament.interchange.imports import import_tsh
from tournament.services.results import record_forfeit

pytestmark = pytest.mark.django_db


def _rows(text: str) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ABSP_HEADER == ["Division", "Round", "Player1", "Score1", "Player2", "Score2"]
    return rows[1:]


def test_command_writes_every_played_game_once_and_no_bye_or_forfeit(real_data, tmp_path):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    out = tmp_path / "results.csv"
    result = StringIO()
    call_command("export", t.slug, "--format", "absp", "--out", str(out), "--json", stdout=result)
    assert json.loads(result.getvalue())
    rows = _rows(out.read_text("utf-8"))
    players = read_t(real_data / "naspa-2023-a.t")
    expected = {
        (int(r), frozenset({(p.name, p.scores[r - 1]), (q.name, q.scores[r - 1])}))
        for p in players
        for r, o in enumerate(p.opponents, start=1)
        if o and (q := players[o - 1])
    }
    got = [(int(r), frozenset({(n1, int(s1)), (n2, int(s2))})) for _, r, n1, s1, n2, s2 in rows]
    assert len(got) == len(set(got)) == len(expected)  # each game once, none left out
    assert set(got) == expected
    assert {row[0] for row in rows} == {t.divisions.get().name}
    assert [int(r[1]) for r in rows] == sorted(int(r[1]) for r in rows)  # round order
    # the file has byes and forfeits (against 0): none of them is a row
    own = sum(1 for p in players for o in p.opponents if o == 0)
    assert own > 0 and len(rows) * 2 + own == sum(len(p.opponents) for p in players)


def test_byes_forfeits_and_unscored_games_have_no_row_and_cells_are_formula_safe():
    t = services.create_tournament(name="ABSP Open")
    d = services.create_division(t, name="=A", rounds=2)
    for name, rating in (("=HYPERLINK(1)", 150), ("Ann  Able", 140), ("Bo Bee", 130), ("Cy", 120)):
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    services.record_result(d, 1, 1, 412, 388)
    record_forfeit(d, 1, 4)  # 4 forfeits to 3: two games against nobody
    save_round_pairings(d, 2, [PlannedGame(1, 3), PlannedGame(2, 0), PlannedGame(4, 0)])
    services.record_result(d, 2, 2, 50)  # a bye; 1-3 stays unscored
    assert _rows(absp_results_csv(t)) == [
        ["'=A", "1", "'=HYPERLINK(1)", "412", "Ann  Able", "388"],
    ]


def test_the_desk_offers_and_serves_it(client, real_data):
    t = import_tsh(real_data / "naspa-2006-b.t")
    user = get_user_model().objects.create_user("absp-td", "a@example.org", "pw-long-enough-1")
    t.directors.add(user)
    client.force_login(user)
    desk = client.get(f"/t/{t.slug}/desk/").content.decode()
    assert f"/t/{t.slug}/desk/export/absp" in desk and "ABSP results CSV" in desk
    response = client.get(f"/t/{t.slug}/desk/export/absp")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert f'filename="{t.slug}.absp.csv"' in response["Content-Disposition"]
    assert response.content.decode() == absp_results_csv(t)
    assert len(_rows(response.content.decode())) > 100
