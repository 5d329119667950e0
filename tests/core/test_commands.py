"""Management commands: --json output, and a clear error with a non-zero exit on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tests.conftest import REPO
from tests.migrated import migrated_sqlite
from tournament import services
from tournament.models import Game, Tournament

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def slug():
    t = services.create_tournament(name="Cmd Test")
    d = services.create_division(t, name="A", rounds=4)
    for name in ("Able, Ann", "Baker, Bo", "Cole, Cy"):
        services.register_player(d, name=name, rating=1500)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    return t.slug


def test_record_result_and_standings_json(slug):
    data = json.loads(run("record_result", slug, "--round", "1", "2", "410", "390", "--json"))
    assert data == {
        "round": 1,
        "board": None,
        "player1": {"number": 1, "name": "Able, Ann"},
        "score1": 390,
        "player2": {"number": 2, "name": "Baker, Bo"},
        "score2": 410,
        "first": 1,
    }
    rows = json.loads(run("standings", slug, "--json"))
    assert [(r["rank"], r["number"], r["wins"], r["spread"]) for r in rows] == [
        (1, 3, 1, 50),
        (2, 2, 1, 20),
        (3, 1, 0, -20),
    ]
    assert set(rows[0]) >= {"rank", "number", "name", "wins", "losses", "spread", "rating"}
    text = run("standings", slug)
    assert "Cole, Cy" in text and "+50" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("record_result", "nope", "--round", "1", "1", "400", "300"), "no tournament"),
        (
            ("record_result", "{slug}", "--division", "Q", "--round", "1", "1", "400", "300"),
            "no division 'Q'",
        ),
        (("record_result", "{slug}", "--round", "2", "1", "400", "300"), "not paired"),
        (("record_result", "{slug}", "--round", "1", "1", "400", "x"), "not a whole number"),
        (("standings", "{slug}", "--after-round", "9"), "--after-round 9"),
    ],
)
def test_bad_input_errors(slug, args, message):
    args = tuple(a.format(slug=slug) for a in args)
    with pytest.raises(CommandError, match=message):
        run(*args)
    assert not Game.objects.filter(player2__isnull=False, score1__isnull=False).exists()


def test_real_process_exits_non_zero_with_message(tmp_path):
    env_db = tmp_path / "cli.sqlite3"
    import os

    env = {**os.environ, "DATABASE_URL": f"sqlite:///{env_db}", "GIBSON_DEVELOPMENT": "1"}
    migrated_sqlite(env_db)
    proc = subprocess.run(
        [sys.executable, "manage.py", "standings", "missing", "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    # with --json the error is JSON on stdout, for the script that asked for JSON
    assert json.loads(proc.stdout) == {
        "ok": False,
        "error": "there is no tournament 'missing'",
        "code": "unknown_tournament",
        "field": "tournament",
        "params": {"slug": "missing"},
    }


def test_demo_loads_once():
    out = json.loads(run("load_demo", "--json"))
    assert out["created"] is True
    again = json.loads(run("load_demo", "--json"))
    assert again == {"tournament": out["tournament"], "created": False}
    rows = json.loads(run("standings", out["tournament"], "--division", "A", "--json"))
    assert len(rows) == 24 and rows[0]["wins"] >= 3


def test_unmigrated_database_says_how_to_fix_it(tmp_path):
    import os

    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite3'}",
        "GIBSON_DEVELOPMENT": "1",
    }
    proc = subprocess.run(
        [sys.executable, "manage.py", "standings", "x"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "run: manage.py migrate" in proc.stderr and "Traceback" not in proc.stderr


# --- correcting a result from the command line ----------------------------------------------


def test_record_result_correct_fixes_a_score_from_either_side_and_audits_the_reason(slug):
    from tournament.models import AuditEvent

    run("record_result", slug, "--round", "1", "2", "410", "390")
    with pytest.raises(CommandError, match=r"already has a result \(390-410\); correct it with"):
        run("record_result", slug, "--round", "1", "2", "420", "390")
    text = run("record_result", slug, "--round", "1", "1", "395", "410", "--correct", "typo")
    assert text.startswith("Corrected round 1: #1 395 - #2 410")
    game = Game.objects.get(round__number=1, player2__isnull=False)
    assert (game.score1, game.score2) == (395, 410)
    # from player 2's side: their score first
    run("record_result", slug, "--round", "1", "2", "430", "395", "--correct", "recount")
    game.refresh_from_db()
    assert (game.score1, game.score2) == (395, 430)
    events = AuditEvent.objects.filter(action="correct_result").order_by("pk")
    assert [e.reason for e in events] == ["typo", "recount"]
    assert events[0].before["score1"] == 390 and events[1].after["score2"] == 430
    rows = json.loads(run("standings", slug, "--json"))
    assert {r["number"]: r["spread"] for r in rows}[2] == 35


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("1", "400", "300", "--correct", "typo"), "#1 has no result yet to correct"),
        (("2", "400", "300", "--correct", "  "), "a correction needs a reason"),
        (("2", "400", "--correct", "typo"), "a played game needs both scores"),
        (("2", "400", "x", "--correct", "typo"), "not a whole number"),
    ],
)
def test_record_result_correct_bad_input_changes_nothing(slug, args, message):
    from tournament.models import AuditEvent

    if args[0] == "2":
        run("record_result", slug, "--round", "1", "2", "410", "390")
    before = list(Game.objects.values_list("score1", "score2").order_by("pk"))
    audits = AuditEvent.objects.count()
    with pytest.raises(CommandError, match=message):
        run("record_result", slug, "--round", "1", *args)
    assert list(Game.objects.values_list("score1", "score2").order_by("pk")) == before
    assert AuditEvent.objects.count() == audits


def test_the_commands_json_is_the_apis_object(slug):
    """One function per object (tournament.shapes): the games ``pair --json`` (a change to a
    round in play) and ``record_result --json`` print are the API's games, and the rows
    ``standings --json`` prints are the API's standings rows, so a script reading either sees
    the same fields (they had drifted: players as numbers against objects)."""
    from rest_framework.test import APIClient

    services.publish_tournament(Tournament.objects.get(slug=slug), True, None)
    division = f"/api/v1/tournaments/{slug}/divisions/a/"

    def api_games() -> list[dict]:
        return APIClient().get(division + "games/?round=1").json()["results"]

    changed = json.loads(run("pair", slug, "--round", "1", "--add-bye", "2", "--json"))
    games = [{k: v for k, v in g.items() if k != "explanation"} for g in changed["games"]]
    assert sorted(games, key=str) == sorted(api_games(), key=str)
    game = json.loads(run("record_result", slug, "--round", "1", "1", "410", "390", "--json"))
    assert game in api_games()
    rows = json.loads(run("standings", slug, "--json"))
    assert rows == APIClient().get(division + "standings/").json()["rows"]
