"""Issue 24: a federation re-rate leaves each history row's explanation out and stores the
player's state entering the event instead; the explanation built when it is read must be
exactly the one the eager path stores, on every rating system, after a late submission and
for a player's first event."""

from __future__ import annotations

import datetime

import pytest

from ratings import selectors
from ratings import services as rs
from ratings.engine import RatedGame
from ratings.models import PlayerRating, RatedEvent, RatingHistory
from tests.benchmarks.bench_ratings import generate_history

from .legacy_rerate import load_history

pytestmark = pytest.mark.django_db
D = datetime.date
SYSTEMS = ["nsa2008", "naspa2024", "club-third", "glicko2", "absp"]


def _explanations(lst) -> dict[tuple[int, int], dict]:
    """Every row's explanation as a reader gets it, through the one selector the faces use."""
    return {
        (h.event_id, h.player_id): selectors.history_explanation(h)
        for h in RatingHistory.objects.filter(event__rating_list=lst)
    }


def _stored(lst) -> dict[tuple[int, int], dict]:
    return {
        (e, p): x
        for e, p, x in RatingHistory.objects.filter(event__rating_list=lst).values_list(
            "event_id", "player_id", "explanation"
        )
    }


def _list(system: str):
    events, start = generate_history(1500, seed=5)
    lst = load_history(events, start)
    RatedEvent.objects.filter(rating_list=lst).update(system="")  # the list's system rates
    lst.system = system
    lst.save(update_fields=["system"])
    return lst, events


@pytest.mark.parametrize("system", SYSTEMS)
def test_lazy_explanation_is_exactly_the_eager_one(system):
    lst, events = _list(system)
    rs.rerate_list(lst, D(1900, 1, 1), explain=True)
    eager = _stored(lst)
    assert all(eager.values())
    rs.rerate_list(lst, D(1900, 1, 1))
    assert not any(_stored(lst).values())  # left out by the bulk re-rate
    lazy = _explanations(lst)
    assert lazy == eager
    # a player's first event (rated from nothing) is among them, with its games explained
    first = RatingHistory.objects.filter(event__rating_list=lst, before__isnull=True)
    assert first.exists()
    assert all(lazy[(h.event_id, h.player_id)]["segments"] for h in first if h.games)

    # a late submission, re-rated lazily from its date, against the whole list rated eagerly
    players = list(PlayerRating.objects.filter(rating_list=lst).values_list("player_id", flat=True))
    mid = events[len(events) // 2].date
    late = [RatedGame(r, players[0], players[1], 400 + r, 380 + 3 * r) for r in (1, 2, 3)]
    rs.submit_event(lst, name="Late", date=mid, configured_rounds=3, games=late)
    after_late = _explanations(lst)
    rs.rerate_list(lst, D(1900, 1, 1), explain=True)
    assert after_late == _stored(lst)
    assert after_late != eager  # the late event changed later explanations


def test_lazy_explanation_is_kept_per_event_and_fresh_after_a_rerate(django_assert_num_queries):
    lst, _events = _list("nsa2008")
    rs.rerate_list(lst)
    row = RatingHistory.objects.filter(event__rating_list=lst, games__gt=0).first()
    first = selectors.history_explanation(row)
    first["text"] = "changed by a reader"  # each read gets its own copy
    with django_assert_num_queries(1):  # the event's rows; the rating itself is remembered
        again = selectors.history_explanation(row)
    assert again["text"] != "changed by a reader" and again["segments"]
    rs.rerate_list(lst, D(1900, 1, 1), explain=True)
    stored = RatingHistory.objects.get(event_id=row.event_id, player_id=row.player_id)
    assert selectors.history_explanation(stored) == again  # stored: read as it is


def test_state_entering_the_event_round_trips():
    from ratings.engine import RatedPlayer
    from ratings.explain import _decode_history, state_columns

    p = RatedPlayer(1, 1500, None, 61.5, 0.06, (1480.25, 1512.0000000001), D(2020, 2, 29))
    games, dev, vol, played, hist = state_columns(p)
    assert (games, dev, vol, played) == (None, 61.5, 0.06, "2020-02-29")
    assert _decode_history(hist) == p.history
    assert _decode_history(state_columns(RatedPlayer(2, None))[4]) is None
    assert _decode_history(state_columns(RatedPlayer(3, 1200, history=()))[4]) == ()


def test_built_explanation_decodes_as_the_database_gives_it_back():
    """A rounded tiny negative change is -0.0: jsonb (PostgreSQL) gives it back as 0.0, SQLite
    as -0.0. The built explanation follows the database, so even its JSON text is the same."""
    import json

    from ratings.explain import _ENCODE

    lst, _events = _list("nsa2008")
    rs.rerate_list(lst)
    row = RatingHistory.objects.filter(event__rating_list=lst).first()
    value = {"change": -0.0, "per_game": [[1, 2, 1500, 0.5, 1.0]], "bonus": 0.0}
    RatingHistory.objects.filter(pk=row.pk).update(explanation=value)
    back = RatingHistory.objects.get(pk=row.pk).explanation
    decoded = selectors.decode_as_stored(_ENCODE(value))
    assert json.dumps(decoded, sort_keys=True) == json.dumps(back, sort_keys=True)
