"""Reads shared by pages, the API, reports and commands: standings, a player's games, lookups.

Services push (writes); selectors pull. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db.models import CharField, Q
from django.db.models.functions import Cast

from tournament.access import can_see_contact
from tournament.checks import as_int, entry_by_number, plays
from tournament.errors import ServiceError

from ..models import (
    AuditEvent,
    Division,
    Entry,
    First,
    Game,
    PendingResult,
    Round,
    RoundClock,
    Tournament,
)
from ..standings import PlayerRound, StandingsPlayer, StandingsRow, compute_standings
from ..team_standings import TeamStandingsRow, compute_team_standings, team_name


def division_by_key(tournament: Tournament, key: str) -> Division | None:
    """A division named in a URL by its slug ('div-1') or its name ('Div 1', 'A'); None when
    neither matches. The slug wins, then the exact name, then the name in any case when only
    one division has it: a client that knows the division as TSH names it (``A``, as in
    ``tourney.js``) need not know how Gibson slugged it."""
    divisions = list(tournament.divisions.all())
    for d in divisions:
        if d.slug == key:
            return d
    for d in divisions:
        if d.name == key:
            return d
    folded = [d for d in divisions if d.name.casefold() == key.casefold()]
    return folded[0] if len(folded) == 1 else None


def division_by_name(tournament: Tournament, name: str | None) -> Division:
    """The named division, or the only one; errors list the names there are."""
    divisions = list(tournament.divisions.all())
    if name is None:
        if len(divisions) == 1:
            return divisions[0]
        raise ServiceError(
            "division_required",
            field="division",
            tournament=tournament.slug,
            count=len(divisions),
            names=", ".join(d.name for d in divisions),
        )
    for d in divisions:
        if d.name == name:
            return d
    for d in divisions:
        if d.name.lower() == name.lower():
            return d
    names = ", ".join(d.name for d in divisions) or "none"
    raise ServiceError(
        "unknown_division", field="division", tournament=tournament.slug, name=name, names=names
    )


def tournament_by_slug(slug: str) -> Tournament:
    t = Tournament.objects.filter(slug=slug).first()
    if t is None:
        raise ServiceError("unknown_tournament", field="tournament", slug=slug)
    return t


def player_rounds(division: Division) -> tuple[list[StandingsPlayer], list[PlayerRound]]:
    """The division's entries and games in the pure standings core's terms.

    Read as rows, not model objects: a 500-player, 20-round division has 5,000 games, and
    building a model object for each cost ten times the query itself.
    """
    entries = list(
        division.entries.order_by("number").values_list(
            "pk", "number", "player__name", "seed_rating", "withdrawn_round"
        )
    )
    number_of = {pk: number for pk, number, *_ in entries}
    players = [
        StandingsPlayer(number=number, name=name, rating=rating, withdrawn_round=withdrawn)
        for _pk, number, name, rating, withdrawn in entries
    ]
    rounds: list[PlayerRound] = []
    for r, p1_id, p2_id, score1, score2 in Game.objects.filter(
        round__division=division
    ).values_list("round__number", "player1_id", "player2_id", "score1", "score2"):
        p1 = number_of[p1_id]
        if p2_id is None:
            rounds.append(
                PlayerRound(round=r, player=p1, opponent=None, score=score1, opponent_score=None)
            )
            continue
        p2 = number_of[p2_id]
        rounds.append(
            PlayerRound(round=r, player=p1, opponent=p2, score=score1, opponent_score=score2)
        )
        rounds.append(
            PlayerRound(round=r, player=p2, opponent=p1, score=score2, opponent_score=score1)
        )
    return players, rounds


def division_standings(division: Division, after_round: int | None = None) -> list[StandingsRow]:
    """Standings derived from the games (never stored), after any round, partly scored or not."""
    if after_round is not None:
        after_round = as_int(after_round, "after round", field="after_round")
        if after_round < 0:
            raise ServiceError(
                "below_minimum",
                field="after_round",
                what="after round",
                minimum=0,
                value=after_round,
            )
    players, rounds = player_rounds(division)
    return _standings(division.tournament, players, rounds, after_round)


def records_of(division: Division, numbers: set[int] | list[int]) -> dict[int, StandingsRow]:
    """The standings rows of a few players (record, spread, points), by number, from their own
    games only: what the result box echoes after a line, without ranking the whole division.

    The tallies are the standings core's own (the same rules, caps and forfeits), so each row
    equals that player's row of ``division_standings`` but for ``rank``, which is None here: a
    rank needs every player. One query, whatever the size of the field.
    """
    wanted = set(numbers)
    if not wanted:
        return {}
    rounds: list[PlayerRound] = []
    everyone: set[int] = set(wanted)
    games = Game.objects.filter(round__division=division).filter(
        Q(player1__number__in=wanted) | Q(player2__number__in=wanted)
    )
    for r, p1, p2, score1, score2 in games.values_list(
        "round__number", "player1__number", "player2__number", "score1", "score2"
    ):
        everyone.update(n for n in (p1, p2) if n is not None)
        if p1 in wanted:
            rounds.append(PlayerRound(r, p1, p2, score1, score2))
        if p2 in wanted:
            rounds.append(PlayerRound(r, p2, p1, score2, score1))
    # opponents stand in as players with no rounds of their own: the core checks every
    # opponent is a player, and nobody's rank is kept
    players = [StandingsPlayer(number=n, name="", rating=0) for n in sorted(everyone)]
    rows = _standings(division.tournament, players, rounds, None)
    return {row.number: replace(row, rank=None) for row in rows if row.number in wanted}


def division_teams(division: Division) -> dict[int, str]:
    """Player number -> team, for the players whose ``.t`` line names one (TSH's ``team``
    field, kept in Entry.extra as imported); {} when nobody has a team, and the division then
    has no team standings. One query over the entries, no games."""
    teams: dict[int, str] = {}
    for number, extra in division.entries.values_list("number", "extra"):
        for key, values in extra or []:
            if key == "team" and (name := team_name(values)):
                teams[number] = name
    return teams


def division_team_standings(
    division: Division,
    after_round: int | None = None,
    *,
    teams: dict[int, str] | None = None,
    snapshot: DivisionSnapshot | None = None,
) -> list[TeamStandingsRow]:
    """TSH's team standings of the division after a round ([] when it has no teams).

    ``teams`` and ``snapshot`` are what a page already read (``division_teams``, the
    division's one load of its games), so that nothing is read twice.
    """
    teams = division_teams(division) if teams is None else teams
    if not teams:
        return []
    if snapshot is not None:
        players, rounds = snapshot.player_rounds()
    else:
        players, rounds = player_rounds(division)
    rows = _standings(division.tournament, players, rounds, after_round)
    return compute_team_standings(rows, teams, rounds, after_round=after_round)


def _standings(
    t: Tournament,
    players: list[StandingsPlayer],
    rounds: list[PlayerRound],
    after_round: int | None,
) -> list[StandingsRow]:
    """The standings core under the tournament's spread-cap rules, for every caller alike."""
    return compute_standings(
        players,
        rounds,
        after_round=after_round,
        spread_cap=t.spread_cap_rule,
        standings_spread_cap=t.standings_spread_cap,
        sum_before_spread=t.sum_before_spread,
    )


def last_round_number(division: Division) -> int:
    return (
        division.round_set.filter(games__isnull=False)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
        or 0
    )


def last_scored_round(division: Division) -> int:
    """The last round up to which every game has its result (0 when none is complete).

    Pairings run ahead of results, so "rounds played" must not be read off the last paired
    round; a round counts as scored only when it and every earlier round are complete.
    """
    last = last_round_number(division)
    first_open = (
        Game.objects.filter(round__division=division, score1__isnull=True)
        .order_by("round__number")
        .values_list("round__number", flat=True)
        .first()
    )
    return last if first_open is None else first_open - 1


@dataclass(frozen=True)
class PlayerGame:
    """One round from one player's side, with the board and who went first (a scorecard row)."""

    round: int
    board: int | None
    opponent: Entry | None  # None: a bye or forfeit
    first: bool | None  # True: this player went first; None: unknown, to draw, or no opponent
    must_draw: bool
    score: int | None  # None: not scored yet
    opponent_score: int | None
    explanation: str


def entry_games(division: Division, number: Any) -> tuple[Entry, list[PlayerGame]]:
    """A player's entry and every game of theirs so far, in round order, seen from their side.

    The public player page (the scorecard's QR code) needs board and first/second, which the
    standings' PlayerRound leaves out.
    """
    entry = entry_by_number(division, number)
    games = []
    for g in (
        Game.objects.filter(round__division=division)
        .filter(plays(entry))
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number", "id")
    ):
        mine_is_1 = g.player1_id == entry.pk
        opponent = (g.player2 if mine_is_1 else g.player1) if g.player2_id else None
        went_first = {First.PLAYER1: mine_is_1, First.PLAYER2: not mine_is_1}.get(g.first)
        games.append(
            PlayerGame(
                round=g.round.number,
                board=g.board,
                opponent=opponent,
                first=went_first if opponent is not None else None,
                must_draw=g.first == First.DRAW,
                score=g.score1 if mine_is_1 else g.score2,
                opponent_score=(g.score2 if mine_is_1 else g.score1) if opponent else None,
                explanation=g.explanation,
            )
        )
    return entry, games


def running_records(division: Division, number: int) -> dict[int, StandingsRow]:
    """A player's record and spread after each round in which they have a result.

    Computed by the standings core with the tournament's spread-cap settings, so the last row
    always agrees with the standings page; only the player and their opponents are ranked,
    since a player's own tally depends on nothing else.
    """
    players, rounds = player_rounds(division)
    own = [r for r in rounds if r.player == number]
    involved = {number} | {r.opponent for r in own if r.opponent is not None}
    field = [p for p in players if p.number in involved]
    out: dict[int, StandingsRow] = {}
    for r in sorted({r.round for r in own if r.score is not None}):
        rows = _standings(division.tournament, field, own, r)
        out[r] = next(row for row in rows if row.number == number)
    return out


# --------------------------------------------------------------------------- round status


def paired_rounds(division: Division) -> list[int]:
    """Numbers of the division's rounds that have any game (pairings, byes or forfeits)."""
    return list(
        division.round_set.filter(games__isnull=False)
        .distinct()
        .order_by("number")
        .values_list("number", flat=True)
    )


def round_has_results(division: Division, number: int) -> bool:
    """Whether any PLAYED game of the round has scores.

    Byes and forfeits carry their score from the moment they are paired, so they do not make
    a round "have results": such a round may still be unpaired or re-paired.
    """
    return Game.objects.filter(
        round__division=division,
        round__number=number,
        player2__isnull=False,
        score1__isnull=False,
    ).exists()


def round_in_play(division: Division) -> int | None:
    """The round a director is entering now: the lowest paired round with a played game still
    missing its scores (late cards and lagged schedules keep earlier rounds open), else None."""
    return (
        Game.objects.filter(round__division=division, player2__isnull=False, score1__isnull=True)
        .order_by("round__number")
        .values_list("round__number", flat=True)
        .first()
    )


@dataclass(frozen=True)
class LaterPairing:
    """A round paired after a corrected game's round: it was paired from the old result."""

    round: int
    unscored: int  # its games (byes excluded) still without a result: the part a re-pair may change


def pairings_after(game: Game) -> list[LaterPairing]:
    """The rounds of the game's division paired after its round, oldest first.

    A correction to round 2 after round 4 was paired changes the standings round 4 was paired
    from; the director is told which rounds and how many of their games could still be
    re-paired (scored games stay as they are).
    """
    rows: dict[int, int] = {}
    later = Game.objects.filter(
        round__division_id=game.round.division_id, round__number__gt=game.round.number
    ).values_list("round__number", "player2_id", "score1")
    for number, player2, score1 in later:
        rows.setdefault(number, 0)
        if player2 is not None and score1 is None:
            rows[number] += 1
    return [LaterPairing(number, rows[number]) for number in sorted(rows)]


def missing_games(division: Division, number: int) -> list[Game]:
    """The played games of a round still without scores, by board."""
    return list(
        Game.objects.filter(
            round__division=division,
            round__number=number,
            player2__isnull=False,
            score1__isnull=True,
        )
        .select_related("player1__player", "player2__player")
        .order_by("board", "id")
    )


def visible_contact(user: Any, player: Any) -> bool:
    """Whether ``user`` may see ``player``'s email and phone (tournament.access decides)."""
    return can_see_contact(user, player)


# --------------------------------------------------------------------------- one load of a division


@dataclass(frozen=True)
class EntryView:
    """An entry as a page shows it: plain values, no model object (pickled into the cache)."""

    pk: int
    number: int
    name: str
    seed_rating: int
    withdrawn_round: int | None
    career_games: int | None
    player_id: int  # the profile page's id


# round number, board, player1/player2 entry pks, scores, p12 value, explanation
GAME_ROW = (
    "round__number",
    "board",
    "player1_id",
    "player2_id",
    "score1",
    "score2",
    "first",
    "explanation",
)


def player_game_rows(division: Division, entry_pk: int) -> list[tuple]:
    """One player's games as GAME_ROW tuples in round order: the player page's only load of
    games when the division's derived facts are already cached."""
    return list(
        Game.objects.filter(round__division=division)
        .filter(Q(player1_id=entry_pk) | Q(player2_id=entry_pk))
        .order_by("round__number", "id")
        .values_list(*GAME_ROW)
    )


def games_seen_by(entry: EntryView, rows: list[tuple], entries: dict[int, EntryView]) -> list:
    """A player's games from GAME_ROW tuples, from their side (PlayerGame, opponents as
    EntryView, looked up by entry pk in ``entries``)."""
    out = []
    for rnd, board, p1, p2, s1, s2, first, explanation in rows:
        mine_is_1 = p1 == entry.pk
        if not mine_is_1 and p2 != entry.pk:
            continue
        opponent = entries[p2 if mine_is_1 else p1] if p2 is not None else None
        went_first = {First.PLAYER1: mine_is_1, First.PLAYER2: not mine_is_1}.get(first)
        out.append(
            PlayerGame(
                round=rnd,
                board=board,
                opponent=opponent,  # type: ignore[arg-type]  # an EntryView reads the same
                first=went_first if opponent is not None else None,
                must_draw=first == First.DRAW,
                score=s1 if mine_is_1 else s2,
                opponent_score=(s2 if mine_is_1 else s1) if opponent is not None else None,
                explanation=explanation,
            )
        )
    return out


def records_by_round(
    tournament: Tournament, entry: EntryView, games: list, entries: dict[int, EntryView]
) -> dict[int, StandingsRow]:
    """``running_records`` from a player's own games already loaded (``games_seen_by``): the
    record after each round they have a result in, under the tournament's spread rules,
    ranking only the player and their opponents (their own tally depends on nothing else)."""
    by_number = {e.number: e for e in entries.values()}
    own = [
        PlayerRound(
            round=g.round,
            player=entry.number,
            opponent=g.opponent.number if g.opponent is not None else None,
            score=g.score,
            opponent_score=g.opponent_score,
        )
        for g in games
    ]
    involved = {entry.number} | {r.opponent for r in own if r.opponent is not None}
    field = [
        StandingsPlayer(
            number=n,
            name=by_number[n].name,
            rating=by_number[n].seed_rating,
            withdrawn_round=by_number[n].withdrawn_round,
        )
        for n in sorted(involved)
    ]
    out: dict[int, StandingsRow] = {}
    for r in sorted({r.round for r in own if r.score is not None}):
        rows = _standings(tournament, field, own, r)
        out[r] = next(row for row in rows if row.number == entry.number)
    return out


@dataclass(frozen=True)
class RoundProgress:
    """A round in play: ``games_in`` of its ``games`` have results; ``scored_round`` is the
    last round complete before it."""

    round: int
    scored_round: int
    games: int
    games_in: int
    # byes (positive score) and forfeits (negative) of the round: decided when it is paired,
    # so the standings count them from then on, as TSH's ``standings`` does (it shows
    # ``rs $dp->MostScores()``, a bye's score counting: lib/perl/TSH/Command/STANDINGS.pm)
    byes: int = 0
    forfeits: int = 0

    def describe(self) -> str:
        """The wording pages and clients show beside standings counting a partial round: what
        of the round they count, its byes and forfeits too (before its first result they alone
        make the standings differ from those after the previous round)."""
        counted = "".join(
            f", {n} {word}{'s' if n > 1 else ''} counted"
            for n, word in ((self.byes, "bye"), (self.forfeits, "forfeit"))
            if n
        )
        return (
            f"after round {self.scored_round}; round {self.round}: "
            f"{self.games_in} of {self.games} games in{counted}"
        )


@dataclass
class DivisionSnapshot:
    """A division's entries and games read once (two queries, rows not model objects), from
    which a page derives standings, rating estimates, rounds and one player's card, instead
    of each of those reading the games again."""

    entries: dict[int, EntryView]  # by entry pk
    games: list[tuple]  # GAME_ROW tuples in round order

    @classmethod
    def load(cls, division: Division) -> DivisionSnapshot:
        entries = {
            pk: EntryView(pk, number, name, rating, withdrawn, career, player_id)
            for pk, number, name, rating, withdrawn, career, player_id in division.entries.order_by(
                "number"
            ).values_list(
                "pk",
                "number",
                "player__name",
                "seed_rating",
                "withdrawn_round",
                "career_games",
                "player_id",
            )
        }
        games = list(
            Game.objects.filter(round__division=division)
            .order_by("round__number", "id")
            .values_list(*GAME_ROW)
        )
        return cls(entries, games)

    def by_number(self) -> dict[int, EntryView]:
        return {e.number: e for e in self.entries.values()}

    def last_round(self) -> int:
        """As ``last_round_number``: the last round with a game."""
        return max((g[0] for g in self.games), default=0)

    def scored_round(self) -> int:
        """As ``last_scored_round``: the last round up to which every game has its result."""
        open_rounds = [g[0] for g in self.games if g[4] is None]
        return min(open_rounds) - 1 if open_rounds else self.last_round()

    def round_progress(self) -> RoundProgress | None:
        """The first round still missing results and how many of its games are in, or None
        when every paired round is complete.

        Standings during a round count every game recorded so far, so a page or a client
        showing them must say so ("after round 4; round 5: 12 of 18 games in"); games are the
        round's two-player games (a bye or a forfeit is decided when it is paired).
        """
        scored = self.scored_round()
        if scored >= self.last_round():
            return None
        games = [g for g in self.games if g[0] == scored + 1 and g[3] is not None]
        alone = [g[4] for g in self.games if g[0] == scored + 1 and g[3] is None and g[4]]
        return RoundProgress(
            round=scored + 1,
            scored_round=scored,
            games=len(games),
            games_in=sum(1 for g in games if g[4] is not None),
            byes=sum(1 for score in alone if score > 0),
            forfeits=sum(1 for score in alone if score < 0),
        )

    def player_rounds(self) -> tuple[list[StandingsPlayer], list[PlayerRound]]:
        """As ``player_rounds(division)``, from this load."""
        players = [
            StandingsPlayer(
                number=e.number,
                name=e.name,
                rating=e.seed_rating,
                withdrawn_round=e.withdrawn_round,
            )
            for e in sorted(self.entries.values(), key=lambda e: e.number)
        ]
        num = {pk: e.number for pk, e in self.entries.items()}
        rounds: list[PlayerRound] = []
        for r, _board, p1_id, p2_id, s1, s2, _first, _expl in self.games:
            p1 = num[p1_id]
            if p2_id is None:
                rounds.append(PlayerRound(r, p1, None, s1, None))
                continue
            p2 = num[p2_id]
            rounds.append(PlayerRound(r, p1, p2, s1, s2))
            rounds.append(PlayerRound(r, p2, p1, s2, s1))
        return players, rounds

    def standings(self, tournament: Tournament, after_round: int | None) -> list[StandingsRow]:
        players, rounds = self.player_rounds()
        return _standings(tournament, players, rounds, after_round)


# --------------------------------------------------------------------------- round and cross table


@dataclass(frozen=True)
class BoardRow:
    """One board of a round as the round page lists it: who sits first and who second.

    When first/second is not settled (to draw, unknown) the pairing's order stands and
    ``settled`` is False; a bye or forfeit has no second player and comes after the boards.
    """

    board: int | None
    first: EntryView
    second: EntryView | None  # None: a bye or forfeit
    settled: bool  # who goes first is known (or it is a bye)
    must_draw: bool
    score_first: int | None  # None: not scored yet
    score_second: int | None


def round_boards(snapshot: DivisionSnapshot, number: int) -> list[BoardRow]:
    """The round's boards by board number, then its byes and forfeits (by player number).

    A player looking for their table reads the board and whether they start; the byes are
    last because nobody needs a table for them.
    """
    boards: list[BoardRow] = []
    byes: list[BoardRow] = []
    for rnd, board, p1, p2, s1, s2, first, _expl in snapshot.games:
        if rnd != number:
            continue
        one = snapshot.entries[p1]
        if p2 is None:
            byes.append(BoardRow(board, one, None, True, False, s1, None))
            continue
        two = snapshot.entries[p2]
        if first == First.PLAYER2:
            one, two, s1, s2 = two, one, s2, s1
        settled = first in (First.PLAYER1, First.PLAYER2)
        boards.append(BoardRow(board, one, two, settled, first == First.DRAW, s1, s2))
    boards.sort(key=lambda b: (b.board is None, b.board or 0, b.first.number))
    byes.sort(key=lambda b: b.first.number)
    return boards + byes


@dataclass(frozen=True)
class CrossCell:
    """One player's round in the cross table: opponent number (None: bye or forfeit), the
    result from their side (W, L, T; empty when not scored) and the game's spread."""

    opponent: int | None
    result: str
    spread: int | None


@dataclass(frozen=True)
class CrossRow:
    number: int
    name: str
    cells: list[CrossCell | None]  # one per round 1..last; None: not paired that round


def _result(spread: int | None) -> str:
    if spread is None:
        return ""
    return "W" if spread > 0 else "L" if spread < 0 else "T"


def cross_table(snapshot: DivisionSnapshot, last_round: int) -> list[CrossRow]:
    """Every player's rounds side by side: the wall chart's cross table, from one load.

    Spreads are the games' own (score minus opponent's score; a bye or forfeit its award),
    not capped as standings may cap them: the table shows what was played.
    """
    cells: dict[int, list[CrossCell | None]] = {pk: [None] * last_round for pk in snapshot.entries}
    for rnd, _board, p1, p2, s1, s2, _first, _expl in snapshot.games:
        if not 1 <= rnd <= last_round:
            continue
        if p2 is None:
            cells[p1][rnd - 1] = CrossCell(None, _result(s1), s1)
            continue
        two = snapshot.entries[p2].number
        one = snapshot.entries[p1].number
        scored = s1 is not None and s2 is not None
        spread = s1 - s2 if scored else None  # type: ignore[operator]
        cells[p1][rnd - 1] = CrossCell(two, _result(spread), spread)
        cells[p2][rnd - 1] = CrossCell(
            one, _result(-spread if scored else None), -spread if scored else None
        )  # type: ignore[operator]
    return [
        CrossRow(e.number, e.name, cells[e.pk])
        for e in sorted(snapshot.entries.values(), key=lambda e: e.number)
    ]


def division_actions(division: Division, limit: int) -> list[AuditEvent]:
    """The last audit events about this division, newest first: the division itself, its
    entries, rounds, games and pending result cards. A division page listing the whole
    tournament's events showed the other division's results as its own; a tournament-wide
    change (settings, staff) is on the tournament's page, not here."""

    def ids(qs: Any) -> Any:
        return qs.annotate(key=Cast("pk", CharField())).values("key")

    games = Game.objects.filter(round__division=division)
    mine = (
        Q(object_type="Division", object_id=str(division.pk))
        | Q(object_type="Entry", object_id__in=ids(Entry.objects.filter(division=division)))
        | Q(object_type="Round", object_id__in=ids(Round.objects.filter(division=division)))
        | Q(object_type="Game", object_id__in=ids(games))
        | Q(
            object_type="PendingResult",
            object_id__in=ids(PendingResult.objects.filter(game__in=games)),
        )
        | Q(
            object_type="RoundClock",
            object_id__in=ids(RoundClock.objects.filter(division=division)),
        )
    )
    events = AuditEvent.objects.filter(tournament_id=division.tournament_id).filter(mine)
    return list(events.order_by("-at", "-id")[:limit])
