"""The club commands: club_night, club_night_close, club_season and season_standings.

Happy paths are read back through --json; every bad input is refused with a code, a field and
a message naming what was wrong, and writes nothing (rows and audit events counted). One test
runs the commands as real processes for the exit status and the JSON error on stdout.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests import warm
from tests.migrated import migrated_sqlite
from tournament.clubs import services as cs
from tournament.clubs.models import Night, Season
from tournament.models import AuditEvent, Entry, Game, Membership, Player, Tournament

pytestmark = pytest.mark.django_db

TODAY = datetime.date.today()
FIELD = ["Ann Lee", "Bob Ray", "Cy Dee", "Di Eve"]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def run_json(*args: str):
    return json.loads(run(*args, "--json"))


def counts() -> dict[str, int]:
    return {
        m.__name__: m.objects.count()
        for m in (Tournament, Night, Season, Entry, Game, Player, Membership, AuditEvent)
    }


def refused(*args: str) -> CommandError:
    """Run a command that must fail; return its error after checking nothing was written."""
    before = counts()
    with pytest.raises(CommandError) as info:
        run(*args)
    assert counts() == before
    assert info.value.returncode == 1
    return info.value


@pytest.fixture
def club():
    club = cs.create_club(name="Riverside Scrabble Club", actor="setup", slug="riverside")
    for name in FIELD:
        cs.add_member(club, name, actor="setup")
    return club


@pytest.fixture
def season(club):
    return cs.create_season(
        club,
        name="This year",
        start_date=TODAY.replace(month=1, day=1),
        end_date=TODAY.replace(month=12, day=31),
        actor="setup",
    )


def play_night(slug: str, games: int = 1) -> None:
    """Draw and score each game of the night through the pair and record_result commands:
    the lower number of each board wins by 100."""
    for r in range(1, games + 1):
        run("pair", slug, "--round", str(r), "--seed", "5")
        for game in Game.objects.filter(
            round__division__tournament__slug=slug, round__number=r, player2__isnull=False
        ):
            low = min(game.player1.number, game.player2.number)
            run("record_result", slug, "--round", str(r), str(low), "400", "300")


# --- happy paths ------------------------------------------------------------------------------


def test_club_night_creates_the_night_and_prints_slug_and_numbers(club):
    audits = AuditEvent.objects.count()
    data = run_json(
        "club_night",
        "riverside",
        "--date",
        "2026-03-03",
        "--players",
        ",".join(FIELD),
        "--guests",
        "Gus Tee",
        "--games",
        "2",
        "--draw",
        "random,koth",
    )
    assert data["slug"] == "riverside-2026-03-03"
    assert data["date"] == "2026-03-03" and data["games"] == 2
    assert data["draw"] == ["random", "koth"]
    assert [p["number"] for p in data["players"]] == [1, 2, 3, 4, 5]
    assert sorted(p["name"] for p in data["players"]) == sorted([*FIELD, "Gus Tee"])
    assert [p["name"] for p in data["players"] if p["guest"]] == ["Gus Tee"]
    night = Night.objects.get(tournament__slug=data["slug"])
    assert night.club == club and night.date == datetime.date(2026, 3, 3) and not night.closed
    assert night.tournament.divisions.get().entries.count() == 5
    assert AuditEvent.objects.filter(action="create_night", actor="club_night").count() == 1
    assert AuditEvent.objects.count() > audits


def test_club_night_by_club_name_and_surname_first_names(club):
    data = run_json(
        "club_night",
        "riverside scrabble club",
        "--date",
        "2026-03-10",
        "--players",
        "Lee, Ann; Ray, Bob",
    )
    assert sorted(p["name"] for p in data["players"]) == ["Lee, Ann", "Ray, Bob"]


def test_club_night_text_output_says_how_to_record_results(club):
    out = run("club_night", "riverside", "--date", "2026-03-03", "--players", ",".join(FIELD))
    assert "riverside-2026-03-03" in out
    assert "record_result riverside-2026-03-03 --round 1" in out
    assert "club_night_close riverside-2026-03-03" in out
    for name in FIELD:
        assert name in out


def test_record_result_works_for_a_night_and_the_ladder_follows(club, season):
    day = TODAY.replace(month=1, day=6) if TODAY.month > 1 or TODAY.day > 6 else TODAY
    data = run_json(
        "club_night",
        "riverside",
        "--date",
        day.isoformat(),
        "--players",
        ",".join(FIELD),
        "--games",
        "1",
    )
    slug = data["slug"]
    play_night(slug, games=1)
    closed = run_json("club_night_close", slug)
    assert closed["closed"] is True and closed["slug"] == slug
    assert Night.objects.get(tournament__slug=slug).closed
    rows = run_json("season_standings", "riverside")
    assert all(
        set(r) == {"rank", "name", "points", "wins", "losses", "spread", "nights"} for r in rows
    )
    by_name = {r["name"]: r for r in rows}
    assert set(by_name) == set(FIELD)
    winners = [r for r in rows if r["wins"] == 1]
    assert len(winners) == 2
    for r in winners:
        assert (r["rank"], r["points"], r["spread"], r["nights"]) == (1, 2, 100, 1)
    for r in rows:
        if r["wins"] == 0:
            assert (r["rank"], r["points"], r["losses"], r["spread"]) == (3, 0, 1, -100)
    text = run("season_standings", "riverside")
    assert "This year" in text and "Ann Lee" in text


def test_season_standings_by_name_picks_that_season(club, season):
    old = cs.create_season(
        club,
        name="Last year",
        start_date=datetime.date(TODAY.year - 1, 1, 1),
        end_date=datetime.date(TODAY.year - 1, 12, 31),
        actor="setup",
    )
    night = cs.create_night(
        club,
        date=old.start_date + datetime.timedelta(days=6),
        players=FIELD[:2],
        games=1,
        actor="setup",
    )
    play_night(night.tournament.slug)
    cs.close_night(night, actor="setup")
    assert run_json("season_standings", "riverside") == []
    rows = run_json("season_standings", "riverside", "--season", "last year")
    assert [(r["rank"], r["name"], r["points"]) for r in rows] == [
        (1, "Ann Lee", 2),
        (2, "Bob Ray", 0),
    ]


def test_club_season_creates_a_season_with_a_preset(club):
    data = run_json(
        "club_season",
        "riverside",
        "--name",
        "Spring",
        "--start",
        "2026-03-01",
        "--end",
        "2026-05-31",
        "--preset",
        "margin-bonus",
    )
    assert data["name"] == "Spring" and data["preset"] == "margin-bonus"
    assert data["rule"]["margin_bonus"] == 1
    s = Season.objects.get(club=club, name="Spring")
    assert (s.start_date, s.end_date) == (datetime.date(2026, 3, 1), datetime.date(2026, 5, 31))
    assert AuditEvent.objects.filter(action="create_season", actor="club_season").exists()


# --- bad input: a code, a field, a clear message, nothing written -----------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["club_night", "nowhere", "--date", "2026-03-03", "--players", "Ann Lee,Bob Ray"],
        ["season_standings", "nowhere"],
        ["club_season", "nowhere", "--name", "S", "--start", "2026-01-01", "--end", "2026-02-01"],
    ],
)
def test_unknown_club_is_named(club, command):
    err = refused(*command)
    assert (err.code, err.field) == ("unknown_club", "club")
    assert "there is no club 'nowhere'" in str(err)


def test_a_player_ticked_twice_is_refused(club):
    err = refused(
        "club_night", "riverside", "--date", "2026-03-03", "--players", "Ann Lee,Bob Ray,Ann Lee"
    )
    assert (err.code, err.field) == ("player_ticked_twice", "players")
    assert "Ann Lee is ticked twice" in str(err)


def test_a_player_ticked_as_member_and_guest_is_refused(club):
    err = refused(
        "club_night",
        "riverside",
        "--date",
        "2026-03-03",
        "--players",
        "Ann Lee,Bob Ray",
        "--guests",
        "Bob Ray",
    )
    assert (err.code, err.field) == ("player_ticked_twice", "guests")


def test_a_new_name_ticked_twice_creates_no_player(club):
    err = refused(
        "club_night", "riverside", "--date", "2026-03-03", "--players", "Ann Lee,Zed New,Zed New"
    )
    assert err.code == "player_ticked_twice"
    assert not Player.objects.filter(name="Zed New").exists()


@pytest.mark.parametrize("date", ["2026-13-01", "tuesday", "03/03/2026", ""])
def test_bad_date_is_refused(club, date):
    err = refused("club_night", "riverside", "--date", date, "--players", "Ann Lee,Bob Ray")
    assert (err.code, err.field) == ("not_a_date", "date")
    assert "is not a date" in str(err)


def test_unknown_draw_is_refused(club):
    err = refused(
        "club_night",
        "riverside",
        "--date",
        "2026-03-03",
        "--players",
        "Ann Lee,Bob Ray",
        "--draw",
        "random,chess",
    )
    assert (err.code, err.field) == ("unknown_draw", "draw")
    assert "'chess'" in str(err) and "koth" in str(err)


@pytest.mark.parametrize("games", ["0", "13", "three"])
def test_bad_number_of_games_is_refused(club, games):
    err = refused(
        "club_night",
        "riverside",
        "--date",
        "2026-03-03",
        "--players",
        "Ann Lee,Bob Ray",
        "--games",
        games,
    )
    assert err.field == "games"


def test_a_night_of_one_player_is_refused(club):
    err = refused("club_night", "riverside", "--date", "2026-03-03", "--players", "Ann Lee")
    assert (err.code, err.field) == ("night_needs_players", "players")


def test_unknown_registry_id_is_refused(club):
    err = refused("club_night", "riverside", "--date", "2026-03-03", "--players", "Ann Lee,999999")
    assert (err.code, err.field) == ("no_such_player", "players")


def test_unknown_season_is_named_with_the_seasons_there_are(club, season):
    err = refused("season_standings", "riverside", "--season", "1999")
    assert (err.code, err.field) == ("unknown_season", "season")
    assert "'1999'" in str(err) and "This year" in str(err)


def test_no_season_at_all_is_refused(club):
    err = refused("season_standings", "riverside")
    assert (err.code, err.field) == ("no_season", "season")


def test_overlapping_season_is_refused(club, season):
    err = refused(
        "club_season",
        "riverside",
        "--name",
        "Summer",
        "--start",
        TODAY.replace(month=6, day=1).isoformat(),
        "--end",
        datetime.date(TODAY.year + 1, 1, 31).isoformat(),
    )
    assert (err.code, err.field) == ("season_overlaps", "start_date")
    assert "This year" in str(err)


def test_unknown_preset_is_refused(club):
    err = refused(
        "club_season",
        "riverside",
        "--name",
        "S",
        "--start",
        "2030-01-01",
        "--end",
        "2030-02-01",
        "--preset",
        "golf",
    )
    assert (err.code, err.field) == ("unknown_preset", "preset")


def test_closing_a_night_with_games_missing_is_refused(club):
    night = cs.create_night(club, date="2026-03-03", players=FIELD, games=1, actor="setup")
    run("pair", night.tournament.slug, "--round", "1")
    err = refused("club_night_close", night.tournament.slug)
    assert err.code == "night_games_missing" and "2 game(s) without a result" in str(err)
    assert not Night.objects.get(pk=night.pk).closed


def test_closing_a_closed_night_is_refused(club):
    night = cs.create_night(club, date="2026-03-03", players=FIELD[:2], games=1, actor="setup")
    play_night(night.tournament.slug)
    run("club_night_close", night.tournament.slug)
    err = refused("club_night_close", night.tournament.slug)
    assert err.code == "night_closed"


def test_closing_an_unknown_night_or_a_tournament_is_refused(club):
    err = refused("club_night_close", "no-such-night")
    assert (err.code, err.field) == ("unknown_tournament", "tournament")
    Tournament.objects.create(name="Open", slug="open")
    err = refused("club_night_close", "open")
    assert (err.code, err.field) == ("not_a_club_night", "night")


# --- real processes: exit status and the JSON error on stdout ---------------------------------


@pytest.fixture(scope="module")
def cli_env(tmp_path_factory):
    db = tmp_path_factory.mktemp("clubcli") / "cli.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "GIBSON_DEVELOPMENT": "1"}
    setup = (
        "from tournament.clubs.services import create_club as c; "
        "c(name='Riverside', slug='riverside', actor='setup')"
    )
    migrated_sqlite(db)
    made = manage(env, "shell", "-c", setup)
    assert made.returncode == 0, made.stderr
    return env


def manage(env, *args: str) -> subprocess.CompletedProcess:
    """The command in a process of its own (its exit status, stdout and stderr), forked from
    a warm parent (tests/warm.py): five commands, one Django start. The real program's exit
    status is checked in tests/core/test_command_errors.py."""
    return warm.manage(env, *args)


@pytest.mark.django_db(False)
def test_commands_as_processes_exit_non_zero_with_the_error(cli_env):
    proc = manage(
        cli_env,
        "club_night",
        "riverside",
        "--date",
        "2026-02-30",
        "--players",
        "Ann Lee,Bob Ray",
        "--json",
    )
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["ok"] is False and data["code"] == "not_a_date" and data["field"] == "date"
    proc = manage(cli_env, "season_standings", "elsewhere")
    assert proc.returncode == 1 and "there is no club 'elsewhere'" in proc.stderr
    proc = manage(
        cli_env,
        "club_night",
        "riverside",
        "--date",
        "2026-03-03",
        "--players",
        "Ann Lee,Bob Ray",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["slug"] == "riverside-2026-03-03"
    proc = manage(
        cli_env, "record_result", "riverside-2026-03-03", "--round", "1", "1", "400", "300"
    )
    assert proc.returncode == 1 and "not paired" in proc.stderr
