"""What the players' mails say, in the recipient's language (docs/languages.md).

A mail is written when it is queued (its subject and body are stored on the ``Notice``) and
sent later, so its language is chosen as it is written, never from whoever's request happens
to send it: an entrant's mails follow the language they entered in (``OnlineEntry.language``,
recorded by the entry form); a player with no such record, or a director's mail, gets the
tournament's language. The builders here return text in the active language: their callers
(tournament.services.notices, entry_mail) run them under ``translation.override``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from ..models import Division, Entry, Game, OnlineEntry, Round, Tournament

SUPPORTED = frozenset(code for code, _name in settings.LANGUAGES)


def tournament_language(tournament: Tournament | None) -> str:
    """The tournament's language (its screens' and printouts'), the site's without one."""
    language = getattr(tournament, "language", None) or settings.LANGUAGE_CODE
    return language if language in SUPPORTED else settings.LANGUAGE_CODE


def supported(language: str | None) -> str:
    """``language`` when it is one the site ships ("fr-ca" reads as "fr"), else ""."""
    code = (language or "").lower()
    if code in SUPPORTED:
        return code
    base = code.split("-")[0]
    return base if base in SUPPORTED else ""


def entry_languages(tournament: Tournament, player_ids: Iterable[int]) -> dict[int, str]:
    """Each player's language as they entered ``tournament`` online (one query; the latest
    entry wins); players who never entered online are left out."""
    found: dict[int, str] = {}
    rows = (
        OnlineEntry.objects.filter(tournament=tournament, player_id__in=list(player_ids))
        .exclude(language="")
        .order_by("created", "pk")
        .values_list("player_id", "language")
    )
    for player_id, language in rows:
        if supported(language):
            found[player_id] = supported(language)
    return found


def player_language(tournament: Tournament, player_id: int) -> str:
    """The language of a player's mails about ``tournament``."""
    return entry_languages(tournament, [player_id]).get(player_id, tournament_language(tournament))


def online_language(online: OnlineEntry) -> str:
    """The language of an online entry's own mails: the one it was made in."""
    return supported(online.language) or tournament_language(online.tournament)


# --------------------------------------------------------------------------- notices


def footer(tournament_name: str, url: str) -> str:
    """Every notice's last lines: why it came and how to stop it."""
    why = _("You get this because you asked for e-mail notices of {tournament}.").format(
        tournament=tournament_name
    )
    return "\n\n--\n" + why + "\n" + _("To stop them: {url}").format(url=url) + "\n"


def where(tournament: Tournament, division: Division) -> str:
    return _("{tournament}, division {division}").format(
        tournament=tournament.name, division=division.name
    )


def entry_confirmed(tournament: Tournament, division: Division) -> tuple[str, str]:
    place = where(tournament, division)
    return (
        _("Entry confirmed: {where}").format(where=place),
        _("Your entry to {where} is confirmed.").format(where=place),
    )


def waiting(tournament: Tournament, division: Division, position: int) -> tuple[str, str]:
    place = where(tournament, division)
    text = _(
        "Division {division} of {tournament} is full: you are number {position} on its "
        "waiting list.\nWhen an entrant withdraws before play, the first on the list moves "
        "into the division, and you will get an e-mail when it is you."
    )
    return (
        _("Waiting list, number {position}: {where}").format(position=position, where=place),
        text.format(division=division.name, tournament=tournament.name, position=position),
    )


def promoted(tournament: Tournament, division: Division) -> tuple[str, str]:
    text = _(
        "A place opened in division {division} of {tournament}: you are off the waiting "
        "list and entered."
    )
    return (
        _("You are in: {where}").format(where=where(tournament, division)),
        text.format(division=division.name, tournament=tournament.name),
    )


def board_name(division: Division, board: int) -> str:
    """The board as players read it (``Division.board_name``, in the mail's language)."""
    if division.shares_board_numbers:
        # Translators: the table a game is played at, named with its division
        return pgettext("table", "division {division}, board {board}").format(
            division=division.name, board=board
        )
    # Translators: the table a game is played at
    return pgettext("table", "board {board}").format(board=board)


def _rating(entry: Entry) -> str:
    return str(entry.seed_rating) if entry.seed_rating else _("unrated")


def pairing(rnd: Round, entry: Entry, game: Game | None) -> tuple[str, str] | None:
    """(key, line) of what the player's pairing in ``rnd`` is now; None when they have
    nothing to be told (a withdrawn player's forfeit). The key is the same in every
    language: it says whether a later pairing is news."""
    n = rnd.number
    if game is None:
        text = _("Round {round}: you are not paired at the moment; wait for the pairing.")
        return "unpaired", text.format(round=n)
    if game.player2_id is None:
        if game.explanation == "withdrawn":
            return None
        if (game.score1 or 0) > 0:
            return "bye", _("Round {round}: you have a bye (+{score}).").format(
                round=n, score=game.score1
            )
        return "none", _("Round {round}: you have no game this round ({score}).").format(
            round=n, score=game.score1 or 0
        )
    me_first = game.player1_id == entry.pk
    opponent = game.player2 if me_first else game.player1
    assert opponent is not None
    # "division A, board 3" when the tournament has more divisions: each numbers from 1
    board = board_name(rnd.division, game.board) if game.board else _("board to be announced")
    if game.first_settled:
        goes = "first" if game.first_entry.pk == entry.pk else "second"
        start = _("you go first") if goes == "first" else _("you go second")
    else:
        goes = "draw"
        start = _("who goes first is drawn at the board")
    key = f"{game.board or '-'}|{opponent.pk}|{goes}"
    line = _("Round {round}: {board}, against {opponent} ({rating}), {start}.").format(
        round=n, board=board, opponent=opponent.name, rating=_rating(opponent), start=start
    )
    return key, line


def pairing_mail(
    rnd: Round, game: Game | None, line: str, *, corrected: bool, page: str
) -> tuple[str, str]:
    """(subject, body) of a pairing notice; ``page`` the player's public page or ""."""
    division, tournament = rnd.division, rnd.division.tournament
    if corrected:
        subject = _("Corrected: Round {round}, {tournament}")
    else:
        subject = _("Round {round}, {tournament}")
    subject = subject.format(round=rnd.number, tournament=tournament.name)
    if game is not None and game.board and game.player2_id:
        # Translators: a pairing notice's subject, then the player's board
        subject = _("{subject}: {board}").format(
            subject=subject, board=board_name(division, game.board)
        )
    text = (_("Corrected pairing.") + " " if corrected else "") + line
    if page:
        text += "\n" + _("Your page: {url}").format(url=page)
    return subject, where(tournament, division) + "\n" + text


def _record(wins: float, losses: float) -> str:
    def half(x: float) -> str:
        return str(int(x)) if float(x).is_integer() else f"{x:.1f}"

    return f"{half(wins)}-{half(losses)}"


def result_line(division: Division, row: Any, ranked: int, standings: str) -> str:
    """One division's line of the final results mail."""
    if row.rank:
        place = _("place {rank} of {ranked}").format(rank=row.rank, ranked=ranked)
    else:
        place = _("withdrawn")
    line = _("Division {division}: {place}, {record}, spread {spread}.").format(
        division=division.name,
        place=place,
        record=_record(row.wins, row.losses),
        spread=f"{row.spread:+d}",
    )
    return line + "\n" + _("Standings: {url}").format(url=standings)


def final_results(tournament: Tournament, lines: list[str]) -> tuple[str, str]:
    text = _("The final results of {tournament}:").format(tournament=tournament.name)
    return (
        _("Final results: {tournament}").format(tournament=tournament.name),
        text + "\n\n" + "\n\n".join(lines),
    )


def entrant_language() -> str:
    """The language an entry is being made in (the request's, which the entry form's page
    activated): recorded on the online entry so its mails follow it."""
    return supported(translation.get_language())
