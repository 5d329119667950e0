"""The clubs' refusal codes: clubs, members, organisers, nights, seasons and their commands.

Registered into ``tournament.errors.CODES`` (the one registry the faces, the tests and the
manual's refusals page read) when Django loads the clubs app (``tournament.clubs.apps``);
raised as ``ServiceError(code, ...)`` by ``tournament.clubs.services`` and the club commands.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from tournament.errors import register_codes

# code -> neutral message template (str.format with the error's params), grouped as the
# refusals page (docs/refusals.md) shows them
CODES: dict[str, str] = {
    # clubs: clubs, members, organisers, nights and seasons (tournament.clubs)
    "organiser_required": _("{user} is not an organiser of the club {club}"),
    "unknown_club_setting": _("club: unknown setting(s) {names}"),
    "unknown_rating_system": _("rating system {system!r}: unknown; choose one of {systems}"),
    "club_slug_taken": _("club slug {slug!r} is already taken"),
    "no_such_user": _("there is no active account {value!r}"),
    "already_organiser": _("{user} already organises {club}"),
    "not_organiser": _("{user} is not an organiser of {club}"),
    "last_organiser": _(
        "{club} needs at least one organiser; add another before removing this one"
    ),
    # Translators: {what}: English words the program gives, naming a field or an action
    "no_such_player": _("{what}: there is no player with id {value}"),
    "already_member": _("{name} is already in {club}"),
    "unknown_member_setting": _("member: unknown setting(s) {names}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "not_yes_no": _("{what}: {value!r} is not yes or no"),
    "unknown_draw": _("draw {draw!r}: unknown; choose from {draws}"),
    "rating_draw_first_only": _(
        "game {game}: drawing by rating is for the first game only; "
        "later games are drawn winners-play-winners (koth), Swiss, random or round robin"
    ),
    "night_too_small_to_submit": _(
        "{format}: the federation rates club events of {minimum} "
        "or more players; this night had {players}"
    ),
    "player_ticked_twice": _("{name} is ticked twice for the night"),
    "night_needs_players": _("a night needs at least 2 players, not {count}"),
    "night_closed": _("the {club} night of {date} is closed; reopen it to change it"),
    "night_open": _("the night of {date} is not closed"),
    # Translators: {where}: a place the program words in English, e.g. "division A round 5"
    "already_playing": _(
        "{where}: {name} already plays {opponent}; log the game after the next "
        "draw, or record it on that board"
    ),
    "not_at_night": _("{name!r} is not a player at this night; add them first"),
    "ambiguous_name": _(
        "{name!r} fits more than one player ({names}); type more of the name or the number"
    ),
    "night_games_missing": _(
        "the night of {date} has {count} game(s) without a result; enter them before closing"
    ),
    "night_has_play": _(
        "the night of {date} has games played; only a night with no game played can be deleted"
    ),
    "night_without_games": _("the night of {date} has no games to close"),
    "unknown_preset": _("scoring preset {preset!r}: unknown; choose one of {presets}"),
    "unknown_rule_setting": _("season: unknown setting(s) {names}"),
    # Translators: {what}: English words the program gives, naming a field or an action
    "not_a_points_value": _("{what}: {value!r} is not a number of points"),
    "season_ends_before_start": _("the season ends ({end}) before it starts ({start})"),
    "season_overlaps": _("these dates overlap the season {name} ({start} to {end})"),
    "season_name_taken": _("{club} already has a season named {name!r}"),
    "season_archived": _("the season {name} is archived; it can no longer change"),
    # clubs commands (club_night, season_standings, club_night_close, club_season)
    "unknown_club": _("there is no club {club!r}"),
    "unknown_season": _("{club} has no season {season!r} (seasons: {seasons})"),
    "no_season": _("{club} has no season yet; create one first"),
    "not_a_club_night": _("{slug!r} is not a club night"),
}

register_codes(__name__, CODES)
