"""Reads for clubs shared by pages, API and commands: seasons, ladders, nights, awards.

Games are the truth: a season's ladder is computed from the games of the club's closed nights
in its dates each time it is asked for (pages cache it under the club's content version), by
one query and the pure core in tournament.clubs.ladder.
"""

from __future__ import annotations

import datetime
import gc
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, OuterRef, Q, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from ratings.models import PlayerRating
from tournament.standings import format_wins

from ..models import Club, Division, Entry, Game, Membership, Player
from .ladder import PRESETS, LadderGame, LadderNight, LadderRow, Rule, ladder
from .models import Night, Season
from .records import fold, summarise


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
            round__division__tournament__published=True,
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
    for night, a, b, s1, s2 in rows:
        games = nights.get(night)
        if games is None:
            games = nights[night] = []
        games.append(LadderGame(a, b, s1, s2 or 0))
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
            awards.append(
                {
                    "award": place,
                    "player": row.player,
                    "name": row.name,
                    "value": row.as_dict()["points"],
                }
            )
    qualified = [r for r in rows if r.rank is not None]
    if qualified:
        best = max(qualified, key=lambda r: (r.wins, r.spread))
        awards.append(
            {"award": "most wins", "player": best.player, "name": best.name, "value": best.wins}
        )
        most = max(qualified, key=lambda r: (r.nights, r.points))
        awards.append(
            {"award": "most nights", "player": most.player, "name": most.name, "value": most.nights}
        )
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
        awards.append(
            {
                "award": "high game",
                "player": high[0],
                "name": names.get(high[0], ""),
                "value": high[1],
            }
        )
    minimum = Rule.from_dict(season.rule).min_nights
    eligible = {r.player for r in rows if r.nights >= minimum}
    averages = [(sum(v) / len(v), p) for p, v in scores.items() if p in eligible and v]
    if averages:
        avg, player = max(averages)
        awards.append(
            {
                "award": "best average",
                "player": player,
                "name": names.get(player, ""),
                "value": round(avg, 1),
            }
        )
    return awards


def recent_nights(club: Club, limit: int = 10) -> list[Night]:
    return list(Night.objects.filter(club=club).select_related("tournament")[:limit])


# --------------------------------------------------------------------------- public club pages
#
# The public pages read a club in a fixed number of queries whatever its size: every list
# below is one query (values_list, names joined in), and the records of all closed nights are
# one pass in Python over one query of their games. Pages cache the result under the club's
# content version (tournament.clubs.web.caching); nothing here is private (no e-mail, phone
# or tokens are read) and nights of unpublished tournaments are left out.

RECORD_MIN_GAMES = 10  # games needed for the best average


def _shown_nights() -> Q:
    """Nights the public may see: their tournament is published."""
    return Q(tournament__published=True)


def club_summaries(q: str = "") -> list[dict[str, Any]]:
    """Every club for the clubs index (name, city, meets, members, last night), one query;
    ``q`` keeps the clubs whose name or city holds it."""
    members = (
        Membership.objects.filter(club=OuterRef("pk"), active=True, guest=False)
        .order_by()
        .values("club")
        .annotate(n=Count("pk"))
        .values("n")
    )
    last = (
        Night.objects.filter(_shown_nights(), club=OuterRef("pk"))
        .order_by("-date")
        .values("date")[:1]
    )
    clubs = Club.objects.all()
    if q:
        clubs = clubs.filter(Q(name__icontains=q) | Q(city__icontains=q))
    rows = clubs.annotate(members=Subquery(members), last_night=Subquery(last)).values(
        "name", "slug", "city", "country", "meets", "members", "last_night"
    )
    return [{**r, "members": r["members"] or 0} for r in rows.order_by("name", "pk")]


@dataclass(frozen=True)
class MemberRow:
    player: int
    name: str
    since: datetime.date | None


def club_members(club: Club) -> tuple[list[MemberRow], list[MemberRow]]:
    """(active members, guests) by name, one query; lapsed members are not listed."""
    members: list[MemberRow] = []
    guests: list[MemberRow] = []
    rows = (
        Membership.objects.filter(club=club)
        .filter(Q(guest=True) | Q(active=True))
        .order_by("player__name", "player_id")
        .values_list("player_id", "player__name", "since", "guest")
    )
    for pk, name, since, guest in rows:
        (guests if guest else members).append(MemberRow(pk, name, since))
    return members, guests


@dataclass(frozen=True)
class NightPlayer:
    player: int
    name: str
    wins: float
    losses: float
    spread: int


@dataclass(frozen=True)
class NightSummary:
    """One night as the club page lists it: its players' results and the winner of the night
    (most wins, then spread, as the night's standings rank them), once the night is closed."""

    id: int
    date: datetime.date
    closed: bool
    slug: str  # the night's tournament
    division: str  # its division's slug
    players: int  # players at the night (entries)
    games: int  # games played so far
    results: tuple[NightPlayer, ...]  # best first
    winners: tuple[NightPlayer, ...]  # empty until the night is closed


def _night_results(games: list[tuple]) -> list[NightPlayer]:
    """Per-player wins, losses and spread of one night, best first (wins, spread, name)."""
    table: dict[int, list] = {}
    for _night, a, a_name, b, b_name, s1, s2 in games:
        sides = [(a, a_name, s1, None if b is None else s2)]
        if b is not None:
            sides.append((b, b_name, s2, s1))
        for player, name, mine, theirs in sides:
            row = table.setdefault(player, [name, 0.0, 0.0, 0])
            spread = mine - theirs if theirs is not None else mine
            if spread > 0:
                row[1] += 1
            elif spread < 0:
                row[2] += 1
            else:
                row[1] += 0.5
                row[2] += 0.5
            row[3] += spread
    rows = [NightPlayer(p, r[0], r[1], r[2], r[3]) for p, r in table.items()]
    rows.sort(key=lambda r: (-r.wins, -r.spread, r.name, r.player))
    return rows


def _played_games() -> Q:
    """Games with their result in (a bye or forfeit has only the first score)."""
    return Q(score1__isnull=False) & (Q(player2__isnull=True) | Q(score2__isnull=False))


def recent_night_results(club: Club, limit: int = 10) -> list[NightSummary]:
    """The club's latest nights (open ones too, marked) with their results: two queries."""
    players = (
        Entry.objects.filter(division=OuterRef("pk"))
        .order_by()
        .values("division")
        .annotate(n=Count("pk"))
        .values("n")
    )
    nights = list(
        Division.objects.filter(tournament__club_night__club=club, tournament__published=True)
        .annotate(players=Subquery(players))
        .order_by("-tournament__club_night__date", "-tournament__club_night__id")
        .values_list(
            "tournament__club_night__id",
            "tournament__club_night__date",
            "tournament__club_night__closed_at",
            "tournament__slug",
            "slug",
            "players",
        )[:limit]
    )
    by_night: dict[int, list[tuple]] = defaultdict(list)
    if nights:
        rows = (
            Game.objects.filter(_played_games())
            .filter(round__division__tournament__club_night__id__in=[n[0] for n in nights])
            .values_list(
                "round__division__tournament__club_night__id",
                "player1__player_id",
                "player1__player__name",
                "player2__player_id",
                "player2__player__name",
                "score1",
                "score2",
            )
        )
        for row in rows:
            by_night[row[0]].append(row)
    out = []
    for pk, date, closed_at, slug, division, count in nights:
        results = _night_results(by_night[pk])
        winners: tuple[NightPlayer, ...] = ()
        if closed_at is not None and results:
            top = results[0]
            winners = tuple(r for r in results if (r.wins, r.spread) == (top.wins, top.spread))
        out.append(
            NightSummary(
                pk,
                date,
                closed_at is not None,
                slug,
                division,
                count or 0,
                len(by_night[pk]),
                tuple(results),
                winners,
            )
        )
    return out


@dataclass(frozen=True)
class RecordMark:
    """One holder of a record and where it was set: a night (``date``, ``slug``, ``division``
    for the link), or from one night to another for a streak (``until_*``)."""

    player: int
    name: str
    detail: str = ""
    date: datetime.date | None = None
    slug: str = ""
    division: str = ""
    until_date: datetime.date | None = None
    until_slug: str = ""
    until_division: str = ""


@dataclass(frozen=True)
class ClubRecord:
    key: str
    title: str
    value: Any  # None: nobody holds it yet
    marks: tuple[RecordMark, ...] = ()
    note: str = ""


MAX_MARKS = 6  # holders listed for a shared record


def club_records(club: Club, min_games: int = RECORD_MIN_GAMES) -> list[ClubRecord]:
    """The club's records over all its closed nights: high game, high loss, high combined
    score, best average (``min_games`` games or more) and longest winning streak.

    Two queries: the closed nights with their record summaries (kept when each closed,
    tournament.clubs.records) and the holders' names; folding ~500 summaries replaces
    reading ~50,000 games. A streak counts consecutive wins across nights;
    a tie or a loss (a forfeit too) ends it, a bye neither adds to it nor ends it. Byes and
    forfeits are not games for scores or averages. Each shared record lists every holder
    (up to a few) with where it was set, earliest first.
    """
    with _collector_paused():
        return _club_records(club, min_games)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Decoding ~500 night summaries makes ~100,000 small lists and no cycles; a garbage
    collection pass they trigger midway scans the whole process (measured: a cold club page
    69 ms with the collector paused, 135 ms when a pass falls inside)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _night_summaries(club: Club) -> tuple[dict[int, tuple], dict[int, Any]]:
    """The club's closed, published nights in date order (pk -> date, slug, division) and
    each night's summary of its games (made from the games for a night closed before
    summaries were kept)."""
    found = list(
        Division.objects.filter(
            tournament__club_night__club=club,
            tournament__club_night__closed_at__isnull=False,
            tournament__published=True,
        )
        .order_by("tournament__club_night__date", "tournament__club_night__id")
        .values_list(
            "tournament__club_night__id",
            "tournament__club_night__date",
            "tournament__slug",
            "slug",
            "tournament__club_night__summary",
        )
    )
    nights = {pk: (date, slug, division) for pk, date, slug, division, _ in found}
    summaries = {pk: summary for pk, _, _, _, summary in found}
    missing = [pk for pk, summary in summaries.items() if summary is None]
    if missing:  # closed before summaries were kept: summarise from their games
        night_key = "round__division__tournament__club_night"
        games: dict[int, list] = {pk: [] for pk in missing}
        rows = (
            Game.objects.filter(_played_games())
            .filter(**{f"{night_key}__in": missing})
            .order_by("round__number", "id")
            .values_list(
                f"{night_key}__id", "player1__player_id", "player2__player_id", "score1", "score2"
            )
        )
        for night, *game in rows.iterator(chunk_size=5000):
            games[night].append(tuple(game))
        for pk, night_games in games.items():
            summaries[pk] = summarise(night_games, keep=MAX_MARKS)
    return nights, summaries


def _club_records(club: Club, min_games: int) -> list[ClubRecord]:
    nights, summaries = _night_summaries(club)
    folded = fold(((pk, summaries[pk]) for pk in nights), keep=MAX_MARKS)
    high_value, high = folded.high
    loss_value, loss = folded.loss
    combined_value, combined = folded.combined
    totals, best = folded.totals, folded.best

    averages = {p: t[0] / t[1] for p, t in totals.items() if t[1] >= min_games}
    top_average = max(averages.values(), default=None)
    average_holders = sorted(p for p, v in averages.items() if v == top_average)
    top_streak = max((v[0] for v in best.values()), default=0)
    streak_holders = sorted(
        ((p, v) for p, v in best.items() if v[0] == top_streak and top_streak > 0),
        key=lambda pv: (nights[pv[1][2]][0], pv[1][2], pv[0]),
    )
    wanted = {x for g in high + loss + combined for x in g[:2]}
    wanted |= set(average_holders) | {p for p, _run in streak_holders}
    names = _names(wanted)

    def at(night: int) -> dict[str, Any]:
        date, slug, division = nights[night]
        return {"date": date, "slug": slug, "division": division}

    def game_marks(games: list[tuple], detail) -> tuple[RecordMark, ...]:
        return tuple(
            RecordMark(me, names.get(me, ""), detail(other, mine, theirs), **at(night))
            for me, other, mine, theirs, night in games[:MAX_MARKS]
        )

    def against(other: int, mine: int, theirs: int) -> str:
        return _("{mine}-{theirs} against {opponent}").format(
            mine=mine, theirs=theirs, opponent=names.get(other, "")
        )

    def combined_detail(other: int, mine: int, theirs: int) -> str:
        return _("{mine}-{theirs} with {opponent}").format(
            mine=mine, theirs=theirs, opponent=names.get(other, "")
        )

    return [
        ClubRecord("high_game", _("High game"), high_value, game_marks(high, against)),
        ClubRecord(
            "high_loss",
            _("High loss"),
            loss_value,
            game_marks(loss, against),
            note=_("the highest score in a game lost"),
        ),
        ClubRecord(
            "high_combined",
            _("High combined score"),
            combined_value,
            game_marks(combined, combined_detail),
            note=_("both players' scores added"),
        ),
        _average_record(top_average, average_holders, totals, names, min_games),
        _streak_record(top_streak, streak_holders, names, at),
    ]


def _average_record(
    top_average: float | None,
    holders: list[int],
    totals: dict[int, Any],
    names: dict[int, str],
    min_games: int,
) -> ClubRecord:
    """The best average over all club games, among players with at least ``min_games``."""
    return ClubRecord(
        "best_average",
        _("Best average"),
        None if top_average is None else round(top_average, 1),
        tuple(
            RecordMark(
                p,
                names.get(p, ""),
                ngettext("{games} game", "{games} games", totals[p][1]).format(games=totals[p][1]),
            )
            for p in holders[:MAX_MARKS]
        ),
        note=ngettext(
            "average score over all club games; at least {games} game",
            "average score over all club games; at least {games} games",
            min_games,
        ).format(games=min_games),
    )


def _streak_record(top_streak: int, holders: list, names: dict[int, str], at: Any) -> ClubRecord:
    """The longest winning streak across nights (``at`` places a night: date, slug, division)."""
    return ClubRecord(
        "winning_streak",
        _("Longest winning streak"),
        top_streak or None,
        tuple(
            RecordMark(
                p,
                names.get(p, ""),
                ngettext("{wins} win in a row", "{wins} wins in a row", length).format(wins=length),
                **at(first),
                **{f"until_{k}": v for k, v in at(last).items()},
            )
            for p, (length, first, last) in holders[:MAX_MARKS]
        ),
        note=_("wins in a row across nights; a tie or a loss ends a streak, a bye does not"),
    )


@dataclass(frozen=True)
class ClubRating:
    rank: int
    player: int
    name: str
    rating: int
    games: int | None


def club_ratings(club: Club, limit: int = 20) -> list[ClubRating]:
    """The top of the club's own rating list (rated players only), one query."""
    if not club.rating_list_id:
        return []
    rows = (
        PlayerRating.objects.filter(rating_list_id=club.rating_list_id, rating__gt=0)
        .order_by("-rating", "player__name", "player_id")
        .values_list("player_id", "player__name", "rating", "career_games")[:limit]
    )
    out: list[ClubRating] = []
    for i, (pk, name, rating, games) in enumerate(rows, start=1):
        rank = out[-1].rank if out and out[-1].rating == rating else i
        out.append(ClubRating(rank, pk, name, rating, games))
    return out


_points = format_wins


# The presets' descriptions as a reader sees them (the ladder's core is Django-free and keeps
# them in English, for the command line; these are the same words, translated).
PRESET_WORDS = {
    "wins": gettext_lazy("1 a win, 1/2 a tie (as tournament standings)"),
    "two-one": gettext_lazy("2 a win, 1 a tie"),
    "margin-bonus": gettext_lazy("2 a win, 1 a tie, +1 for a win by 50 or more"),
    "attendance": gettext_lazy("2 a win, 1 a tie, +1 for each night played"),
    "best-ten": gettext_lazy(
        "2 a win, 1 a tie, +1 for a win by 50 or more; best 10 nights count; 4 nights to qualify"
    ),
}


def preset_words(key: str) -> str:
    """A preset's description in the reader's language ("" for no preset)."""
    if key in PRESET_WORDS:
        return str(PRESET_WORDS[key])
    return PRESETS[key][0] if key in PRESETS else ""


def preset_list() -> list[tuple[str, str]]:
    """Every preset, key and description in the reader's language, in the presets' order."""
    return [(key, preset_words(key)) for key in PRESETS]


def rule_words(rule: Rule) -> str:
    """A season's scoring in plain words, for the ladder's reader (in the reader's language:
    each clause is a whole phrase for the translators)."""
    parts = [
        _("{win} points a win, {tie} a tie, {loss} a loss").format(
            win=_points(rule.win), tie=_points(rule.tie), loss=_points(rule.loss)
        )
    ]
    if rule.margin_bonus:
        parts.append(
            _("{bonus} more for a win by {margin} or more").format(
                bonus=_points(rule.margin_bonus), margin=rule.margin
            )
        )
    if rule.attendance:
        parts.append(_("{points} for each night played").format(points=_points(rule.attendance)))
    if rule.best_nights:
        parts.append(
            ngettext(
                # English says "nights" even for one (as it always has)
                "only the best {nights} nights count for points",
                "only the best {nights} nights count for points",
                rule.best_nights,
            ).format(nights=rule.best_nights)
        )
    if rule.min_nights:
        parts.append(
            ngettext(
                "{nights} nights played to be ranked",
                "{nights} nights played to be ranked",
                rule.min_nights,
            ).format(nights=rule.min_nights)
        )
    parts.append(_("ties on points are broken by wins, then spread"))
    return "; ".join(parts) + "."


def club_seasons(club: Club) -> list[Season]:
    """The club's seasons, latest first (awards are stored on archived ones), one query."""
    return list(Season.objects.filter(club=club).order_by("-start_date", "-pk"))


def season_night_count(season: Season) -> int:
    """How many closed nights the season has counted so far, one query."""
    return Night.objects.filter(
        club_id=season.club_id,
        closed_at__isnull=False,
        date__gte=season.start_date,
        date__lte=season.end_date,
    ).count()


def closed_nights_stamp(club: Club) -> str:
    """A stamp that changes whenever anything the records and ladders read changes: a night
    closed or reopened, a result corrected in a closed night, a player renamed (each bumps
    the night's tournament's version, and versions only grow), one query. Pages keep what
    they derive from closed nights under it, so a live night's results (which bump the club's
    version every minute) do not recompute ten years of records."""
    row = Night.objects.filter(club=club, closed_at__isnull=False).aggregate(
        n=Count("pk"),
        top=Max("pk"),
        last=Max("closed_at"),
        versions=Sum("tournament__content_version"),
        shown=Count("pk", filter=Q(tournament__published=True)),
    )
    last = row["last"].isoformat() if row["last"] else "-"
    return f"{row['n']}.{row['shown']}.{row['top'] or 0}.{last}.{row['versions'] or 0}"
