"""Writing a prepared import (``write_import``) in short transactions of a few hundred rows,
so the database's write lock is never held for long; a failure deletes what was written
(``discard_import``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.db import connection, transaction

from tournament.errors import ServiceError
from tournament.formats.tsh import TshPlayer, withdrawn_round
from tournament.interchange.exports import TEAM_RATING_KEY, division_players
from tournament.models import Division, Entry, Game, Player, Round, Seat, Tournament
from tournament.services import (
    Actor,
    audit,
    create_division,
    create_tournament,
    find_or_create_player,
)

from .import_prepare import PreparedDivision, PreparedImport
from .import_read import ParsedDivision

# TSH fields that are modelled (derived from games and entries on export); everything else is
# kept verbatim in Entry.extra.
MODELLED_FIELDS = ("p12", "board", "lifeg", "class", "off")


# Rows written per transaction. A big import (4 divisions of 500 players, 50 rounds: 100,000
# games and seats) written in one transaction held SQLite's one write lock for over 30 s, so
# every result entered meanwhile on the site waited and failed; in batches of this size each
# transaction holds it for a few tens of milliseconds and other writes go in between.
BATCH_ROWS = 200
# SQLite lets a waiting writer retry only every 100 ms (its busy handler's longest sleep) and
# queues nobody: an import committing batch after batch with no gap would take the lock back
# each time before a waiter's next try. So after each BREATHER_AFTER seconds of holding the
# lock, the import pauses a little longer than one such retry, and every waiting result
# entry is sure to get in; a database with row locks (PostgreSQL) needs no pause.
BREATHER_AFTER = 0.25
BREATHER = 0.11


class BatchWriter:
    """The import's short write transactions: each timed (the longest is reported), with a
    breather between them on SQLite (see BREATHER)."""

    def __init__(self) -> None:
        self.batches = 0
        self.longest = 0.0  # seconds, the longest single write transaction
        self.paused = 0.0  # seconds spent in breathers
        self._held = 0.0
        self._pause = connection.vendor == "sqlite"

    def batch(self) -> _Batch:
        return _Batch(self)


class _Batch:
    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.atomic = transaction.atomic()

    def __enter__(self) -> None:
        # A full garbage collection over a big import's parsed files takes half a second;
        # it waits until the lock is let go rather than fall inside a transaction.
        self.collecting = gc.isenabled()
        gc.disable()
        self.started = time.perf_counter()
        self.atomic.__enter__()

    def __exit__(self, *exc: Any) -> None:
        try:
            self.atomic.__exit__(*exc)
        finally:
            if self.collecting:
                gc.enable()
        writer = self.writer
        took = time.perf_counter() - self.started
        writer.batches += 1
        writer.longest = max(writer.longest, took)
        writer._held += took
        # (inside an outer transaction, a test's, the lock is held anyway: no pause)
        if writer._pause and writer._held >= BREATHER_AFTER and not connection.in_atomic_block:
            writer._held = 0.0
            time.sleep(BREATHER)
            writer.paused += BREATHER


# (done, total, phrase, tournament), called inside each batch's transaction so the progress a
# job shows is never ahead of what is written.
ImportProgress = Callable[[int, int, str, Tournament], None]


def import_units(prepared: PreparedImport) -> int:
    """The steps an import's progress counts: each player and each game once."""
    return sum(len(d.parsed.players) + len(d.games) for d in prepared.divisions) + 1


def write_import(
    prepared: PreparedImport,
    *,
    actor: Actor | str | None = "import_tsh",
    directors: Iterable[Any] = (),
    published: bool = True,
    progress: ImportProgress | None = None,
    batch: int = BATCH_ROWS,
    writer: BatchWriter | None = None,
) -> Tournament:
    """Write a prepared import in short transactions; on any failure, delete what was written.

    The tournament is created hidden (a draft marked ``importing``: no public page, no console
    list or page shows it), its divisions through their services (each audited), then players,
    entries, rounds and games in batches of ``batch`` rows, each batch its own transaction so
    the database's write lock is never held for long; one last transaction makes it live
    (``published`` as asked), clears ``importing`` and writes the ``import`` event. A refusal
    met while writing (a player twice in a division) deletes the partial import, again in short
    transactions, and is raised as it was. The ``directors`` direct it from the start, so an
    uploader acting as ``actor`` may add its divisions (the division service checks that).
    """
    plan = prepared.plan
    total = import_units(prepared)
    done = 0
    tournament: Tournament | None = None
    writer = writer or BatchWriter()

    def tick(units: int, phrase: str) -> None:
        nonlocal done
        done += units
        if progress is not None and tournament is not None:
            progress(min(done, total), total, phrase, tournament)

    try:
        with writer.batch():
            tournament = create_tournament(
                name=plan.name,
                realm=prepared.realm,
                actor=actor,
                directors=directors,
                config=prepared.config,
                published=False,
                **prepared.fields,
            )
            Tournament.objects.filter(pk=tournament.pk).update(importing=True)
            tournament.importing = True
            tick(0, "creating the tournament")
        summary = [
            _import_division(tournament, index, prepared, actor, batch, tick, writer)
            for index in range(len(prepared.divisions))
        ]
        with writer.batch():
            tournament.importing = False
            tournament.published = published
            tournament.save(update_fields=["importing", "published"])
            audit(
                tournament,
                actor,
                "import",
                tournament,
                f"imported {prepared.source}",
                after={"divisions": summary, "warnings": plan.warnings},
            )
            tick(1, "done")
    except BaseException:
        if tournament is not None:
            discard_import(tournament.pk)
        raise
    tournament.import_warnings = plan.warnings  # for the command's report, not stored
    tournament.import_printed_before_change = plan.printed_before_change
    tournament.import_writes = {
        "transactions": writer.batches,
        "longest_write_ms": round(writer.longest * 1000, 1),
    }
    return tournament


def _import_division(
    tournament: Tournament,
    index: int,
    prepared: PreparedImport,
    actor: Actor | str | None,
    batch: int,
    tick: Callable[[int, str], None],
    writer: BatchWriter,
) -> dict[str, Any]:
    """Write the import's ``index``-th division (its service, its rows, its schedule) and keep
    what TSH printed that no recomputation gives; its line of the import event's summary."""
    from pairings.services.schedule import schedule_from_autopair

    from .snapshots import printed_before_change

    plan = prepared.plan
    prepared_division = prepared.divisions[index]
    parsed = prepared_division.parsed
    js_divisions = plan.tourney_js["divisions"] if plan.tourney_js else []
    with writer.batch():
        division = create_division(
            tournament,
            name=parsed.name,
            rounds=prepared_division.rounds,
            actor=actor,
            rating_system=str(plan.settings.get("rating_system") or "") or None,
            file_name=parsed.file_name,
            config={
                # the rounds TSH scored: a .t export leaves them as the file had them
                "file_rounds": max((len(p.scores) for p in parsed.players), default=0),
                **({"tourney_js": js_divisions[index]} if index < len(js_divisions) else {}),
            },
        )
    _write_division(division, prepared_division, batch=batch, tick=tick, writer=writer)
    # TSH's printed ranks and estimates that no recomputation gives (TSH's rule 1)
    for row in printed_before_change(tournament, division, parsed.players):
        plan.warnings.append(row.pop("message"))
        plan.printed_before_change.append(row)
    with writer.batch():
        plan.warnings.extend(schedule_from_autopair(division, prepared.config["autopair"]))
    return {
        "name": division.name,
        "players": len(parsed.players),
        "rounds": prepared_division.played,
    }


def discard_import(tournament_id: int, *, batch: int = 5 * BATCH_ROWS) -> bool:
    """Delete a partial import (a tournament still marked ``importing``) in short transactions,
    and the players it created that now play nowhere; False if there was none to delete.

    A live tournament is never touched: the flag is what says the import did not finish. The
    players are those of its entries (each batch wrote its players and their entries together)
    created since the tournament was; one another event entered meanwhile is kept.
    """
    tournament = Tournament.objects.filter(pk=tournament_id, importing=True).first()
    if tournament is None:
        return False
    writer = BatchWriter()
    division_ids = list(
        Division.objects.filter(tournament_id=tournament_id).values_list("pk", flat=True)
    )
    players = sorted(
        set(Entry.objects.filter(division__in=division_ids).values_list("player_id", flat=True))
    )
    for model, where in (
        (Seat, "round__division__in"),
        (Game, "round__division__in"),
        (Entry, "division__in"),
        (Round, "division__in"),
    ):
        while True:
            with writer.batch():
                ids = list(
                    model.objects.filter(**{where: division_ids}).values_list("pk", flat=True)[
                        :batch
                    ]
                )
                if not ids:
                    break
                model.objects.filter(pk__in=ids).delete()
    with writer.batch():
        Tournament.objects.filter(pk=tournament_id, importing=True).delete()
    for start in range(0, len(players), batch):
        with writer.batch():
            Player.objects.filter(
                pk__in=players[start : start + batch],
                created__gte=tournament.created,
                entries__isnull=True,
            ).delete()
    return True


def _write_division(
    division: Division,
    prepared: PreparedDivision,
    *,
    batch: int,
    tick: Callable[[int, str], None],
    writer: BatchWriter,
) -> None:
    """Insert a new division's entries, rounds, games and seat index, ``batch`` rows to a
    transaction (bulk inserts); a batch's new players go in with their entries. What can be
    built without the database is built before each transaction opens."""
    parsed = prepared.parsed
    by_number = _write_entries(division, parsed, batch=batch, tick=tick, writer=writer)
    numbers = sorted({g.round for g in prepared.games})
    with writer.batch():
        rounds = {
            r.number: r
            for r in Round.objects.bulk_create(Round(division=division, number=n) for n in numbers)
        }
    # a game and its two seats are three rows: a batch of games is a third of ``batch``
    per = max(1, batch // 3)
    count = len(prepared.games)
    for start in range(0, count, per):
        chunk = prepared.games[start : start + per]
        built = [
            Game(
                round=rounds[g.round],
                board=g.board,
                player1=by_number[g.first],
                player2=by_number[g.second] if g.second else None,
                score1=g.score1,
                score2=g.score2,
                first=g.first_player,
            )
            for g in chunk
        ]
        with writer.batch():
            games = Game.objects.bulk_create(built)
            # bulk_create skips Game.save, which keeps the seat index: written here
            seats = []
            for game in games:
                for side, entry_id in ((1, game.player1_id), (2, game.player2_id)):
                    if entry_id is not None:
                        seats.append(
                            Seat(game=game, round_id=game.round_id, entry_id=entry_id, side=side)
                        )
            Seat.objects.bulk_create(seats)
            tick(len(chunk), f"division {division.name}: {start + len(chunk)} of {count} games")
    _keep_underivable_fields(division, parsed, by_number, batch, writer)


def _write_entries(
    division: Division,
    parsed: ParsedDivision,
    *,
    batch: int,
    tick: Callable[[int, str], None],
    writer: BatchWriter,
) -> dict[int, Entry]:
    """A new division's players and entries, a batch of players to a transaction (a player
    twice in the division refused); the entries by player number."""
    src = parsed.source
    by_number: dict[int, Entry] = {}
    seen: set[int] = set()
    count = len(parsed.players)
    # a player costs a look-up in the registry and a row if new (about 3 ms through the ORM)
    # besides its entry: a batch of players is an eighth of ``batch``
    per = max(1, batch // 8)
    for start in range(0, count, per):
        chunk = parsed.players[start : start + per]
        with writer.batch():
            entries: list[Entry] = []
            for p in chunk:
                player = find_or_create_player(p.name, naspa_id=p.member_id)
                if player.pk in seen:
                    raise ServiceError(
                        "duplicate_player",
                        field="file",
                        source=src,
                        line=p.line,
                        name=p.name,
                        division=division.name,
                    )
                seen.add(player.pk)
                withdrawn_round, off = _withdrawal(p)
                extra = [
                    [k, None if k in MODELLED_FIELDS else list(v)] for k, v in p.fields.items()
                ]
                if p.rating_text:  # a team's 'a+b+c', kept for export (no TSH field name)
                    extra.append([TEAM_RATING_KEY, [p.rating_text]])
                entries.append(
                    Entry(
                        division=division,
                        player=player,
                        number=p.number,
                        seed_rating=p.rating,
                        career_games=p.lifeg,
                        player_class=p.player_class or "",
                        withdrawn_round=withdrawn_round,
                        withdrawal_score=off,
                        extra=extra,
                    )
                )
            by_number.update((e.number, e) for e in Entry.objects.bulk_create(entries))
            tick(len(chunk), f"division {division.name}: {start + len(chunk)} of {count} players")
    return by_number


def _keep_underivable_fields(
    division: Division,
    parsed: ParsedDivision,
    entries: dict[int, Entry],
    batch: int,
    writer: BatchWriter,
) -> None:
    """Keep a player's p12/board verbatim where the games cannot reproduce them.

    Games hold one board and one first-player value, but old files sometimes disagree between
    the two sides of a game (a board moved for one player, p12 recorded on forfeits). Running the
    exporter once (a read, no transaction) shows which lists the games cannot give back; those
    are kept as written, for the rounds they cover (later rounds are still derived from the
    games), in batches like the rest.
    """
    exported = {p.number: p for p in division_players(division)}
    changed: list[Entry] = []
    for p in parsed.players:
        derived = exported[p.number].fields
        entry = entries[p.number]
        extra = [list(item) for item in entry.extra]
        keep = False
        for item in extra:
            key, values = item
            if values is None and key in ("p12", "board") and derived.get(key) != p.fields[key]:
                item[1] = list(p.fields[key])
                keep = True
        if keep:
            entry.extra = extra
            changed.append(entry)
    for start in range(0, len(changed), batch):
        with writer.batch():
            Entry.objects.bulk_update(changed[start : start + batch], ["extra"])


def _withdrawal(player: TshPlayer) -> tuple[int | None, int | None]:
    return withdrawn_round(player), player.off
