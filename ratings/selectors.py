"""Reads for the public rating lists and player profiles. Nothing here writes.

Every function asks the database a fixed number of questions whatever the length of a
player's history (the benchmark tests/benchmarks/bench_profiles.py holds a 10-event and a
500-event player to the same query count): pages of rows are enriched with one query per kind
of fact, and totals (records) are database aggregates.

What is public: every rating list and its players; tournaments only when published (a draft
is hidden from public pages), so a game, entry or upcoming event of a draft never shows.
Contact details (email, phone) are never read here.

The tournament app is reached through ``apps.get_model``, as in ratings.services.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
)

from .engine import RatedPlayer, RatingError, get_system
from .explain import _ENCODE, STATE_FIELDS, explain_event
from .models import PlayerRating, RatedEvent, RatingHistory, RatingList

PERFORMANCE_LOW, PERFORMANCE_HIGH = 0, 3000


def _model(name: str):
    return apps.get_model("tournament", name)


# --- rating lists ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ListFilters:
    """What a rating list page is narrowed to; empty strings mean "no filter"."""

    q: str = ""
    club: str = ""  # a Club slug
    country: str = ""
    player_class: str = ""
    lexicon: str = ""  # played an event of a published tournament in this lexicon
    active_since: datetime.date | None = None  # rated on this list at an event since then


def last_class_subquery() -> Subquery:
    """The class of a player's last entry (latest published tournament, then latest entry).

    Classes live on entries, not on players: a player's class is whatever their last event
    gave them. Tournaments without a date count as older than dated ones.
    """
    entry = _model("Entry")
    return Subquery(
        entry.objects.filter(player_id=OuterRef("player_id"), division__tournament__published=True)
        .order_by(F("division__tournament__start_date").desc(nulls_last=True), "-pk")
        .values("player_class")[:1]
    )


def name_q(q: str) -> Q:
    """Names with every typed word, in any order: "Emil Esposito" and "esposito, emil" both
    find "Esposito, Emil" (lists store family name first; people type given name first).
    A comma is a word break, not part of a word."""
    words = [w for w in re.split(r"[\s,]+", q) if w]
    out = Q()
    for w in words:
        out &= Q(name__icontains=w)
    return out


def rating_ids(lst: RatingList, filters: ListFilters = ListFilters()) -> QuerySet:
    """Ids of the list's rated players (rating above 0), best first, narrowed by ``filters``:
    what a list page paginates (``rating_page`` loads one page of them).

    Unrated rows (0: imported without a rating, never rated since) are not ranked and not
    listed. Ties are in player id order, so the order is exactly the (list, rating, player)
    index's and counting or skipping to a deep page reads index entries, not table rows.
    """
    qs = PlayerRating.objects.filter(rating_list=lst, rating__gt=0)
    player = _model("Player")
    if filters.q:  # matching names first: then each is one probe of the (list, player) index
        qs = qs.filter(player_id__in=player.objects.filter(name_q(filters.q)).values("pk"))
    if filters.club:
        membership = _model("Membership")
        qs = qs.filter(
            player_id__in=membership.objects.filter(club__slug=filters.club).values("player_id")
        )
    if filters.country:
        qs = qs.filter(
            player_id__in=player.objects.filter(country__iexact=filters.country).values("pk")
        )
    if filters.player_class:
        entry = _model("Entry")
        # players with an entry of that class at all (one list, built once), then of those
        # the ones whose last entry has it
        qs = qs.filter(
            player_id__in=entry.objects.filter(
                player_class__iexact=filters.player_class,
                division__tournament__published=True,
            ).values("player_id")
        )
        qs = qs.annotate(last_class=last_class_subquery()).filter(
            last_class__iexact=filters.player_class
        )
    if filters.lexicon:
        entry = _model("Entry")
        qs = qs.filter(
            player_id__in=entry.objects.filter(
                division__tournament__lexicon__iexact=filters.lexicon,
                division__tournament__published=True,
            ).values("player_id")
        )
    if filters.active_since is not None:
        # the list's events since then (a few hundred a year), then their players
        recent = RatedEvent.objects.filter(rating_list=lst, date__gte=filters.active_since)
        qs = qs.filter(
            player_id__in=RatingHistory.objects.filter(event__in=recent.values("pk")).values(
                "player_id"
            )
        )
    return qs.order_by("-rating", "player_id").values_list("pk", flat=True)


def rating_page(ids: Sequence[int]) -> list[PlayerRating]:
    """The PlayerRating rows ``ids`` with their player's name and country, in that order."""
    rows = {
        r.pk: r
        for r in PlayerRating.objects.filter(pk__in=list(ids))
        .select_related("player")
        .only(
            "rating",
            "career_games",
            "start_rating",
            "start_career_games",
            "deviation",
            "last_event_date",
            "player_id",
            "player__name",
            "player__country",
        )
    }
    return [rows[i] for i in ids if i in rows]


def ranks(lst: RatingList, ratings: Sequence[int]) -> dict[int, int]:
    """Rank on the whole list (1 + players rated higher; ties share a rank) of each rating.

    Two queries whatever the page: how many are above the page's best, and how many hold each
    rating within the page's range.
    """
    if not ratings:
        return {}
    top, bottom = max(ratings), min(ratings)
    rated = PlayerRating.objects.filter(rating_list=lst, rating__gt=0)
    above = rated.filter(rating__gt=top).count()
    counts = dict(
        rated.filter(rating__gte=bottom, rating__lte=top)
        .values_list("rating")
        .annotate(n=Count("pk"))
        .order_by()
        .values_list("rating", "n")
    )
    out: dict[int, int] = {}
    seen = above
    for r in sorted(counts, reverse=True):
        out[r] = seen + 1
        seen += counts[r]
    return out


def last_events(lst: RatingList, player_ids: Iterable[int]) -> dict[int, RatingHistory]:
    """Each player's history row of their last event on the list (with the event), by player.

    One query for a page of players: the "which row is last" subquery runs for those players
    only, and looks among the list's events on the player's ``last_event_date`` (the re-rating
    keeps it, and the index on the list's event dates finds them), the latest of them if
    several fell on that day, as the re-rating orders them.
    """
    last = (
        RatingHistory.objects.filter(
            player_id=OuterRef("player_id"),
            event__rating_list=lst,
            event__date=OuterRef("last_event_date"),
        )
        .order_by("-event__sequence", "-event_id")
        .values("pk")[:1]
    )
    ids = PlayerRating.objects.filter(rating_list=lst, player_id__in=list(player_ids)).values(
        last_history=Subquery(last)
    )
    rows = (
        RatingHistory.objects.filter(pk__in=ids)
        .select_related("event")
        .only("before", "after", "player_id", "event__name", "event__date")
    )
    return {r.player_id: r for r in rows}


def list_choices(lst: RatingList) -> dict[str, list]:
    """Clubs (slug, name) offered by the club filter: those with a member on the list."""
    club = _model("Club")
    clubs = (
        club.objects.filter(
            Exists(
                PlayerRating.objects.filter(
                    rating_list=lst, rating__gt=0, player__memberships__club=OuterRef("pk")
                )
            )
        )
        .order_by("name")
        .values_list("slug", "name")
    )
    return {"clubs": list(clubs)}


def list_summaries() -> list[RatingList]:
    """Every list (all are public) with its number of rated players and events."""
    return list(
        RatingList.objects.annotate(
            players=Count("ratings", filter=Q(ratings__rating__gt=0), distinct=True),
        ).order_by("name")
    )


# --- players --------------------------------------------------------------------------------


def public_player_q() -> Q:
    """Players the public may see: on a rating list, or entered in a published tournament."""
    entry = _model("Entry")
    return Q(Exists(PlayerRating.objects.filter(player_id=OuterRef("pk")))) | Q(
        Exists(entry.objects.filter(player_id=OuterRef("pk"), division__tournament__published=True))
    )


def public_player(player_id: int):
    """The player, or None when unknown or seen only in draft tournaments."""
    player = _model("Player")
    return (
        player.objects.filter(pk=player_id)
        .filter(public_player_q())
        .only("name", "country", "naspa_id", "wespa_id", "absp_id")
        .first()
    )


def search_players(q: str, limit: int = 100) -> list:
    """Public players whose name answers ``q`` best, forgiving typos, accents, word order and
    nicknames ("Bob Smtih" finds "Smith, Robert"), ranked by how well then by who played last;
    at most ``limit`` + 1 (one more tells the page there are more to narrow down)."""
    from tournament.selectors.registry import find_player_ids

    player = _model("Player")
    ids = find_player_ids(q, scope=public_player_q(), limit=limit + 1)
    by_pk = player.objects.only("name", "country").in_bulk(ids)
    return [by_pk[pk] for pk in ids if pk in by_pk]


def player_ratings(player_id: int) -> list[PlayerRating]:
    """The player's row on each list with ``rank`` (None when unrated) and ``club_list`` (a
    club's own list: its ratings are club ratings), two queries."""
    higher = (
        PlayerRating.objects.filter(
            rating_list_id=OuterRef("rating_list_id"), rating__gt=OuterRef("rating")
        )
        .order_by()
        .values("rating_list_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = list(
        PlayerRating.objects.filter(player_id=player_id)
        .select_related("rating_list")
        .annotate(higher=Subquery(higher, output_field=IntegerField()))
        .order_by("rating_list__name")
    )
    # a club's own list is labelled as a club rating wherever the player's ratings are shown
    clubs = set(
        RatingList.objects.filter(
            pk__in=[r.rating_list_id for r in rows], club__isnull=False
        ).values_list("pk", flat=True)
    )
    for r in rows:
        r.rank = (r.higher or 0) + 1 if r.rating > 0 else None
        r.club_list = r.rating_list_id in clubs
    return rows


def chart_series(player_id: int) -> list[tuple[str, list[tuple[datetime.date, int]]]]:
    """(list name, [(event date, rating after), ...]) per list over the whole history."""
    by_list: dict[str, list[tuple[datetime.date, int]]] = {}
    for name, date, after in (
        RatingHistory.objects.filter(player_id=player_id)
        .order_by("event__rating_list__name", "event__date", "event__sequence", "event_id")
        .values_list("event__rating_list__name", "event__date", "after")
    ):
        by_list.setdefault(name, []).append((date, after))
    return list(by_list.items())


def history_ids(player_id: int) -> QuerySet:
    """Ids of the player's history rows, newest event first: what a profile paginates.

    Only ids: sorting the whole history with the events' stored games attached read every
    event's games (megabytes for a long career) to show twenty.
    """
    return (
        RatingHistory.objects.filter(player_id=player_id)
        .order_by("-event__date", "-event__sequence", "-event_id")
        .values_list("pk", flat=True)
    )


def history_page(ids: Sequence[int]) -> list[RatingHistory]:
    """The rows ``ids`` (one page) with their event, list, division and tournament, in order."""
    rows = {
        h.pk: h
        for h in RatingHistory.objects.filter(pk__in=list(ids))
        .select_related("event", "event__rating_list", "event__division__tournament")
        .only(
            "event_id",
            "player_id",
            "before",
            "after",
            "games",
            "event__date",
            "event__name",
            "event__games",
            "event__system",
            "event__rating_list__name",
            "event__rating_list__slug",
            "event__rating_list__system",
            "event__division__name",
            "event__division__slug",
            "event__division__tournament__name",
            "event__division__tournament__slug",
            "event__division__tournament__published",
        )
    }
    return [rows[i] for i in ids if i in rows]


def performance_rating(
    opponents: Sequence[int], wins: float, expected: Callable[[float, int], float] | None = None
) -> float | None:
    """The rating at which expected wins against ``opponents`` equal ``wins``.

    ``expected(r, opp)`` is the chance a player rated r beats one rated opp (default: NASPA's
    curve, nsa2008). Expected wins grow with r, so bisection over the whole ratings 0..3000
    (twelve halvings) finds the two neighbours the crossing lies between, and straight-line
    interpolation between them places it (the curve is smooth: far within a rating point).
    Whole ratings keep the NASPA systems on their exact table of expectations. A perfect
    score or a whitewash has no crossing and is clamped to 3000 or 0. None without opponents.
    """
    if not opponents:
        return None
    if expected is None:
        expected = _system_expected("nsa2008")

    def excess(r: int) -> float:
        return sum(expected(r, o) for o in opponents) - wins

    lo, hi = PERFORMANCE_LOW, PERFORMANCE_HIGH
    at_lo, at_hi = excess(lo), excess(hi)
    if at_lo >= 0:
        return float(lo)
    if at_hi <= 0:
        return float(hi)
    while hi - lo > 1:  # invariant: excess(lo) < 0 < excess(hi)
        mid = (lo + hi) // 2
        at_mid = excess(mid)
        if at_mid < 0:
            lo, at_lo = mid, at_mid
        elif at_mid > 0:
            hi, at_hi = mid, at_mid
        else:
            return float(mid)
    return lo + (-at_lo) / (at_hi - at_lo)


def _system_expected(system: str) -> Callable[[float, int], float]:
    """The list's own expectation curve (any system), as a function of two ratings."""
    try:
        sysobj = get_system(system)
    except RatingError:
        sysobj = get_system("nsa2008")

    curve = getattr(sysobj, "expected", None)  # the NASPA family: a function of d alone
    if callable(curve):
        return lambda r, opp: curve(r - opp)

    def expected(r: float, opp: int) -> float:
        return sysobj.expected_score(RatedPlayer("p", r), RatedPlayer("o", opp))

    return expected


def _result(mine: int, theirs: int | None) -> tuple[float, float, int]:
    """(win, loss, spread) of one scored game; a game without opponent is a bye (score above
    0, a win), a forfeit (below 0, a loss) or neither (0), as in the standings."""
    if theirs is None:
        return (1.0, 0.0, mine) if mine > 0 else ((0.0, 1.0, mine) if mine < 0 else (0, 0, 0))
    if mine > theirs:
        return 1.0, 0.0, mine - theirs
    if mine < theirs:
        return 0.0, 1.0, mine - theirs
    return 0.5, 0.5, 0


@dataclass
class EventRow:
    """One rated event on a profile: where, the record, the ratings and the performance."""

    history: RatingHistory
    event: RatedEvent
    division: Any = None  # the tournament division, when the event came from one here
    published: bool = False
    wins: float = 0.0
    losses: float = 0.0
    spread: int = 0
    performance: float | None = None
    opponents: int = 0

    @property
    def change(self) -> int | None:
        b = self.history.before
        return None if b is None or b == 0 else self.history.after - b


def event_rows(player_id: int, page: Sequence[RatingHistory]) -> list[EventRow]:
    """A page of the player's events with record, spread and performance rating.

    The record and spread come from the division's games (byes and forfeits included) when
    the event was a division here, else from the rated games the list stores. The
    performance rating uses the event's rated games and each opponent's rating before the
    event (unrated opponents left out). Three queries for any page.
    """
    rows = [EventRow(history=h, event=h.event) for h in page]
    if not rows:
        return rows
    event_ids = [r.event.pk for r in rows]
    # opponents and results in the rated games the list keeps
    rated: dict[int, list[tuple[int, int, int]]] = {}
    opponent_ids: set[int] = set()
    for r in rows:
        mine = []
        for _rnd, a, b, sa, sb in r.event.games:
            if a == player_id:
                mine.append((b, sa, sb))
            elif b == player_id:
                mine.append((a, sb, sa))
        rated[r.event.pk] = mine
        opponent_ids.update(o for o, _, _ in mine)
    before = {
        (e, p): b
        for e, p, b in RatingHistory.objects.filter(
            event_id__in=event_ids, player_id__in=opponent_ids
        ).values_list("event_id", "player_id", "before")
    }
    # the division's own games (with byes and forfeits), for events that came from one
    game = _model("Game")
    entry = _model("Entry")
    mine_entries = entry.objects.filter(
        player_id=player_id, division__rated_events__id__in=event_ids
    ).values("pk")
    div_games: dict[int, list[tuple[int, int | None]]] = {}
    for div_id, p1_player, score1, score2, p2 in (
        game.objects.filter(Q(player1__in=mine_entries) | Q(player2__in=mine_entries))
        .filter(score1__isnull=False)
        .order_by()
        .values_list("round__division_id", "player1__player_id", "score1", "score2", "player2_id")
    ):
        if p2 is None:
            div_games.setdefault(div_id, []).append((score1, None))
        elif p1_player == player_id:
            div_games.setdefault(div_id, []).append((score1, score2))
        else:
            div_games.setdefault(div_id, []).append((score2, score1))
    for r in rows:
        ev = r.event
        div = ev.division if ev.division_id else None
        r.division = div
        r.published = bool(div is not None and div.tournament.published)
        games = div_games.get(ev.division_id) if div is not None else None
        if games is None:
            games = [(sa, sb) for _o, sa, sb in rated[ev.pk]]
        for mine, theirs in games:
            w, lo, s = _result(mine, theirs)
            r.wins += w
            r.losses += lo
            r.spread += s
        opp = [(before.get((ev.pk, o)), sa, sb) for o, sa, sb in rated[ev.pk]]
        opp = [(b, sa, sb) for b, sa, sb in opp if b]
        r.opponents = len(opp)
        if opp:
            won = sum(_result(sa, sb)[0] for _b, sa, sb in opp)
            system = ev.system or ev.rating_list.system
            r.performance = performance_rating(
                [b for b, _, _ in opp], won, _system_expected(system)
            )
    return rows


# --- head to head, records, upcoming --------------------------------------------------------


@dataclass
class Meeting:
    """One game between two players, from the first player's side."""

    date: datetime.date | None
    event: str
    round: int
    score: int
    opponent_score: int
    tournament_slug: str = ""
    division_slug: str = ""
    link: str = ""  # the division's standings page, filled in by the view
    # the board of a game whose record (GCG) the public may see, else None; the view links
    # its game page (a record kept private until the round is published is not linked)
    record_board: int | None = None
    record_link: str = ""


@dataclass
class HeadToHead:
    games: list[Meeting] = field(default_factory=list)
    wins: float = 0.0
    losses: float = 0.0

    @property
    def average_score(self) -> float | None:
        return sum(g.score for g in self.games) / len(self.games) if self.games else None

    @property
    def average_opponent_score(self) -> float | None:
        if not self.games:
            return None
        return sum(g.opponent_score for g in self.games) / len(self.games)

    @property
    def spread(self) -> int:
        return sum(g.score - g.opponent_score for g in self.games)


def head_to_head(a: int, b: int) -> HeadToHead:
    """Every game between players ``a`` and ``b``, oldest first, from ``a``'s side.

    Games of published tournaments here, plus the rated games of list events that did not
    come from a division here (imported history). Two queries whatever the history.
    """
    game = _model("Game")
    entry = _model("Entry")
    ea = entry.objects.filter(player_id=a).values("pk")
    eb = entry.objects.filter(player_id=b).values("pk")
    meetings: list[Meeting] = []
    # the record's id comes through a left join on the one-to-one (no query per game); it is
    # public unless the event keeps records private and the round is not yet published
    for row in game.objects.filter(
        Q(player1__in=ea, player2__in=eb) | Q(player1__in=eb, player2__in=ea),
        score1__isnull=False,
        round__division__tournament__published=True,
    ).values_list(
        "player1__player_id",
        "score1",
        "score2",
        "round__number",
        "round__division__tournament__name",
        "round__division__tournament__start_date",
        "round__division__tournament__slug",
        "round__division__slug",
        "board",
        "record__id",
        "round__division__tournament__records_private",
        "round__records_published",
    ):
        p1_player, s1, s2, rnd, name, start, tslug, dslug = row[:8]
        board, record, private, published = row[8:]
        mine, theirs = (s1, s2) if p1_player == a else (s2, s1)
        meeting = Meeting(start, name, rnd, mine, theirs, tslug, dslug)
        if record is not None and board and (not private or published is not None):
            meeting.record_board = board
        meetings.append(meeting)
    shared = RatingHistory.objects.filter(player_id=b).values("event_id")
    for ev in RatedEvent.objects.filter(
        division__isnull=True, results__player_id=a, pk__in=shared
    ).only("date", "name", "games"):
        for rnd, x, y, sx, sy in ev.games:
            if (x, y) == (a, b):
                meetings.append(Meeting(ev.date, ev.name, rnd, sx, sy))
            elif (x, y) == (b, a):
                meetings.append(Meeting(ev.date, ev.name, rnd, sy, sx))
    meetings.sort(key=lambda m: (m.date or datetime.date.min, m.event, m.round))
    out = HeadToHead(games=meetings)
    for m in meetings:
        w, lo, _ = _result(m.score, m.opponent_score)
        out.wins += w
        out.losses += lo
    return out


def player_records(player_id: int) -> dict[str, Any]:
    """High game, average score and average opponent rating over the player's
    played games in published tournaments here (byes and forfeits are not games played).

    The opponent's rating is their seed rating in that event (unrated opponents left out).
    Two aggregate queries, whatever the number of games.
    """
    game = _model("Game")
    entry = _model("Entry")
    # published is checked on the player's own entries, so the games need no join to it
    mine = entry.objects.filter(player_id=player_id, division__tournament__published=True).values(
        "pk"
    )
    games = scored = high = opponents = opponent_total = 0
    high_seen = False
    # once as the first-listed player, once as the second: two plain index walks are twice
    # as fast as one that works out per game which side the player was on
    for me, opp, score in (("player1", "player2", "score1"), ("player2", "player1", "score2")):
        rated_opp = Q(**{f"{opp}__seed_rating__gt": 0})
        part = (
            game.objects.filter(**{f"{me}__in": mine}, player2__isnull=False, score1__isnull=False)
            .order_by()
            .aggregate(
                n=Count("pk"),
                high=Max(score),
                total=Sum(score),
                opponents=Count("pk", filter=rated_opp),
                opponent_total=Sum(f"{opp}__seed_rating", filter=rated_opp),
            )
        )
        if part["n"]:
            games += part["n"]
            scored += part["total"]
            high = part["high"] if not high_seen else max(high, part["high"])
            high_seen = True
            opponents += part["opponents"]
            opponent_total += part["opponent_total"] or 0
    totals = {
        "games": games,
        "high": high if high_seen else None,
        "average": scored / games if games else None,
        "opponents": opponent_total / opponents if opponents else None,
    }
    return totals


def _rounds_paired(in_division: QuerySet) -> Subquery:
    """The highest round number paired in the entry's division (NULL before round 1)."""
    rounds = in_division.order_by().values("round__division").annotate(n=Max("round__number"))
    return Subquery(rounds.values("n"), output_field=IntegerField())


def upcoming_entries(player_id: int, today: datetime.date | None = None) -> list:
    """The player's entries in published tournaments not yet begun (no start date in the
    past, or no results yet) and not finished. Finished is every round of the division paired
    and each of its games scored, or the end date past: an event of today played out in the
    morning, or a dateless one, was listed as upcoming by its start date alone. Soonest first."""
    entry = _model("Entry")
    game = _model("Game")
    today = today or datetime.date.today()
    in_division = game.objects.filter(round__division=OuterRef("division_id"))
    scored = in_division.filter(score1__isnull=False)
    unscored = in_division.filter(player2__isnull=False, score1__isnull=True)
    return list(
        entry.objects.filter(player_id=player_id, division__tournament__published=True)
        .filter(
            Q(division__tournament__start_date__isnull=True)
            | Q(division__tournament__start_date__gte=today)
            | ~Exists(scored)
        )
        .exclude(division__tournament__end_date__lt=today)
        .annotate(paired=_rounds_paired(in_division))
        .filter(  # not played out (said as a filter: NOT of a NULL "paired" drops the row)
            Q(paired__isnull=True) | Q(paired__lt=F("division__rounds")) | Exists(unscored)
        )
        .select_related("division__tournament")
        .only(
            "number",
            "division__name",
            "division__slug",
            "division__tournament__name",
            "division__tournament__slug",
            "division__tournament__start_date",
        )
        .order_by(F("division__tournament__start_date").asc(nulls_last=True), "pk")
    )


LIVE_DAYS = 14  # an event without an end date counts as live this long after its start


def live_entries(player_id: int, today: datetime.date | None = None) -> list:
    """The player's entries in events being played now: published, some game scored, and a
    paired game still unscored or rounds still to pair, and not over (its end date not past;
    without one, started within LIVE_DAYS). ``upcoming_entries`` leaves these out once a
    result is in, so a player's profile missed the event they were playing."""
    entry = _model("Entry")
    game = _model("Game")
    today = today or datetime.date.today()
    in_division = game.objects.filter(round__division=OuterRef("division_id"))
    return list(
        entry.objects.filter(player_id=player_id, division__tournament__published=True)
        .filter(Exists(in_division.filter(score1__isnull=False)))
        .annotate(paired=_rounds_paired(in_division))
        .filter(
            Exists(in_division.filter(player2__isnull=False, score1__isnull=True))
            | Q(paired__lt=F("division__rounds"))
        )
        .filter(
            Q(division__tournament__end_date__gte=today)
            | Q(
                division__tournament__end_date__isnull=True,
                division__tournament__start_date__gte=today - datetime.timedelta(days=LIVE_DAYS),
            )
        )
        .select_related("division__tournament")
        .order_by("-division__tournament__start_date", "pk")
    )


#: Explanations built on read, per event: (event id, system, list version, the rows' ids and
#: states) -> each player's explanation. A re-rate writes new rows, so a stale entry is never hit.
#: Kept as JSON text: each read decodes its own copy, as a stored explanation would be.
_EXPLAINED: OrderedDict[tuple[int, int, int], dict[Any, str]] = OrderedDict()
_EXPLAINED_MAX = 512


def history_explanation(row: RatingHistory) -> dict[str, Any]:
    """The explanation of ``row``'s rating change, as players read it.

    Stored on rows rated one division at a time; a federation re-rate leaves it empty and
    stores each player's state entering the event, so it is built here by rating that one
    event again (the same engine, the same state: the same JSON the eager path stores), then
    kept for the event's other players and later reads. Two queries and one event's rating.
    """
    if row.explanation:
        return row.explanation
    return event_explanations(row.event_id).get(row.player_id, {})


def event_explanations(event_id: int) -> dict[Any, dict[str, Any]]:
    """Every participant's explanation of one event (player id -> explanation), built from the
    stored state where a re-rate left it out; each call returns fresh copies."""
    rows = list(
        RatingHistory.objects.filter(event_id=event_id)
        .order_by("pk")
        .values_list(
            "pk",
            "player_id",
            "explanation",
            *STATE_FIELDS,
            "event__system",
            "event__rating_list__system",
            "event__rating_list__content_version",
        )
    )
    if not rows:
        return {}
    if all(r[2] for r in rows):
        return {r[1]: r[2] for r in rows}
    ev_system, list_system, version = rows[0][-3:]
    system = ev_system or list_system
    # what the explanation follows from: the rows as stored (ids and states), the system and
    # the list's version (bumped by every re-rate and submission)
    key = (event_id, system, version, hash(tuple((r[0], r[1], *r[3:-3]) for r in rows)))
    explained = _EXPLAINED.get(key)
    if explained is None:
        ev = RatedEvent.objects.only("date", "configured_rounds", "games").get(pk=event_id)
        built = explain_event(
            system, ev.date, ev.configured_rounds, ev.games, {r[1]: r[3:-3] for r in rows}
        )
        explained = {pid: _ENCODE(e) for pid, e in built.items()}
        _EXPLAINED[key] = explained
        if len(_EXPLAINED) > _EXPLAINED_MAX:
            _EXPLAINED.popitem(last=False)
    else:
        _EXPLAINED.move_to_end(key)
    return {r[1]: r[2] or decode_as_stored(explained[r[1]]) for r in rows}


def _jsonb_float(text: str) -> float:
    return float(text) or 0.0  # jsonb's numbers have no -0: it reads back as 0


def decode_as_stored(text: str) -> Any:
    """JSON text decoded as the database's JSON column would give it back, had it been stored:
    PostgreSQL's jsonb turns -0.0 (a rounded tiny negative change) into 0.0; SQLite keeps the
    text. So a built explanation is exactly the one the eager path stored, sign of zero too."""
    if connection.vendor == "postgresql":
        return json.loads(text, parse_float=_jsonb_float)
    return json.loads(text)
