"""The pairing shell's refusal codes: storing a round's pairings, pairing a round, changing it.

Registered into ``tournament.errors.CODES`` (the one registry the faces, the tests and the
manual's refusals page read) when Django loads the pairings app (``pairings.apps``); raised as
``ServiceError(code, ...)`` by ``pairings.services`` and the faces that check a pairing first.
"""

from __future__ import annotations

from tournament.errors import register_codes

# code -> neutral message template (str.format with the error's params), grouped as the
# refusals page (docs/refusals.md) shows them
CODES: dict[str, str] = {
    # stored pairings (pairings.services.store)
    "self_pairing": "{where}: #{number} cannot play against themselves",
    "player_has_result": "{where}: #{number} {name} already has a result this round",
    "player_already_paired": "{where}: #{number} {name} is already paired this round; "
    "replace the pairing to re-pair",
    "pairing_refused": "{where}: pairing refused by the database: {detail}",
    "round_has_results": "{where} already has results; it cannot be re-paired",
    "round_already_paired": "{where} is already paired",
    "pairing_changes_scored_game": "{where}: board {board} (#{player1} v #{player2}) is "
    "scored; a change to the round keeps every scored game with the same two players "
    "(correct or clear the result first)",
    "player_paired_twice": "{where}: player #{number} is paired twice",
    "no_pairings": "{where} has no pairings to delete",
    "results_block_unpairing": "{where} already has results; correct them instead of "
    "deleting its pairings",
    "unknown_pairing_options": "division {division} schedule {schedule}: unknown pairing "
    "options {names}",
    "earlier_round_unpaired": "{where}: round {round} has not been paired yet",
    "round_beyond_division": "{where}: the division has {rounds} rounds; raise its number "
    "of rounds in the division's settings to pair more",
    "earlier_round_incomplete": "{where}: round {round} is incomplete ({missing} games without "
    "a result); enter its results first{hint}",
    "no_system_scheduled": "{where}: no pairing system scheduled for this round; choose one "
    "({systems}) or add a schedule range",
    "unknown_system": "{where}: unknown pairing system {system!r}; use one of {systems}",
    "pairing_impossible": "{where}: {detail}",
    "repair_changed": "{where} would now be re-paired differently from the preview you "
    "confirmed (a result or a change came in meanwhile): nothing was changed; look at the "
    "changes again",
    "pairing_options_invalid": "{where}: {detail}",
    # pairing a round and changing it (pairings.services.rounds)
    "pairing_round_number": "round {round!r} must be a whole number from 1 to {maximum}",
    "pairing_has_results": "division {division} round {round} already has results; "
    "it cannot be paired again",
    "pairing_already_paired": "division {division} round {round} is already paired; "
    "unpair it to pair it again",
    "pairing_later_paired": "division {division} round {round}: round {later} is paired "
    "after it; unpair round {later} first",
    "pairing_malformed": "the pairing sent is not readable ({detail}); start again from the "
    "engine's proposal",
    "pairing_unknown_player": "division {division} round {round}: there is no player "
    "number {number}",
    "pairing_withdrawn": "division {division} round {round}: #{number} {name} has withdrawn "
    "and cannot be paired",
    "pairing_twice": "division {division} round {round}: #{number} is paired twice",
    "pairing_self": "division {division} round {round}: #{number} cannot play against themselves",
    "pairing_missing": "division {division} round {round}: not paired: {numbers}",
    "pairing_byes": "division {division} round {round}: {byes} byes for {players} active "
    "players; there must be {expected}",
    "pairing_not_in_round": "#{number} is not a player of this round",
    "pairing_same_player": "choose two different players",
    "pairing_same_game": "#{a} and #{b} already play each other; swap players of two "
    "different games",
    "pairing_pin_exists": "#{a} and #{b} already play each other",
    "pairing_both_alone": "#{a} and #{b} both play nobody this round (a bye, a missed round); "
    "swapping them changes nothing but their records: pair them with each other instead",
    "pairing_has_bye": "{where}: #{number} already has the bye",
    "pairing_no_bye": "{where}: #{number} has no bye to remove",
    "pairing_bye_no_opponent": "{where}: nobody else is without a game, so #{number} keeps "
    "the bye (an odd field needs one)",
    "pairing_bye_choose": "{where}: say who #{number} plays instead of the bye: {numbers}",
    "pairing_opponent_not_free": "{where}: #{number} already has a game this round; choose a "
    "player with a bye or without a game",
}

register_codes(__name__, CODES)
