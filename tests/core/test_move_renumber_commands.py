"""``move_player`` and ``renumber`` (issue 17): the console's move and renumber from the
command line, through the same services, ``--json`` output, a one-line refusal and a non-zero
exit on every error, nothing changed."""

from __future__ import annotations

import contextlib
import json
from io import StringIO

import pytest
from django.core.management import CommandError, ManagementUtility, call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tournament import services
from tournament.models import AuditEvent, Entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def event():
    t = services.create_tournament(name="Cli Open", slug="cli-open")
    a = services.create_division(t, name="A", rounds=3)
    b = services.create_division(t, name="B", rounds=3)
    for name, rating in (("Cole, Cy", 1600), ("Able, Ann", 1800), ("Baker, Bo", 1700)):
        services.register_player(a, name=name, rating=rating)
    services.register_player(b, name="Dunn, Di", rating=1500)
    return t, a, b


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def state() -> tuple:
    return (
        AuditEvent.objects.count(),
        sorted(Entry.objects.values_list("division__name", "number", "player__name")),
    )


def test_move_player_moves_and_reports(event):
    t, a, b = event
    out = run("move_player", "cli-open", "1", "--division", "A", "--to", "B")
    assert out.strip() == "Cole, Cy: division A #1 -> division B #2"
    assert list(b.entries.order_by("number").values_list("player__name", flat=True)) == [
        "Dunn, Di",
        "Cole, Cy",
    ]
    data = json.loads(run("move_player", "cli-open", "1", "--division", "A", "--to", "B", "--json"))
    assert data == {
        "ok": True,
        "name": "Able, Ann",
        "from_division": "A",
        "from_number": 1,
        "division": "B",
        "number": 3,
    }
    assert AuditEvent.objects.filter(action="move_entry").count() == 2


def test_renumber_by_seed_rating(event):
    t, a, b = event
    data = json.loads(run("renumber", "cli-open", "--division", "A", "--json"))
    assert data["moved"] == 3
    assert [(n["old"], n["new"]) for n in data["numbers"]] == [(2, 1), (3, 2), (1, 3)]
    assert list(a.entries.order_by("number").values_list("player__name", flat=True)) == [
        "Able, Ann",
        "Baker, Bo",
        "Cole, Cy",
    ]
    assert "0 players renumbered" in run("renumber", "cli-open", "--division", "A")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["move_player", "cli-open", "1", "--division", "A", "--to", "Z"], "unknown_division",
         "no division 'Z'"),
        (["move_player", "cli-open", "1", "--division", "A", "--to", "A"], "reg_move_where",
         "choose another division"),
        (["move_player", "cli-open", "9", "--division", "A", "--to", "B"], "unknown_player",
         "division A: there is no player number 9"),
        (["move_player", "cli-open", "1", "--to", "B"], "division_required", "--division"),
        (["move_player", "nope", "1", "--division", "A", "--to", "B"], "unknown_tournament",
         "nope"),
        (["renumber", "cli-open", "--division", "Z"], "unknown_division", "no division 'Z'"),
    ],
)  # fmt: skip
def test_refusals_name_the_problem_and_change_nothing(event, args, code, message):
    before = state()
    with pytest.raises(CommandError, match=message) as caught:
        run(*args)
    assert caught.value.code == code
    assert state() == before


def test_after_round_1_both_are_refused(event):
    t, a, b = event
    save_round_pairings(a, 1, [PlannedGame(1, 2), PlannedGame(3, 0)])
    before = state()
    for args in (
        ["move_player", "cli-open", "1", "--division", "A", "--to", "B"],
        ["renumber", "cli-open", "--division", "A"],
    ):
        with pytest.raises(CommandError, match="round 1 is paired") as caught:
            run(*args)
        assert caught.value.code == "reg_numbers_fixed"
    assert state() == before


def test_json_errors_and_exit_status(event):
    """``--json`` puts the refusal on stdout as JSON and the command exits 1."""
    out = StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exited:
        ManagementUtility(
            ["manage.py", "renumber", "cli-open", "--division", "Z", "--json"]
        ).execute()
    assert exited.value.code == 1
    data = json.loads(out.getvalue())
    assert data["ok"] is False and data["code"] == "unknown_division"
