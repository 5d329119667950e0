"""On screen: overlays for a stream's browser sources and the commentators' page.

Each overlay is a URL of its own (an OBS browser source: no sign-in, 1920x1080, a transparent
page with opaque cards on it): the featured boards, a head-to-head card, a division's
standings ticker, the prize race, the announcement as a lower third and a slide loop of the
round's pairings for venue screens. They and the commentators' page (every board of the round
with its score, chances and what each player needs) update through the live stream
(``live.js``: htmx fetches the overlay again on each write) and poll when there is none.

Everything a division shows is derived once per tournament version and kept in the shared
cache (the same ``cached`` the public pages use), so a crowd on the commentators' page costs
one computation per result. Only published tournaments are shown (an unpublished one is a
404 unless the visitor may see it, as on the other public pages).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from pairings.needs import division_needs, needs_input

from ..access import can_view
from ..cache import PUBLIC, Version, cached, data_key, request_version
from ..chances import chances_hidden, page_chances
from ..errors import ServiceError
from ..models import Division, FeaturedBoard, Game, Tournament
from ..selectors import (
    DivisionSnapshot,
    division_by_key,
    live_announcement,
    public_record_boards,
    round_boards,
)
from ..selectors.photos import approved_photos
from ..standings import format_wins

# How long a pairings slide stays up, and how many boards it holds (1080 px of rows).
SLIDE_SECONDS = 8
SLIDE_ROWS = 12
TICKER_ROWS = 30
PRIZE_ROWS = 10
# "what each needs": the first few lines per player on the commentators' page
NEED_LINES = 2


@dataclass
class Seat:
    """A player on a board as an overlay shows them: rating, record and standing before the
    round's result, their chances and, while the round is played, what they need."""

    number: int
    name: str
    rating: int
    wins: str = "0"
    losses: str = "0"
    spread: int = 0
    rank: int | None = None
    p_first: float | None = None
    p_cash: float | None = None
    needs: list[str] = field(default_factory=list)
    player_id: int = 0

    @property
    def record(self) -> str:
        sign = "+" if self.spread > 0 else ""
        return f"{self.wins}-{self.losses} {sign}{self.spread}"


@dataclass
class Board:
    board: int | None
    first: Seat
    second: Seat | None  # None: a bye or forfeit
    score_first: int | None
    score_second: int | None

    @property
    def scored(self) -> bool:
        return self.score_first is not None


@dataclass
class DivisionShow:
    """What every overlay and the commentators' page show of one division at one version."""

    name: str
    slug: str
    round: int  # the last paired round (0: none)
    scored_round: int
    rounds: int
    boards: list[Board]
    standings: list[Seat]  # after the last scored round, in order
    chances: bool  # computed and not hidden by the director
    # boards of the round whose game record (GCG) the public may see: annotated games as
    # they arrive, linked from the commentators' page
    record_boards: frozenset[int] = frozenset()


def division_show(version: Version, division: Division) -> DivisionShow:
    """The division's show at ``version``, computed once for every process."""

    def compute() -> DivisionShow:
        snapshot = DivisionSnapshot.load(division)
        last, scored = snapshot.last_round(), snapshot.scored_round()
        rows = snapshot.standings(division.tournament, scored) if last else []
        seats = {
            r.number: Seat(
                r.number,
                r.name,
                r.rating,
                format_wins(r.wins),
                format_wins(r.losses),
                r.spread,
                r.rank,
            )
            for r in rows
        }
        ids = {e.number: e.player_id for e in snapshot.entries.values()}
        for number, seat in seats.items():
            seat.player_id = ids.get(number, 0)
        shown_chances = False
        if last and scored < division.rounds and not chances_hidden(division):
            try:
                for c in page_chances(division, snapshot=lambda: snapshot):
                    if c.number in seats:
                        seats[c.number].p_first = c.p_first
                        seats[c.number].p_cash = c.p_cash
                shown_chances = True
            except ServiceError:
                pass
        if last and scored < last:
            _add_needs(division, snapshot, seats)
        boards = []
        for place, row in enumerate(round_boards(snapshot, last) if last else [], start=1):
            first = seats.get(row.first.number) or _seat_of(row.first)
            second = None
            if row.second is not None:
                second = seats.get(row.second.number) or _seat_of(row.second)
            # a round stored without board numbers: its games in the round page's order
            number = row.board if row.board is not None or second is None else place
            boards.append(Board(number, first, second, row.score_first, row.score_second))
        standings = [seats[r.number] for r in rows if not r.withdrawn]
        return DivisionShow(
            division.name,
            division.slug,
            last,
            scored,
            division.rounds,
            boards,
            standings,
            shown_chances,
            frozenset(public_record_boards(division, last)) if last else frozenset(),
        )

    return cached(data_key(version, PUBLIC, "broadcast", division.pk), compute)


def _seat_of(entry: Any) -> Seat:
    return Seat(entry.number, entry.name, entry.seed_rating, player_id=entry.player_id)


def _add_needs(division: Division, snapshot: DivisionSnapshot, seats: dict[int, Seat]) -> None:
    """What each player needs for a prize place, while the round is played."""
    try:
        result = division_needs(division, prepared=needs_input(division, snapshot))
    except ServiceError:
        return
    for player in result.players:
        if player.number in seats:
            seats[player.number].needs = player.lines[:NEED_LINES]


# --- finding what a URL names -----------------------------------------------------------------


def _tournament(request: HttpRequest, slug: str) -> tuple[Tournament, Version]:
    version = request_version(request, slug)  # read once with the language (web/language.py)
    if version is None:
        raise Http404("No such tournament")
    tournament = version.tournament
    if not can_view(request.user, tournament):
        raise Http404("No such tournament")
    return tournament, version


def _division(request: HttpRequest, slug: str, key: str) -> tuple[Tournament, Version, Division]:
    tournament, version = _tournament(request, slug)
    found = division_by_key(tournament, key)
    if found is None:
        raise Http404("No such division")
    return tournament, version, found


def _featured(tournament: Tournament, position: int) -> FeaturedBoard:
    found = (
        FeaturedBoard.objects.filter(tournament=tournament, position=position)
        .select_related("division")
        .first()
    )
    if found is None:
        raise Http404("No such featured board")
    return found


def _board(show: DivisionShow, number: int) -> Board | None:
    return next((b for b in show.boards if b.board == number), None)


def _overlay(request: HttpRequest, template: str, tournament: Tournament, **context: Any):
    """An overlay page, in the tournament's language (.language decides it: a stream's viewers
    share one picture)."""
    context.update(tournament=tournament, slide_seconds=SLIDE_SECONDS)
    response = render(request, f"broadcast/{template}", context)
    response["Cache-Control"] = "no-cache"  # always asked again (an ETag-less small page)
    return response


# --- the overlays -------------------------------------------------------------------------------


@csrf_exempt
@require_safe
def featured_board(request: HttpRequest, slug: str, position: int) -> HttpResponse:
    """A featured board: both players with rating, record and standing, and the live score."""
    tournament, version = _tournament(request, slug)
    featured = _featured(tournament, position)
    show = division_show(version, featured.division)
    board = _board(show, featured.board)
    # approved photos only (services.photos): one query, beside the cached division facts
    seats = [board.first, board.second] if board is not None else []
    photos = approved_photos([s.player_id for s in seats if s is not None and s.player_id])
    return _overlay(
        request,
        "board.html",
        tournament,
        featured=featured,
        show=show,
        board=board,
        first_photo=photos.get(board.first.player_id, "") if board is not None else "",
        second_photo=(
            photos.get(board.second.player_id, "")
            if board is not None and board.second is not None
            else ""
        ),
    )


@dataclass
class Meeting:
    event: str
    round: int
    score_a: int
    score_b: int


def _meetings(a: int, b: int) -> list[Meeting]:
    """Every scored game between players ``a`` and ``b`` (profile ids), in any event, as
    (a's score, b's score), oldest first."""
    games = (
        Game.objects.filter(
            Q(player1__player_id=a, player2__player_id=b)
            | Q(player1__player_id=b, player2__player_id=a),
            score1__isnull=False,
            score2__isnull=False,
            round__division__tournament__published=True,
        )
        .select_related("round__division__tournament", "player1")
        .order_by("round__division__tournament__start_date", "round__number", "id")
    )
    out = []
    for g in games:
        mine = g.player1.player_id == a
        out.append(
            Meeting(
                g.round.division.tournament.name,
                g.round.number,
                g.score1 if mine else g.score2,
                g.score2 if mine else g.score1,
            )
        )
    return out


@csrf_exempt
@require_safe
def head_to_head(request: HttpRequest, slug: str, position: int) -> HttpResponse:
    """The featured board's two players' record against each other, in every event here."""
    tournament, version = _tournament(request, slug)
    featured = _featured(tournament, position)
    show = division_show(version, featured.division)
    board = _board(show, featured.board)
    meetings: list[Meeting] = []
    if board is not None and board.second is not None:
        meetings = _meetings(board.first.player_id, board.second.player_id)
    wins_a = sum(1 for m in meetings if m.score_a > m.score_b)
    wins_b = sum(1 for m in meetings if m.score_b > m.score_a)
    return _overlay(
        request,
        "h2h.html",
        tournament,
        featured=featured,
        show=show,
        board=board,
        meetings=meetings[-5:],
        played=len(meetings),
        wins_a=wins_a,
        wins_b=wins_b,
        ties=len(meetings) - wins_a - wins_b,
    )


@csrf_exempt
@require_safe
def ticker(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    """A division's standings as a ticker along the bottom of the picture."""
    tournament, version, div = _division(request, slug, division)
    show = division_show(version, div)
    return _overlay(
        request, "ticker.html", tournament, show=show, rows=show.standings[:TICKER_ROWS]
    )


@csrf_exempt
@require_safe
def prize_race(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    """The prize race: the leaders' chances of first place and of a paid place."""
    tournament, version, div = _division(request, slug, division)
    show = division_show(version, div)
    rows = sorted(
        (s for s in show.standings if s.p_first is not None),
        key=lambda s: (-(s.p_first or 0), -(s.p_cash or 0), s.rank or 0),
    )[:PRIZE_ROWS]
    # each leader's approved photo beside their name (the cached seats are not changed)
    photos = approved_photos([s.player_id for s in rows if s.player_id])
    return _overlay(
        request,
        "prizes.html",
        tournament,
        show=show,
        rows=[(s, photos.get(s.player_id, "")) for s in rows],
    )


@csrf_exempt
@require_safe
def lower_third(request: HttpRequest, slug: str) -> HttpResponse:
    """The director's announcement as a lower third (an empty, transparent page without)."""
    tournament, _version = _tournament(request, slug)
    announcement = live_announcement(tournament, timezone.now())
    return _overlay(request, "lower_third.html", tournament, announcement=announcement)


@csrf_exempt
@require_safe
def pairings_loop(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    """The round's pairings as slides of a dozen boards each, shown in turn (venue screens)."""
    tournament, version, div = _division(request, slug, division)
    show = division_show(version, div)
    slides = [show.boards[i : i + SLIDE_ROWS] for i in range(0, len(show.boards), SLIDE_ROWS)]
    return _overlay(request, "pairings.html", tournament, show=show, slides=slides)


# --- the commentators' page --------------------------------------------------------------------


@csrf_exempt
@require_safe
def commentators(request: HttpRequest, slug: str) -> HttpResponse:
    """Every board of the round in every division, with scores as they come in, the players'
    chances and what each needs; and links to every overlay for the stream's operator."""
    tournament, version = _tournament(request, slug)
    divisions = list(tournament.divisions.order_by("name"))
    shows = [division_show(version, d) for d in divisions]
    featured = list(tournament.featured_boards.select_related("division"))
    return render(
        request,
        "broadcast/commentators.html",
        {"tournament": tournament, "shows": shows, "featured": featured},
    )
