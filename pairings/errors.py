"""The pairing shell's refusal codes: storing a round's pairings, pairing a round, changing it.

Registered into ``tournament.errors.CODES`` (the one registry the faces, the tests and the
manual's refusals page read) when Django loads the pairings app (``pairings.apps``); raised as
``ServiceError(code, ...)`` by ``pairings.services`` and the faces that check a pairing first.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournament.errors import register_codes

# code -> neutral message template (str.format with the error's params), grouped as the
# refusals page (docs/refusals.md) shows them
CODES: dict[str, str] = {
    # stored pairings (pairings.services.store)
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "self_pairing": _("{where}: #{number} cannot play against themselves"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "player_has_result": _("{where}: #{number} {name} already has a result this round"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "player_already_paired": _(
        "{where}: #{number} {name} is already paired this round; replace the pairing to re-pair"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_refused": _("{where}: pairing refused by the database: {detail}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "round_has_results": _("{where} already has results; it cannot be re-paired"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "round_already_paired": _("{where} is already paired"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_changes_scored_game": _(
        "{where}: board {board} (#{player1} v #{player2}) is "
        "scored; a change to the round keeps every scored game with the same two players "
        "(correct or clear the result first)"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "player_paired_twice": _("{where}: player #{number} is paired twice"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "no_pairings": _("{where} has no pairings to delete"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "results_block_unpairing": _(
        "{where} already has results; correct them instead of deleting its pairings"
    ),
    "unknown_pairing_options": _(
        "division {division} schedule {schedule}: unknown pairing options {names}"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "earlier_round_unpaired": _("{where}: round {round} has not been paired yet"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "round_beyond_division": _(
        "{where}: the division has {rounds} rounds; raise its number "
        "of rounds in the division's settings to pair more"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "earlier_round_incomplete": _(
        "{where}: round {round} is incomplete ({missing} games without "
        "a result); enter its results first{hint}"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "no_system_scheduled": _(
        "{where}: no pairing system scheduled for this round; choose one "
        "({systems}) or add a schedule range"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "unknown_system": _("{where}: unknown pairing system {system!r}; use one of {systems}"),
    "pairing_impossible": "{where}: {detail}",
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "repair_changed": _(
        "{where} would now be re-paired differently from the preview you "
        "confirmed (a result or a change came in meanwhile): nothing was changed; look at the "
        "changes again"
    ),
    "pairing_options_invalid": "{where}: {detail}",
    # pairing a round and changing it (pairings.services.rounds)
    "pairing_round_number": _("round {round!r} must be a whole number from 1 to {maximum}"),
    "pairing_has_results": _(
        "division {division} round {round} already has results; it cannot be paired again"
    ),
    "pairing_already_paired": _(
        "division {division} round {round} is already paired; unpair it to pair it again"
    ),
    "pairing_later_paired": _(
        "division {division} round {round}: round {later} is paired "
        "after it; unpair round {later} first"
    ),
    "pairing_malformed": _(
        "the pairing sent is not readable ({detail}); start again from the engine's proposal"
    ),
    "pairing_unknown_player": _(
        "division {division} round {round}: there is no player number {number}"
    ),
    "pairing_withdrawn": _(
        "division {division} round {round}: #{number} {name} has withdrawn and cannot be paired"
    ),
    "pairing_twice": _("division {division} round {round}: #{number} is paired twice"),
    "pairing_self": _(
        "division {division} round {round}: #{number} cannot play against themselves"
    ),
    "pairing_missing": _("division {division} round {round}: not paired: {numbers}"),
    "pairing_byes": _(
        "division {division} round {round}: {byes} byes for {players} active "
        "players; there must be {expected}"
    ),
    "pairing_not_in_round": _("#{number} is not a player of this round"),
    "pairing_same_player": _("choose two different players"),
    "pairing_same_game": _(
        "#{a} and #{b} already play each other; swap players of two different games"
    ),
    "pairing_pin_exists": _("#{a} and #{b} already play each other"),
    "pairing_both_alone": _(
        "#{a} and #{b} both play nobody this round (a bye, a missed round); "
        "swapping them changes nothing but their records: pair them with each other instead"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_has_bye": _("{where}: #{number} already has the bye"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_no_bye": _("{where}: #{number} has no bye to remove"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_bye_no_opponent": _(
        "{where}: nobody else is without a game, so #{number} keeps "
        "the bye (an odd field needs one)"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_bye_choose": _("{where}: say who #{number} plays instead of the bye: {numbers}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "pairing_opponent_not_free": _(
        "{where}: #{number} already has a game this round; choose a "
        "player with a bye or without a game"
    ),
}

register_codes(__name__, CODES)
