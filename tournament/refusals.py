"""How every face answers a refusal: the status of its code and the form that keeps the input.

A face answers a ``ServiceError`` in one place (the web's ``RefusalMiddleware``, the API's
exception handler, the commands' base); two things those places and the views share live here,
below the faces, so no face imports another:

- ``refusal_status``: the HTTP status of a code's class (404 a thing not found, 403 a
  permission refused, 409 a state that forbids the change now, 429 too many attempts,
  503/507 a fault that is no bug, else 400 the asker's bad input): one table for every domain;
- ``refuse``: a refusal put at its field on a form shown again with what the person typed
  (console pages, club pages, the admin's forms), instead of a private helper per view.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tournament.errors import ServiceError

# code -> the HTTP status a face answers a refusal with when no view answered it itself (the
# web's RefusalMiddleware); a code not named here is the asker's bad input, 400. One table
# for every domain: a code is a thing not found (404), a permission refused (403), a state
# that forbids the change now (409: already paired, a round locked, a night closed), too many
# attempts (429) or a fault that is no bug (503 busy database, 507 full disk).
NOT_FOUND_CODES = frozenset(
    {
        "not_found",
        "unknown_tournament",
        "unknown_division",
        "unknown_club",
        "unknown_season",
        "unknown_account",
        "unknown_user",
        "no_such_user",
        "unknown_federation_file",
        "entries_unknown_entry",
        "selfentry_unknown_token",
        "notice_unknown_link",
        "gcg_no_record",
        "not_a_club_night",
    }
)
FORBIDDEN_CODES = frozenset(
    {
        "permission_denied",
        "not_authenticated",
        "not_allowed",
        "not_a_director",
        "not_organiser",
        "organiser_required",
        "rating_officer_required",
        "registry_permission",
        "photo_not_your_player",
        "gcg_not_your_game",
        "venue_released",
    }
)
CONFLICT_CODES = frozenset(
    {
        "already_recorded",
        "already_registered",
        "already_member",
        "already_organiser",
        "already_playing",
        "bye_already_recorded",
        "result_changed_meanwhile",
        "pairing_changed",
        "repair_changed",
        "pairing_already_paired",
        "pairing_has_results",
        "pairing_later_paired",
        "round_already_paired",
        "round_has_results",
        "results_block_unpairing",
        "reg_numbers_fixed",
        "reg_after_last_round",
        "reg_reinstate_paired",
        "reg_remove_paired",
        "setup_rounds_paired",
        "checkin_round_paired",
        "clock_already_started",
        "clock_not_started",
        "clock_not_running",
        "clock_not_paused",
        "clock_over",
        "final_results_already_sent",
        "entries_closed",
        "entries_already",
        "entries_play_started",
        "entries_division_started",
        "submission_already_requested",
        "submission_not_pending",
        "staff_last_director",
        "last_organiser",
        "night_closed",
        "night_open",
        "night_has_play",
        "season_archived",
        "selfentry_round_not_current",
        "selfentry_report_gone",
        "selfentry_game_recorded",
        "sign_up_link_used",
        "organiser_invite_gone",
        "staff_invite_gone",
        "photo_not_pending",
        "venue_holds_authority",
        "venue_hosted_ahead",
    }
)
REFUSAL_STATUS: dict[str, int] = {
    **dict.fromkeys(NOT_FOUND_CODES, 404),
    **dict.fromkeys(FORBIDDEN_CODES, 403),
    **dict.fromkeys(CONFLICT_CODES, 409),
    **dict.fromkeys(("throttled", "selfentry_too_many", "selfentry_too_many_requests"), 429),
    "database_busy": 503,
    "database_unavailable": 503,
    "disk_full": 507,
}


def refusal_status(code: str) -> int:
    """The HTTP status a refusal answers with: the class of its code (``REFUSAL_STATUS``),
    else 400, the asker's bad input."""
    return REFUSAL_STATUS.get(code, 400)


def refuse(
    form: Any,
    exc: ServiceError,
    default_field: str | None = None,
    *,
    wording: Mapping[str, str] | None = None,
) -> None:
    """Put a refusal's message on a (Django) ``form``, which keeps what the person typed: at
    the refusal's field when the form has one by that name, else at ``default_field`` (None:
    above the form). ``wording`` is a face's own words for some codes (``worded``).

    The one helper every face's form uses (pages, club pages, the admin), instead of a private
    one per view; a refusal with no form to show again goes to the face's one place."""
    field = exc.field if exc.field in form.fields else default_field
    form.add_error(field, exc.worded(dict(wording)) if wording else exc.message)
