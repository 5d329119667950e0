"""Players and entries: registration, late entry, withdrawal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext_noop

from tournament.checks import (
    as_int,
    check_class_word,
    check_text,
    plays,
    refuse_bidi_controls,
    refuse_tsh_separator,
    validate_bye_score,
)
from tournament.errors import Phrase, ServiceError

from ..access import require
from ..models import (
    Division,
    Entry,
    First,
    Game,
    OnlineEntry,
    Player,
)
from ..selectors import paired_rounds, same_name_entries
from .audit import Actor, audit
from .players import _clean_fields, may_manage_registry


def find_or_create_player(name: str, *, naspa_id: str = "", **fields: Any) -> Player:
    """Reuse a player by federation id, else by exact name when exactly one has it.

    Ratings follow people across events, so the same person must be the same Player; an id is
    certain, a unique exact name is the best guess without one (and is what TSH files carry).
    The name is kept byte for byte inside (only the ends are trimmed): a double space in a real
    file's name is part of how other readers match that player, so it is never collapsed.
    """
    name = name.strip()
    if not name:
        raise ServiceError("empty_name", field="name", what=PLAYER_NAME)
    # limits: refused the same way on every database (SQLite would store either)
    check_text(name, "a player's name", Player, "name", field="name")
    refuse_tsh_separator(name, "the player's name")
    check_text(naspa_id, f"{name[:50]}: NASPA id", Player, "naspa_id", field="naspa_id")
    if naspa_id:
        player = Player.objects.filter(naspa_id=naspa_id).first()
        if player:
            return player
        return Player.objects.create(name=name, naspa_id=naspa_id, **fields)
    same = list(Player.objects.filter(name=name)[:2])
    if len(same) == 1:
        return same[0]
    return Player.objects.create(name=name, **fields)


@transaction.atomic
def register_player(
    division: Division,
    *,
    name: str | None = None,
    player: Player | None = None,
    rating: int = 0,
    career_games: int | None = None,
    player_class: str = "",
    naspa_id: str = "",
    actor: Actor | str | None = None,
    after_last_round: bool = False,
    reason: str = "",
) -> Entry:
    """Add a player to a division, giving late entries the configured record for missed rounds.

    Once the division's last round is paired no one joins (they could play nothing), unless
    ``after_last_round``: a club night's latecomer plays a game logged without a draw.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("register players"))
    if player is None:
        if not name:
            raise ServiceError("entry_needs_player", field="name", division=division.name)
        player = find_or_create_player(name, naspa_id=naspa_id)
    if division.entries.filter(player=player).exists():
        raise ServiceError(
            "already_registered", field="name", division=division.name, name=player.name
        )
    # One person, one division: an Enter on the wrong division's page must not enter them
    # twice (all.tsh would list them twice). A move is its own service (move_entry).
    elsewhere = (
        Entry.objects.filter(division__tournament_id=division.tournament_id, player=player)
        .exclude(division=division)
        .select_related("division")
        .first()
    )
    if elsewhere is not None:
        raise ServiceError(
            "reg_in_other_division",
            field="name",
            name=player.name,
            division=division.name,
            other=elsewhere.division.name,
            number=elsewhere.number,
        )
    if (
        not after_last_round
        and division.rounds
        and division.round_set.filter(number__gte=division.rounds, games__isnull=False).exists()
    ):
        raise ServiceError(
            "reg_after_last_round", field="name", division=division.name, rounds=division.rounds
        )
    what = Phrase(gettext_noop("{name}: rating"), name=player.name)
    rating = as_int(rating, what, field="rating")
    if rating < 0:
        raise ServiceError("below_minimum", field="rating", what=what, minimum=0, value=rating)
    if rating > MAX_SEED_RATING:
        raise ServiceError(
            "number_too_large",
            field="rating",
            what=what,
            value=rating,
            minimum=0,
            maximum=MAX_SEED_RATING,
        )
    check_text(player_class, f"{player.name}: class", Entry, "player_class", field="player_class")
    check_class_word(player_class, f"{player.name}: class")
    # Numbers run 1..N (pairings, tourney.js and .t exports index players by them): the new
    # player is N+1, and a division whose numbers have a gap is refused, not extended.
    count = division.entries.count()
    highest = division.entries.order_by("-number").values_list("number", flat=True).first() or 0
    if highest != count:
        raise ServiceError(
            "entry_numbers_out_of_sequence", division=division.name, count=count, highest=highest
        )
    number = count + 1
    entry = Entry.objects.create(
        division=division,
        player=player,
        number=number,
        seed_rating=rating,
        career_games=career_games,
        player_class=player_class,
    )
    tournament = division.tournament
    missed = list(division.round_set.filter(games__isnull=False).distinct().order_by("number"))
    if missed and tournament.late_entry != "none":
        score = tournament.forfeit_spread if tournament.late_entry == "forfeit" else 0
        for rnd in missed:
            Game.objects.create(
                round=rnd, player1=entry, score1=score, first=First.NONE, explanation="late entry"
            )
    audit(
        tournament,
        actor,
        "register",
        entry,
        f"{division.name} #{number} {player.name} ({rating})"
        + (
            f"; {len(missed)} missed round(s) recorded as {tournament.late_entry}" if missed else ""
        ),
        after={"number": number, "name": player.name, "rating": rating},
        reason=reason,
    )
    return entry


@transaction.atomic
def withdraw_player(
    entry: Entry,
    *,
    from_round: int,
    actor: Actor | str | None = None,
    score: int | None = None,
) -> Entry:
    """Withdraw a player from `from_round` on: later games become forfeits, opponents get byes.

    Directors asked for this (Woogles' "auto-forfeit when a player is removed mid-round"): the
    opponent of an unplayed pairing is not left stranded but scores a forfeit win.
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("withdraw players"))
    division = entry.division
    tournament = division.tournament
    what = Phrase(gettext_noop("withdraw {name}: round"), name=entry.name)
    from_round = as_int(from_round, what, field="from_round")
    if from_round < 1:
        raise ServiceError(
            "below_minimum", field="from_round", what=what, minimum=1, value=from_round
        )
    forfeit = tournament.forfeit_spread if score is None else validate_bye_score(score, "withdraw")
    scored = (
        Game.objects.filter(
            round__division=division, round__number__gte=from_round, score1__isnull=False
        )
        .filter(plays(entry))
        .exclude(player2__isnull=True)
        .select_related("round")
    )
    if scored.exists():
        r = scored.first().round.number
        raise ServiceError(
            "withdraw_after_result",
            field="from_round",
            name=entry.name,
            from_round=from_round,
            round=r,
        )
    before = {"withdrawn_round": entry.withdrawn_round}
    for game in (
        Game.objects.filter(round__division=division, round__number__gte=from_round)
        .filter(plays(entry))
        .select_related("round", "player1", "player2")
    ):
        if game.player2_id is None:
            game.score1 = forfeit
            game.explanation = "withdrawn"
            game.save()
            continue
        other = game.player2 if game.player1_id == entry.pk else game.player1
        game.player1, game.player2 = entry, None
        game.score1, game.score2, game.first = forfeit, None, First.NONE
        game.explanation = "withdrawn"
        game.save()
        Game.objects.create(
            round=game.round,
            board=game.board,
            player1=other,
            score1=tournament.bye_spread,
            first=First.NONE,
            explanation=f"forfeit win: #{entry.number} withdrew",
        )
    entry.withdrawn_round = from_round
    entry.withdrawal_score = forfeit
    entry.save(update_fields=["withdrawn_round", "withdrawal_score"])
    audit(
        tournament,
        actor,
        "withdraw",
        entry,
        f"{entry.name} withdrawn from round {from_round}",
        before=before,
        after={"withdrawn_round": from_round},
    )
    return entry


# --------------------------------------------------------------------------- registration desk
# The director's console registers players one by one or as a pasted list, corrects seed
# ratings and classes, removes a mistaken entry before play, and brings a withdrawn player back.

MAX_SEED_RATING = 3000  # no federation's scale reaches it: a higher number is a typing slip


@dataclass(frozen=True)
class NewEntry:
    """One player of a pasted list: the line it came from names it in a refusal."""

    name: str
    rating: int = 0
    player_class: str = ""
    line: int = 0
    member_id: str = ""  # a .t line's ":ID" (its NASPA id): the same person as that id's player


def check_seed_rating(value: Any, who: str, *, field: str = "seed_rating") -> int:
    """A seed rating is a whole number from 0 (unrated) to 3000.

    Negative ratings do not exist and a 5-digit one is a slip of the keyboard that would seed
    the player first, so both are refused rather than stored.
    """
    try:
        rating = as_int(value, who)
    except ServiceError:
        rating = None
    if rating is None or not 0 <= rating <= MAX_SEED_RATING:
        raise ServiceError(
            "reg_seed_rating", field=field, player=who, value=value, max=MAX_SEED_RATING
        )
    return rating


# what registration's refusals name, in the reader's language when they are read
PLAYER_NAME = Phrase(gettext_noop("player name"))
A_PLAYERS_NAME = Phrase(gettext_noop("a player's name"))


def _class_of(who: str) -> Phrase:
    return Phrase(gettext_noop("{who}: class"), who=who)


def check_player_class(value: Any, who: str, *, field: str = "player_class") -> str:
    """A class (rating band like "B") fits the model's column; longer text is refused, not cut."""
    text = " ".join(str(value or "").split())
    if "\x00" in text:
        raise ServiceError("nul_character", field=field, what=_class_of(who))
    limit = Entry._meta.get_field("player_class").max_length
    if len(text) > limit:
        raise ServiceError("reg_class_too_long", field=field, player=who, value=text, max=limit)
    return check_class_word(text, _class_of(who), field=field)


def check_player_name(value: Any, *, field: str = "name") -> str:
    """A player's name with its spaces collapsed; empty or longer than the column is refused,
    and so is an invisible direction control (a name displayed as someone else's), as in
    every other name check (checks.refuse_bidi_controls)."""
    name = " ".join(str(value or "").split())
    if not name:
        raise ServiceError("reg_name_required", field=field)
    if "\x00" in name:
        raise ServiceError("nul_character", field=field, what=A_PLAYERS_NAME)
    refuse_bidi_controls(name, A_PLAYERS_NAME, field=field)
    limit = Player._meta.get_field("name").max_length
    if len(name) > limit:
        raise ServiceError("reg_name_too_long", field=field, max=limit, length=len(name))
    return refuse_tsh_separator(name, "the player's name", field=field)


def _entered_as(entries: list[Entry]) -> str:
    """ "Smith, Jane (division A #3)" for each, as a refusal names them."""
    return "; ".join(f"{e.player.name} (division {e.division.name} #{e.number})" for e in entries)


@transaction.atomic
def register_new_player(
    division: Division,
    *,
    name: str,
    rating: Any = 0,
    player_class: str = "",
    career_games: int | None = None,
    actor: Actor | str | None = None,
    different_person: str = "",
) -> Entry:
    """Create a new registry player and register them, even when a player of that name exists.

    ``register_player(name=...)`` reuses a player whose exact name is unique; the console asks
    the director first (near-duplicate warning) and calls this only for a person who is
    really new, such as a second John Smith.

    When this tournament already has a player of the same or nearly the same name, one click
    is not enough: a director's weekend made an identical second "Smith, Jane" mid-event that
    no one could tell apart or remove. The director either picks the entered player (and so
    moves or enters them) or says this is a different person with ``different_person``, a
    note that tells the two apart ("from Leeds"); it is kept on the player and in the audit.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("register players"))
    name = check_player_name(name)
    rating = check_seed_rating(rating, name, field="rating")
    player_class = check_player_class(player_class, name)
    note = " ".join(str(different_person or "").split())
    check_text(
        note, f"{name}: the note telling them apart", Player, "note", field="different_person"
    )
    same = same_name_entries(division.tournament_id, name)
    if same and not note:
        raise ServiceError(
            "reg_same_name_in_event", field="different_person", name=name, others=_entered_as(same)
        )
    player = Player.objects.create(name=name, note=note)
    reason = f"a different person from {_entered_as(same)}: {note}" if same else ""
    return register_player(
        division,
        player=player,
        rating=rating,
        player_class=player_class,
        career_games=career_games,
        actor=actor,
        reason=reason[:300],
    )


@transaction.atomic
def register_players(
    division: Division, rows: list[NewEntry], *, actor: Actor | str | None = None
) -> list[Entry]:
    """Register a whole list at once: every row is checked first, then all or none are added.

    A refusal names the row's line, so a director fixes the pasted text and pastes it again;
    rows name players as ``register_player`` does (an exact unique name reuses the registry's
    player), and the same name twice in one list is refused rather than guessed.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("register players"))
    if not rows:
        raise ServiceError("reg_list_empty", field="lines")
    seen: dict[str, int] = {}
    checked: list[NewEntry] = []
    for row in rows:
        try:
            name = check_player_name(row.name, field="lines")
            rating = check_seed_rating(row.rating, name, field="lines")
            player_class = check_player_class(row.player_class, name, field="lines")
        except ServiceError as exc:
            raise ServiceError(
                "reg_list_line", field="lines", line=row.line, problem=exc.message
            ) from exc
        # a name that would make a new player next to a like-named one already entered here
        # is the Add form's job, where the director says which person it is
        # (find_or_create_player's rule: an id names its player, else a unique exact name)
        makes_player = (
            not Player.objects.filter(naspa_id=row.member_id).exists()
            if row.member_id
            else len(Player.objects.filter(name=name)[:2]) != 1
        )
        if makes_player:
            same = same_name_entries(division.tournament_id, name)
            if same:
                raise ServiceError(
                    "reg_list_line",
                    field="lines",
                    line=row.line,
                    problem=ServiceError(
                        "reg_same_name_in_event", name=name, others=_entered_as(same)
                    ).message,
                )
        key = name.casefold()
        if key in seen:
            raise ServiceError(
                "reg_list_line",
                field="lines",
                line=row.line,
                problem=f"{name} is already on line {seen[key]}",
            )
        seen[key] = row.line
        checked.append(NewEntry(name, rating, player_class, row.line, row.member_id))
    entries = []
    for row in checked:
        try:
            entries.append(
                register_player(
                    division,
                    name=row.name,
                    rating=row.rating,
                    player_class=row.player_class,
                    naspa_id=row.member_id,
                    actor=actor,
                )
            )
        except ServiceError as exc:
            raise ServiceError(
                "reg_list_line", field="lines", line=row.line, problem=exc.message
            ) from exc
    return entries


@transaction.atomic
def update_entry(
    entry: Entry,
    *,
    seed_rating: Any = None,
    player_class: str | None = None,
    naspa_id: str | None = None,
    actor: Actor | str | None = None,
) -> Entry:
    """Correct a player's seed rating and/or class, or give a NASPA id the registry lacks
    (None leaves a value as it is).

    Seeds order the first pairings and break ties in the standings, so a change is audited
    with the old and new values; 0..3000 and the class column's length are enforced here.
    A NASPA id belongs to the registry player, shared by every event: a director fills one in
    that is missing (a federation file needs it), but changing or clearing one the registry
    already holds is the registry keepers' job (``update_player``).
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("change entries"))
    who = f"#{entry.number} {entry.name}"
    if seed_rating is None and player_class is None and naspa_id is None:
        raise ServiceError("reg_nothing_to_change", field="seed_rating", player=who)
    player = entry.player
    before = {"seed_rating": entry.seed_rating, "player_class": entry.player_class}
    if naspa_id is not None:  # the trail names the id only when one was given
        before["naspa_id"] = player.naspa_id
    if seed_rating is not None:
        entry.seed_rating = check_seed_rating(seed_rating, who)
    if player_class is not None:
        entry.player_class = check_player_class(player_class, who)
    after = {"seed_rating": entry.seed_rating, "player_class": entry.player_class}
    if naspa_id is not None:
        after["naspa_id"] = player.naspa_id = _fill_naspa_id(player, naspa_id, who, actor)
    if after == before:
        return entry
    entry.save(update_fields=["seed_rating", "player_class"])
    if after.get("naspa_id", "") != before.get("naspa_id", ""):
        player.save(update_fields=["naspa_id"])
    changes = ", ".join(
        f"{k} {before[k]!r} -> {after[k]!r}" for k in after if before[k] != after[k]
    )
    audit(
        entry.division.tournament,
        actor,
        "update_entry",
        entry,
        f"{entry.division.name} {who}: {changes}",
        before=before,
        after=after,
    )
    return entry


def _fill_naspa_id(player: Player, value: Any, who: str, actor: Any) -> str:
    """The NASPA id a director gives: checked as the registry checks it (length, direction
    controls, not another player's); only a keeper of the registry replaces or clears one."""
    text = str(value).strip()
    if text == player.naspa_id:
        return text
    if player.naspa_id and not may_manage_registry(actor):
        raise ServiceError(
            "reg_naspa_id_held", field="naspa_id", player=who, naspa_id=player.naspa_id
        )
    return _clean_fields({"naspa_id": text}, player)["naspa_id"]


@transaction.atomic
def reinstate_player(entry: Entry, from_round: Any, actor: Actor | str | None = None) -> Entry:
    """Bring a withdrawn player back: they are paired again from ``from_round`` on.

    The rule, read with ``withdraw_player`` and docs/rules.md ("a withdrawn player takes no
    part in later pairings; every later round is recorded as a forfeit"):

    - only a withdrawn player can be reinstated;
    - ``from_round`` must be a round of the division that has no pairings at all, and no later
      round may have any either: pairings are made for the field as it was, so a round that is
      already paired (even one where this player only has a withdrawal forfeit) is refused
      until the director deletes its pairings and pairs it again with the player in it;
    - ``from_round`` must be the next round to pair (the last paired round + 1): an entry has
      one withdrawal round, so a return from a later round would leave the rounds between
      with no record for the player; the director reinstates at the next round instead and,
      if needed, withdraws again later;
    - rounds already paired keep their games: the forfeits recorded from the withdrawal on
      stay losses (they were not played), and opponents keep their forfeit wins.

    The withdrawal round and score are cleared; the audit event keeps them.
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("reinstate players"))
    division = entry.division
    who = f"#{entry.number} {entry.name}"
    if entry.withdrawn_round is None:
        raise ServiceError(
            "reg_not_withdrawn", field="round", number=entry.number, player=entry.name
        )
    raw = from_round
    try:
        from_round = as_int(raw, "reinstate")
    except ServiceError:
        from_round = 0
    if from_round < 1:
        raise ServiceError(
            "reg_round_number",
            field="round",
            what=Phrase(gettext_noop("reinstate {who}"), who=who),
            value=raw,
        )
    paired = paired_rounds(division)
    later = [r for r in paired if r >= from_round]
    if later:
        raise ServiceError(
            "reg_reinstate_paired",
            field="round",
            round=later[0],
            division=division.name,
            player=who,
        )
    following = (paired[-1] if paired else 0) + 1
    if from_round != following:
        raise ServiceError(
            "reg_reinstate_not_next",
            field="round",
            next=following,
            division=division.name,
            player=who,
        )
    before = {"withdrawn_round": entry.withdrawn_round, "withdrawal_score": entry.withdrawal_score}
    entry.withdrawn_round = None
    entry.withdrawal_score = None
    entry.save(update_fields=["withdrawn_round", "withdrawal_score"])
    audit(
        division.tournament,
        actor,
        "reinstate",
        entry,
        f"{division.name} {who} plays again from round {from_round} "
        f"(withdrawn from round {before['withdrawn_round']})",
        before=before,
        after={"withdrawn_round": None, "plays_from_round": from_round},
    )
    return entry


@transaction.atomic
def remove_entry(entry: Entry, actor: Actor | str | None = None) -> list[tuple[int, int]]:
    """Remove a mistaken entry and close up the numbers behind it.

    Before any round of the division is paired, any entry. Once pairings exist the numbers are
    on scorecards and wall charts, so a player is withdrawn instead, with one exception: a
    player added by mistake mid-event who is the last number and has played no game (only the
    late-entry records of the rounds they missed, which go with them) is removed, since no
    one's number or game changes. The player stays in the registry. Later entries move down by
    one, in increasing order, so the unique (division, number) pair never clashes. Returns the
    (old, new) numbers that moved.
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("remove entries"))
    division = entry.division
    paired = paired_rounds(division)
    if paired and not removable_mid_event(entry):
        raise ServiceError(
            "reg_remove_paired",
            field="entry",
            round=paired[0],
            division=division.name,
            number=entry.number,
            player=entry.name,
        )
    # Lock the division's entries: a registration meanwhile would take a number being moved.
    later = list(
        Entry.objects.select_for_update()
        .filter(division=division, number__gt=entry.number)
        .order_by("number")
    )
    before = {
        "number": entry.number,
        "name": entry.name,
        "seed_rating": entry.seed_rating,
        "player_class": entry.player_class,
    }
    late_records = Game.objects.filter(player1=entry, player2__isnull=True).count()
    if late_records:
        before["late_entry_records"] = late_records
    removed_pk, removed_number = entry.pk, entry.number
    # an online entrant removed by hand no longer holds a place (their page says withdrawn)
    OnlineEntry.objects.filter(entry=entry).update(
        status=OnlineEntry.Status.WITHDRAWN, entry=None, note="removed by a director"
    )
    entry.delete()
    moved = []
    for e in later:
        moved.append((e.number, e.number - 1))
        e.number -= 1
        e.save(update_fields=["number"])
    audit(
        division.tournament,
        actor,
        "remove_entry",
        None,
        f"{division.name} #{removed_number} {before['name']} removed"
        + (f"; #{moved[0][0]}-#{moved[-1][0]} renumbered down by one" if moved else ""),
        before={**before, "entry_id": removed_pk},
        after={"renumbered": [list(m) for m in moved]},
    )
    return moved


def removable_mid_event(entry: Entry) -> bool:
    """True for the division's last number whose only games are late-entry records.

    Such an entry (typically a player added by mistake after round 1 was paired) is on no
    opponent's record and behind everyone else's number, so removing it changes no one else.
    """
    last = entry.division.entries.order_by("-number").values_list("number", flat=True).first()
    if entry.number != last:
        return False
    played = Game.objects.filter(plays(entry)).exclude(
        player1=entry, player2__isnull=True, explanation="late entry"
    )
    return not played.exists()


def _unpaired(division: Division, what: str, entry: Entry | None = None) -> None:
    """Refuse once a round of the division is paired: numbers are then on cards and sheets."""
    paired = paired_rounds(division)
    if paired:
        raise ServiceError(
            "reg_numbers_fixed", field="entry", division=division.name, round=paired[0], what=what
        )


@transaction.atomic
def move_entry(entry: Entry, to: Division, actor: Actor | str | None = None) -> Entry:
    """Move a player entered in the wrong division to another division of the tournament.

    Only before either division's round 1 is paired (after, the player's games and number are
    on sheets; refused with the reason). The player keeps their seed rating, class and link;
    they become the last number of ``to`` and the numbers behind them close up.
    """
    require(actor, "direct", entry.division.tournament, what=gettext_noop("move players"))
    require(actor, "direct", to.tournament, what=gettext_noop("move players"))
    source = entry.division
    who = f"#{entry.number} {entry.name}"
    if to.tournament_id != source.tournament_id or to.pk == source.pk:
        raise ServiceError(
            "reg_move_where", field="division", name=entry.name, division=source.name
        )
    _unpaired(source, Phrase(gettext_noop("move {who} out of it"), who=who), entry)
    _unpaired(to, Phrase(gettext_noop("move {name} into it"), name=entry.name), entry)
    if to.entries.filter(player_id=entry.player_id).exists():
        raise ServiceError("already_registered", field="name", division=to.name, name=entry.name)
    later = list(
        Entry.objects.select_for_update()
        .filter(division=source, number__gt=entry.number)
        .order_by("number")
    )
    old_number = entry.number
    entry.division = to
    entry.number = to.entries.count() + 1
    entry.save(update_fields=["division", "number"])
    OnlineEntry.objects.filter(entry=entry).update(division=to)  # an online entrant moves too
    for e in later:
        e.number -= 1
        e.save(update_fields=["number"])
    audit(
        source.tournament,
        actor,
        "move_entry",
        entry,
        f"{entry.name} moved from {source.name} #{old_number} to {to.name} #{entry.number}",
        before={"division": source.name, "number": old_number},
        after={"division": to.name, "number": entry.number},
    )
    return entry


@dataclass(frozen=True)
class Renumbering:
    """One player's number before and after renumbering by seed rating."""

    old: int
    new: int
    name: str
    rating: int


def renumber_preview(division: Division) -> list[Renumbering]:
    """What renumbering by seed rating would do: highest rating #1, ties keep their order.

    TSH numbers players by rating; Gibson numbers them as they register, so a director looks
    at this list before round 1 and then applies it (``renumber_by_rating``).
    """
    entries = list(division.entries.select_related("player").order_by("number"))
    ranked = sorted(entries, key=lambda e: (-e.seed_rating, e.number))
    return [Renumbering(e.number, k, e.name, e.seed_rating) for k, e in enumerate(ranked, 1)]


@transaction.atomic
def renumber_by_rating(division: Division, actor: Actor | str | None = None) -> list[Renumbering]:
    """Renumber the division's players by seed rating before round 1 (one audit event).

    Refused once a round is paired. Numbers move in two steps (out of the way, then to their
    place) so the unique (division, number) pair never clashes. Returns the preview applied.
    """
    require(actor, "direct", division.tournament, what=gettext_noop("renumber players"))
    _unpaired(division, Phrase(gettext_noop("renumber its players")))
    list(Entry.objects.select_for_update().filter(division=division))
    plan = renumber_preview(division)
    moves = [p for p in plan if p.old != p.new]
    if moves:
        offset = len(plan) + 1
        for p in moves:
            Entry.objects.filter(division=division, number=p.old).update(number=p.old + offset)
        for p in moves:
            Entry.objects.filter(division=division, number=p.old + offset).update(number=p.new)
    audit(
        division.tournament,
        actor,
        "renumber",
        division,
        f"{division.name}: players renumbered by seed rating ({len(moves)} moved)",
        before={"numbers": [[p.name, p.old] for p in plan]},
        after={"numbers": [[p.name, p.new] for p in plan]},
    )
    return plan
