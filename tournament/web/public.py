"""Public pages: read-only views of tournaments, divisions, standings and players for phones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe

from pairings.engine.chances import PlayerChances
from pairings.engine.needs import NeedGroup
from pairings.needs import (
    DivisionNeeds,
    division_needs,
    needs_input,
    prepared_from_standings,
)
from pairings.needs_words import all_of, listed
from ratings.division import estimates_from, snapshot_rating_input
from tournament.errors import ServiceError, worded
from tournament.selectors import RoundProgress, last_round_number, last_scored_round
from tournament.standings import format_wins

from ..cache import (
    PUBLIC,
    Version,
    cached,
    data_key,
    tournament_version,
    viewer_role,
)
from ..cache import public_page as cached_page
from ..chances import chances_hidden, page_chances
from ..models import Division, EntryWindow, Game, Tournament
from ..selectors import (
    DivisionSnapshot,
    EntryView,
    checked_in_count,
    cross_table,
    division_team_standings,
    division_teams,
    games_seen_by,
    records_by_round,
    replica_note,
    round_boards,
)
from ..selectors.gcg import (
    division_records,
    public_record_boards,
    public_record_rounds,
    record_of,
)
from ..selectors.photos import approved_photo
from ..selectors.rows import division_read
from ..standings import StandingsRow
from ..team_standings import TeamStandingsRow
from .gcg import game_page, zip_response
from .permissions import (
    DivisionMoved,
    can_direct,
    can_keep_score,
    can_view,
    division_by_slug,
    moved,
)


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    """An error page that says what was wrong (Django's own 404 page hides the reason)."""
    heading = _("Not found") if status == 404 else _("That did not work")
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def _find(
    request: HttpRequest, slug: str, division: str | None = None, version: Version | None = None
) -> tuple[Tournament, Division | None]:
    """The tournament (a draft only for its staff) and the division named by its slug.

    Raises ServiceError (-> 404) for anything unknown or hidden, DivisionMoved for an old
    name-based division URL. ``version`` is the tournament already read by the page cache.
    """
    tournament = version.tournament if version is not None else None
    if tournament is None or not can_view(request.user, tournament):
        raise ServiceError("unknown_tournament", slug=slug)
    if division is None:
        return tournament, None
    try:
        return tournament, division_by_slug(tournament, division)
    except Http404 as exc:
        names = ", ".join(f"{d.name} ({d.slug})" for d in tournament.divisions.all()) or "none"
        raise ServiceError(
            "unknown_division", tournament=tournament.name, name=division, names=names
        ) from exc


# The public pages only read: csrf_exempt lets a stray POST get its 405 rather than a 403.
@csrf_exempt
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    """Published tournaments, newest first, 50 a page (the page used to stop at 50 with no way
    on), with the rating lists and clubs linked so a player finds them from the front door."""
    published = Tournament.objects.filter(published=True).prefetch_related("divisions")
    page = Paginator(published, HOME_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"tournaments": page.object_list, "page": page}
    return render(request, "tournament/home.html", context)


HOME_PAGE_SIZE = 50


@csrf_exempt
@require_safe
@cached_page("tournament")
def tournament_detail(request: HttpRequest, slug: str, version: Version | None) -> HttpResponse:
    tournament, _ = _find(request, slug, version=version)  # unknown: RefusalMiddleware's 404
    divisions = [
        {
            "division": d,
            "players": d.entries.count(),
            "paired": last_round_number(d),
            "scored": last_scored_round(d),
        }
        for d in tournament.divisions.all()
    ]
    context = {
        "tournament": tournament,
        "divisions": divisions,
        "directs": can_direct(request.user, tournament),  # offers the desk, changes nothing
        "keeps_score": can_keep_score(request.user, tournament),
        # entries online and "who is here": the page links the entry lists when
        # the tournament takes entries; the count shows once anyone has checked in
        "takes_entries": EntryWindow.objects.filter(tournament=tournament).exists(),
        "who_is_here": checked_in_count(tournament),
        # a copy run from a venue says so: which, what it last received, any rebase (venue mode)
        "replica": replica_note(tournament),
    }
    return render(request, "tournament/tournament.html", context)


@dataclass
class DivisionFacts:
    """What every public page of a division derives from its games, at one version: computed
    from one load of the games on the first request after a change, then read from the cache
    by every worker (the standings page and all the player pages share it)."""

    last_round: int
    scored_round: int
    entries: dict[int, EntryView]  # by entry pk
    rows: list[StandingsRow]  # standings after the last paired round, ``estimate`` set
    # the round in play and its games in (None: every paired round complete); a class default
    # so that facts cached before the field existed still read
    progress: RoundProgress | None = None
    # the paired games without a result, as (player1, player2, round) numbers: what "What
    # you need" plays out (None in facts cached before the field: the games are read then)
    pending: list[tuple[int, int, int]] | None = None


def _pending(snap: DivisionSnapshot) -> list[tuple[int, int, int]]:
    number = {pk: e.number for pk, e in snap.entries.items()}
    return [
        (number[g[2]], number[g[3]], g[0])
        for g in snap.games
        if g[3] is not None and (g[4] is None or g[5] is None)
    ]


def _rows_with_estimates(
    div: Division, snapshot: DivisionSnapshot, after_round: int
) -> list[StandingsRow]:
    rows = snapshot.standings(div.tournament, after_round)
    players, games = snapshot_rating_input(snapshot)
    estimates = estimates_from(div, players, games, after_round)
    for row in rows:
        row.estimate = estimates.get(row.number)
    return rows


class _Page:
    """One request's reads of a division: the games are loaded at most once, and only when
    the cache does not already hold what the page needs."""

    def __init__(
        self,
        request: HttpRequest | None,
        version: Version,
        div: Division,
        role: str | None = None,
    ) -> None:
        self.div = div
        self.version = version
        self.role = role if role is not None else viewer_role(request, version.tournament)
        self._snapshot: DivisionSnapshot | None = None

    def snapshot(self) -> DivisionSnapshot:
        if self._snapshot is None:
            # the rows every page of this version shares (one read per version, not per page)
            self._snapshot = division_read(self.version, self.div).snapshot()
        return self._snapshot

    def key(self, *parts: object) -> str:
        return data_key(self.version, self.role, "div", self.div.pk, *parts)

    def facts(self) -> DivisionFacts:
        def compute() -> DivisionFacts:
            snap = self.snapshot()
            last = snap.last_round()
            return DivisionFacts(
                last,
                snap.scored_round(),
                snap.entries,
                _rows_with_estimates(self.div, snap, last),
                snap.round_progress(),
                _pending(snap),
            )

        return cached(self.key("facts"), compute)

    def team_rows(self, after_round: int) -> list[TeamStandingsRow]:
        """TSH's team standings after the round, [] when no player has a team (one query on
        the entries then, cached like the rest)."""

        def compute() -> list[TeamStandingsRow]:
            teams = division_teams(self.div)
            if not teams:
                return []
            return division_team_standings(
                self.div, after_round, teams=teams, snapshot=self.snapshot()
            )

        return cached(self.key("teams", after_round), compute)

    def rows_after(self, after_round: int) -> list[StandingsRow]:
        return cached(
            self.key("standings", after_round),
            lambda: _rows_with_estimates(self.div, self.snapshot(), after_round),
        )


def public_facts(version: Version, div: Division) -> DivisionFacts:
    """The division's facts exactly as its public pages cache them at ``version``: what a page
    without a viewer role of its own (a player's self-entry link) reads, so that it shares the
    one computation per change of the division with the standings and player pages instead
    of ranking the division on every request. ``div.tournament`` is read already."""
    return _Page(None, version, div, role=PUBLIC).facts()


def _division_page(
    request: HttpRequest, slug: str, division: str, version: Version | None
) -> _Page | HttpResponse:
    """The page's reads, or the response (404, moved) when there is no such division here."""
    try:
        tournament, div = _find(request, slug, division, version=version)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    # an unknown or hidden tournament or division is refused by RefusalMiddleware (404)
    assert version is not None and div is not None  # _find raised for an unknown tournament
    div.tournament = tournament  # already read: spread rules without another query
    return _Page(request, version, div)


@csrf_exempt
@require_safe
@cached_page("standings")
def standings(
    request: HttpRequest, slug: str, division: str, version: Version | None
) -> HttpResponse:
    page = _division_page(request, slug, division, version)
    if isinstance(page, HttpResponse):
        return page
    facts = page.facts()
    last = facts.last_round
    after = request.GET.get("after")
    if after is not None:
        # isascii: "²".isdigit() is True but int("²") fails
        if not (after.isascii() and after.isdigit()) or not 0 <= int(after) <= last:
            return _refuse(
                request,
                _(
                    "after={after}: give a round number from 0 to {last}, the last paired round"
                ).format(after=repr(after), last=last),
                400,
            )
        after_round = int(after)
    else:
        after_round = last

    odds = _shown_chances(page, facts) if after_round == last else None

    def table() -> str:
        rows = facts.rows if after_round == last else page.rows_after(after_round)
        base = reverse("public:player", args=(page.div.tournament.slug, page.div.slug, 1))
        return standings_rows_html(rows, base[: -len("1/")], odds)

    return render(
        request,
        "tournament/standings.html",
        {
            "tournament": page.div.tournament,
            "division": page.div,
            "rows_html": mark_safe(
                # the rows hold words ("unrated"): one copy per language
                cached(page.key("rows-html", after_round, odds is not None, get_language()), table)
            ),
            "chances": odds is not None,
            "team_rows": page.team_rows(after_round),
            "after_round": after_round,
            # the latest standings count every game recorded so far: say which are in
            "progress": progress_text(facts.progress)
            if facts.progress is not None and after_round == last
            else "",
            "rounds": range(1, last + 1),
            # refreshes itself while results come in (the latest standings only)
            "live": after is None and facts.scored_round < page.div.rounds,
        },
    )


_count = format_wins  # wins and losses as the page prints them: 3, 2.5


def _shown_chances(page: _Page, facts: DivisionFacts) -> dict[int, PlayerChances] | None:
    """The division's prize chances by player number, or None when the page shows none: the
    director hid them (always or for the last rounds), or no round is left to play."""
    div = page.div
    if facts.scored_round >= div.rounds or chances_hidden(div, facts.last_round):
        return None
    return {c.number: c for c in page_chances(div, snapshot=page.snapshot)}


def progress_text(p: RoundProgress) -> str:
    """``RoundProgress.describe`` in the reader's language (the API keeps the English): what
    of the round in play the standings count, its byes and forfeits too."""
    text = _("after round {scored}; round {round}: {games_in} of {games} games in").format(
        scored=p.scored_round, round=p.round, games_in=p.games_in, games=p.games
    )
    if p.byes:
        text += ngettext(", {count} bye counted", ", {count} byes counted", p.byes).format(
            count=p.byes
        )
    if p.forfeits:
        text += ngettext(
            ", {count} forfeit counted", ", {count} forfeits counted", p.forfeits
        ).format(count=p.forfeits)
    return text


def _pct(p: float | None) -> str:
    """A chance as the page prints it: "37%", "<1%" for a chance that is not nil, "-" for
    none (no class prize)."""
    if p is None:
        return "-"
    if 0 < p < 0.005:
        return "<1%"
    if 0.995 <= p < 1:
        return ">99%"
    return f"{100 * p:.0f}%"


def standings_rows_html(
    rows: list[StandingsRow],
    player_base: str,
    odds: dict[int, PlayerChances] | None = None,
) -> str:
    """The standings table's rows, written in Python: 500 rows through the template language
    (a URL reversed and five filters a row) took 0.4 s, and signed-in viewers and every
    change need them again. Every value is escaped; the markup is the template's."""
    out = []
    unrated = escape(_("unrated"))
    withdrawn_mark = " " + escape(_("(withdrawn)"))
    for r in rows:
        estimate = getattr(r, "estimate", None)
        withdrawn = ' class="withdrawn"' if r.withdrawn else ""
        out.append(
            f"<tr{withdrawn}>\n"
            f'<td class="num">{r.rank if r.rank else "-"}</td>'
            f'<td class="num wide">{r.number}</td>'
            f'<td><a href="{escape(player_base)}{r.number}/">{escape(r.name)}</a>'
            f"{withdrawn_mark if r.withdrawn else ''}</td>\n"
            f'<td class="num">{_count(r.wins)}</td><td class="num">{_count(r.losses)}</td>\n'
            f'<td class="num">{r.spread:+d}</td><td class="num wide">{r.rating or unrated}</td>'
            # 0: an unrated player not rated yet (nobody rated in the division, say)
            f'<td class="num">{"" if estimate is None else estimate or unrated}</td>'
            + (_odds_cells(odds.get(r.number)) if odds is not None else "")
            + "</tr>\n"
        )
    return "".join(out)


def _odds_cells(c: PlayerChances | None) -> str:
    if c is None:
        return '<td class="num"></td><td class="num"></td>'
    return f'<td class="num">{_pct(c.p_first)}</td><td class="num">{_pct(c.p_cash)}</td>'


def _list_rating(div: Division, player_id: int) -> dict | None:
    """The player's current rating on the division's rating list (after the event is submitted
    it is the new rating, not the seed), or None without a list. The page's cache key holds
    the list's version, so a re-rate shows at once."""
    if div.rating_list_id is None:
        return None
    from ratings.models import PlayerRating

    row = (
        PlayerRating.objects.filter(rating_list_id=div.rating_list_id, player_id=player_id)
        .values("rating", "rating_list__name", "rating_list__club")
        .first()
    )
    return row and {
        "rating": row["rating"],
        "list": row["rating_list__name"],
        "club": row["rating_list__club"] is not None,
    }


def _card_rows(
    games: list, last: int, running: dict, gcg_rounds: set
) -> tuple[list[dict], int, int]:
    """The player card's rows, one a round up to ``last`` (the game, its spread, the meeting
    number with that opponent, the record after it, the board of a public game record), and
    the games started and replied in."""
    by_round = {g.round: g for g in games}
    meetings: dict[int, int] = {}
    rows = []
    starts = replies = 0
    for n in range(1, last + 1):
        g = by_round.get(n)
        row: dict = {"round": n, "game": g}
        if g is not None and g.opponent is not None:
            opp = g.opponent.number
            meetings[opp] = meetings.get(opp, 0) + 1
            row["meeting"] = meetings[opp]
            if g.score is not None:
                row["spread"] = g.score - g.opponent_score
                starts += g.first is True
                replies += g.first is False
        elif g is not None and g.score is not None:
            row["spread"] = g.score
        row["record"] = running.get(n) if g is not None and g.score is not None else None
        on_board = g is not None and n in gcg_rounds and g.board
        row["gcg_board"] = g.board if on_board else None
        rows.append(row)
    return rows, starts, replies


@csrf_exempt
@require_safe
@cached_page("player")
def player(
    request: HttpRequest, slug: str, division: str, number: str, version: Version | None
) -> HttpResponse:
    """A player's own page, opened from the QR code on their scorecard: the card, kept current.

    Rank, record and estimate come from the division's cached facts; the player's own games
    are the only games read when those are cached (the whole division's, once, when not).
    """
    page = _division_page(request, slug, division, version)
    if isinstance(page, HttpResponse):
        return page
    div = page.div
    if not (number.isascii() and number.isdigit()) or int(number) < 1:
        return _refuse(
            request,
            _("division {division}: player {number} is not a player number (1, 2, ...)").format(
                division=div.name, number=repr(number)
            ),
            404,
        )
    facts = page.facts()
    wanted = int(number)
    entry = next((e for e in facts.entries.values() if e.number == wanted), None)
    if entry is None:
        exc = ServiceError(
            "unknown_player",
            field="player",
            where=f"division {div.name}",
            number=wanted,
            count=len(facts.entries),
        )
        return _refuse(request, str(exc), 404)
    # the division's rows of this version, shared with its standings and tourney.js
    games = games_seen_by(entry, page.snapshot().games, facts.entries)
    last = facts.last_round
    standing = next(r for r in facts.rows if r.number == entry.number)
    running = records_by_round(div.tournament, entry, games, facts.entries)
    needs = _needs(page, facts, entry) if standing.rank is not None else None
    # rounds whose game has a public record: the card links the game's page
    rows, starts, replies = _card_rows(games, last, running, public_record_rounds(div, entry.pk))
    return render(
        request,
        "tournament/player.html",
        {
            "tournament": div.tournament,
            "division": div,
            "entry": entry,
            "standing": standing,
            "estimate": getattr(standing, "estimate", None),
            "rows": rows,
            "last_round": last,
            "scored_round": facts.scored_round,
            "starts": starts,
            "replies": replies,
            "repeats": any(r.get("meeting", 0) > 1 for r in rows),
            # the card refreshes itself while the division is being played, as the round page
            # does (each poll a conditional GET: 304 until a result changes the division)
            "live": facts.scored_round < div.rounds,
            "list_rating": _list_rating(div, entry.player_id),
            "photo": approved_photo(entry.player_id),
            "needs": need_rows(needs.players[0].groups)
            if needs is not None and needs.players
            else None,
            "needs_notes": [worded(a) for a in needs.assumptions] if needs is not None else [],
            "chances": (_shown_chances(page, facts) or {}).get(entry.number),
            # one reverse for the opponents' links: {% url %} per row was a third of the page
            "player_base": reverse("public:player", args=(div.tournament.slug, div.slug, 1))[:-2],
        },
    )


# A statement this long reads at a glance on a phone; a longer one (a place open in many ways
# ran to 2,500 characters on one line) shows what matters first and every way behind a tap.
NEED_SHORT = 160
NEED_LEAD = 2  # conditions named up front; the rest are in the list


def _and_more(conditions: list[str]) -> str:
    """The first conditions, "; "-separated (a condition may hold a comma), then how many
    more: "you win; #2 Eads, Ed loses; and 4 more results"."""
    shown = listed(conditions[:NEED_LEAD])
    more = len(conditions) - NEED_LEAD
    if more <= 0:
        return shown
    return ngettext(
        "{conditions}; and {count} more result", "{conditions}; and {count} more results", more
    ).format(conditions=shown, count=more)


def need_rows(groups: list[NeedGroup]) -> list[dict[str, Any]]:
    """The player's page's "What you need": short statements as they are; a long one as its
    place and what every way needs ("2nd or better: in every way, you win; then one of 6 sets
    of results on other boards"), the full list of ways in a <details> under it. Worded in
    the page's language (``pairings.needs_words`` words the groups)."""
    rows: list[dict[str, Any]] = []
    for g in groups:
        if not g.head or len(g.text) <= NEED_SHORT:
            rows.append({"text": g.text})
            continue
        if len(g.ways) == 1:
            conditions = [*g.common, *g.ways[0]]
            # Translators: {head} is a place ("2nd or better"), {conditions} what it needs
            lead = _("{head} if {conditions}.").format(
                head=g.head, conditions=_and_more(conditions)
            )
            items, summary = conditions, _("Every result it needs")
        else:
            count = len(g.ways)
            if g.common:
                lead = ngettext(
                    "{head}: in every way, {conditions}; then one of {count} set of results "
                    "on other boards.",
                    "{head}: in every way, {conditions}; then one of {count} sets of results "
                    "on other boards.",
                    count,
                ).format(head=g.head, conditions=_and_more(list(g.common)), count=count)
            else:
                lead = ngettext(
                    "{head}: one of {count} set of results on other boards.",
                    "{head}: one of {count} sets of results on other boards.",
                    count,
                ).format(head=g.head, count=count)
            items = [all_of(w) for w in g.ways]
            if g.common and len(g.common) > NEED_LEAD:
                items = [
                    _("In every way: {conditions}").format(conditions=all_of(g.common)),
                    *items,
                ]
            summary = ngettext(
                "All {count} way, simplest first", "All {count} ways, simplest first", count
            ).format(count=count)
        if g.example:
            lead = _("{statement} These are examples: there are other ways.").format(statement=lead)
        rows.append({"text": g.text, "lead": lead, "items": items, "summary": summary})
    return rows


def _needs(page: _Page, facts: DivisionFacts, entry: EntryView) -> DivisionNeeds | None:
    """What the player needs for each prize place, while a paired round is being played (the
    games still to play are known): exact once it is the last round, safe bounds before.
    None between rounds and after the last one. Cached per division version and player."""
    if facts.progress is None:
        return None

    def prepare() -> tuple:
        if facts.pending is not None:
            ready = prepared_from_standings(page.div, facts.rows, facts.pending, facts.last_round)
            if ready is not None:
                return ready
        return needs_input(page.div, page.snapshot())

    def compute() -> DivisionNeeds:
        prepared = cached(page.key("needs-input"), prepare)
        return division_needs(page.div, entry.number, prepared=prepared)

    return cached(page.key("needs", entry.number), compute)


# --- a round's pairings and the cross table (players' phones during play) ---------------------


def _round_number(text: str) -> int | None:
    """A round number from the URL (isascii: "²".isdigit() is True but int("²") fails)."""
    return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None


@csrf_exempt
@require_safe
@cached_page("round")
def round_pairings(
    request: HttpRequest, slug: str, division: str, number: str, version: Version | None
) -> HttpResponse:
    """A round's boards with first and second player, and a "find my name" box: where a
    player looks for their table. While the round has games without scores the table polls
    itself (htmx, the page's own URL: a 304 most of the time, from the page cache else)."""
    page = _division_page(request, slug, division, version)
    if isinstance(page, HttpResponse):
        return page
    div = page.div
    facts = page.facts()
    wanted = _round_number(number)
    if wanted is None or wanted > div.rounds:
        return _refuse(
            request,
            _(
                "division {division}: there is no round {number}; its rounds are 1 to {rounds}"
            ).format(division=div.name, number=repr(number), rounds=div.rounds),
            404,
        )
    boards = cached(page.key("round", wanted), lambda: round_boards(page.snapshot(), wanted))
    if not boards:
        message = (
            _(
                "division {division}: round {round} is not paired yet "
                "(pairings are out through round {last})"
            )
            if facts.last_round
            else _("division {division}: round {round} is not paired yet (no round is paired yet)")
        )
        return _refuse(
            request,
            message.format(division=div.name, round=wanted, last=facts.last_round),
            404,
        )
    return render(
        request,
        "tournament/round.html",
        {
            "tournament": div.tournament,
            "division": div,
            # every name links to the player's page (one reverse, not one per row)
            "player_base": reverse("public:player", args=(div.tournament.slug, div.slug, 1))[:-2],
            "number": wanted,
            "boards": boards,
            "live": wanted > facts.scored_round,
            "rounds": range(1, facts.last_round + 1),
            "record_boards": public_record_boards(div, wanted),
        },
    )


@csrf_exempt
@require_safe
@cached_page("crosstable")
def crosstable(
    request: HttpRequest, slug: str, division: str, version: Version | None
) -> HttpResponse:
    """Every player's opponents, results and spreads round by round (the wall chart's cross
    table), scrolled sideways on a phone; refreshes itself until the last round is scored."""
    page = _division_page(request, slug, division, version)
    if isinstance(page, HttpResponse):
        return page
    div = page.div
    facts = page.facts()
    last = facts.last_round
    rows = cached(page.key("cross", last), lambda: cross_table(page.snapshot(), last))
    return render(
        request,
        "tournament/crosstable.html",
        {
            "tournament": div.tournament,
            "division": div,
            # every name links to the player's page (one reverse, not one per row)
            "player_base": reverse("public:player", args=(div.tournament.slug, div.slug, 1))[:-2],
            "rows": rows,
            "rounds": range(1, last + 1),
            "live": facts.scored_round < div.rounds,
        },
    )


@csrf_exempt
@require_safe
@cached_page("game")
def game(
    request: HttpRequest,
    slug: str,
    division: str,
    number: str,
    board: str,
    version: Version | None,
) -> HttpResponse:
    """A game's own page: its GCG record in the board viewer (once public; its directors see
    it at once), linked from the round's boards and the players' cards."""
    page = _division_page(request, slug, division, version)
    if isinstance(page, HttpResponse):
        return page
    div = page.div
    wanted, on = _round_number(number), _round_number(board)
    found = (
        Game.objects.select_related("round", "player1__player", "player2__player")
        .filter(round__division=div, round__number=wanted or -1, board=on or -1)
        .first()
    )
    record = None
    if found is not None:
        found.round.division = div
        record = record_of(found, public=not can_direct(request.user, div.tournament))
    if record is None:
        return _refuse(
            request,
            _("division {division}: round {round} board {board} has no game record to show").format(
                division=div.name, round=number, board=board
            ),
            404,
        )
    back = reverse("public:round", args=(div.tournament.slug, div.slug, found.round.number))
    return game_page(request, found, record, back)


@csrf_exempt
@require_safe
def records_zip(request: HttpRequest, slug: str, division: str) -> HttpResponse:
    """The division's game records as one zip of GCG files (the public ones; a director
    gets every one)."""
    page = _division_page(request, slug, division, tournament_version(slug))
    if isinstance(page, HttpResponse):
        return page
    div = page.div
    files = division_records(div, public=not can_direct(request.user, div.tournament))
    return zip_response(files, f"{div.tournament.slug}-{div.slug}-gcg.zip")
