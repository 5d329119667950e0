"""Refusals: every service error carries a code, the field it concerns and its parameters.

Each interface words a code for its user: the command line may say "use --force", a web page
offers a button instead, the API returns the code itself. The default wording here is neutral
(no command-line flags, no page furniture) so an interface that has no wording of its own can
still show it.

``CODES`` is the one registry of codes every face, test and the manual's refusals page read.
Each message is a lazy translation (``gettext_lazy``): a refusal is worded in the language
active when it is read, so a page shows it in its reader's language while the command line,
the manual's refusals page and the API's default stay English. The ``{names}`` are filled the
same in every language; words a caller builds for them stay English unless made a
:class:`Phrase` (``require``'s ``what`` and the roles that may are; many a ``where`` is not).
This module's literal holds the event core's codes; each other domain owns its codes in its
own ``errors`` module (``pairings/errors.py``, ``tournament/clubs/errors.py``), which adds
them with ``register_codes`` when Django loads its app, so they are all there before any
request, command or task runs.
"""

from __future__ import annotations

from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

# code -> neutral message template (str.format with the error's params), translated lazily;
# a template that is only a placeholder ("{reason}") is the caller's own words, not marked.
CODES: dict[str, str | Promise] = {
    # refusals whose words come from elsewhere (a rating engine, a model's own validation)
    "rating_refused": "{reason}",
    "model_rule": "{rule}",
    # Translators: {what}: English words the program gives, naming a field or an action
    "not_a_date": _("{what}: {value!r} is not a date (YYYY-MM-DD)"),
    # results
    "bad_line": "{message}",
    "not_paired": _("round {round}: #{number} {name} is not paired in this round"),
    "not_opponents": _("round {round}: #{number} {name} plays {actual}, not #{opponent}"),
    "unknown_board": _("round {round}: there is no board {board} (boards: {boards})"),
    # Translators: {what}: "bye" or "forfeit" (English)
    "not_a_game": _("round {round}: #{number} {name} has a {what} this round, not a game to score"),
    "round_not_paired": _("division {division}: round {round} is not paired"),
    "already_recorded": _(
        "the game #{player1} v #{player2} already has a result "
        "({score1}-{score2}); correct it with a reason"
    ),
    "forfeit_spread_zero": _(
        "the tournament's forfeit spread is 0, so a forfeit would count for "
        "nobody; set the forfeit spread first"
    ),
    "card_needs_scores": _(
        "a double-entry card needs both scores; a forfeit is recorded by a "
        "director with double entry off"
    ),
    "no_dispute": _("the game #{player1} v #{player2} has no disputed cards"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "result_changed_meanwhile": _(
        "{where}: the game #{number} {name} v #{opponent} {opponent_name} "
        "changed since you looked: it now holds {stored} (you saw {seen}); nothing was changed: "
        "check the game and correct it again"
    ),
    "pairing_changed": _(
        "round {round}: the pairing of #{player1} changed while the result "
        "was being entered; look at the round again"
    ),
    # core: numbers, scores and lookups every write shares
    # Translators: {what}: English words the program gives, naming a field or an action
    "not_a_number": _("{what}: {value!r} is not a whole number"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "below_minimum": _("{what} must be at least {minimum}, not {value}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    # Translators: {who}: "score" or "opponent's score" (English)
    "score_out_of_range": _(
        "{where}: {who} {value} is outside 0..{maximum}; negative scores "
        "are only for byes, forfeits and penalties"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "bye_score_out_of_range": _("{where}: bye/forfeit score {value} is outside +-{maximum}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "unknown_player": _("{where}: there is no player number {number} (players are 1..{count})"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "player_withdrawn": _("{where}: #{number} {name} withdrew from round {round}"),
    # core: results
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "player_not_paired": _("{where}: #{number} {name} is not paired in this round"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "bye_already_recorded": _(
        "{where}: #{number}'s bye/forfeit is already recorded ({score}); correct it instead"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "both_scores_needed": _("{where}: a played game needs both scores"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "reason_needed": _("{where}: a correction needs a reason"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "no_result_to_correct": _("{where}: #{number} has no result yet to correct; record it first"),
    # Translators: {state}: an internal state name (English)
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "unknown_result_state": _(
        "{where}: {state!r} is not a result state (scores, forfeit, double_forfeit or clear)"
    ),
    # core: players, tournaments and divisions
    # Translators: {what}: English words the program gives, naming a field or an action
    "empty_name": _("{what} must not be empty"),
    "entry_needs_player": _("division {division}: a new entry needs a player or a name"),
    "already_registered": _("division {division}: {name} is already registered"),
    "reg_in_other_division": _(
        "{name} is already entered in division {other} (#{number}), not "
        "entered again in {division}: move them to {division} instead (possible before round 1)"
    ),
    "reg_same_name_in_event": _(
        "{name} is like {others}, already entered in this tournament: "
        "pick that player to enter or move them, or say {name} is a different person with the "
        "same name and give a note that tells them apart (a town, Jr., a club)"
    ),
    "reg_after_last_round": _(
        "division {division}: its last round ({rounds}) is paired; no "
        "player is entered after the last round"
    ),
    # Translators: {what}: English words the program gives, naming a field or an action
    "reg_numbers_fixed": _(
        "division {division}: round {round} is paired, so player numbers are "
        "on the cards and sheets; cannot {what}"
    ),
    "reg_move_where": _(
        "{name}: choose another division of this tournament to move them to "
        "(they are in {division})"
    ),
    "withdraw_after_result": _(
        "withdraw {name} from round {from_round}: round {round} already "
        "has a result for this player; correct or remove it first"
    ),
    "unknown_realm": _("realm {realm!r}: unknown; choose one of {choices}"),
    "unknown_setting": _("tournament: unknown setting(s) {names}"),
    "tournament_slug_taken": _("tournament slug {slug!r} is already taken"),
    "division_exists": _("{tournament}: division {name!r} already exists"),
    "bad_slug": _("division slug {slug!r}: use lower-case letters, digits and single hyphens"),
    "division_slug_taken": _("{tournament}: a division already has the slug {slug!r}"),
    "division_required": _("{tournament} has {count} divisions; name one ({names})"),
    "unknown_division": _("{tournament}: no division {name!r}; it has {names}"),
    "chances_hidden": _("division {division}: the director has hidden prize chances"),
    "unknown_tournament": _("there is no tournament {slug!r}"),
    "division_has_no_players": _("division {division} has no players"),
    # core: files in and out (import, export)
    "cannot_read": _("{path}: cannot read ({reason})"),
    "cannot_write": _("{path}: cannot write ({reason})"),
    "cannot_create_folder": _("{path}: cannot create the folder ({reason})"),
    "is_a_folder": _("{path}: is a folder; give a file name to write"),
    "no_such_folder": _("{path}: the folder {folder} does not exist"),
    "invalid_file": "{detail}",
    "invalid_argument": "{detail}",
    "database_not_set_up": _("the database is not set up ({detail})"),
    "empty_file": _(
        "{path}: the file is empty (expected a .t division file, a config.tsh or an "
        "all.tsh archive)"
    ),
    # Translators: {kind}: an English word for a file's kind
    "not_a_division_file": _(
        "{file} is a TSH {kind}, not a .t division file; a separate config "
        "goes with a single .t file only"
    ),
    "missing_division_file": _("{source}: division {division} names {file}, which does not exist"),
    "archive_missing_file": _(
        "{source}: division {division} names {file}, which the archive does not contain"
    ),
    "no_divisions_found": _("{file}: no divisions found"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "empty_division": _(
        "{where}: division {division} has no player lines; an empty division "
        "cannot be imported (add its players first)"
    ),
    "config_names_no_file": _("{config}: no division names the file {file}"),
    "rounds_below_file": _(
        "{rounds} rounds are too few: {file} line {line} (#{number} {name}) "
        "is already paired in round {round}; division {division} needs {need} rounds or more"
    ),
    "duplicate_player": _("{source} line {line}: {name} appears twice in division {division}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "one_sided_score": _("{where}: only #{number} {name} has a score for this game"),
    "nothing_to_export": _("{tournament}: the tournament has no divisions to export"),
    "unknown_format": _("unknown export format {format!r}: choose one of {choices}"),
    "event_date_needed": _(
        "{tournament}: a .TOU file needs the event date; the tournament has no start date"
    ),
    "division_too_small": _(
        "{tournament}: NASPA refuses divisions under {minimum} players: {names}"
    ),
    # Translators: {what}: English words the program gives, naming a field or an action
    "name_semicolon": _(
        "{what} {name!r} contains ';', which starts the next part of a TSH .t "
        "line, so the name could not be written to the event's files: leave it out"
    ),
    # Translators: {what}: English words the program gives, naming a field or an action
    "class_one_word": _(
        "{what} {value!r}: a class is one word (TSH files write it as one), without spaces or ';'"
    ),
    "export_name_semicolon": _(
        "{tournament}: #{number} {name} in division {division} has ';' in "
        "the name, which a TSH .t file cannot carry; correct the name (the registry's edit) and "
        "export again"
    ),
    "export_unwritable": _("{tournament}, division {division}: {detail}"),
    # the round clock and the announcement (services.clock)
    # Translators: {state}: an internal state name (English)
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "clock_already_started": _(
        "{where}: the clock is already started ({state}); reset it to start it again"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "clock_not_started": _("{where}: the clock has not been started"),
    # Translators: {state}: an internal state name (English)
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "clock_not_running": _("{where}: the clock is not running ({state}), so it cannot be paused"),
    # Translators: {state}: an internal state name (English)
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "clock_not_paused": _(
        "{where}: the clock is not paused ({state}), so there is nothing to resume"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "clock_over": _(
        "{where}: time is up, so there is nothing to pause; extend the clock to give more time"
    ),
    "clock_unknown_action": _("{action!r} is not a clock action; use one of {actions}"),
    "announcement_empty": _("give the announcement's text (to take it down, clear it)"),
    "announcement_until_bad": _("{value!r} is not a time: give HH:MM (today) or YYYY-MM-DD HH:MM"),
    "announcement_until_past": _("the announcement's end, {until}, has already passed"),
    "no_announcement": _("{tournament} has no announcement to clear"),
    # e-mail notices (services.notices)
    "notice_email_needed": _("give an e-mail address for {name}'s notices"),
    "notice_bad_email": _("{value!r} is not an e-mail address"),
    "notice_no_email": _(
        "{name} has no e-mail address in the registry: add it to the player first"
    ),
    "notice_unknown_player": _("{tournament} has no entrant {value!r} to add to the notices"),
    "notice_unknown_subscriber": _("{tournament} has no subscriber {value!r}"),
    "notice_unknown_link": _("this unsubscribe link is not one of ours (it may be cut short)"),
    "notice_bad_position": _(
        "the waiting-list position must be a whole number from 1, not {value!r}"
    ),
    "notices_no_subscribers": _("{tournament} has nobody subscribed to its notices"),
    "final_results_not_final": _(
        "division {division} is scored through round {scored} of "
        "{rounds}: its final results are not in yet"
    ),
    "final_results_already_sent": _(
        "the final results were already e-mailed on {when} ({count} "
        "e-mails); to send them again, confirm sending again"
    ),
    # the events calendar (selectors.calendar) and its contact form (services.calendar)
    "calendar_bad_filter": "{name}: {problem}",
    # the what-if rating calculator (ratings.division.what_if)
    "what_if_bad": _("what if: {problem}"),
    "contact_name_needed": _("give your name, so the directors know who wrote"),
    "contact_email_needed": _("give your e-mail address, so the directors can answer"),
    "contact_message_needed": _("write your message to the directors"),
    "contact_message_too_long": _("the message is {value} characters long; at most {maximum}"),
    "contact_no_directors": _(
        "{tournament}'s directors have no e-mail address to write to; "
        "ask the organisers another way"
    ),
    # concurrency
    "database_busy": _(
        "the database is busy with another change (an import or a re-rate); "
        "nothing was saved: try again in a moment"
    ),
    "disk_full": _(
        "the server's disk is full, so nothing was saved: tell the director (or "
        "whoever runs the server) to free space, then try again"
    ),
    # self-entry
    "selfentry_unknown_token": _("this link is not valid"),
    "selfentry_no_token": _("#{number} {name} has no self-entry link to revoke"),
    "selfentry_too_many": _(
        "too many reports from this link or for this game: at most "
        "{per_minute} a minute; wait a minute and send it again, or ask the director"
    ),
    "selfentry_too_many_requests": _(
        "too many requests from this link: at most {per_minute} a "
        "minute, pages and reports together; wait {seconds} seconds and open your scorecard's link "
        "again"
    ),
    "selfentry_nothing_to_report": _("every game of yours paired so far has its result"),
    "selfentry_round_not_current": _(
        "round {round} is not the round to report now (the current round is {current})"
    ),
    "selfentry_game_recorded": _(
        "round {round}: your game against #{number} {name} already "
        "has its result, {score}-{opp_score} (your score first); ask a director if it is wrong"
    ),
    "selfentry_disputed": _(
        "round {round}: your report and #{number} {name}'s disagree; a director settles the game"
    ),
    "selfentry_report_gone": _(
        "that report is no longer waiting for an answer (it was changed, "
        "settled or recorded); look at your page again"
    ),
    # registration
    "reg_name_required": _("give the player's name"),
    "reg_name_too_long": _("a player's name is at most {max} characters, not {length}"),
    "reg_seed_rating": _(
        "{player}: seed rating {value!r} must be a whole number from 0 (unrated) to {max}"
    ),
    "reg_class_too_long": _("{player}: class {value!r} is longer than {max} characters"),
    "reg_nothing_to_change": _("{player}: give a new seed rating, class or NASPA id to change"),
    "reg_naspa_id_held": (
        _(
            "{player} already has NASPA id {naspa_id} in the registry: only the registry's keepers "
            "change or clear it (ask one, or correct it in the admin)"
        )
    ),
    "reg_not_withdrawn": _("#{number} {player} is not withdrawn, so there is nothing to reinstate"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "reg_round_number": _("{what}: round {value!r} must be a whole number from 1 up"),
    "reg_reinstate_paired": _(
        "round {round} of division {division} is already paired; "
        "delete its pairings first, then reinstate {player} from it"
    ),
    "reg_reinstate_not_next": _(
        "round {next} of division {division} is the next round to pair: "
        "reinstate {player} from round {next} (returning later would leave round {next} "
        "with no record)"
    ),
    "reg_remove_paired": _(
        "round {round} of division {division} is already paired, so "
        "#{number} {player} can only be withdrawn, not removed (player numbers stay as printed); "
        "only the last number with no game played yet can still be removed"
    ),
    "reg_list_empty": _("the list has no players: give one 'Name rating' a line"),
    "reg_list_line": _("line {line}: {problem}"),
    # entries online, waiting lists and check-in (services.online_entries, services.checkin)
    "entries_draft": _("{tournament} is a draft: publish it before opening entries"),
    "entries_window_order": _(
        "entries must close after they open, not at {closes} (they open at {opens})"
    ),
    "entries_band_order": _(
        "division {division}: the rating band's minimum {minimum} is above its maximum {maximum}"
    ),
    "entries_not_open": _("{tournament} takes no entries online"),
    "entries_not_yet": _("entries to {tournament} open at {opens}"),
    "entries_closed": _("entries to {tournament} are closed (since {closed})"),
    "entries_no_division": _("division {division} takes no entries online"),
    "entries_division_started": _(
        "division {division} has started (round 1 is paired): ask a director to enter you"
    ),
    "entries_band": _(
        "{rated} is outside division {division}'s band ({band}); divisions that fit: {fits}"
    ),
    # Translators: {status}: a status as the program names it (a status label)
    "entries_already": _("{name} has already entered {tournament} (division {division}: {status})"),
    "entries_email": _("{value!r} is not an e-mail address"),
    "entries_email_needed": _(
        "give your e-mail address: the link that confirms your entry is mailed to it"
    ),
    "entries_name_ambiguous": _(
        "the registry has players named like {name!r} ({players}): "
        "choose yourself from the list; if you are none of them, ask the director to enter you"
    ),
    "entries_unknown_player": _("there is no player {player_id} in the registry"),
    "entries_link_bad": _("this link is not valid: copy the whole link from the e-mail"),
    "entries_play_started": _(
        "round 1 of division {division} is already paired: ask a director to withdraw you"
    ),
    # Translators: {status}: a status as the program names it (a status label)
    # Translators: {what}: English words the program gives, naming a field or an action
    "entries_state": _("{name}'s entry is {status}: it cannot be {what}"),
    "entries_unknown_entry": _("{tournament} has no online entry {value}"),
    "entries_pending_many": _(
        "{name} already has {count} entries to {tournament} awaiting their "
        "confirmation: the player confirms one of those, or asks the director to enter them"
    ),
    "checkin_withdrawn": _("#{number} {name} has withdrawn from division {division}"),
    "checkin_round_paired": _(
        "round 1 of division {division} is already paired: players who "
        "did not check in are withdrawn, not removed"
    ),
    "checkin_nobody": _(
        "nobody in division {division} has checked in yet: removing everyone else would empty it"
    ),
    "checkin_all_here": _("every player of division {division} has checked in: nobody to remove"),
    # setup
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_required": _("{what} must not be empty"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_unknown_setting": _("{what}: unknown setting(s) {names}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_choice": _("{what} {value!r} is unknown; choose one of {choices}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_not_number": _("{what}: {value!r} is not a whole number"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_too_small": _("{what} must be at least {minimum}, not {value}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_too_large": _("{what} must be at most {maximum}, not {value}"),
    "setup_ends_before_start": _("the end date {end} is before the start date {start}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "setup_name_taken": _("{what} {value!r} is already used in this tournament"),
    "setup_bad_slug": _("{value!r}: use lower-case letters, digits and single hyphens"),
    "setup_reserved_slug": _("{value!r} is the name of a console page; choose another"),
    "setup_rounds_paired": _(
        "division {division} is already paired up to round {paired}; "
        "its rounds cannot go below that"
    ),
    "setup_range_overlap": _("rounds {first}-{last} overlap the schedule range {other}"),
    "setup_range_beyond": _("round {last} is beyond the {rounds} rounds of division {division}"),
    "setup_no_player": _("division {division} has no player number {number}"),
    "setup_pair_same": _("a player cannot be kept apart from themself"),
    "setup_pair_exists": _("#{a} and #{b} are already kept apart"),
    "upload_too_large": _(
        "the upload is {size} bytes; uploads are limited to {limit_mb} MB in "
        "all (GIBSON_MAX_UPLOAD_MB): nothing was read"
    ),
    "import_too_large": _(
        "{file}: the files of this import are {size} bytes; an import is "
        "limited to {limit_mb} MB in all (GIBSON_MAX_UPLOAD_MB): nothing was read"
    ),
    "import_too_many_divisions": _(
        "{file}: {count} divisions; an import takes at most {limit} (GIBSON_MAX_IMPORT_DIVISIONS)"
    ),
    "import_too_many_players": _(
        "{file}: {count} players; an import takes at most {limit} (GIBSON_MAX_IMPORT_PLAYERS)"
    ),
    "import_too_many_rounds": _(
        "{file} line {line}: {count} rounds; a division has at most "
        "{limit} rounds (the console's cap)"
    ),
    "import_too_many_player_rounds": _(
        "{file}: {count} player-rounds (each player's rounds, "
        "added up); an import takes at most {limit} (GIBSON_MAX_IMPORT_PLAYER_ROUNDS)"
    ),
    "setup_upload_refused": "{detail}",
    # staff
    # Translators: {role}: an internal role name (English)
    "staff_role": _("role {role!r} is unknown; choose director or scorekeeper"),
    "staff_username": "{detail}",
    "staff_username_taken": _("the username {username!r} is already taken"),
    "staff_password": "{detail}",
    "staff_password_mismatch": _("the two passwords differ"),
    "staff_email": _("{value!r} is not an email address"),
    "account_email_taken": _("the email address {value!r} already belongs to an account"),
    "sign_up_link_bad": _(
        "this confirmation link is not valid: copy the whole link from the e-mail"
    ),
    "sign_up_link_expired": _("this confirmation link has expired: sign up again"),
    "sign_up_link_used": _("this confirmation link is already used: sign in with your username"),
    "club_founding_closed": _(
        "on this site a new club is founded by a site administrator: "
        "ask one to found it and add you as its organiser"
    ),
    "staff_night_director": _(
        "a club night is directed by its club's organisers: add a "
        "scorekeeper here, or an organiser on the club's page"
    ),
    "staff_invite_gone": _(
        "that sign-up link is already used, turned off or not this tournament's"
    ),
    "staff_invite_invalid": _("this link is not valid"),
    "organiser_invite_invalid": _(
        "this invitation link is not valid: it was used, turned off or "
        "has expired; ask one of the club's organisers for a new one"
    ),
    "organiser_invite_gone": _("that invitation link is already used or turned off"),
    # Translators: {role}: an internal role name (English)
    "staff_not_member": _("{user} is not a {role} of this tournament"),
    "staff_last_director": _("{user} is the last director; add another director first"),
    # admin and registry
    # Translators: {what}: English words the program gives, naming a field or an action
    "actor_required": _("{what}: say who is acting (a signed-in user or a command)"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "registry_permission": _(
        "changing {what} of an existing player is the registry's job: "
        "it needs the permission to manage the registry"
    ),
    "registry_name_required": _("give the player's name"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "registry_too_long": _("{what} is at most {maximum} characters, not {length}"),
    "registry_bad_email": _("{value!r} is not an email address"),
    "registry_unknown_field": _("player: {names} cannot be changed here (change: {allowed})"),
    "registry_nothing_to_change": _("{player}: nothing to change"),
    "registry_id_taken": _("{label} {value!r} already belongs to {other}"),
    "registry_merge_same": _("a player cannot be merged with themself"),
    "registry_merge_same_division": _(
        "{keep} and {duplicate} both play in division {division} "
        "of {tournament}; remove one entry before merging"
    ),
    "registry_merge_both_online": _(
        "{keep} and {duplicate} both have an entry online to "
        "{tournament}; refuse or withdraw one before merging"
    ),
    "registry_merge_same_game": _(
        "{keep} and {duplicate} play each other in division {division}; they cannot be one player"
    ),
    "registry_merge_ids_differ": _(
        "{keep} and {duplicate} have different {label}s ({a} and {b}); they are not the same person"
    ),
    "entry_numbers_out_of_sequence": _(
        "division {division}: player numbers are not 1..{count} "
        "(the highest is {highest}); renumber them before adding a player"
    ),
    "rating_officer_required": _(
        "{user} is not an officer of the rating list {list}: request "
        "the submission and an officer of the list decides"
    ),
    "not_a_director": _("{user} does not direct {tournament}"),
    # who may do what (tournament.access.require): a signed-in user without the role
    # Translators: {what}: an action, translated on its own to follow "may not" ("pair rounds")
    # Translators: {who}: the roles that may, translated on their own ("its directors")
    # Translators: {where}: a tournament's, club's or list's name, or "this tournament"
    # Translators: {user}: an account's name, or "an anonymous visitor"
    "not_allowed": _("{user} may not {what} in {where}: only {who} may"),
    "unknown_account": _("there is no active account {username!r}"),
    "submission_already_requested": _("division {division} already awaits an officer of {list}"),
    # Translators: {status}: a status as the program names it (a status label)
    "submission_not_pending": _("this request is already {status}"),
    "submission_no_list": _("division {division} has no rating list: choose one first"),
    "submission_no_date": _("tournament {tournament} has no start date: give the event date"),
    "submission_no_games": _("division {division}: no scored games to rate"),
    "correction_reason_required": _("give the reason for the correction"),
    # limits: what any database can store, the same refusal on SQLite and PostgreSQL
    # Translators: {what}: English words the program gives, naming a field or an action
    "number_too_large": _("{what}: {value} is out of range ({minimum}..{maximum})"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "non_ascii_digits": _("{what}: {value!r} uses digits other than 0-9; type it with 0-9"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "text_too_long": _("{what} is at most {maximum} characters, not {length}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "bidi_control": _(
        "{what} contains an invisible direction control ({code_point}), which "
        "can make it display as something else; type it without"
    ),
    # Translators: {what}: English words the program gives, naming a field or an action
    "nul_character": _("{what} contains a NUL character (\\0), which cannot be stored"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "bad_file_name": _(
        "{what} {value!r}: a division file name is a plain name of letters, "
        "digits, '.', '_' and '-' ending in .t (no folders, not starting with a dot)"
    ),
    "unsafe_folder": _("{path}: {reason}; choose a folder of your own"),
    "setting_out_of_range": _(
        "{source}: setting {key} = {value} is out of range ({minimum}..{maximum})"
    ),
    # api: refusals of the machine interface at /api/v1/ (tournament.api.errors)
    "malformed_json": _("the request body is not valid JSON: {detail}"),
    "database_unavailable": _(
        "the database cannot be reached just now; nothing was saved: try again in a moment"
    ),
    "server_error": _(
        "something went wrong on the server (it is logged); nothing was saved "
        "unless a read shows it"
    ),
    "unknown_field": _("{name} is not a field here (fields: {allowed})"),
    "wrong_type": "{name}: {detail}",
    "field_required": _("{name} is required"),
    "not_authenticated": _("send an API token (Authorization: Token ...) or sign in"),
    "permission_denied": "{detail}",
    "not_found": "{detail}",
    "throttled": _("too many requests; try again in {wait} seconds"),
    "method_not_allowed": _("{method} is not allowed here"),
    "unsupported_media_type": _("send the body as application/json, not {media_type}"),
    "not_acceptable": _("this answers only application/json"),
    "bad_request": "{detail}",
    # api: pairing and registration writes (tournament.api.views)
    "pairing_board_twice": _("division {division} round {round}: board {board} is used twice"),
    "api_player_or_name": _("give player_id (a registry player) or name (a new player): {problem}"),
    "api_unknown_registry_player": _("there is no player {player_id} in the registry"),
    "api_near_duplicates": _(
        "the registry already has players named like {name!r}: {players}; "
        "register one of them by player_id, or send new_player: true to add another person"
    ),
    # venue mode (tournament.services.venue): one writer per tournament
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_holds_authority": _(
        "{where} is run from the venue {venue} since {since}: change it "
        "there (this copy follows it), or take authority back first"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_released": _("{where} was handed back to {hosted}: change it there"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_link_exists": _("{where} already has a venue link to {venue}; revoke it first"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_no_link": _("{where} is not held by a venue"),
    "venue_bad_token": _(
        "this venue token is not known here: check it (it was shown once, when the link was made)"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    # Translators: {who}: a username, or "a director" (English)
    "venue_link_revoked": _(
        "this venue link to {where} was revoked on {when} by {who}: "
        "nothing was written; {where} is run from the hosted site again"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_already_taken": _(
        "this venue link was already taken on {when}; make a new link to take {where} again"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_link_bound": _(
        "this venue link to {where} is held by the laptop {laptop} since "
        "{since}: nothing was taken or written here. If that laptop broke or the event moves to "
        "this one, a director of {where} moves the link on the hosted site first (venue_move_link, "
        "or its console's Venue mode page)"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_diverged": _(
        "{where} holds the venue's changes up to {applied}, but this batch names "
        "other changes under those numbers (the laptop was restored from an older backup): "
        "nothing was written; the venue's director chooses which state to keep"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_hosted_ahead": _(
        "the hosted copy of {where} holds changes (up to number {applied}) "
        "that this laptop never had: it was restored from an older backup (its own changes reach "
        "number {ours}). Nothing was "
        "pushed and nothing is lost: the Venue mode page of {slug} shows what each side would "
        "lose; keep this laptop's state there, or bring the hosted copy's down"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_not_diverged": _(
        "{where} and its hosted copy have not parted: there is nothing to choose"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_wrong_tournament": _("this venue link is for {where}, not {other}: nothing was written"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_foreign_player": _(
        "division {division} entry #{number}: player {player} does not "
        "play in {where}: a venue link writes to its own tournament only"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_gap": _(
        "{where} has applied the venue's changes up to {applied}, and this batch "
        "starts after {after}: send the changes from {applied} on"
    ),
    "venue_bad_change": _("the venue's change is not valid: {detail}; nothing was written"),
    "venue_exists_here": _("a tournament {slug!r} is already on this instance: {detail}"),
    "venue_unreachable": _("the hosted site {url} cannot be reached: {detail}"),
    "venue_refused": _("the hosted site {url} refused: {detail}"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_not_taken": _("{where} has not been taken by its venue yet: take it first"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "venue_not_held": _("{where} was not taken from a hosted site: there is no link to push to"),
    "venue_bad_url": _(
        "{url!r} is not a hosted site's address: give it as "
        "https://gibson.example.org (nothing was taken)"
    ),
    "venue_private_address": _(
        "{url} is at {address}, an address of this machine or its "
        "local network, not a hosted site on the internet: nothing was asked of it (a site "
        "administrator allows such addresses with GIBSON_VENUE_ALLOW_PRIVATE=1)"
    ),
    "venue_token_needed": _(
        "the venue link's token is needed: paste the one the hosted site "
        "showed when the link was made (nothing was taken)"
    ),
    # accounts (manage_user)
    "unknown_user": _("there is no account {user!r}"),
    # weekends (tournament.services.weekends, ratings.weekend)
    "weekend_name_required": _("a weekend needs a name"),
    "weekend_bad_slug": _("{value!r} is not a slug: use letters, digits, '-' and '_'"),
    "weekend_slug_taken": _("there is already a weekend {slug!r}"),
    "weekend_needs_event": _("a weekend starts with one of your tournaments: choose it"),
    "weekend_event_taken": _("{tournament} is already in the weekend {weekend}"),
    "weekend_not_an_event": _("{tournament} is not in the weekend {weekend}"),
    "weekend_bad_position": _("place {value!r}: choose a place from 1 to {count}"),
    "weekend_empty": _("the weekend {weekend} has no events yet"),
    "weekend_order_dates": _(
        "{later} (place {position}, starting {date}) starts before "
        "{earlier} (starting {earlier_date}): put the events in the order they start"
    ),
    "weekend_event_no_games": _("{tournament}: no scored games to rate"),
    "weekend_entries_none": _("choose a division in at least one event of {weekend}"),
    "weekend_entries_not_an_event": _("{tournament} is not an event of the weekend {weekend}"),
    # game records (tournament.services.gcg)
    "gcg_malformed": _("{file} line {line}: {reason}"),
    "gcg_running_total": _("{file} line {line}: {reason}"),
    "gcg_result_mismatch": _(
        "{file} line {line}: {name} ends on {total}, but the game's "
        "recorded result gives {name} {score}"
    ),
    "gcg_players_mismatch": _(
        "{file} line {line}: the record's players ({names}) are not this game's players ({players})"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "gcg_no_result": _(
        "{where}: the game has no result yet; record it first, then attach its record"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "gcg_bye": _("{where}: a bye or forfeit has no game record"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "gcg_no_record": _("{where}: the game has no record"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "gcg_not_your_game": _("{where}: you are not a player of this game"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "gcg_not_a_game": _("{where}: there is no game on board {board} (boards: {boards})"),
    "gcg_file_too_large": _("{file} is over {limit} KB: a game record is a few KB"),
    # players' photos (tournament.services.photos)
    "photo_wrong_type": _("{file}: a photo must be a JPEG or PNG image"),
    "photo_too_large": _("{file} is over {limit} KB: send a smaller photo"),
    "photo_too_many_pixels": _("{file} is {width}×{height} pixels: at most {limit} pixels a side"),
    "photo_unreadable": _("{file}: the image cannot be read ({reason})"),
    "photo_unavailable": _(
        "photos cannot be accepted here: the image library (Pillow) is not installed on this server"
    ),
    "photo_not_your_player": _(
        "{user} may send only their own photo, not {player}'s (the "
        "account's address must be the one the registry holds for the player)"
    ),
    "photo_not_pending": _(
        "photo {photo} is not awaiting a decision (already decided, replaced or unknown)"
    ),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "photo_not_entered": _(
        "{player} has not entered {where}: decide their photo from an event they entered"
    ),
    # federation files (tournament.interchange.downloads)
    "unknown_federation_file": _(
        "{value!r} is not a federation file here (choose one of {choices})"
    ),
    "federation_file_invalid": _(
        "{file}: {count} problem(s) found; fix them first, or "
        "download anyway (the download is recorded with the problems)"
    ),
}


# code -> the module that registered it (None: this module); the refusals page groups by it
OWNERS: dict[str, str] = {}


def register_codes(owner: str, codes: dict[str, str | Promise]) -> None:
    """Add a domain's refusal codes (``owner`` its errors module's name) to ``CODES``.

    A code names one refusal everywhere, so a code already registered with other words, or by
    another module, is refused: two domains must not answer one code two ways. Registering
    the same codes again (a module reloaded) changes nothing."""
    clashes = [
        code
        for code, message in codes.items()
        if code in CODES and (CODES[code] != message or OWNERS.get(code) != owner)
    ]
    if clashes:
        raise ValueError(f"{owner}: refusal codes already registered: {', '.join(clashes)}")
    CODES.update(codes)
    OWNERS.update(dict.fromkeys(codes, owner))


class Phrase(str):
    """A refusal's parameter worded for its reader: the English text as a string (so audit
    summaries, logs, the API's ``params`` and the command line keep the English), and
    ``translated()`` in the language active when the refusal is read. ``msgid`` is marked
    with ``gettext_noop`` where the phrase is made; its ``{names}`` are filled from params
    (a Phrase among them is translated too)."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, **params: Any) -> Phrase:
        made = super().__new__(cls, msgid.format(**params))
        made.msgid = msgid
        made.params = params
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        # kept in a cache and read back: made again from its msgid and params
        return (_phrase, (self.msgid, self.params))

    def translated(self) -> str:
        """The phrase in the active language (English without a catalogue)."""
        from django.utils.translation import gettext

        words = {k: worded(v) for k, v in self.params.items()}
        try:
            return gettext(self.msgid).format(**words)
        except (KeyError, IndexError, ValueError):  # a broken translation: the English
            return str.__str__(self)


def _phrase(msgid: str, params: dict[str, Any]) -> Phrase:
    return Phrase(msgid, **params)


def worded(value: Any) -> Any:
    """A refusal parameter as its reader reads it: a Phrase translated, anything else as is."""
    return value.translated() if isinstance(value, Phrase) else value


def where_round(division: Any, number: Any) -> Phrase:
    """Where a result or a clock refusal happened: "division A round 5"."""
    return Phrase(
        gettext_noop("division {division} round {round}"), division=division.name, round=number
    )


def where_division(division: Any) -> Phrase:
    """A division named in a refusal: "division A"."""
    return Phrase(gettext_noop("division {division}"), division=division.name)


def phrase_what(where: Any, msgid: str) -> Phrase:
    """A value named with its place, as a refusal's ``{what}``: "division A round 5: score"
    (``msgid`` is marked with gettext_noop by the caller and holds ``{where}``)."""
    return Phrase(msgid, where=where)


class ServiceError(Exception):
    """A refused change; nothing was written. ``str()`` is the neutral message.

    ``message`` is worded when it is read, in the language active then: a refusal raised
    under one language and shown under another (an API answer worded for its reader) reads
    in the second. A ``message`` given by the caller is kept as given."""

    def __init__(self, code: str, message: str = "", *, field: str = "", **params: Any) -> None:
        self.code = code
        self.field = field
        self.params = params
        self._given = message
        super().__init__(self.message)

    @property
    def message(self) -> str:
        """The neutral message in the active language, its ``{names}`` filled from params."""
        if self._given:
            return str(self._given)
        # A code missing from CODES is a programming error that tests/core/test_error_codes.py
        # catches in the source; at run time the refusal still reaches its user, never a 500.
        template = CODES.get(self.code, "{code}")
        try:
            return str(template).format(code=self.code, **self._worded_params())
        except (KeyError, IndexError, ValueError):
            return f"{self.code}: {self.params}"

    def __str__(self) -> str:
        return self.message

    def _worded_params(self) -> dict[str, Any]:
        return {k: worded(v) for k, v in self.params.items()}

    def worded(self, wording: dict[str, str] | None = None) -> str:
        """The message in an interface's own words for this code, else the neutral one."""
        template = (wording or {}).get(self.code)
        if template is None:
            return self.message
        return str(template).format(message=self.message, **self._worded_params())

    def as_dict(self) -> dict[str, Any]:
        """What a machine reader gets: code, field, message and the parameters."""
        return {
            "code": self.code,
            "field": self.field,
            "message": self.message,
            "params": {k: _plain(v) for k, v in self.params.items()},
        }


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)
