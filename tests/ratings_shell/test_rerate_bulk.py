"""Issue 24: the streamed, bulk-writing re-rate stores exactly what the ORM path stored, and a
late submission rewrites only the history from its date on. Runs on SQLite and, in CI (with
DATABASE_URL), on PostgreSQL, where the rows go through COPY."""

from __future__ import annotations

import datetime
import gc

import pytest

from ratings import explain
from ratings import services as rs
from ratings.engine import RatedGame, replay
from ratings.models import PlayerRating, RatingHistory
from ratings.selectors import event_explanations
from tests.benchmarks.bench_ratings import generate_history

from .legacy_rerate import list_checksum, load_history, rerate_list_orm

pytestmark = pytest.mark.django_db
D = datetime.date


@pytest.fixture
def generated():
    events, start = generate_history(4000, seed=7)
    return load_history(events, start), events, start


def _rows_by_key(lst) -> dict[tuple[int, int], tuple]:
    """Each row's values with its explanation as a reader sees it (built if left out)."""
    explained: dict[int, dict] = {}
    out = {}
    for r in RatingHistory.objects.filter(event__rating_list=lst).values_list(
        "event_id", "player_id", "pk", "before", "after", "expected", "explanation"
    ):
        if not r[6]:
            if r[0] not in explained:
                explained[r[0]] = event_explanations(r[0])
            r = (*r[:6], explained[r[0]][r[1]])
        out[(r[0], r[1])] = r
    return out


def test_bulk_rerate_stores_what_the_orm_path_stored(generated, monkeypatch):
    lst, events, start = generated
    monkeypatch.setattr(rs, "EVENT_CHUNK", 7)  # many pages, some ending inside a day's events
    rerate_list_orm(lst, D(1900, 1, 1))
    old = list_checksum(lst)
    old_rows = {k: (v[3], v[4], v[5], v[6]) for k, v in _rows_by_key(lst).items()}
    summary = rs.rerate_list(lst, D(1900, 1, 1))
    assert summary["events_rerated"] == len(events)
    assert summary["history_rows"] == len(old_rows)
    assert {k: (v[3], v[4], v[5], v[6]) for k, v in _rows_by_key(lst).items()} == old_rows
    assert list_checksum(lst) == old
    # and from the middle, both ways
    mid = events[len(events) // 2].date
    rerate_list_orm(lst, mid)
    assert list_checksum(lst) == old
    rs.rerate_list(lst, mid)
    assert list_checksum(lst) == old


def test_bulk_rerate_equals_the_engine(generated):
    lst, events, start = generated
    rs.rerate_list(lst)
    final = replay(events, start, explain=False)
    by_name = {
        int(name.rsplit(" ", 1)[1]): (rating, career)
        for name, rating, career in PlayerRating.objects.filter(rating_list=lst).values_list(
            "player__name", "rating", "career_games"
        )
    }
    assert by_name == {i: (p.rating or 0, p.career_games) for i, p in final.items()}


def test_late_submission_rewrites_only_from_its_date(generated):
    lst, events, start = generated
    rs.rerate_list(lst)
    rs.rerate_list(lst)  # the ids below are those of a settled list
    mid = events[len(events) // 2].date
    rows = _rows_by_key(lst)
    dates = dict(lst.events.values_list("pk", "date"))
    earlier = {k: v for k, v in rows.items() if dates[k[0]] < mid}
    assert earlier and len(earlier) < len(rows)
    players = list(PlayerRating.objects.filter(rating_list=lst).values_list("player_id", flat=True))
    late = [RatedGame(r, players[0], players[1], 400 + r, 380) for r in (1, 2, 3)]
    summary = rs.submit_event(lst, name="Late", date=mid, configured_rounds=3, games=late)
    after = _rows_by_key(lst)
    assert {k: after[k] for k in earlier} == earlier  # same ids, same values: not rewritten
    later = [k for k in rows if dates[k[0]] >= mid]
    assert all(after[k][2] != rows[k][2] for k in later)  # these were re-rated
    lst.refresh_from_db()
    assert lst.dirty_from is None
    partial = list_checksum(lst)
    # re-rating from the late event's date replays the earlier events in memory only
    again = rs.rerate_list(lst, mid)
    n_before = sum(1 for d in dates.values() if d < mid)
    assert again["events_final"] == n_before
    assert again["events_rerated"] == len(dates) - n_before + 1  # the late event with them
    assert {k: v for k, v in _rows_by_key(lst).items() if k in earlier} == earlier
    full = rs.rerate_list(lst, D(1900, 1, 1))
    assert full["events_final"] == 0
    assert list_checksum(lst) == partial
    assert summary.name == "Late"


def test_failure_in_the_middle_of_the_writes_changes_nothing(generated, monkeypatch):
    """An error while history rows stream out (a COPY open on PostgreSQL) rolls back whole."""
    lst, events, start = generated
    monkeypatch.setattr(rs, "EVENT_CHUNK", 7)
    rs.rerate_list(lst)
    saved = list_checksum(lst)
    real = rs.state_columns
    calls = []

    def flaky(p):
        calls.append(1)
        if len(calls) > 500:  # well into the stream: rows of earlier events already sent
            raise RuntimeError("disk full")
        return real(p)

    monkeypatch.setattr(rs, "state_columns", flaky)
    with pytest.raises(RuntimeError, match="disk full"):
        rs.rerate_list(lst, D(1900, 1, 1))
    monkeypatch.setattr(rs, "state_columns", real)
    assert gc.isenabled()  # the collector paused for the re-rate is back on after a failure
    assert list_checksum(lst) == saved  # the connection is usable and nothing changed
    rs.rerate_list(lst, D(1900, 1, 1))
    assert list_checksum(lst) == saved


def test_rerate_pauses_the_collector_and_restores_it(generated, monkeypatch):
    """The cycle collector is off while a list is re-rated (it found nothing to free and cost a
    tenth of a large re-rate) and back as it was afterwards, on or off."""
    lst, _events, _start = generated
    seen = []
    real = rs.state_columns

    def spy(p):
        seen.append(gc.isenabled())
        return real(p)

    monkeypatch.setattr(rs, "state_columns", spy)
    assert gc.isenabled()
    rs.rerate_list(lst)
    assert seen and not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        rs.rerate_list(lst, D(1900, 1, 1))
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def test_games_and_explanations_are_named_tuples_read_by_name():
    """RatedGame and GameExplanation became named tuples for speed: still read by name, equal
    to a game with the same fields, immutable."""
    from ratings.engine import GameExplanation

    g = RatedGame(3, 10, 11, 400, 380)
    assert (g.round, g.a, g.b, g.score_a, g.score_b, g.result_a) == (3, 10, 11, 400, 380, 1.0)
    assert g == RatedGame(round=3, a=10, b=11, score_a=400, score_b=380)
    assert RatedGame(1, 1, 2, 350, 350).result_a == 0.5
    with pytest.raises(AttributeError):
        g.score_a = 1  # type: ignore[misc]
    e = GameExplanation(1, 11, 1500, 0.5, 1.0, 400, 380)
    assert (e.opponent, e.opponent_rating, e.expected, e.actual) == (11, 1500, 0.5, 1.0)


def _reference_explanation(pr) -> dict:
    """The stored explanation as first written (before the re-rate's speed work)."""
    return {
        "text": pr.explain(),
        "segments": [
            {
                "rounds": [s.first_round, s.last_round],
                "rating_in": s.rating_in,
                "games": s.games,
                "expected": round(s.expected, 4),
                "actual": s.actual,
                "multipliers": [[k, round(e, 4)] for k, e in s.multipliers],
                "change": round(s.change, 3),
                "bonus": round(s.bonus, 3),
                "feedback": round(s.feedback, 3),
                "rating_out": s.rating_out,
                "newcomer": s.newcomer,
                "notes": list(s.notes),
                "per_game": [
                    [g.round, g.opponent, g.opponent_rating, round(g.expected, 4), g.actual]
                    for g in s.game_details
                ],
            }
            for s in pr.segments
        ],
    }


@pytest.mark.parametrize("system", ["nsa2008", "naspa2024", "club-third", "glicko2", "absp"])
def test_stored_explanation_is_the_reference_text(system, monkeypatch):
    """The fast explanation (cached rounding, unpacked tuples) writes the same JSON text as the
    plain one, on every kind of system, including after its rounding cache is emptied."""
    monkeypatch.setattr(explain, "_ROUNDED_MAX", 50)
    events, start = generate_history(3000, seed=11)
    seen = 0

    def check(ev, res):
        nonlocal seen
        for pr in res.values():
            assert rs._ENCODE(rs._explanation(pr)) == rs._ENCODE(_reference_explanation(pr))
            seen += 1

    replay(events, start, system=system, on_event=check)
    assert seen > 100
