"""Rating lists with a real database: estimates, submitting, re-rating, importing, reports."""

from __future__ import annotations

import datetime
import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ratings import services as rs
from ratings.division import division_estimates, rate_division
from ratings.engine import RatedGame, RatingError, rate_event
from ratings.engine import RatedPlayer as EnginePlayer
from ratings.models import PlayerRating, RatedEvent, RatingHistory, RatingList
from ratings.selectors import history_explanation
from ratings.tasks import rerate as rerate_task
from tournament.formats.tsh import read_t
from tournament.interchange.imports import import_tsh
from tournament.models import Player

pytestmark = pytest.mark.django_db
D = datetime.date


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_json(*args: str):
    return json.loads(run(*args, "--json")[0])


@pytest.fixture
def naspa(real_data):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    return t, read_t(real_data / "naspa-2023-a.t")


def test_acceptance_rate_json_reproduces_every_newr(real_data):
    path = real_data / "naspa-2023-a.t"
    slug = run_json("import_tsh", str(path), "--rounds", "23")["tournament"]
    tsh = read_t(path)
    rows = run_json("rate", slug)
    assert [r["number"] for r in rows] == [p.number for p in tsh]
    values = 0
    for r, p in zip(rows, tsh, strict=True):
        assert r["name"] == p.name and r["old"] == p.rating
        assert r["by_round"] == p.newr, p.name
        assert r["new"] == p.newr[-1]
        values += len(r["by_round"])
    assert values == 598


def test_rate_through_round_and_text_output(naspa):
    t, tsh = naspa
    rows = run_json("rate", t.slug, "--through-round", "5")
    assert all(r["by_round"] == p.newr[:5] for r, p in zip(rows, tsh, strict=True))
    text, _ = run("rate", t.slug)
    assert "Smylie, Jackson" in text and "2022" in text and "nsa2008" in text


def test_rate_refuses_bad_input(naspa):
    t, _ = naspa
    with pytest.raises(CommandError, match="--through-round 30"):
        run("rate", t.slug, "--through-round", "30")
    with pytest.raises(CommandError, match="unknown rating system 'elo'"):
        run("rate", t.slug, "--system", "elo")
    with pytest.raises(CommandError, match="no tournament"):
        run("rate", "no-such-event")


def test_other_system_estimates(naspa):
    t, _ = naspa
    division = t.divisions.get()
    rows = division_estimates(division, system="glicko2", through_round=2)
    assert all(len(r["by_round"]) == 2 for r in rows)


def test_rate_division_into_a_list(naspa):
    t, tsh = naspa
    division = t.divisions.get()
    lst = rs.create_rating_list("NASPA TWL", slug="twl")
    event = rate_division(division, lst, date=D(2023, 2, 17))
    assert event.configured_rounds == 23 and len(event.games) == 295
    current = {
        pr.player.name: pr.rating
        for pr in PlayerRating.objects.filter(rating_list=lst).select_related("player")
    }
    assert current == {p.name: p.newr[-1] for p in tsh}
    hist = RatingHistory.objects.filter(event=event)
    assert hist.count() == 26
    smylie = hist.get(player__name="Smylie, Jackson")
    assert (smylie.before, smylie.after, smylie.games) == (2009, 2022, 23)
    explanation = history_explanation(smylie)  # built on read: the re-rate stores the state
    assert "2009 -> 2022" in explanation["text"]
    seg = explanation["segments"][0]
    assert seg["rounds"] == [1, 12] and len(seg["per_game"]) == 12
    # Submitting the division again replaces its event instead of adding one.
    rate_division(division, lst, date=D(2023, 2, 17))
    assert RatedEvent.objects.filter(rating_list=lst).count() == 1
    assert RatingHistory.objects.filter(event__rating_list=lst).count() == 26


def _players(*names: str) -> list[int]:
    return [Player.objects.create(name=n).pk for n in names]


def _rr(ids: list[int], rounds: int, seed: int) -> list[RatedGame]:
    import random

    rng = random.Random(seed)
    games = []
    for r in range(1, rounds + 1):
        order = ids[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            games.append(RatedGame(r, a, b, rng.randint(300, 500), rng.randint(300, 500)))
    return games


def _state(lst: RatingList) -> dict[int, tuple]:
    return {
        pr.player_id: (pr.rating, pr.career_games)
        for pr in PlayerRating.objects.filter(rating_list=lst)
    }


def _history(lst: RatingList) -> dict[tuple[int, int], tuple]:
    return {
        (h.event_id, h.player_id): (h.before, h.after, h.expected)
        for h in RatingHistory.objects.filter(event__rating_list=lst)
    }


def test_late_submission_rerates_later_events_and_is_idempotent():
    lst = rs.create_rating_list("Club", slug="club", start_date=D(2024, 1, 1))
    a, b, c, d = _players("A, A", "B, B", "C, C", "D, D")
    start = {a: (1500, 100), b: (1600, 100), c: (1400, 100), d: (1700, 100)}
    g2 = _rr([a, b, c, d], 6, 2)
    rs.submit_event(
        lst, name="March", date=D(2024, 3, 1), configured_rounds=6, games=g2, start=start
    )
    march = RatedEvent.objects.get(name="March")
    before_late = RatingHistory.objects.get(event=march, player_id=a).before
    assert before_late == 1500
    g1 = _rr([a, b, c, d], 4, 1)
    rs.submit_event(lst, name="February", date=D(2024, 2, 1), configured_rounds=4, games=g1)
    feb = RatedEvent.objects.get(name="February")
    feb_after = RatingHistory.objects.get(event=feb, player_id=a).after
    assert RatingHistory.objects.get(event=march, player_id=a).before == feb_after
    # By hand with the engine: February then March from the start values.
    p1 = [EnginePlayer(i, *start[i]) for i in (a, b, c, d)]
    r1 = rate_event("nsa2008", p1, g1, 4)
    p2 = [EnginePlayer(i, r1[i].new, r1[i].new_games) for i in (a, b, c, d)]
    r2 = rate_event("nsa2008", p2, g2, 6)
    assert _state(lst) == {i: (r2[i].new, r2[i].new_games) for i in (a, b, c, d)}
    lst.refresh_from_db()
    assert lst.dirty_from is None
    once = (_state(lst), _history(lst))
    rs.rerate_list(lst, D(2024, 1, 1))
    rs.rerate_list(lst)
    twice = (_state(lst), _history(lst))
    assert once == twice


def test_failed_rerate_changes_nothing(monkeypatch):
    lst = rs.create_rating_list("Fragile", slug="fragile")
    ids = _players("E, E", "F, F", "G, G", "H, H")
    rs.submit_event(
        lst,
        name="One",
        date=D(2024, 1, 5),
        configured_rounds=3,
        games=_rr(ids, 3, 5),
        start={i: (1500, 60) for i in ids},
    )
    saved = _state(lst)
    rows = RatingHistory.objects.count()

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(rs._HistoryWriter, "flush", boom)
    with pytest.raises(RuntimeError):
        rs.submit_event(
            lst, name="Two", date=D(2024, 1, 1), configured_rounds=3, games=_rr(ids, 3, 6)
        )
    assert _state(lst) == saved
    assert RatingHistory.objects.count() == rows
    assert not RatedEvent.objects.filter(name="Two").exists()
    lst.refresh_from_db()
    assert lst.dirty_from is None


def test_submit_refuses_bad_events():
    lst = rs.create_rating_list("Strict", slug="strict", start_date=D(2024, 1, 1))
    a, b = _players("I, I", "J, J")
    with pytest.raises(RatingError, match="before the start of list 'strict'"):
        rs.submit_event(
            lst,
            name="Old",
            date=D(2023, 12, 31),
            configured_rounds=1,
            games=[RatedGame(1, a, b, 400, 300)],
        )
    with pytest.raises(RatingError, match="no player with id 999999"):
        rs.submit_event(
            lst,
            name="Ghost",
            date=D(2024, 2, 1),
            configured_rounds=1,
            games=[RatedGame(1, a, 999999, 400, 300)],
        )
    with pytest.raises(RatingError, match="round 1: .* is not a result"):
        rs.submit_event(
            lst,
            name="Bad",
            date=D(2024, 2, 1),
            configured_rounds=1,
            games=[RatedGame(1, a, b, 400, -1)],
        )
    with pytest.raises(RatingError, match="no rating list 'nope'"):
        rs.rating_list_by_slug("nope")
    with pytest.raises(RatingError, match="already exists"):
        rs.create_rating_list("Strict", slug="strict")
    assert RatedEvent.objects.count() == 0


def test_import_ratings_command_both_formats(tmp_path):
    csv_file = tmp_path / "club.csv"
    csv_file.write_text('name,rating,games\nSmith, Ann,1500,30\n"Jones, Bo",0,\n')
    out = run_json("import_ratings", "clubl", str(csv_file), "--create", "Club List")
    assert out == {"list": "clubl", "rows": 2, "players_created": 2}
    lst = RatingList.objects.get(slug="clubl")
    got = {
        pr.player.name: (pr.rating, pr.career_games)
        for pr in PlayerRating.objects.filter(rating_list=lst).select_related("player")
    }
    assert got == {"Smith, Ann": (1500, 30), "Jones, Bo": (0, None)}
    tsh_file = tmp_path / "ratings.txt"
    tsh_file.write_text("Smith, Ann\t1620\t1\t2025-01-01\t45\nNew, Cy\t1400\t2\t\t10\n")
    text, _ = run("import_ratings", "clubl", str(tsh_file))
    assert "2 ratings loaded, 1 new players" in text
    assert PlayerRating.objects.get(rating_list=lst, player__name="Smith, Ann").rating == 1620


def test_import_ratings_refuses_bad_files(tmp_path):
    rs.create_rating_list("L", slug="l")
    bad = tmp_path / "bad.csv"
    bad.write_text("Smith, Ann,1500,30\nJones, Bo,fifteen,3\n")
    with pytest.raises(CommandError, match=r"bad.csv line 2: rating 'fifteen'"):
        run("import_ratings", "l", str(bad))
    with pytest.raises(CommandError, match="no rating list 'missing'"):
        run("import_ratings", "missing", str(bad))
    with pytest.raises(CommandError, match="cannot read"):
        run("import_ratings", "l", str(tmp_path / "none.csv"))
    assert PlayerRating.objects.count() == 0


def test_import_into_a_list_with_events_rerates():
    lst = rs.create_rating_list("Re", slug="re")
    a, b = _players("K, K", "L, L")
    rs.submit_event(
        lst,
        name="E",
        date=D(2024, 1, 1),
        configured_rounds=1,
        games=[RatedGame(1, a, b, 400, 300)],
        start={a: (1500, 100), b: (1500, 100)},
    )
    game = [RatedGame(1, a, b, 400, 300)]

    def by_engine(ra: int) -> int:
        players = [EnginePlayer(a, ra, 100), EnginePlayer(b, 1500, 100)]
        return rate_event("nsa2008", players, game, 1)[a].new

    assert PlayerRating.objects.get(rating_list=lst, player_id=a).rating == by_engine(1500)
    rs.import_ratings(lst, "K, K,1700,100\n")
    assert by_engine(1700) != by_engine(1500)
    assert PlayerRating.objects.get(rating_list=lst, player_id=a).rating == by_engine(1700)


def test_rerate_command_progress_and_system_switch():
    lst = rs.create_rating_list("Cmd", slug="cmd")
    ids = _players("M, M", "N, N", "O, O", "P, P")
    for month in (1, 2, 3):
        rs.submit_event(
            lst,
            name=f"E{month}",
            date=D(2024, month, 1),
            configured_rounds=3,
            games=_rr(ids, 3, month),
            start={i: (1500, 100) for i in ids},
        )
    out, err = run("rerate", "cmd", "--from", "2024-02-01")
    assert "re-rated 2 events" in out and "1 earlier events kept" in out
    assert "2/2 events" in err
    data = run_json("rerate", "cmd", "--system", "glicko2")
    assert data["system"] == "glicko2" and data["events_rerated"] == 3
    assert all(pr.deviation for pr in PlayerRating.objects.filter(rating_list=lst))
    with pytest.raises(CommandError, match="--from '2024-13-01'"):
        run("rerate", "cmd", "--from", "2024-13-01")
    with pytest.raises(CommandError, match="unknown rating system"):
        run("rerate", "cmd", "--system", "elo")


def test_rerate_task_runs_inline():
    lst = rs.create_rating_list("Task", slug="task")
    ids = _players("Q, Q", "R, R")
    rs.submit_event(
        lst, name="E", date=D(2024, 1, 1), configured_rounds=2, games=_rr(ids, 2, 1), rerate=False
    )
    lst.refresh_from_db()
    assert lst.dirty_from == D(2024, 1, 1)
    result = rerate_task.delay("task").get()
    assert result["events_rerated"] == 1
    lst.refresh_from_db()
    assert lst.dirty_from is None


def test_rating_report_command():
    lst = rs.create_rating_list("Rep", slug="rep")
    ids = _players("S, S", "T, T", "U, U", "V, V")
    for month in (1, 2, 3):
        rs.submit_event(
            lst,
            name=f"E{month}",
            date=D(2024, month, 1),
            configured_rounds=4,
            games=_rr(ids, 4, month),
            start={i: (1400 + 50 * k, 100) for k, i in enumerate(ids)},
        )
    data = run_json("rating_report", "rep", "--systems", "nsa2008,glicko2,aus")
    assert set(data) == {"nsa2008", "glicko2", "aus"}
    assert len({d["games"] for d in data.values()}) == 1 and data["aus"]["games"] == 24
    text, _ = run("rating_report", "rep")
    assert "nsa2008" in text and "log-loss" in text
    with pytest.raises(CommandError, match="unknown rating system"):
        run("rating_report", "rep", "--systems", "nsa2008,bogus")


def test_failed_rerate_keeps_the_cursor_and_resumes(monkeypatch):
    lst = rs.create_rating_list("Resume", slug="resume")
    ids = _players("W, W", "X, X", "Y, Y", "Z, Z")
    rs.submit_event(
        lst,
        name="Jan",
        date=D(2024, 1, 1),
        configured_rounds=3,
        games=_rr(ids, 3, 1),
        start={i: (1500, 100) for i in ids},
    )
    rs.submit_event(
        lst, name="Mar", date=D(2024, 3, 1), configured_rounds=3, games=_rr(ids, 3, 3), rerate=False
    )
    lst.refresh_from_db()
    assert lst.dirty_from == D(2024, 3, 1)
    real = rs._HistoryWriter.flush

    def boom(*a, **k):
        raise RuntimeError("power cut")

    monkeypatch.setattr(rs._HistoryWriter, "flush", boom)
    with pytest.raises(RuntimeError):
        rs.rerate_list(lst)
    lst.refresh_from_db()
    assert lst.dirty_from == D(2024, 3, 1)  # still waiting: nothing was half written
    assert not RatingHistory.objects.filter(event__name="Mar").exists()
    monkeypatch.setattr(rs._HistoryWriter, "flush", real)
    summary = rs.rerate_list(lst)
    assert summary["events_rerated"] == 1 and summary["events_final"] == 1
    assert RatingHistory.objects.filter(event__name="Mar").count() == 4


def test_rerate_task_reports_progress(monkeypatch):
    lst = rs.create_rating_list("Watch", slug="watch")
    ids = _players("Aa, A", "Bb, B")
    for month in (1, 2, 3):
        rs.submit_event(
            lst,
            name=f"E{month}",
            date=D(2024, month, 1),
            configured_rounds=1,
            games=_rr(ids, 1, month),
            rerate=False,
        )
    seen = []
    monkeypatch.setattr(
        rerate_task, "update_state", lambda **kw: seen.append((kw["state"], kw["meta"]))
    )
    rerate_task.delay("watch").get()
    assert seen == [("PROGRESS", {"current": i, "total": 3}) for i in (1, 2, 3)]


@pytest.mark.parametrize(
    "system",
    ["nsa2008", "naspa2024", "naspa-csw", "club-third", "wespa-tsh", "absp", "aus", "glicko2"],
)
def test_page_estimates_rate_one_round_and_equal_tsh_style_estimates(naspa, system):
    """Standings pages rate only the round they show; that must equal the per-round estimates
    (every earlier round re-rated too) for every system and every round of a real event."""
    from ratings.division import division_estimates, rating_estimates

    t, _ = naspa
    d = t.divisions.get()
    d.rating_system = system
    d.save(update_fields=["rating_system"])
    for r in range(0, 24):
        full = {row["number"]: row["new"] for row in division_estimates(d, r)}
        assert rating_estimates(d, r) == full, (system, r)
