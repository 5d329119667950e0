"""The one door for writes to rating lists: submit an event, re-rate a list, import ratings.

Each public function is one transaction: a refused or failed call leaves the list as it was.
Rating itself is done by the pure engine (ratings.engine); this module only loads the list's
state, calls it and stores the result. The tournament app is reached only through string model
references, so ratings never imports tournament code.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
from collections.abc import Callable, Hashable, Iterator
from pathlib import Path
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_noop

from tournament.access import require

from .engine import (
    SYSTEMS,
    RatedGame,
    RatedPlayer,
    RatingError,
    get_system,
    prediction_scores,
    replay,
)
from .engine import RatedEvent as EngineEvent
from .engine.model import prepare_event
from .engine.ratingsfile import parse_ratings
from .explain import _ENCODE, _explanation, state_columns  # noqa: F401 (tests patch them here)
from .models import PlayerRating, RatedEvent, RatingHistory, RatingList

Progress = Callable[[int, int], None]
#: The one order events of a list are rated in: by date, then by their place among the
#: day's events (a weekend's order, docs/weekends.md), then as submitted. Every query that
#: replays, pages or shows a list's events in rating order uses it.
EVENT_ORDER = ("date", "sequence", "id")
BATCH = 1000


def _player_model():
    return apps.get_model("tournament", "Player")


def rating_list_by_slug(slug: str) -> RatingList:
    lst = RatingList.objects.filter(slug=slug).first()
    if lst is None:
        names = ", ".join(RatingList.objects.values_list("slug", flat=True)) or "none yet"
        raise RatingError(f"no rating list {slug!r} (lists: {names})")
    return lst


def create_rating_list(
    name: str,
    *,
    slug: str | None = None,
    system: str = "nsa2008",
    start_date: datetime.date | None = None,
    description: str = "",
) -> RatingList:
    get_system(system)  # refuses an unknown system with the list of known ones
    slug = slug or slugify(name)
    if RatingList.objects.filter(slug=slug).exists():
        raise RatingError(f"a rating list {slug!r} already exists")
    return RatingList.objects.create(
        name=name, slug=slug, system=system, start_date=start_date, description=description
    )


@transaction.atomic
def open_rating_list(
    name: str,
    *,
    actor: Any,
    slug: str | None = None,
    system: str = "nsa2008",
    start_date: datetime.date | None = None,
    description: str = "",
) -> RatingList:
    """A new rating list opened from the console or a command, audited; the account that
    opens it becomes its first officer, so it can load the list's starting ratings at once.

    ``create_rating_list`` stays the bare constructor for writes that audit themselves (a club
    founded with its own list).
    """
    from tournament.services.audit import audit

    require(actor, "open_rating_list", None, what=gettext_noop("open a rating list"))
    name = " ".join(str(name or "").split())
    if not name:
        raise RatingError("a rating list needs a name")
    limit = RatingList._meta.get_field("name").max_length
    if len(name) > limit:
        raise RatingError(f"a rating list's name has at most {limit} characters, not {len(name)}")
    if not (slug or slugify(name)):
        raise RatingError(f"the name {name!r} gives no address: use letters or digits")
    if RatingList.objects.filter(name=name).exists():
        raise RatingError(f"a rating list called {name!r} already exists")
    lst = create_rating_list(
        name, slug=slug, system=system, start_date=start_date, description=description
    )
    user = getattr(actor, "user", actor)
    if getattr(user, "pk", None) and not isinstance(user, str):
        lst.officers.add(user)
    audit(
        None,
        actor,
        "open_rating_list",
        lst,
        f"rating list {lst.name} opened ({lst.system})",
        after={"name": lst.name, "slug": lst.slug, "system": lst.system},
    )
    return lst


def bump_list(lst: RatingList | int) -> None:
    """Move the list's content_version on, in the caller's transaction: pages of the list and
    of divisions rated on it are cached under it, so each write must make them stale (a
    rolled-back write rolls the number back with it)."""
    pk = getattr(lst, "pk", lst)
    RatingList.objects.filter(pk=pk).update(content_version=F("content_version") + 1)


def _mark_dirty(lst: RatingList, date: datetime.date | None) -> None:
    if date is not None and (lst.dirty_from is None or date < lst.dirty_from):
        lst.dirty_from = date


def submit_event(
    rating_list: RatingList,
    *,
    name: str,
    date: datetime.date,
    configured_rounds: int,
    games: list[RatedGame],
    division: Any = None,
    system: str = "",
    start: dict[int, tuple[int, int | None]] | None = None,
    rerate: bool = True,
    progress: Progress | None = None,
    sequence: int = 0,
) -> RatedEvent:
    """Add an event to a list (or replace the one for the same division), then re-rate.

    ``games`` name players by their Player primary key. ``start`` gives (rating, career games)
    for players not yet on the list (e.g. a division's seed ratings); others enter unrated.
    Later events are re-rated too, since a late event changes everyone after it.
    ``sequence`` places the event among the list's events of its date (a weekend's order,
    docs/weekends.md); events of one date with the same sequence keep submission order.
    """
    if rating_list.start_date and date < rating_list.start_date:
        raise RatingError(
            f"event {name!r} is dated {date}, before the start of list {rating_list.slug!r} "
            f"({rating_list.start_date})"
        )
    if system:
        get_system(system)
    ids = sorted({g.a for g in games} | {g.b for g in games})
    found = set(_player_model().objects.filter(pk__in=ids).values_list("pk", flat=True))
    missing = [i for i in ids if i not in found]
    if missing:
        raise RatingError(f"event {name!r}: no player with id {missing[0]}")
    prepare_event([RatedPlayer(i, None) for i in ids], games, configured_rounds)  # checks games
    start = start or {}
    with transaction.atomic():
        lst = RatingList.objects.select_for_update().get(pk=rating_list.pk)
        event = None
        if division is not None:
            event = RatedEvent.objects.filter(rating_list=lst, division=division).first()
        if event is not None:
            _mark_dirty(lst, event.date)
        else:
            event = RatedEvent(rating_list=lst, division=division)
        event.name = name[:200]
        event.date = date
        event.configured_rounds = configured_rounds
        event.system = system
        event.sequence = sequence
        event.games = [[g.round, g.a, g.b, g.score_a, g.score_b] for g in games]
        event.save()
        have = set(
            PlayerRating.objects.filter(rating_list=lst, player_id__in=ids).values_list(
                "player_id", flat=True
            )
        )
        new_rows = []
        for pid in ids:
            if pid in have:
                continue
            rating, career = start.get(pid, (0, 0))
            new_rows.append(
                PlayerRating(
                    rating_list=lst,
                    player_id=pid,
                    start_rating=rating or 0,
                    start_career_games=career,
                    rating=rating or 0,
                    career_games=career,
                )
            )
        PlayerRating.objects.bulk_create(new_rows, batch_size=BATCH)
        _mark_dirty(lst, date)
        lst.save(update_fields=["dirty_from"])
        bump_list(lst)
        if rerate:
            rerate_list(lst, progress=progress)
    rating_list.refresh_from_db()
    return event


def list_history(
    lst: RatingList, system: str | None = None
) -> tuple[list[tuple[RatedEvent, EngineEvent]], dict[Hashable, RatedPlayer]]:
    """The list's events (stored and engine form) in rating order (date, then the place
    among the day's events, then submission), and its players' start."""
    events = []
    for ev in lst.events.order_by(*EVENT_ORDER):
        games = [RatedGame(r, a, b, sa, sb) for r, a, b, sa, sb in ev.games]
        events.append(
            (
                ev,
                EngineEvent(
                    ev.pk, ev.date, ev.configured_rounds, games, system or ev.system or lst.system
                ),
            )
        )
    start = {}
    for pid, rating, career in PlayerRating.objects.filter(rating_list=lst).values_list(
        "player_id", "start_rating", "start_career_games"
    ):
        start[pid] = RatedPlayer(pid, rating or None, career)
    return events, start


#: Events read from the database per fetch while re-rating (about 50 games each): memory stays
#: bounded by this and the players' state, however long the history.
EVENT_CHUNK = 1000
#: History rows held before they are written (one COPY or one executemany per flush).
HISTORY_FLUSH = 5000
HISTORY_COLUMNS = [
    "event",
    "player",
    "before",
    "after",
    "games",
    "expected",
    "actual",
    "explanation",
    "games_before",
    "deviation_before",
    "volatility_before",
    "last_played_before",
    "history_before",
]


def _event_stream(
    lst: RatingList,
    system: str | None,
    events: Any,
    before_fetch: Callable[[], None] | None = None,
) -> Iterator[EngineEvent]:
    """The list's events in the engine's form, read as plain rows in rating order
    (EVENT_ORDER: date, sequence, id).

    Pages of EVENT_CHUNK events, each its own query from where the last ended (no cursor held
    open between them, so a COPY can run between two pages on the same connection); no model
    objects and no whole-history list: the engine consumes the stream as it comes.
    """
    fields = ("pk", "date", "configured_rounds", "system", "games", "sequence")
    new_game = tuple.__new__  # RatedGame is a named tuple: built straight from the stored list
    ordered = events.order_by(*EVENT_ORDER)
    page = ordered
    while True:
        if before_fetch is not None:
            before_fetch()
        rows = list(page.values_list(*fields)[:EVENT_CHUNK])
        for pk, date, rounds, ev_system, games, _sequence in rows:
            # each stored game is [round, a, b, score_a, score_b], checked when submitted
            yield EngineEvent(
                pk,
                date,
                rounds,
                [new_game(RatedGame, g) for g in games],
                system or ev_system or lst.system,
            )
        if len(rows) < EVENT_CHUNK:
            return
        last_pk, last_date, last_seq = rows[-1][0], rows[-1][1], rows[-1][5]
        # the date bound alone lets the (list, date) index start where the last page ended
        page = ordered.filter(date__gte=last_date).filter(
            Q(date__gt=last_date) | Q(sequence__gt=last_seq) | Q(sequence=last_seq, pk__gt=last_pk)
        )


def _start_state(lst: RatingList) -> dict[Hashable, RatedPlayer]:
    return {
        pid: RatedPlayer(pid, rating or None, career)
        for pid, rating, career in PlayerRating.objects.filter(rating_list=lst).values_list(
            "player_id", "start_rating", "start_career_games"
        )
    }


#: Send COPY data from a thread (psycopg's QueuedLibpqWriter): the engine goes on rating while
#: the connection waits for the server to take the rows, instead of waiting with it.
QUEUED_COPY = True


def _queued_writer(raw_cursor: Any) -> Any:
    from psycopg.copy import QueuedLibpqWriter

    return QueuedLibpqWriter(raw_cursor)


class _HistoryWriter:
    """Inserts history rows given as plain tuples (HISTORY_COLUMNS order, explanation as JSON).

    PostgreSQL takes them through COPY, one page of events behind the engine: the rows of the
    page just rated are held (one page: a few MB) and sent at the start of the next page's
    COPY, from psycopg's writer thread, while the engine rates that page; the COPY closes before
    the following page of events is read. So the server stores one page while Python computes
    the next, and closing a COPY seldom waits for it. (Sent without the thread, the burst
    waited for the server: at 2,000,000 games on a loaded machine 80 s against 34-47 s, the
    two processes taking turns.) Other databases take them through one
    prepared INSERT run per HISTORY_FLUSH rows. Either way no model object is built per row,
    which dominated a large re-rate.
    """

    def __init__(self) -> None:
        meta = RatingHistory._meta
        qn = connection.ops.quote_name
        cols = ", ".join(qn(meta.get_field(f).column) for f in HISTORY_COLUMNS)
        table = qn(meta.db_table)
        self.copying = connection.vendor == "postgresql"
        self.copy_sql = f"COPY {table} ({cols}) FROM STDIN"
        marks = ", ".join(["%s"] * len(HISTORY_COLUMNS))
        self.insert_sql = f"INSERT INTO {table} ({cols}) VALUES ({marks})"
        self.rows: list[tuple] = []
        self.pending: list[tuple] = []  # PostgreSQL: the last page's rows, not yet sent
        self.written = 0
        self._cursor: Any = None
        self._copy_cm: Any = None
        self._copy: Any = None

    def add(self, row: tuple) -> None:
        self.written += 1
        if self.copying:
            if self._copy is None:
                self._open()
            self.rows.append(row)
            return
        self.rows.append(row)
        if len(self.rows) >= HISTORY_FLUSH:
            self.flush()

    def _open(self) -> None:
        """Start a COPY and send it the held rows (the thread sends; this returns at once)."""
        self._cursor = connection.cursor()
        raw = self._cursor.cursor
        writer = _queued_writer(raw) if QUEUED_COPY else None
        self._copy_cm = raw.copy(self.copy_sql, writer=writer)
        self._copy = self._copy_cm.__enter__()
        write = self._copy.write_row
        for row in self.pending:
            write(row)
        self.pending = []

    def _close(self, exc: BaseException | None = None) -> None:
        if self._copy is not None:
            cm, cursor = self._copy_cm, self._cursor
            self._copy = self._copy_cm = self._cursor = None
            try:
                if exc is None:
                    cm.__exit__(None, None, None)
                else:
                    cm.__exit__(type(exc), exc, exc.__traceback__)
            finally:
                cursor.close()

    def pause(self) -> None:
        """The connection is free for the next page of events; this page's rows are held."""
        if not self.copying:
            self.flush()
            return
        self._close()
        self.pending.extend(self.rows)  # emptied when sent; kept if no COPY ran this page
        self.rows = []

    def flush(self) -> None:
        """Everything added so far is in the database (the connection is free again)."""
        if self.copying:
            self.pause()
            if self.pending:
                self._open()
                self._close()
            return
        if self.rows:
            with connection.cursor() as cursor:
                cursor.executemany(self.insert_sql, self.rows)
            self.rows.clear()

    def abort(self, exc: BaseException) -> None:
        """A failed re-rate: end an open COPY with the error, so the rollback can run."""
        self.rows = []
        self.pending = []
        self._close(exc)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a list is re-rated, back on (and run once) after.

    A re-rate makes millions of short-lived lists and dicts (an explanation per player and
    event), each allocation counting towards the next collection, while nothing it makes
    forms a cycle: the collections found nothing and cost about a tenth of the re-rate.
    Reference counting still frees everything as it goes, so memory stays bounded.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
            gc.collect(0)


def rerate_list(
    rating_list: RatingList,
    from_date: datetime.date | None = None,
    *,
    system: str | None = None,
    progress: Progress | None = None,
    explain: bool = False,
) -> dict[str, Any]:
    """Re-rate the list's events from ``from_date`` (default: from the first awaiting event).

    Events before that date are final: their history rows are not touched, they are only
    replayed in memory (without explanations) to recover the state. Events from it on get new
    history rows; every player's changed current value is rewritten. A late submission marks
    the list from its own date, so only the events it can change are re-rated. Running it
    twice gives the same state, and a failure rolls everything back. ``system`` switches the
    list to another system, which re-rates it from the start.

    Events are streamed from the database in date order and history rows written in bulk
    (COPY on PostgreSQL), so memory stays bounded on a federation-sized history.

    The rows are written without their explanation (``{}``) but with each player's state
    entering the event, from which ratings.selectors.history_explanation builds it, the same,
    when someone reads it: explaining every game and encoding it as JSON was about half of a
    federation's re-rate, and parsing that JSON most of PostgreSQL's share, for explanations
    few will ever open. ``explain=True`` stores them as the re-rate goes (the old way).
    """
    with _collector_paused(), transaction.atomic():
        lst = RatingList.objects.select_for_update().get(pk=rating_list.pk)
        if system:
            get_system(system)
            lst.system = system
            from_date = None
            lst.dirty_from = None
        frm = from_date if from_date is not None else lst.dirty_from
        events = RatedEvent.objects.filter(rating_list=lst)
        final = events.filter(date__lt=frm) if frm is not None else events.none()
        redo = events.filter(date__gte=frm) if frm is not None else events
        kept = final.count()
        total = redo.count()
        state = replay(
            _event_stream(lst, system, final), _start_state(lst), explain=False, ordered=True
        )
        replaced = RatingHistory.objects.filter(event__rating_list=lst)
        if frm is not None:
            replaced = replaced.filter(event__date__gte=frm)
        replaced.delete()  # one DELETE: no signals or cascades hang on history rows
        writer = _HistoryWriter()
        done = 0

        def collect(ev: EngineEvent, players: list[RatedPlayer], res: dict) -> None:
            nonlocal done
            add = writer.add
            for p in players:
                pr = res[p.id]
                add(
                    (
                        ev.id,
                        p.id,
                        pr.old,
                        pr.new,
                        pr.new_games - pr.old_games,
                        float(pr.expected),
                        float(pr.actual),
                        _ENCODE(_explanation(pr)) if explain else "{}",
                        *state_columns(p),
                    )
                )
            done += 1
            if progress is not None:
                progress(done, total)

        try:
            state = replay(
                _event_stream(lst, system, redo, before_fetch=writer.pause),
                state,
                on_rated=collect,
                explain=explain,
                ordered=True,
            )
            writer.flush()
        except BaseException as exc:
            writer.abort(exc)
            raise
        written = writer.written
        players = _write_current(lst, state)
        lst.dirty_from = None
        lst.rerated_at = timezone.now()
        lst.save(update_fields=["system", "dirty_from", "rerated_at"])
        bump_list(lst)
    rating_list.refresh_from_db()
    return {
        "list": lst.slug,
        "system": lst.system,
        "from": frm.isoformat() if frm else None,
        "events_rerated": total,
        "events_final": kept,
        "history_rows": written,
        "players": players,
    }


CURRENT_FIELDS = ["rating", "career_games", "deviation", "volatility", "state", "last_event_date"]


def _write_current(lst: RatingList, state: dict[Hashable, RatedPlayer]) -> int:
    """Store every player's current value; only changed rows are written.

    One prepared UPDATE run for many rows (``executemany``): the ORM's bulk_update builds a
    CASE expression per row and field, which dominated a large re-rate.
    """
    meta = PlayerRating._meta
    prep = [meta.get_field(f) for f in CURRENT_FIELDS]
    rows = PlayerRating.objects.filter(rating_list=lst).values_list(
        "pk", "player_id", "start_rating", "start_career_games", *CURRENT_FIELDS
    )
    changes = []
    count = 0
    for pk, pid, start_rating, start_career, *now in rows:
        count += 1
        p = state.get(pid)
        if p is None:
            new = [start_rating, start_career, None, None, {}, None]
        else:
            new = [
                p.rating or 0,
                p.career_games,
                p.deviation,
                p.volatility,
                {"history": list(p.history)} if p.history else {},
                p.last_played,
            ]
        if new != list(now):
            changes.append(
                [f.get_db_prep_value(v, connection) for f, v in zip(prep, new, strict=True)] + [pk]
            )
    if changes:
        qn = connection.ops.quote_name
        sets = ", ".join(f"{qn(f.column)} = %s" for f in prep)
        sql = f"UPDATE {qn(meta.db_table)} SET {sets} WHERE {qn(meta.pk.column)} = %s"
        with connection.cursor() as cursor:
            for i in range(0, len(changes), BATCH):
                cursor.executemany(sql, changes[i : i + BATCH])
    return count


def import_ratings(
    rating_list: RatingList, text: str, *, source: str = "<string>", actor: Any = None
) -> dict[str, Any]:
    """Load starting ratings (TSH tab-separated list or CSV) into a list; re-rates if needed.

    Players are matched by name (case does not matter); a name no one has creates a player.
    Starting ratings change every later rating on the list, so only its officers load them.
    """
    require(actor, "rate", rating_list, what=gettext_noop("import ratings"))
    rows = parse_ratings(text, source=source)
    player_model = _player_model()
    wanted = {r.name.lower() for r in rows}
    by_name: dict[str, list[int]] = {}
    for pk, name in player_model.objects.values_list("pk", "name"):
        if name.lower() in wanted:
            by_name.setdefault(name.lower(), []).append(pk)
    created = updated = 0
    with transaction.atomic():
        lst = RatingList.objects.select_for_update().get(pk=rating_list.pk)
        existing = {pr.player_id: pr for pr in PlayerRating.objects.filter(rating_list=lst)}
        for r in rows:
            pks = by_name.get(r.name.lower(), [])
            if len(pks) > 1:
                raise RatingError(
                    f"{source} line {r.line}: {len(pks)} players are called {r.name!r}; "
                    f"rename one first"
                )
            if pks:
                pid = pks[0]
            else:
                pid = player_model.objects.create(name=r.name).pk
                created += 1
            row = existing.get(pid)
            if row is None:
                row = PlayerRating(rating_list=lst, player_id=pid)
            row.start_rating = r.rating
            row.start_career_games = r.career_games
            row.rating = r.rating
            row.career_games = r.career_games
            row.save()
            updated += 1
        first = lst.events.order_by("date").values_list("date", flat=True).first()
        _mark_dirty(lst, first)
        lst.save(update_fields=["dirty_from"])
        bump_list(lst)
        if first is not None:
            rerate_list(lst)
        from tournament.services.audit import audit

        audit(
            None,
            actor,
            "import_ratings",
            lst,
            f"{updated} starting ratings loaded into {lst.name} from {source}"
            + (f" ({created} new players)" if created else ""),
            after={"source": source, "rows": updated, "players_created": created},
        )
    rating_list.refresh_from_db()
    return {"list": rating_list.slug, "rows": updated, "players_created": created}


def import_ratings_file(
    rating_list: RatingList, path: str | Path, *, actor: Any = None
) -> dict[str, Any]:
    """A ratings file (UTF-8 or Latin-1) into the list: import_ratings, by its officers."""
    require(actor, "rate", rating_list, what=gettext_noop("import ratings"))
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RatingError(f"{p}: cannot read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return import_ratings(rating_list, text, source=p.name, actor=actor)


def rating_report(rating_list: RatingList, systems: list[str] | None = None) -> dict[str, dict]:
    """Log-loss and Brier score per system over the list's history (predictions made before
    each event), so systems are compared on exactly the same games."""
    names = systems or [rating_list.system]
    for n in names:
        get_system(n)
    history, start = list_history(rating_list)
    return prediction_scores([e for _, e in history], start, names)


def known_systems() -> list[str]:
    return sorted(SYSTEMS)


def bump_rating_list_versions(tournament: Any, action: Any, obj: Any) -> None:
    """An audit hook (registered in ``RatingsConfig.ready``): a rating list's pages are cached
    under its ``content_version``; a write to the list itself, or to a player it rates (a
    rename or merge shows on the list), makes them stale in the write's own transaction."""
    from tournament.models import Player

    if isinstance(obj, Player) and obj.pk:
        RatingList.objects.filter(ratings__player=obj).update(
            content_version=F("content_version") + 1
        )
    if isinstance(obj, RatingList) and obj.pk:
        RatingList.objects.filter(pk=obj.pk).update(content_version=F("content_version") + 1)
