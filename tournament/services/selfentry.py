"""Self-entry: players report their own results from the link on their scorecard.

Each entry may carry a secret token (``Entry.entry_token``, 192 random bits); the scorecard's
QR code opens ``/e/TOKEN/``, where the player sees their own card and, for their current round
(the lowest round whose played game has no result yet), reports both scores, theirs first.
The opponent confirms from their own link, or disputes with the scores they read; a confirmed
pair is recorded through ``record_result`` with the player as the actor. Nothing a player
reports counts until both agree, and a director's result always wins: a report for a game that
already has a result is refused, and ``record_result`` marks the players' open reports of a
game it records as superseded.

Reports live in ``PendingResult`` (source "player", reporter = the entry, scores in the game's
own order), the model the console's double entry uses, so a disputed self-report is settled on
the console's results page with ``resolve_dispute`` like two disagreeing cards.

Unlike Woogles' in-person mode (which trusts a player id typed at the venue) nothing here
trusts a number: only the token, which is printed on the card the director hands out, names
the player. A director revokes a lost card's link and issues a new one (then reprints).
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from tournament.checks import as_int, plays, validate_played_scores
from tournament.errors import Phrase, ServiceError, where_round

from ..access import require
from ..models import Division, Entry, Game, PendingResult
from .audit import Actor, audit
from .results import lock_scores, record_result
from .venue import held_by_venue, queue_self_report

TOKEN_BYTES = 24  # 192 bits; token_urlsafe(24) is 32 characters of [A-Za-z0-9_-]
_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{32,64}\Z")

Status = PendingResult.Status
OPEN = (Status.PENDING, Status.DISPUTED)

# A player's budget of reports that change something: a link typed into a script must not be
# able to write faster than a person at a table (111 reports in 21 s slowed every public page
# of the site before). Counted per minute, per link and per game, in the site's cache; if the
# cache fails nothing is counted (a player's report must never fail for that).
REPORTS_PER_MINUTE = {"entry": 6, "game": 12}


def _now() -> float:
    """The clock the budget's one-minute windows are cut from (tests fix it)."""
    return time.time()


def _spend(kind: str, pk: int) -> int:
    key = f"selfentry:reports:{kind}:{pk}:{int(_now() // 60)}"
    try:
        cache.add(key, 0, timeout=120)
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr: the window's first
        return 1
    except Exception:  # noqa: BLE001 - any cache backend's failure: do not count
        return 0


def _check_budget(entry: Entry, game: Game) -> None:
    """Refuse a report beyond the minute's budget of this link or this game."""
    for kind, pk in (("entry", entry.pk), ("game", game.pk)):
        limit = REPORTS_PER_MINUTE[kind]
        if _spend(kind, pk) > limit:
            raise ServiceError("selfentry_too_many", field="score", per_minute=limit, seconds=60)


def spend_refused_report(entry: Entry) -> None:
    """A report, confirmation or dispute refused as malformed (a form no page sends, scores
    out of range, a stale round) spends the link's budget as a changing report does: each one
    costs a page built with its errors, and a script sending them unchecked took public
    standings to a tenth of their rate. A person mistyping twice is far inside it.
    Raises ``selfentry_too_many`` once the minute's budget is spent."""
    limit = REPORTS_PER_MINUTE["entry"]
    if _spend("entry", entry.pk) > limit:
        raise ServiceError("selfentry_too_many", field="score", per_minute=limit, seconds=60)


def new_token() -> str:
    """A fresh link secret: 192 bits from the operating system's random source."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def player_actor(entry: Entry) -> Actor:
    """How a player acting through their own link is named in the audit trail."""
    return Actor(f"player #{entry.number} {entry.name}")


def entry_for_token(token: Any) -> Entry | None:
    """The entry whose live link this is, or None (unknown, malformed or revoked: all alike).

    The shape is checked before the database is asked, so junk never costs a query.
    """
    if not isinstance(token, str) or not _TOKEN_SHAPE.match(token):
        return None
    return (
        Entry.objects.select_related("player", "division__tournament")
        .filter(entry_token=token)
        .first()
    )


def _token_entry(token: Any) -> Entry:
    entry = entry_for_token(token)
    if entry is None:
        raise ServiceError("selfentry_unknown_token")
    return entry


# --------------------------------------------------------------------------- the director's side


@transaction.atomic
def issue_token(entry: Entry, actor: Actor | str | Any | None = None) -> str:
    """Give the entry a new link (the old one, if any, stops working); returns the token.

    For a lost or misused card: the director issues a new link and reprints the card. The
    token never goes into the audit trail, only the fact that a new one was made.
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("issue self-entry links"))
    had = bool(entry.entry_token)
    token = new_token()
    entry.entry_token = token
    entry.entry_token_revoked_at = None
    entry.save(update_fields=["entry_token", "entry_token_revoked_at"])
    audit(
        entry.division.tournament,
        actor,
        "issue_entry_token",
        entry,
        f"division {entry.division.name}: new self-entry link for #{entry.number} {entry.name}"
        + (" (the old card's link no longer works)" if had else ""),
        before={"number": entry.number, "link": had},
        after={"number": entry.number, "link": True},
    )
    return token


@transaction.atomic
def revoke_token(entry: Entry, actor: Actor | str | Any | None = None) -> Entry:
    """Turn the entry's link off: the card's QR code then opens a page that is not found.

    A revoked entry gets no new link from a reprint (the card shows the public player page
    instead) until a director issues one; the player's open reports stay for the director.
    """
    require(
        actor, "direct", entry.division.tournament, what=gettext_noop("revoke self-entry links")
    )
    if not entry.entry_token:
        raise ServiceError(
            "selfentry_no_token", field="entry", number=entry.number, name=entry.name
        )
    entry.entry_token = None
    entry.entry_token_revoked_at = timezone.now()
    entry.save(update_fields=["entry_token", "entry_token_revoked_at"])
    audit(
        entry.division.tournament,
        actor,
        "revoke_entry_token",
        entry,
        f"division {entry.division.name}: self-entry link of #{entry.number} {entry.name} revoked",
        before={"number": entry.number, "link": True},
        after={"number": entry.number, "link": False},
    )
    return entry


@transaction.atomic
def ensure_tokens(division: Division, actor: Actor | str | Any | None = None) -> list[int]:
    """Give every entry of the division without a link one, as scorecards are printed.

    One audit event for the batch (the numbers, never the tokens). Each token is written only
    if the entry still has none, so two printings at once cannot overwrite each other's links
    (a card already printed keeps working). Revoked entries are left without a link. Returns
    the numbers of the players who got one.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("issue self-entry links"))
    missing = list(
        division.entries.filter(
            entry_token__isnull=True, entry_token_revoked_at__isnull=True
        ).values_list("pk", "number")
    )
    made = []
    for pk, number in missing:
        if Entry.objects.filter(
            pk=pk, entry_token__isnull=True, entry_token_revoked_at__isnull=True
        ).update(entry_token=new_token()):
            made.append(number)
    if made:
        audit(
            division.tournament,
            actor,
            "issue_entry_tokens",
            division,
            f"division {division.name}: self-entry links for {len(made)} player(s) as "
            "scorecards were printed",
            after={"numbers": made},
        )
    return made


# --------------------------------------------------------------------------- what a player sees


def current_game(entry: Entry) -> Game | None:
    """The player's current game: the lowest round whose played game has no result yet."""
    return (
        Game.objects.filter(plays(entry), round__division_id=entry.division_id)
        .filter(player2__isnull=False, score1__isnull=True)
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number", "id")
        .first()
    )


def _game_in_round(entry: Entry, round_number: int) -> Game | None:
    return (
        Game.objects.filter(plays(entry), round__division_id=entry.division_id)
        .filter(round__number=round_number)
        .select_related("round", "player1__player", "player2__player")
        .first()
    )


def mine_first(game: Game, entry: Entry, score1: int, score2: int) -> tuple[int, int]:
    """Game-order scores seen from ``entry``'s side (their own score first)."""
    return (score1, score2) if game.player1_id == entry.pk else (score2, score1)


def game_order(game: Game, entry: Entry, mine: int, theirs: int) -> tuple[int, int]:
    """``entry``'s own-first scores turned to the game's order (player1's score first)."""
    return (mine, theirs) if game.player1_id == entry.pk else (theirs, mine)


def opponent_of(game: Game, entry: Entry) -> Entry:
    return game.player2 if game.player1_id == entry.pk else game.player1


@dataclass(frozen=True)
class SelfState:
    """The current round from one player's side: the game and the reports open on it."""

    game: Game | None
    opponent: Entry | None
    mine: PendingResult | None  # my own open report
    theirs: PendingResult | None  # the opponent's open report, awaiting my answer
    disputed: bool


def self_state(entry: Entry) -> SelfState:
    game = current_game(entry)
    if game is None:
        return SelfState(None, None, None, None, False)
    reports = list(
        PendingResult.objects.filter(
            game=game, source=PendingResult.Source.PLAYER, status__in=OPEN
        ).select_related("reporter__player")
    )
    mine = next((p for p in reports if p.reporter_id == entry.pk), None)
    theirs = next((p for p in reports if p.reporter_id != entry.pk), None)
    disputed = any(p.status == Status.DISPUTED for p in reports)
    return SelfState(game, opponent_of(game, entry), mine, theirs, disputed)


def open_self_reports(division: Division) -> list[PendingResult]:
    """Players' reports still waiting (pending or disputed) on unscored games, for the console."""
    return list(
        PendingResult.objects.filter(
            game__round__division=division,
            source=PendingResult.Source.PLAYER,
            status__in=OPEN,
            game__score1__isnull=True,
            game__player2__isnull=False,
        )
        .select_related("game__round", "game__player1__player", "game__player2__player")
        .select_related("reporter__player")
        .order_by("game__round__number", "game__board", "game_id", "created", "id")
    )


# --------------------------------------------------------------------------- a player's reports


@dataclass(frozen=True)
class SelfOutcome:
    """What a player's action did: ``status`` is pending, confirmed or disputed."""

    status: str
    game: Game
    report: PendingResult


def _recorded(game: Game, entry: Entry) -> ServiceError:
    mine, theirs = mine_first(game, entry, game.score1, game.score2)
    opponent = opponent_of(game, entry)
    return ServiceError(
        "selfentry_game_recorded",
        field="score",
        round=game.round.number,
        number=opponent.number,
        name=opponent.name,
        score=mine,
        opp_score=theirs,
    )


def _where(game: Game) -> Phrase:
    return where_round(game.round.division, game.round.number)


def _snapshot(report: PendingResult) -> dict[str, Any]:
    return {
        "game": report.game_id,
        "reporter": report.reporter.number if report.reporter_id else None,
        "score1": report.score1,
        "score2": report.score2,
        "status": report.status,
    }


def _confirm(entry: Entry, game: Game, report: PendingResult, actor: Actor) -> SelfOutcome:
    """Record the game with ``report``'s scores: both players' reports confirmed."""
    report.status = Status.CONFIRMED
    report.save(update_fields=["status"])
    own = PendingResult.objects.create(
        game=game,
        reporter=entry,
        score1=report.score1,
        score2=report.score2,
        source=PendingResult.Source.PLAYER,
        status=Status.CONFIRMED,
        actor=actor.name[:100],
    )
    division = game.round.division
    record_result(
        division,
        game.round.number,
        game.player1.number,
        report.score1,
        report.score2,
        actor=actor,
    )
    game.score1, game.score2 = report.score1, report.score2
    audit(
        division.tournament,
        actor,
        "self_confirm",
        own,
        f"{_where(game)}: #{entry.number} {entry.name} confirms {report.score1}-"
        f"{report.score2} for {game}",
        after=_snapshot(own),
    )
    return SelfOutcome(Status.CONFIRMED, game, own)


def _dispute(
    entry: Entry, game: Game, report: PendingResult, scores: tuple[int, int], actor: Actor
) -> SelfOutcome:
    """Keep the two disagreeing reports as disputed: a director settles the game."""
    before = _snapshot(report)
    report.status = Status.DISPUTED
    report.save(update_fields=["status"])
    own = PendingResult.objects.create(
        game=game,
        reporter=entry,
        score1=scores[0],
        score2=scores[1],
        source=PendingResult.Source.PLAYER,
        status=Status.DISPUTED,
        actor=actor.name[:100],
    )
    audit(
        game.round.division.tournament,
        actor,
        "self_dispute",
        own,
        f"{_where(game)}: #{entry.number} {entry.name} disputes {report.score1}-"
        f"{report.score2} with {scores[0]}-{scores[1]} for {game}",
        before=before,
        after=_snapshot(own),
    )
    return SelfOutcome(Status.DISPUTED, game, own)


def _open_reports(game: Game) -> list[PendingResult]:
    return list(
        # of=self: PostgreSQL refuses FOR UPDATE on the nullable side of the reporter join
        PendingResult.objects.select_for_update(of=("self",))
        .filter(game=game, source=PendingResult.Source.PLAYER, status__in=OPEN)
        .select_related("reporter__player")
    )


@transaction.atomic
def report_own_result(
    token: Any, score: Any, opp_score: Any, *, round_number: Any = None
) -> SelfOutcome:
    """A player reports their current game's scores (their own first) from their link.

    ``round_number`` is the round the player's form was for: a report for another round than
    the current one is refused, and so is one for a game that has its result meanwhile. The
    first report waits for the opponent; a report that meets the opponent's waiting one
    records the game when they agree and disputes it when they differ. A player's second
    report before the opponent answers replaces their first. A disputed game takes no more
    reports: a director settles it.
    """
    entry = _token_entry(token)
    actor = player_actor(entry)
    game = current_game(entry)
    if round_number is not None and round_number != "":
        asked = as_int(round_number, "round", field="round")
        there = _game_in_round(entry, asked)
        if there is not None and there.player2_id is not None and there.has_result:
            raise _recorded(there, entry)
        if game is None or game.round.number != asked:
            raise ServiceError(
                "selfentry_round_not_current",
                field="round",
                round=asked,
                current=f"round {game.round.number}" if game else "none (all are scored)",
            )
    if game is None:
        raise ServiceError("selfentry_nothing_to_report", field="score")
    mine, theirs = validate_played_scores(score, opp_score, _where(game))
    lock_scores(game)
    if game.has_result:
        raise _recorded(game, entry)
    scores = game_order(game, entry, mine, theirs)
    link = held_by_venue(entry.division.tournament)
    if link is not None:
        # a venue holds the tournament: this copy queues the report for it (venue mode)
        queue_self_report(link, entry, game.round.number, mine, theirs, actor)
        queued = PendingResult(game=game, reporter=entry, score1=scores[0], score2=scores[1])
        return SelfOutcome("queued", game, queued)
    reports = _open_reports(game)
    opponent = opponent_of(game, entry)
    if any(p.status == Status.DISPUTED for p in reports):
        raise ServiceError(
            "selfentry_disputed",
            field="score",
            round=game.round.number,
            number=opponent.number,
            name=opponent.name,
        )
    other = next((p for p in reports if p.reporter_id != entry.pk), None)
    if other is not None:
        _check_budget(entry, game)
        if (other.score1, other.score2) == scores:
            return _confirm(entry, game, other, actor)
        return _dispute(entry, game, other, scores, actor)
    own = next((p for p in reports if p.reporter_id == entry.pk), None)
    if own is not None and (own.score1, own.score2) == scores:
        # the same report again (a reload, a double tap): nothing changes, nothing is written
        return SelfOutcome(Status.PENDING, game, own)
    _check_budget(entry, game)
    before = _snapshot(own) if own is not None else None
    if own is None:
        own = PendingResult(
            game=game,
            reporter=entry,
            source=PendingResult.Source.PLAYER,
            status=Status.PENDING,
            actor=actor.name[:100],
        )
    own.score1, own.score2 = scores
    own.save()
    audit(
        entry.division.tournament,
        actor,
        "self_report",
        own,
        f"{_where(game)}: #{entry.number} {entry.name} reports {mine}-{theirs} v "
        f"#{opponent.number} {opponent.name}" + (" (changed)" if before else ""),
        before=before,
        after=_snapshot(own),
    )
    return SelfOutcome(Status.PENDING, game, own)


def _answerable(entry: Entry, pending_id: Any) -> PendingResult:
    """The opponent's waiting report this player may answer, locked, or a refusal."""
    pid = as_int(pending_id, "report", field="pending")
    report = (
        PendingResult.objects.select_related(
            "game__round__division__tournament",
            "game__player1__player",
            "game__player2__player",
            "reporter__player",
        )
        .filter(pk=pid, source=PendingResult.Source.PLAYER)
        .filter(Q(game__player1=entry) | Q(game__player2=entry))
        .exclude(reporter=entry)
        .first()
    )
    if report is None:
        raise ServiceError("selfentry_report_gone", field="pending")
    game = report.game
    lock_scores(game)
    if game.player2_id is None:  # the game became a forfeit
        raise ServiceError("selfentry_report_gone", field="pending")
    if game.has_result:
        raise _recorded(game, entry)
    fresh = PendingResult.objects.select_for_update().filter(pk=report.pk).first()
    if fresh is None or fresh.status != Status.PENDING:
        raise ServiceError("selfentry_report_gone", field="pending")
    report.status = fresh.status
    report.score1, report.score2 = fresh.score1, fresh.score2
    return report


@transaction.atomic
def confirm_report(token: Any, pending_id: Any) -> SelfOutcome:
    """The opponent agrees with a player's report: the game is recorded with its scores."""
    entry = _token_entry(token)
    report = _answerable(entry, pending_id)
    return _confirm(entry, report.game, report, player_actor(entry))


@transaction.atomic
def dispute_report(token: Any, pending_id: Any, score: Any, opp_score: Any) -> SelfOutcome:
    """The opponent says the scores were different (their own first): both reports are kept
    as disputed for a director. Scores equal to the report's are a confirmation."""
    entry = _token_entry(token)
    report = _answerable(entry, pending_id)
    game = report.game
    mine, theirs = validate_played_scores(score, opp_score, _where(game))
    scores = game_order(game, entry, mine, theirs)
    actor = player_actor(entry)
    if scores == (report.score1, report.score2):
        return _confirm(entry, game, report, actor)
    return _dispute(entry, game, report, scores, actor)
