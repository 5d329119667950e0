"""Bad input to the management commands: a clear message, exit 1, nothing changed.

Covers the shell's own behaviour (errors as JSON with --json, a closed output pipe) in real
processes, and the import_tsh / standings inputs that used to be accepted silently.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from pairings.services.store import PlannedGame, save_round_pairings
from tests import warm
from tests.conftest import REPO
from tests.migrated import migrated_sqlite
from tournament import services
from tournament.models import AuditEvent, Game, Tournament

GOOD = "Able, Ann 1800 2; 400\nBaker, Bo 1700 1; 350\n"


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue()


def run_json(*args: str):
    return json.loads(run(*args, "--json"))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def nothing_written() -> bool:
    return not Tournament.objects.exists() and not Game.objects.exists()


# --- real processes: --json errors and closed pipes -------------------------------------------


@pytest.fixture(scope="session")
def cli_env(tmp_path_factory):
    """A migrated database with the demo tournament, for commands run as real processes
    (read by the commands' refusals here and in test_error_codes.py: one per test process,
    ~9 s of child processes)."""
    db = tmp_path_factory.mktemp("cli") / "cli.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "GIBSON_DEVELOPMENT": "1"}
    migrated_sqlite(db)
    # the demo loaded by a child of the environment's warm parent (tests/warm.py), which
    # tests/gcg/test_command.py's commands then use; this module's own commands stay real
    # programs (manage below): their exit status and their stderr are the subject here
    loaded = warm.manage(env, "load_demo")
    assert loaded.returncode == 0, loaded.stderr
    return env


def manage(env, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True
    )


def test_json_error_is_json_on_stdout(cli_env):
    proc = manage(cli_env, "standings", "gibson-demo-open", "--division", "Q", "--json")
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert data["ok"] is False and "no division 'Q'" in data["error"]
    assert proc.stderr == ""


def test_plain_error_without_json_stays_text_on_stderr(cli_env):
    proc = manage(cli_env, "standings", "gibson-demo-open", "--division", "Q")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "no division 'Q'" in proc.stderr and "{" not in proc.stderr


def test_json_usage_error_is_json_too(cli_env):
    proc = manage(cli_env, "standings", "gibson-demo-open", "--after-round", "x", "--json")
    assert proc.returncode == 2  # argparse's status for a usage error
    data = json.loads(proc.stdout)
    assert data["ok"] is False and "--after-round: invalid int value: 'x'" in data["error"]


@pytest.mark.parametrize(
    "args",
    [
        ("rate", "gibson-demo-open", "--division", "A"),
        ("standings", "gibson-demo-open", "--division", "A"),
        ("standings", "gibson-demo-open", "--division", "A", "--json"),
    ],
)
def test_closed_output_pipe_ends_quietly(cli_env, args):
    """`manage.py rate ... | head -1`: the reader leaves early; no traceback, like unix tools."""
    proc = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=cli_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader has gone before the command writes anything
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 141  # what a shell reports for a tool ended by SIGPIPE
    assert err == ""


def test_closed_pipe_through_head(cli_env):
    proc = subprocess.run(
        f"'{sys.executable}' manage.py rate gibson-demo-open --division A | head -1",
        shell=True,
        cwd=REPO,
        env=cli_env,
        capture_output=True,
        text=True,
    )
    assert proc.stdout.startswith("Gibson Demo Open")
    assert "Traceback" not in proc.stderr and "Error" not in proc.stderr


# --- import_tsh ---------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"empty\.t: the file is empty"),
        ("# no players yet\n\n", r"empty\.t: division empty has no player lines"),
    ],
)
def test_empty_division_file_is_refused(tmp_path, text, message):
    path = write(tmp_path, "empty.t", text)
    with pytest.raises(CommandError, match=message):
        run("import_tsh", str(path))
    assert nothing_written() and not AuditEvent.objects.exists()


@pytest.mark.django_db
def test_config_naming_an_empty_division_file_is_refused(tmp_path):
    write(tmp_path, "a.t", GOOD)
    write(tmp_path, "b.t", "")
    config = write(tmp_path, "config.tsh", "division A a.t\ndivision B b.t\n")
    with pytest.raises(CommandError, match=r"b\.t: division B has no player lines"):
        run("import_tsh", str(config))
    assert nothing_written()


@pytest.mark.django_db
def test_config_not_named_config_tsh_is_read_as_a_config(tmp_path):
    write(tmp_path, "a.t", GOOD)
    spring = write(tmp_path, "spring.tsh", "config event_name = 'Spring Open'\ndivision A a.t\n")
    result = run_json("import_tsh", str(spring))
    assert result["tournament"] == "spring-open"
    assert result["divisions"] == [{"name": "A", "players": 2, "rounds": 1}]


@pytest.mark.django_db
def test_config_without_event_name_is_named_after_its_file_or_folder(tmp_path):
    folder = tmp_path / "Autumn Classic 2024"
    write(folder, "a.t", GOOD)
    write(folder, "spring.tsh", "division A a.t\n")
    write(folder, "config.tsh", "division A a.t\nconfig max_rounds = 5\n")
    # a config called config.tsh says nothing about the event; its folder does
    named = run_json("import_tsh", str(folder / "config.tsh"))["tournament"]
    assert Tournament.objects.get(slug=named).name == "Autumn Classic 2024"
    # a config the director named is named by that name
    named = run_json("import_tsh", str(folder / "spring.tsh"))["tournament"]
    assert Tournament.objects.get(slug=named).name == "spring"


@pytest.mark.django_db
def test_division_file_named_tsh_is_read_as_a_division(tmp_path):
    path = write(tmp_path, "x.tsh", GOOD)
    result = run_json("import_tsh", str(path))
    assert result["divisions"] == [{"name": "x", "players": 2, "rounds": 1}]
    assert Tournament.objects.get(slug=result["tournament"]).name == "x"


@pytest.mark.django_db
def test_archive_is_recognised_by_its_begin_file_lines_whatever_its_name(tmp_path):
    archive = (
        "config event_name = 'Summer Cup'\ndivision A a.t\n"
        f"#begin_file name=a.t\n{GOOD}#end_file name=a.t\n"
    )
    path = write(tmp_path, "submission.txt", archive)
    result = run_json("import_tsh", str(path))
    assert result["tournament"] == "summer-cup"
    assert result["divisions"] == [{"name": "A", "players": 2, "rounds": 1}]


@pytest.mark.django_db
def test_archive_with_an_empty_division_names_the_archive_and_member(tmp_path):
    archive = "division A a.t\n#begin_file name=a.t\n#end_file name=a.t\n"
    path = write(tmp_path, "all.tsh", archive)
    with pytest.raises(CommandError, match=r"all\.tsh: a\.t: division A has no player lines"):
        run("import_tsh", str(path))
    assert nothing_written()


@pytest.mark.django_db
def test_config_option_with_a_config_instead_of_a_t_file_is_refused(tmp_path):
    write(tmp_path, "a.t", GOOD)
    config = write(tmp_path, "config.tsh", "division A a.t\n")
    other = write(tmp_path, "other.tsh", "division A a.t\n")
    with pytest.raises(CommandError, match=r"other\.tsh is a TSH config file, not a \.t"):
        run("import_tsh", str(other), "--config", str(config))
    assert nothing_written()


THREE_ROUNDS = (
    "Able, Ann 1800 2 3 0; 400 380 50\n"
    "Baker, Bo 1700 1 0 3; 350 50 410\n"
    "Cole, Cy 1600 0 1 2; 50 390 360\n"
)


@pytest.mark.django_db
def test_rounds_below_the_rounds_in_the_file_is_refused(tmp_path):
    path = write(tmp_path, "div.t", THREE_ROUNDS)
    with pytest.raises(
        CommandError,
        match=r"--rounds 2: div\.t line 1 \(#1 Able, Ann\) is already paired in round 3; "
        r"division div needs --rounds 3 or more",
    ):
        run("import_tsh", str(path), "--rounds", "2")
    assert nothing_written()
    # exactly the rounds played, or more, is fine
    assert run_json("import_tsh", str(path), "--rounds", "3")["divisions"][0]["rounds"] == 3


# --- standings ----------------------------------------------------------------------------


@pytest.fixture
def paired_slug(db):
    t = services.create_tournament(name="Round Range")
    d = services.create_division(t, name="A", rounds=6)
    players = (("Able, Ann", 1500), ("Baker, Bo", 1700), ("Cole, Cy", 1500), ("Dunn, Di", 1400))
    for name, rating in players:
        services.register_player(d, name=name, rating=rating)
    save_round_pairings(d, 1, [PlannedGame(1, 2), PlannedGame(3, 4)])
    save_round_pairings(d, 2, [PlannedGame(1, 3), PlannedGame(2, 4)])
    return t.slug


@pytest.mark.parametrize(
    ("after", "message"),
    [
        (
            "3",
            r"--after-round 3: division A has no round 3 paired yet; "
            r"give a round number from 0 to 2",
        ),
        (
            "-1",
            r"--after-round -1: division A has no negative rounds; "
            r"give a round number from 0 to 2",
        ),
    ],
)
def test_standings_after_an_unpaired_round_is_refused(paired_slug, after, message):
    games = list(Game.objects.values_list("pk", "score1", "score2"))
    with pytest.raises(CommandError, match=message):
        run("standings", paired_slug, "--after-round", after)
    assert list(Game.objects.values_list("pk", "score1", "score2")) == games


def test_standings_after_round_0_are_the_seeding(paired_slug):
    rows = run_json("standings", paired_slug, "--after-round", "0")
    # rating descending, then player number; equal ratings share a rank
    assert [(r["rank"], r["number"]) for r in rows] == [(1, 2), (2, 1), (2, 3), (4, 4)]
    # paired rounds without results are still the seeding
    assert run_json("standings", paired_slug, "--after-round", "2") == rows
