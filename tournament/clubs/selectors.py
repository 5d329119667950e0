"""Reads for clubs shared by pages, API and commands: seasons, ladders, nights, awards.

Games are the truth: a season's ladder is computed from the games of the club's closed nights
in its dates each time it is asked for (pages cache it under the club's content version), by
one query and the pure core in tournament.clubs.ladder.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

from django.db.models import Q
from django.utils import timezone

from ..models import Club, Game, Player
from .ladder import LadderGame, LadderNight, LadderRow, Rule, ladder
from .models import Night, Season


def club_by_slug(slug: str) -> Club | None:
    return Club.objects.select_related("rating_list").filter(slug=slug).first()


def current_season(club: Club, today: datetime.date | None = None) -> Season | None:
    """The season running today, else the latest one that started before today."""
    today = today or timezone.localdate()
    seasons = Season.objects.filter(club=club)
    running = seasons.filter(start_date__lte=today, end_date__gte=today).first()
    return running or seasons.filter(start_date__lte=today).order_by("-start_date").first()


def season_nights(season: Season) -> list[LadderNight]:
    """The games of the club's closed nights within the season's dates, by player id."""
    rows = (
        Game.objects.filter(
            round__division__tournament__club_night__club_id=season.club_id,
            round__division__tournament__club_night__closed_at__isnull=False,
            round__division__tournament__club_night__date__gte=season.start_date,
            round__division__tournament__club_night__date__lte=season.end_date,
            score1__isnull=False,
        )
        .filter(Q(player2__isnull=True) | Q(score2__isnull=False))
        .order_by("round__division__tournament__club_night__date", "round__number", "id")
        .values_list(
            "round__division__tournament__club_night__id",
            "player1__player_id",
            "player2__player_id",
            "score1",
            "score2",
        )
    )
    nights: dict[int, list[LadderGame]] = {}
    for night, a, b, s1, s2 in rows.iterator(chunk_size=5000):
        nights.setdefault(night, []).append(LadderGame(a, b, s1, s2 or 0))
    return [LadderNight(k, tuple(v)) for k, v in nights.items()]


def _names(ids: set[int]) -> dict[int, str]:
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "name"))


def season_ladder(season: Season) -> list[LadderRow]:
    """The season's ranked ladder under its rule (see tournament.clubs.ladder)."""
    nights = season_nights(season)
    ids = {g.a for n in nights for g in n.games} | {
        g.b for n in nights for g in n.games if g.b is not None
    }
    return ladder(Rule.from_dict(season.rule), nights, _names(ids))


def season_awards(season: Season) -> list[dict[str, Any]]:
    """What a season's end hands out: the top three, most wins, high game, best average,
    most nights played. Each award names the player and the value, for the archive."""
    rows = season_ladder(season)
    awards: list[dict[str, Any]] = []
    for row in rows:
        if row.rank is not None and row.rank <= 3:
            place = {1: "champion", 2: "second", 3: "third"}[row.rank]
            awards.append({"award": place, "player": row.player, "name": row.name,
                           "value": row.as_dict()["points"]})
    qualified = [r for r in rows if r.rank is not None]
    if qualified:
        best = max(qualified, key=lambda r: (r.wins, r.spread))
        awards.append({"award": "most wins", "player": best.player, "name": best.name,
                       "value": best.wins})
        most = max(qualified, key=lambda r: (r.nights, r.points))
        awards.append({"award": "most nights", "player": most.player, "name": most.name,
                       "value": most.nights})
    scores: dict[int, list[int]] = defaultdict(list)
    high: tuple[int, int] | None = None
    for night in season_nights(season):
        for g in night.games:
            if g.b is None:
                continue
            for player, score in ((g.a, g.score_a), (g.b, g.score_b)):
                scores[player].append(score)
                if high is None or score > high[1]:
                    high = (player, score)
    names = _names(set(scores))
    if high is not None:
        awards.append({"award": "high game", "player": high[0], "name": names.get(high[0], ""),
                       "value": high[1]})
    minimum = Rule.from_dict(season.rule).min_nights
    eligible = {r.player for r in rows if r.nights >= minimum}
    averages = [
        (sum(v) / len(v), p) for p, v in scores.items() if p in eligible and v
    ]
    if averages:
        avg, player = max(averages)
        awards.append({"award": "best average", "player": player, "name": names.get(player, ""),
                       "value": round(avg, 1)})
    return awards


def recent_nights(club: Club, limit: int = 10) -> list[Night]:
    return list(Night.objects.filter(club=club).select_related("tournament")[:limit])
