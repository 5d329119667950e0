"""The re-rate as it was before issue 24 (ORM objects in, ORM objects out), kept as a yardstick.

The equivalence test checks the streamed, bulk-writing ``ratings.services.rerate_list`` stores
exactly what this one stored, and bench_ratings.py times both. Not used by the site.
"""

from __future__ import annotations

import datetime
from collections.abc import Hashable
from typing import Any

from django.db import transaction
from django.utils import timezone

from ratings.engine import PlayerRating as EnginePlayerRating
from ratings.engine import RatedEvent as EngineEvent
from ratings.engine import replay
from ratings.models import RatingHistory, RatingList
from ratings.selectors import event_explanations
from ratings.services import BATCH, _explanation, _write_current, bump_list, list_history


def rerate_list_orm(rating_list: RatingList, from_date: datetime.date | None = None) -> dict:
    """The former path: every event loaded as a model, history rows as model objects."""
    with transaction.atomic():
        lst = RatingList.objects.select_for_update().get(pk=rating_list.pk)
        frm = from_date if from_date is not None else lst.dirty_from
        history, start = list_history(lst)
        before = [e for s, e in history if frm is not None and s.date < frm]
        after = [(s, e) for s, e in history if frm is None or s.date >= frm]
        state = replay(before, start, explain=False)
        RatingHistory.objects.filter(event__in=[s for s, _ in after]).delete()
        rows: list[RatingHistory] = []
        written = 0

        def collect(ev: EngineEvent, res: dict[Hashable, EnginePlayerRating]) -> None:
            nonlocal written
            for pid, pr in res.items():
                rows.append(
                    RatingHistory(
                        event_id=ev.id,
                        player_id=pid,
                        before=pr.old,
                        after=pr.new,
                        games=pr.new_games - pr.old_games,
                        expected=pr.expected,
                        actual=pr.actual,
                        explanation=_explanation(pr),
                    )
                )
            if len(rows) >= BATCH * 5:
                RatingHistory.objects.bulk_create(rows, batch_size=BATCH)
                written += len(rows)
                rows.clear()

        state = replay([e for _, e in after], state, on_event=collect)
        RatingHistory.objects.bulk_create(rows, batch_size=BATCH)
        written += len(rows)
        players = _write_current(lst, state)
        lst.dirty_from = None
        lst.rerated_at = timezone.now()
        lst.save(update_fields=["system", "dirty_from", "rerated_at"])
        bump_list(lst)
    rating_list.refresh_from_db()
    out: dict[str, Any] = {"events_rerated": len(after), "history_rows": written}
    out["players"] = players
    return out


def list_checksum(lst: RatingList) -> str:
    """SHA-256 over a list's stored results (history rows and current ratings) keyed by event
    and player names, not ids: the same ratings give the same checksum on any database."""
    import hashlib
    import json

    from ratings.models import PlayerRating

    h = hashlib.sha256()
    lazy: dict[int, dict] = {}
    hist = RatingHistory.objects.filter(event__rating_list=lst).order_by(
        "event__date", "event__name", "player__name"
    )
    for row in hist.values_list(
        "event__name",
        "player__name",
        "before",
        "after",
        "games",
        "expected",
        "actual",
        "explanation",
        "event_id",
        "player_id",
    ).iterator(chunk_size=5000):
        explanation = row[7]
        if not explanation:  # a re-rate's lazy row: summed as a reader would see it
            if row[8] not in lazy:
                lazy.clear()  # rows come event by event: one event's explanations held
                lazy[row[8]] = event_explanations(row[8])
            explanation = lazy[row[8]][row[9]]
        h.update(repr(row[:7]).encode())
        h.update(json.dumps(_by_name(explanation), sort_keys=True).encode())
    cur = PlayerRating.objects.filter(rating_list=lst).order_by("player__name")
    for row in cur.values_list(
        "player__name",
        "rating",
        "career_games",
        "deviation",
        "volatility",
        "state",
        "last_event_date",
    ).iterator(chunk_size=5000):
        h.update(repr(row[:-2]).encode())
        h.update(json.dumps(row[-2], sort_keys=True).encode())
        h.update(str(row[-1]).encode())
    return h.hexdigest()


def _by_name(explanation: dict) -> dict:
    """The explanation's per-game opponents are player ids: dropped for a cross-database sum
    (every other number in it stays)."""
    for seg in explanation.get("segments", []):
        for g in seg.get("per_game", []):
            g[1] = None
    return explanation


def load_history(events: list, start: dict, name: str = "Bench") -> RatingList:
    """A generated engine history (bench_ratings.generate_history) stored as a rating list."""
    from ratings.models import PlayerRating, RatedEvent
    from tournament.models import Player

    ids = sorted({p for e in events for g in e.games for p in (g.a, g.b)} | set(start))
    with transaction.atomic():
        made = Player.objects.bulk_create(
            [Player(name=f"{name}, Player {i:06d}") for i in ids], batch_size=2000
        )
        pk = {i: p.pk for i, p in zip(ids, made, strict=True)}
        if any(v is None for v in pk.values()):  # a database that returns no keys
            pk = dict(
                zip(
                    ids,
                    Player.objects.filter(name__startswith=f"{name}, Player ")
                    .order_by("name")
                    .values_list("pk", flat=True),
                    strict=True,
                )
            )
        lst = RatingList.objects.create(name=name, slug=name.lower(), system="nsa2008")
        RatedEvent.objects.bulk_create(
            [
                RatedEvent(
                    rating_list=lst,
                    date=e.date,
                    name=f"Event {e.id}",
                    configured_rounds=e.configured_rounds,
                    games=[[g.round, pk[g.a], pk[g.b], g.score_a, g.score_b] for g in e.games],
                )
                for e in events
            ],
            batch_size=1000,
        )
        PlayerRating.objects.bulk_create(
            [
                PlayerRating(
                    rating_list=lst,
                    player_id=pk[i],
                    start_rating=start[i].rating if i in start else 0,
                    start_career_games=start[i].career_games if i in start else 0,
                )
                for i in ids
            ],
            batch_size=2000,
        )
    return lst
