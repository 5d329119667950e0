"""The events calendar: every published tournament, upcoming or past, as players look for one.

An event is *upcoming* before its first result, *in play* from then until it is played out,
and *finished* once played out (every division's rounds paired and every game scored) or its
end date is past (without an end date, ``LIVE_DAYS`` after its start). A finished event of
today is finished: the calendar, its feed and the profile say so alike.

Only what a public page may show comes out: names, dates, places, divisions with their rating
bands, fees and entry status, and whether the directors can be written to (never an address).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db.models import Count, Max, Q
from django.utils import timezone

from ..errors import ServiceError
from ..models import (
    Division,
    DivisionEntryRule,
    Entry,
    EntryWindow,
    Game,
    Tournament,
)
from .core import division_standings

LIVE_DAYS = 14  # an event without an end date counts as in play this long after its start

UPCOMING, IN_PLAY, FINISHED = "upcoming", "in play", "finished"


@dataclass(frozen=True)
class CalendarFilters:
    """What a visitor narrows the calendar by; blank (None) is any."""

    country: str = ""
    region: str = ""
    lexicon: str = ""
    rating: int | None = None  # a rating the event has a division for

    def any(self) -> bool:
        return bool(self.country or self.region or self.lexicon or self.rating is not None)


@dataclass
class CalendarDivision:
    name: str
    slug: str
    rounds: int
    rating_min: int | None = None
    rating_max: int | None = None
    fee: str = ""
    cap: int | None = None
    entered: int = 0
    winner: str = ""
    winner_id: int | None = None

    @property
    def band(self) -> str:
        """The ratings it admits, as a player reads it ("1200-1599", "up to 1199", "any")."""
        lo, hi = self.rating_min, self.rating_max
        if lo is None and hi is None:
            return "any rating"
        if lo is None:
            return f"up to {hi}"
        if hi is None:
            return f"{lo} and up"
        return f"{lo}-{hi}"


@dataclass
class CalendarEvent:
    pk: int
    name: str
    slug: str
    start_date: datetime.date | None
    end_date: datetime.date | None
    venue: str
    country: str
    region: str
    lexicon: str
    status: str
    entries: str  # "open until 2026-12-01", "opens 2026-12-01", "closed", "" (not online)
    entries_open: bool
    contactable: bool
    created: datetime.datetime | None
    divisions: list[CalendarDivision] = field(default_factory=list)

    @property
    def place(self) -> str:
        return ", ".join(p for p in (self.venue, self.region, self.country) if p)

    @property
    def last_day(self) -> datetime.date | None:
        return self.end_date or self.start_date


MAX_FILTER = 100  # characters in a filter value


def _filter_text(values: Mapping[str, str], name: str) -> str:
    value = str(values.get(name, "") or "").strip()
    if len(value) > MAX_FILTER:
        raise ServiceError(
            "calendar_bad_filter",
            field=name,
            name=name,
            problem=f"at most {MAX_FILTER} characters, please",
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ServiceError(
            "calendar_bad_filter",
            field=name,
            name=name,
            problem="control characters are not part of it",
        )
    return value


def parse_filters(values: Mapping[str, str]) -> CalendarFilters:
    """The calendar's filters from a query string (the page's and the API's alike); a bad one
    is refused naming it (``calendar_bad_filter``)."""
    raw = _filter_text(values, "rating")
    rating = None
    if raw:
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 4:
            raise ServiceError(
                "calendar_bad_filter",
                field="rating",
                name="rating",
                problem=f"{raw[:20]!r} is not a rating; give a whole number, like 1500",
            )
        rating = int(raw)
    return CalendarFilters(
        country=_filter_text(values, "country"),
        region=_filter_text(values, "region"),
        lexicon=_filter_text(values, "lexicon"),
        rating=rating,
    )


def _published() -> Q:
    return Q(published=True, importing=False)


def _surely_past(today: datetime.date) -> Q:
    """Over by the dates alone, whatever its games say."""
    return Q(end_date__lt=today) | Q(
        end_date__isnull=True, start_date__lt=today - datetime.timedelta(days=LIVE_DAYS)
    )


def _filtered(filters: CalendarFilters) -> Q:
    q = Q()
    if filters.country:
        q &= Q(country__iexact=filters.country)
    if filters.region:
        q &= Q(region__icontains=filters.region)
    if filters.lexicon:
        q &= Q(lexicon__iexact=filters.lexicon)
    if filters.rating is not None:
        r = filters.rating
        admits = (Q(rating_min__isnull=True) | Q(rating_min__lte=r)) & (
            Q(rating_max__isnull=True) | Q(rating_max__gte=r)
        )
        banded = DivisionEntryRule.objects.filter(admits).values("division_id")
        # a division without a rule admits any rating
        q &= Q(divisions__pk__in=banded) | Q(divisions__entry_rule__isnull=True)
    return q


def _play_states(tournament_ids: list[int]) -> dict[int, tuple[bool, bool]]:
    """Per tournament: (some game scored, played out). Played out is every division with its
    rounds all paired and no game of it unscored (a tournament with no division never is)."""
    games = {
        row["round__division"]: row
        for row in Game.objects.filter(round__division__tournament_id__in=tournament_ids)
        .values("round__division")
        .annotate(
            paired=Max("round__number"),
            scored=Count("pk", filter=Q(score1__isnull=False)),
            open=Count("pk", filter=Q(score1__isnull=True, player2__isnull=False)),
        )
    }
    out: dict[int, tuple[bool, bool]] = {}
    for div_id, tid, rounds in Division.objects.filter(
        tournament_id__in=tournament_ids
    ).values_list("pk", "tournament_id", "rounds"):
        g = games.get(div_id)
        scored = bool(g and g["scored"])
        done = bool(g and rounds and g["paired"] >= rounds and not g["open"])
        any_scored, all_done = out.get(tid, (False, True))
        out[tid] = (any_scored or scored, all_done and done)
    return out


def _status(t: Tournament, today: datetime.date, state: tuple[bool, bool] | None) -> str:
    scored, played_out = state or (False, False)
    end = t.end_date
    if played_out or (end and end < today):
        return FINISHED
    if end is None and t.start_date and t.start_date < today - datetime.timedelta(days=LIVE_DAYS):
        return FINISHED
    return IN_PLAY if scored or (t.start_date is not None and t.start_date <= today) else UPCOMING


def _entry_status(window: EntryWindow | None, now: datetime.datetime) -> tuple[str, bool]:
    if window is None:
        return "", False
    if window.closed_at is not None or now >= window.closes_at:
        return "closed", False
    if now < window.opens_at:
        return f"open from {timezone.localtime(window.opens_at):%Y-%m-%d}", False
    return f"open until {timezone.localtime(window.closes_at):%Y-%m-%d}", True


def _events(
    tournaments: list[Tournament], today: datetime.date, *, winners: bool = False
) -> list[CalendarEvent]:
    """The calendar's rows for these tournaments, in their order: a handful of queries."""
    ids = [t.pk for t in tournaments]
    states = _play_states(ids)
    windows = {w.tournament_id: w for w in EntryWindow.objects.filter(tournament_id__in=ids)}
    rules = {
        r.division_id: r for r in DivisionEntryRule.objects.filter(division__tournament_id__in=ids)
    }
    entered = dict(
        Entry.objects.filter(division__tournament_id__in=ids)
        .values("division_id")
        .annotate(n=Count("pk"))
        .values_list("division_id", "n")
    )
    contactable = set(
        Tournament.directors.through.objects.filter(tournament_id__in=ids, user__is_active=True)
        .exclude(user__email="")
        .values_list("tournament_id", flat=True)
    )
    divisions: dict[int, list[Division]] = {}
    for d in Division.objects.filter(tournament_id__in=ids).order_by("position", "name"):
        divisions.setdefault(d.tournament_id, []).append(d)
    now = timezone.now()
    out = []
    for t in tournaments:
        status = _status(t, today, states.get(t.pk))
        text, is_open = _entry_status(windows.get(t.pk), now)
        event = CalendarEvent(
            pk=t.pk,
            name=t.name,
            slug=t.slug,
            start_date=t.start_date,
            end_date=t.end_date,
            venue=t.venue,
            country=t.country,
            region=t.region,
            lexicon=t.lexicon,
            status=status,
            entries=text if status != FINISHED else "",
            entries_open=is_open and status != FINISHED,
            contactable=t.pk in contactable,
            created=t.created,
        )
        for d in divisions.get(t.pk, []):
            rule = rules.get(d.pk)
            fee = f"{rule.fee_amount} {rule.fee_currency}".strip() if rule else ""
            row = CalendarDivision(
                name=d.name,
                slug=d.slug,
                rounds=d.rounds,
                rating_min=rule.rating_min if rule else None,
                rating_max=rule.rating_max if rule else None,
                fee=fee,
                cap=rule.cap if rule else None,
                entered=entered.get(d.pk, 0),
            )
            if winners and status == FINISHED:
                row.winner, row.winner_id = _winner(d)
            event.divisions.append(row)
        out.append(event)
    return out


def _winner(division: Division) -> tuple[str, int | None]:
    """The division's first place (its name and player id), or nobody before a result."""
    rows = [r for r in division_standings(division) if r.rank == 1 and r.games]
    if len(rows) != 1:
        return (" and ".join(r.name for r in rows), None) if rows else ("", None)
    player_id = (
        Entry.objects.filter(division=division, number=rows[0].number)
        .values_list("player_id", flat=True)
        .first()
    )
    return rows[0].name, player_id


def upcoming_events(
    today: datetime.date, filters: CalendarFilters = CalendarFilters()
) -> list[CalendarEvent]:
    """Published events not finished (upcoming or in play), soonest first; dateless last."""
    candidates = list(
        Tournament.objects.filter(_published())
        .exclude(_surely_past(today))
        .filter(_filtered(filters))
        .distinct()
        .order_by("start_date", "name")
    )
    candidates.sort(key=lambda t: (t.start_date is None, t.start_date or today, t.name))
    return [e for e in _events(candidates, today) if e.status != FINISHED]


def past_event_ids(today: datetime.date, filters: CalendarFilters = CalendarFilters()) -> list[int]:
    """Ids of the finished events, latest first: those over by their dates, and those of the
    last days played out already (a one-day event finished this morning)."""
    base = Tournament.objects.filter(_published()).filter(_filtered(filters)).distinct()
    past = list(base.filter(_surely_past(today)).values_list("pk", "start_date", "name"))
    recent = list(base.exclude(_surely_past(today)))
    states = _play_states([t.pk for t in recent])
    past += [
        (t.pk, t.start_date, t.name)
        for t in recent
        if _status(t, today, states.get(t.pk)) == FINISHED
    ]
    past.sort(key=lambda r: (r[1] is None, -(r[1] or today).toordinal(), r[2], r[0]))
    return [pk for pk, _, _ in past]


def past_events(ids: list[int], today: datetime.date) -> list[CalendarEvent]:
    """The calendar's rows of these finished events, in this order, each division's winner."""
    by_pk = Tournament.objects.in_bulk(ids)
    return _events([by_pk[pk] for pk in ids if pk in by_pk], today, winners=True)


def feed_events(today: datetime.date) -> list[CalendarEvent]:
    """Every published event with a date, for the iCalendar feed (upcoming and past)."""
    tournaments = list(
        Tournament.objects.filter(_published(), start_date__isnull=False).order_by(
            "start_date", "name"
        )
    )
    return _events(tournaments, today)


def calendar_event(tournament: Tournament, today: datetime.date) -> CalendarEvent:
    """One event's calendar row (its page's ``.ics``, the contact form)."""
    return _events([tournament], today)[0]


def calendar_choices() -> dict[str, list[str]]:
    """The countries and lexicons published events name: what the filters offer."""
    published = Tournament.objects.filter(_published())
    return {
        "countries": sorted(
            set(published.exclude(country="").values_list("country", flat=True)), key=str.lower
        ),
        "lexicons": sorted(set(published.exclude(lexicon="").values_list("lexicon", flat=True))),
    }
