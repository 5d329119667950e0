"""Ratings for a division: the in-event estimates players watch, and submitting to a list.

Loads a division's entries and games, hands them to the pure rating engine and, for a finished
division, submits its games to a rating list (ratings.services). Byes and forfeits (games
without a second player) are never rated.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from ratings.engine import (
    NO_RATING_SYSTEM,
    RatedGame,
    RatedPlayer,
    RatingError,
    estimates_by_round,
    get_system,
)
from ratings.engine.elo import EloSystem
from ratings.engine.systems import rate_event
from ratings.models import RatedEvent, RatingList, SubmissionRequest
from ratings.services import rerate_list, submit_event
from tournament.access import allowed, can_rate
from tournament.errors import ServiceError
from tournament.models import Division, Game, WeekendEvent
from tournament.services.audit import Actor, audit


def division_system(division: Division, system: str | None = None) -> str:
    """The system asked for, else the division's, else its list's (checked by name).

    TSH's ``none`` is a name too: its estimates are the entries' ratings (``copied_estimates``).
    """
    name = (
        system
        or division.rating_system
        or (division.rating_list.system if division.rating_list_id else "nsa2008")
    )
    if name != NO_RATING_SYSTEM:
        get_system(name)
    return name


def copied_estimates(
    players: list[RatedPlayer], games: list[RatedGame], through_round: int
) -> dict[Any, list[int]]:
    """TSH's estimates under rating system ``none`` (``Ratings::None::RateDivision``): every
    round's estimate is the entry's own rating, copied, for every round rated so far."""
    return {p.id: [p.rating or 0] * through_round for p in players}


def division_rating_input(division: Division) -> tuple[list, list[RatedPlayer], list[RatedGame]]:
    """Entries, their pre-event state (seed rating, lifeg), and the real games with results."""
    entries = list(division.entries.select_related("player").order_by("number"))
    by_id = {e.pk: e for e in entries}
    players = [RatedPlayer(e.number, e.seed_rating or None, e.career_games) for e in entries]
    games = []
    for g in (
        Game.objects.filter(
            round__division=division,
            player2__isnull=False,
            score1__isnull=False,
            score2__isnull=False,
        )
        .select_related("round")
        .only("round__number", "player1_id", "player2_id", "score1", "score2")
        .order_by("round__number", "id")
    ):
        games.append(
            RatedGame(
                g.round.number,
                by_id[g.player1_id].number,
                by_id[g.player2_id].number,
                g.score1,
                g.score2,
            )
        )
    return entries, players, games


def nobody_rated(system: str, players: list[RatedPlayer]) -> bool:
    """True when no player of the division has a rating and ``system`` rates a newcomer by
    performance against rated opponents (the Elo family: NASPA's, WESPA's, TSH's
    ``RateNewcomersCorrectly``): with no rated player there is no scale, and the iteration
    only spreads its seed between the 500 floor and its caps. A ``.TOU`` carries no ratings,
    so its players would all show such numbers; they show unrated (0) instead.
    """
    if any(p.rating for p in players):
        return False
    try:
        return isinstance(get_system(system), EloSystem)
    except RatingError:
        return False


def division_estimates(
    division: Division,
    through_round: int | None = None,
    system: str | None = None,
    *,
    snapshot: Any = None,
) -> list[dict[str, Any]]:
    """Per entry: old rating, estimate after each round, and the latest estimate (``new``).

    Segments are cut by the division's configured rounds (or the last round played, if more
    were played than configured), exactly as TSH prints its estimates. ``snapshot``: the
    division already read (selectors.DivisionSnapshot), so the live feed reads its games once.
    """
    name = division_system(division, system)
    if snapshot is None:
        entries, players, games = division_rating_input(division)
        rows = [(e.number, e.player.name, e.seed_rating) for e in entries]
    else:
        players, games = snapshot_rating_input(snapshot)
        by_number = sorted(snapshot.entries.values(), key=lambda e: e.number)
        rows = [(e.number, e.name, e.seed_rating) for e in by_number]
    last = max((g.round for g in games), default=0)
    configured = max(division.rounds, last, 1)
    if through_round is not None and not 0 <= through_round <= configured:
        raise RatingError(
            f"--through-round {through_round}: division {division.name} has rounds 0..{configured}"
        )
    through = last if through_round is None else through_round
    if nobody_rated(name, players):
        est = {p.id: [0] * through for p in players}
    elif name == NO_RATING_SYSTEM:
        est = copied_estimates(players, games, through)
    else:
        est = estimates_by_round(name, players, games, configured, through_round=through)
    out = []
    for number, player_name, seed_rating in rows:
        by_round = est[number]
        out.append(
            {
                "number": number,
                "name": player_name,
                "old": seed_rating,
                "new": by_round[-1] if by_round else seed_rating,
                "by_round": by_round,
            }
        )
    return out


def rating_estimates(division: Division, after_round: int) -> dict[int, int]:
    """Player number -> rating estimate after a round, for standings; {} when not ratable.

    Standings must show even when a division cannot be rated (an unknown system in an imported
    config, say): the estimate column is then left empty rather than failing the page.
    A page shows one round's estimates, so only that round is rated: the event re-rated
    through ``after_round`` from the pre-event ratings, which is by definition TSH's estimate
    for that round (a test holds it equal to ``division_estimates`` for every system), instead
    of re-rating once per earlier round as well.
    """
    try:
        _entries, players, games = division_rating_input(division)
    except (RatingError, ValueError):
        return {}
    return estimates_from(division, players, games, after_round)


def snapshot_rating_input(snapshot: Any) -> tuple[list[RatedPlayer], list[RatedGame]]:
    """``division_rating_input``'s players and games from a page's one load of the division
    (selectors.DivisionSnapshot), so a page rates without reading the games again."""
    entries = sorted(snapshot.entries.values(), key=lambda e: e.number)
    players = [RatedPlayer(e.number, e.seed_rating or None, e.career_games) for e in entries]
    games = [
        RatedGame(rnd, snapshot.entries[p1].number, snapshot.entries[p2].number, s1, s2)
        for rnd, _board, p1, p2, s1, s2, _first, _expl in snapshot.games
        if p2 is not None and s1 is not None and s2 is not None
    ]
    return players, games


def estimates_from(
    division: Division, players: list[RatedPlayer], games: list[RatedGame], after_round: int
) -> dict[int, int]:
    """``rating_estimates`` on rating input already loaded (see snapshot_rating_input)."""
    try:
        name = division_system(division)
        last = max((g.round for g in games), default=0)
        configured = max(division.rounds, last, 1)
        if not 0 <= after_round <= configured:
            return {}
        if name == NO_RATING_SYSTEM or nobody_rated(name, players):
            return {p.id: p.rating or 0 for p in players}
        played = [g for g in games if g.round <= after_round]
        rated = rate_event(name, players, played, configured, explain=False)
    except (RatingError, ValueError):
        return {}
    return {number: result.new for number, result in rated.items()}


def rate_division(
    division: Division,
    rating_list: RatingList | None = None,
    *,
    date: datetime.date | None = None,
    rerate: bool = True,
    progress: Any = None,
) -> RatedEvent:
    """Submit a division's games to a rating list (its own list by default) and re-rate.

    Players new to the list start from their entry's seed rating and career games. A division
    of a weekend's event takes the event's place in the weekend as its place among the list's
    events of its date (docs/weekends.md), however and in whichever order it is submitted.
    """
    lst = rating_list or division.rating_list
    if lst is None:
        raise RatingError(f"division {division.name} has no rating list; name one")
    entries, _players, games = division_rating_input(division)
    pk_of = {e.number: e.player_id for e in entries}
    list_games = [RatedGame(g.round, pk_of[g.a], pk_of[g.b], g.score_a, g.score_b) for g in games]
    last = max((g.round for g in games), default=0)
    t = division.tournament
    return submit_event(
        lst,
        name=f"{t.name} - {division.name}",
        date=date or t.start_date or datetime.date.today(),
        configured_rounds=max(division.rounds, last, 1),
        games=list_games,
        division=division,
        system=""
        if not division.rating_system or division.rating_system == lst.system
        else division.rating_system,
        start={e.player_id: (e.seed_rating, e.career_games) for e in entries},
        rerate=rerate,
        progress=progress,
        sequence=weekend_sequence(t),
    )


def weekend_sequence(tournament: Any) -> int:
    """The tournament's place in its weekend (1 = first to start); 0 outside a weekend."""
    place = WeekendEvent.objects.filter(tournament=tournament).values_list("position", flat=True)
    return place.first() or 0


def submit_divisions(
    divisions: list[Division],
    rating_list: RatingList,
    *,
    date: datetime.date | None = None,
    actor: Any = None,
    progress: Any = None,
) -> list[RatedEvent]:
    """Put finished divisions on a rating list, all or nothing, and remember the list.

    Each division becomes one event on the list dated ``date`` (default: its tournament's
    start); the list is re-rated once, after the last, since a late event changes everyone
    after it. The division then names the list, so in-event estimates and later re-submits
    use it, and an audit event records who submitted what. Every check runs before any write.
    Only the list's officers may submit (see ``check_officer``); a command names itself as
    the actor and is trusted.
    """
    if not divisions:
        raise RatingError("no divisions to submit")
    check_officer(rating_list, actor)
    plans = []
    for d in divisions:
        when = date or d.tournament.start_date
        if when is None:
            raise RatingError(
                f"tournament {d.tournament.slug!r} has no start date: give the event date"
            )
        if not division_rating_input(d)[2]:
            raise RatingError(f"division {d.name}: no scored games to rate")
        plans.append((d, when))
    events = []
    with transaction.atomic():
        for i, (d, when) in enumerate(plans):
            last = i == len(plans) - 1
            event = rate_division(
                d, rating_list, date=when, rerate=last, progress=progress if last else None
            )
            before = d.rating_list.slug if d.rating_list_id else None
            if d.rating_list_id != rating_list.pk:
                d.rating_list = rating_list
                d.save(update_fields=["rating_list"])
            audit(
                d.tournament,
                actor,
                "submit_ratings",
                d,
                f"division {d.name} submitted to {rating_list.name} as of {when}",
                before={"rating_list": before},
                after={
                    "rating_list": rating_list.slug,
                    "date": when.isoformat(),
                    "event": event.pk,
                },
            )
            events.append(event)
    return events


# --- who may change a rating list -------------------------------------------------------------


def is_rating_officer(user: Any, rating_list: RatingList) -> bool:
    """Superusers and the list's officers submit to it and re-rate it (tournament.access)."""
    return can_rate(user, rating_list)


def check_officer(rating_list: RatingList, actor: Any) -> Actor:
    """Refuse a signed-in user who is not an officer of the list.

    A submission re-rates every later event on the list, so it is the list's officers' call,
    not any director's. An actor without a user is a command run from the shell
    (``submit_ratings``, ``rerate``): whoever runs it already holds the database, so it is
    trusted. No actor at all is refused, so a page cannot forget to say who acts.
    """
    if actor is None:
        raise ServiceError("actor_required", what=f"rating list {rating_list.name}")
    who = Actor.of(actor)
    if not allowed(who, "rate", rating_list):
        raise ServiceError("rating_officer_required", user=who.name, list=rating_list.name)
    return who


def _submittable(division: Division, date: datetime.date | None) -> None:
    """The checks submit_divisions makes, run when a request is made so none is doomed."""
    if (date or division.tournament.start_date) is None:
        raise ServiceError("submission_no_date", tournament=division.tournament.slug)
    if not division_rating_input(division)[2]:
        raise ServiceError("submission_no_games", division=division.name)


@transaction.atomic
def request_submission(
    division: Division,
    rating_list: RatingList | None,
    actor: Any,
    *,
    date: datetime.date | None = None,
) -> SubmissionRequest:
    """A director asks for a finished division to go on a list; an officer of it decides.

    Only the tournament's directors ask (a command is trusted); one request per division and
    list waits at a time.
    """
    if actor is None:
        raise ServiceError("actor_required", what=f"division {division.name}")
    who = Actor.of(actor)
    tournament = division.tournament
    if not allowed(who, "direct", tournament):
        raise ServiceError("not_a_director", user=who.name, tournament=tournament.name)
    if rating_list is None:
        raise ServiceError("submission_no_list", field="rating_list", division=division.name)
    if SubmissionRequest.objects.filter(
        division=division, rating_list=rating_list, status=SubmissionRequest.Status.PENDING
    ).exists():
        raise ServiceError(
            "submission_already_requested", division=division.name, list=rating_list.name
        )
    _submittable(division, date)
    request = SubmissionRequest.objects.create(
        division=division, rating_list=rating_list, date=date, requested_by=who.user
    )
    audit(
        tournament,
        who,
        "request_submission",
        request,
        f"division {division.name}: submission to {rating_list.name} requested",
        after={"rating_list": rating_list.slug, "date": date.isoformat() if date else None},
    )
    return request


def _decide(request: SubmissionRequest, actor: Any) -> tuple[SubmissionRequest, Actor]:
    request = (
        SubmissionRequest.objects.select_for_update()
        .select_related("division__tournament", "rating_list")
        .get(pk=request.pk)
    )
    who = check_officer(request.rating_list, actor)
    if request.status != SubmissionRequest.Status.PENDING:
        raise ServiceError("submission_not_pending", status=request.get_status_display())
    return request, who


@transaction.atomic
def approve_submission(request: SubmissionRequest, actor: Any) -> list[RatedEvent]:
    """An officer of the list approves: the division is submitted as ``submit_divisions`` does.

    The submission's own audit event ("submit_ratings") names the officer; this one records
    the decision on the request.
    """
    request, who = _decide(request, actor)
    try:
        events = submit_divisions(
            [request.division], request.rating_list, date=request.date, actor=who
        )
    except RatingError as exc:
        raise ServiceError("rating_refused", reason=str(exc)) from exc
    request.status = SubmissionRequest.Status.APPROVED
    request.decided_by = who.user
    request.decided_at = timezone.now()
    request.save(update_fields=["status", "decided_by", "decided_at"])
    audit(
        request.division.tournament,
        who,
        "approve_submission",
        request,
        f"division {request.division.name}: submission to {request.rating_list.name} approved",
        before={"status": "pending"},
        after={"status": "approved", "events": [e.pk for e in events]},
    )
    return events


@transaction.atomic
def reject_submission(
    request: SubmissionRequest, actor: Any, *, note: str = ""
) -> SubmissionRequest:
    """An officer of the list turns a request down, with an optional note for the director."""
    request, who = _decide(request, actor)
    request.status = SubmissionRequest.Status.REJECTED
    request.decided_by = who.user
    request.decided_at = timezone.now()
    request.note = (note or "").strip()[:300]
    request.save(update_fields=["status", "decided_by", "decided_at", "note"])
    audit(
        request.division.tournament,
        who,
        "reject_submission",
        request,
        f"division {request.division.name}: submission to {request.rating_list.name} rejected",
        before={"status": "pending"},
        after={"status": "rejected"},
        reason=request.note,
    )
    return request


def rerate(
    rating_list: RatingList,
    from_date: datetime.date | None = None,
    *,
    system: str | None = None,
    actor: Any,
    progress: Any = None,
) -> dict[str, Any]:
    """Re-rate a list as ``ratings.services.rerate_list`` does, for its officers only, audited.

    Re-rating (above all switching the system) rewrites every rating on the list.
    """
    who = check_officer(rating_list, actor)
    with transaction.atomic():
        summary = rerate_list(rating_list, from_date, system=system, progress=progress)
        audit(
            None,
            who,
            "rerate",
            rating_list,
            f"rating list {rating_list.name} re-rated"
            + (f" from {from_date}" if from_date else "")
            + (f" with {system}" if system else ""),
            after={k: summary[k] for k in ("system", "from", "events_rerated", "players")},
        )
    return summary


# --- what if: a player's rating after games not yet played ----------------------------------

WHAT_IF_GAMES = 30  # hypothetical games one question may add
WHAT_IF_SCORE = 400  # the loser's score in a hypothetical game; the winner's adds the spread


def what_if(
    division: Division, number: int, games: list[tuple[int, int | None]]
) -> dict[str, int | None]:
    """The player's rating estimate now and after ``games`` [(spread, opponent rating)] more,
    played after the last round in, each against a player of that rating (None: the player's
    own seed rating), rated by the division's own system with its games so far.

    ``{"now": ..., "then": ...}``; None where the system gives no estimate (no rating system,
    or nobody rated). Refused (``what_if_bad``) beyond ``WHAT_IF_GAMES`` games, a spread over
    the engine's limits, an unknown player.
    """
    if len(games) > WHAT_IF_GAMES:
        raise ServiceError(
            "what_if_bad", field="spread", problem=f"at most {WHAT_IF_GAMES} games, please"
        )
    _entries, players, played = division_rating_input(division)
    me = next((p for p in players if p.id == number), None)
    if me is None:
        raise ServiceError("what_if_bad", field="player", problem=f"no player #{number}")
    last = max((g.round for g in played), default=0)
    now = estimates_from(division, players, played, last).get(number)
    extra_players = list(players)
    extra_games = list(played)
    for i, (spread, opponent) in enumerate(games, start=1):
        if abs(spread) > 1000:
            raise ServiceError(
                "what_if_bad", field="spread", problem=f"{spread:+d}: a spread is at most 1000"
            )
        rating = opponent if opponent is not None else (me.rating or 0)
        if not 0 <= rating <= 3000:
            raise ServiceError(
                "what_if_bad", field="opponent", problem=f"{rating}: a rating is 0 to 3000"
            )
        ghost = ("what-if", i)
        extra_players.append(RatedPlayer(ghost, rating or None, 100))
        mine = WHAT_IF_SCORE + max(spread, 0)
        theirs = WHAT_IF_SCORE + max(-spread, 0)
        extra_games.append(RatedGame(last + i, number, ghost, mine, theirs))
    then_round = last + len(games)
    probe = copy.copy(division)  # never saved: only its rounds grow to hold the new games
    probe.rounds = max(division.rounds, then_round)
    then = estimates_from(probe, extra_players, extra_games, then_round).get(number)
    return {"now": now, "then": then}
