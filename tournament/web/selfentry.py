"""A player's own page, /e/TOKEN/ (the QR code on their scorecard): their card and their
current game's result, entered by the players themselves.

The page shows what the public player page shows (record, spread, every round) and, for the
player's current round, a form for both scores, their own first. The opponent's page then
shows the report with "Confirm" and "That's wrong, the scores were..."; a confirmed pair is
recorded (tournament.services.selfentry), a disputed one waits for a director on the console.
After the round is scored the page only shows the result.

The card's rows, rank and record come from the division's facts the public pages cache (one
computation per change of the division, tournament.web.public.public_facts), never from
standings ranked for the request; the player's own games are the only games read. The open
page asks ``state/`` every 15 s and when the phone comes back to it whether its current round
changed (the opponent reported, confirmed or disputed, a director recorded the game, the next
round was paired): 204 while it has not, else htmx loads the card again.

Security: the token is the only credential, so a wrong or revoked one is answered exactly as
an unknown address is (Django's 404 page, no hint), and wrong tokens are counted per client
address: more than ``WRONG_PER_MINUTE`` in a minute get 429 instead of 404. A valid token is
looked up first and never counted per address (a venue's players share one address), and
the counter lives in the site's cache: if the cache fails, valid tokens still work. Each link
has its own budget instead, counted at the gate before any query (tournament.web.gate: every
request, page or POST; reports that change something and malformed ones). Pages are
private (no-store; no referrer to other sites) so the link does not leak into caches or
other sites' logs.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from tournament.errors import ServiceError

from ..cache import tournament_version
from ..formats.gcg import MAX_BYTES
from ..models import Entry, Game, GameRecord
from ..selectors import games_seen_by, records_by_round
from ..selectors.gcg import record_of
from ..selectors.photos import photo_state
from ..selectors.rows import division_read
from ..services.checkin import player_check_in
from ..services.gcg import attach_record_by_token, remove_record_by_token
from ..services.photos import MAX_PHOTO_BYTES, submit_photo_by_token
from ..services.selfentry import (
    SelfState,
    confirm_report,
    dispute_report,
    entry_for_token,
    mine_first,
    player_actor,
    report_own_result,
    self_state,
    spend_refused_report,
)
from ..services.venue import venue_reports
from ..throttle import client_address
from .errors import busy_refusal
from .forms.selfentry import ConfirmForm, DisputeForm, ReportForm
from .gate import shut_self
from .gcg import game_page
from .public import public_facts

log = logging.getLogger(__name__)

WRONG_PER_MINUTE = 20


def _now() -> float:
    """The clock the throttle's one-minute windows are cut from (tests fix it)."""
    return time.time()


def _wrong_token_count(request: HttpRequest) -> int:
    """Count one more wrong token from this address in the current minute; 0 if the cache
    cannot say (a cache failure must never turn into an error page)."""
    address = client_address(request) or "unknown"
    digest = hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()[:24]
    key = f"selfentry:wrong:{digest}:{int(_now() // 60)}"
    try:
        cache.add(key, 0, timeout=120)
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr: this is the window's first
        return 1
    except Exception:  # noqa: BLE001 - any cache backend's failure
        log.warning("self-entry throttle: the cache failed; not counting", exc_info=True)
        return 0


def _entry(request: HttpRequest, token: str) -> Entry | HttpResponse:
    """The entry of a live link; a wrong one is Django's plain 404 (or 429 when too many)."""
    entry = entry_for_token(token)
    if entry is not None:
        return entry
    if _wrong_token_count(request) > WRONG_PER_MINUTE:
        response = render(request, "selfentry/throttled.html", status=429)
        response["Retry-After"] = "60"
        return response
    raise Http404()


def _private(response: HttpResponseBase) -> HttpResponseBase:
    """The page carries the secret link: keep it out of shared caches and other sites'
    Referer headers ("same-origin", not "no-referrer": with no referrer a browser sends
    ``Origin: null`` on the page's own forms, which Django's CSRF check refuses)."""
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "same-origin"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


@dataclass
class Card:
    """The card as the page shows it: the player's rounds, their standings row, the last
    paired round and the last round every game of which is scored."""

    rows: list[dict[str, Any]]
    standing: Any
    last_round: int
    scored_round: int


def _card(entry: Entry) -> Card:
    """The player's rounds as the public player page shows them, and their standing, from the
    division's cached facts (one computation per change of the division for every page and
    link): a link read flat out once ranked 500 players per request."""
    div = entry.division
    version = tournament_version(div.tournament.slug)
    if version is None:  # the tournament was deleted meanwhile
        raise Http404()
    facts = public_facts(version, div)
    view = facts.entries.get(entry.pk)
    if view is None:  # the entry was removed meanwhile: nothing of theirs to show
        return Card([], None, facts.last_round, facts.scored_round)
    # the division's rows of this version, which its public pages share
    games = games_seen_by(view, division_read(version, div).games, facts.entries)
    running = records_by_round(div.tournament, view, games, facts.entries)
    standing = next((r for r in facts.rows if r.number == entry.number), None)
    by_round = {g.round: g for g in games}
    rows = []
    for n in range(1, facts.last_round + 1):
        g = by_round.get(n)
        row: dict[str, Any] = {"round": n, "game": g}
        if g is not None and g.score is not None:
            row["spread"] = g.score - (g.opponent_score or 0) if g.opponent else g.score
            row["record"] = running.get(n)
        rows.append(row)
    return Card(rows, standing, facts.last_round, facts.scored_round)


def state_mark(state: SelfState) -> str:
    """What the page's current round shows, as a short digest: the open page sends it back
    every 15 s and is loaded again when it differs (an opponent's report, confirmation or
    dispute, a director's result, the next round paired). No secret goes in: ids and scores."""
    reports = [
        (p.pk, p.status, p.score1, p.score2) if p is not None else None
        for p in (state.mine, state.theirs)
    ]
    game = state.game
    raw = repr((game.pk if game else None, reports, state.disputed))
    return hashlib.sha256(raw.encode()).hexdigest()[:16]


def _errors(form: Any) -> list[str]:
    return [e for field_errors in form.errors.values() for e in field_errors]


def _place_refused(
    bound: Any, state: Any, report: Any, confirm: Any, dispute: Any
) -> tuple[Any, Any, Any, list[str]]:
    """A refused form takes the place of the page's own form when it still answers the same
    round or card (its errors at its fields); otherwise the page has moved on since it was
    sent, and its errors are shown above the current state (the last item)."""
    opponent = state.opponent
    if (
        isinstance(bound, ReportForm)
        and report is not None
        and (bound.data.get("round") == str(state.game.round.number))
    ):
        bound.label_for(opponent.name)
        return bound, confirm, dispute, []
    if (
        isinstance(bound, DisputeForm)
        and dispute is not None
        and (bound.data.get("pending") == str(state.theirs.pk))
    ):
        bound.label_for(opponent.name)
        return report, confirm, bound, []
    if (
        isinstance(bound, ConfirmForm)
        and confirm is not None
        and (bound.data.get("pending") == str(state.theirs.pk))
    ):
        return report, bound, dispute, []
    return report, confirm, dispute, _errors(bound)


def _page(
    request: HttpRequest,
    entry: Entry,
    *,
    bound: Any = None,
    status: int = 200,
    record_error: str = "",
    photo_error: str = "",
) -> HttpResponseBase:
    """The player's page; ``bound`` is a refused form shown with its errors at its fields
    (or, when the page has moved on since it was sent, its errors above the current state)."""
    div = entry.division
    tournament = div.tournament
    state = self_state(entry)
    card = _card(entry)
    last = card.last_round
    opponent = state.opponent
    report = confirm = dispute = None
    stale: list[str] = []
    theirs_scores = mine_scores = None
    if state.game is not None and not state.disputed:
        if state.theirs is not None:
            theirs_scores = mine_first(state.game, entry, state.theirs.score1, state.theirs.score2)
            confirm = ConfirmForm(initial={"pending": state.theirs.pk})
            dispute = DisputeForm(initial={"pending": state.theirs.pk})
            dispute.label_for(opponent.name)
        else:
            initial: dict[str, Any] = {"round": state.game.round.number}
            if state.mine is not None:
                mine_scores = mine_first(state.game, entry, state.mine.score1, state.mine.score2)
                initial.update(score=mine_scores[0], opp_score=mine_scores[1])
            report = ReportForm(initial=initial)
            report.label_for(opponent.name)
    elif state.game is not None and state.mine is not None:
        mine_scores = mine_first(state.game, entry, state.mine.score1, state.mine.score2)
    if state.theirs is not None and state.game is not None and theirs_scores is None:
        theirs_scores = mine_first(state.game, entry, state.theirs.score1, state.theirs.score2)
    if bound is not None:
        report, confirm, dispute, stale = _place_refused(bound, state, report, confirm, dispute)
    context = {
        "tournament": tournament,
        "division": div,
        "entry": entry,
        "standing": card.standing,
        "rows": card.rows,
        "last_round": last,
        "scored_round": card.scored_round,
        "state": state,
        # asks whether the current round changed while a round may still come or be answered
        "watch": state.game is not None or card.scored_round < div.rounds,
        "mark": state_mark(state),
        "opponent": opponent,
        "mine_scores": mine_scores,
        "theirs_scores": theirs_scores,
        "report": report,
        "confirm": confirm,
        "dispute": dispute,
        "dispute_open": dispute is not None and dispute.is_bound,
        "stale": stale,
        "public": tournament.published,
        "may_check_in": entry.checked_in_at is None and not last and entry.withdrawn_round is None,
        "venue_reports": venue_reports(entry),
        "record_games": record_games(entry),
        "record_error": record_error,
        "record_max_kb": MAX_BYTES // 1024,
        "photo_state": photo_state(entry.player_id),
        "photo_error": photo_error,
        "photo_max_kb": MAX_PHOTO_BYTES // 1024,
    }
    return _private(render(request, "selfentry/entry.html", context, status=status))


def _refused(request: HttpRequest, entry: Entry, form: Any, exc: ServiceError) -> HttpResponseBase:
    """A refused report, confirmation or dispute: the page with the refusal at its field, or,
    past the link's budget (which a refusal spends too, but for a busy database), the short
    429 page."""
    if exc.code not in ("selfentry_too_many", "database_busy"):
        try:
            spend_refused_report(entry)
        except ServiceError as spent:
            exc = spent
    if exc.code == "selfentry_too_many":
        # A short page, not the card: a script past the budget must not get the card's
        # standings computed for every refused report (bench_web.py --abuse: a quarter of a
        # second each, which took public standings to a tenth of their quiet rate).
        # The link's later POSTs this minute are refused at the gate, before any query.
        shut_self(entry.entry_token or "")
        context = {"message": exc.message, "card": entry.entry_token}
        response = render(request, "selfentry/throttled.html", context, status=429)
        response["Retry-After"] = "60"
        return _private(response)
    visible = {f.name for f in form.visible_fields()}
    form.add_error(exc.field if exc.field in visible else None, exc.message)
    return _page(request, entry, bound=form, status=400)


def _malformed(request: HttpRequest, entry: Entry, form: Any) -> HttpResponseBase:
    """A form no page sends (or one mistyped): its errors at its fields, spending the link's
    budget like any refused report (a script sending them unchecked cost a page a time)."""
    try:
        spend_refused_report(entry)
    except ServiceError as exc:
        return _refused(request, entry, form, exc)
    return _page(request, entry, bound=form, status=400)


def _done(request: HttpRequest, token: str, text: str) -> HttpResponseBase:
    messages.success(request, text)
    return _private(redirect("selfentry:entry", token=token))


@require_safe
def entry_page(request: HttpRequest, token: str) -> HttpResponseBase:
    """The player's own page: their card, and their current game's report or answer."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    return _page(request, entry)


@require_safe
def state(request: HttpRequest, token: str) -> HttpResponseBase:
    """What the open page asks every 15 s: 204 while its current round shows what ``seen``
    says, else htmx is told to load the card again (a redirect to the card, not a reload: a
    page shown after a refused POST has the POST's address)."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    if request.GET.get("seen") == state_mark(self_state(entry)):
        return _private(HttpResponse(status=204))
    return _private(HttpResponseClientRedirect(reverse("selfentry:entry", args=(token,))))


def _outcome_text(outcome: Any, entry: Entry) -> str:
    game = outcome.game
    mine, theirs = mine_first(game, entry, outcome.report.score1, outcome.report.score2)
    other = game.player2 if game.player1_id == entry.pk else game.player1
    if outcome.status == "confirmed":
        return _("Recorded: round {round}, you {mine}, {name} {theirs}.").format(
            round=game.round.number, mine=mine, name=other.name, theirs=theirs
        )
    if outcome.status == "queued":
        return _(
            "Sent to the venue: you {mine}, {name} {theirs}. The event is run from the "
            "venue's laptop; it enters your report when it is next online, and this page "
            "shows what became of it."
        ).format(mine=mine, name=other.name, theirs=theirs)
    if outcome.status == "disputed":
        return _(
            "Your scores ({mine}-{theirs}) differ from {name}'s report: a director "
            "will settle the game."
        ).format(mine=mine, name=other.name, theirs=theirs)
    return _(
        "Reported: you {mine}, {name} {theirs}. It is recorded when {name} "
        "confirms it from their own scorecard's link."
    ).format(mine=mine, name=other.name, theirs=theirs)


@require_POST
def report(request: HttpRequest, token: str) -> HttpResponseBase:
    """Both scores of the current game, the player's own first."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    form = ReportForm(request.POST)
    if not form.is_valid():
        return _malformed(request, entry, form)
    data = form.cleaned_data
    try:
        with busy_refusal("score"):
            outcome = report_own_result(
                token, data["score"], data["opp_score"], round_number=data["round"]
            )
    except ServiceError as exc:
        return _refused(request, entry, form, exc)
    return _done(request, token, _outcome_text(outcome, entry))


@require_POST
def confirm(request: HttpRequest, token: str) -> HttpResponseBase:
    """Agree with the opponent's report: the game is recorded."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        return _malformed(request, entry, form)
    try:
        with busy_refusal():
            outcome = confirm_report(token, form.cleaned_data["pending"])
    except ServiceError as exc:
        return _refused(request, entry, form, exc)
    return _done(request, token, _outcome_text(outcome, entry))


@require_POST
def dispute(request: HttpRequest, token: str) -> HttpResponseBase:
    """The opponent's report is wrong: the scores as this player read them."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    form = DisputeForm(request.POST)
    if not form.is_valid():
        return _malformed(request, entry, form)
    data = form.cleaned_data
    try:
        with busy_refusal("score"):
            outcome = dispute_report(token, data["pending"], data["score"], data["opp_score"])
    except ServiceError as exc:
        return _refused(request, entry, form, exc)
    return _done(request, token, _outcome_text(outcome, entry))


@require_POST
def check_in(request: HttpRequest, token: str) -> HttpResponseBase:
    """Check in from the scorecard's link: the player is here for round 1."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    try:
        with busy_refusal():
            done = player_check_in(entry, actor=player_actor(entry))
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _(
                "Your check-in is sent to the venue, which runs the event: "
                "this page shows its answer."
            )
            if done == "sent"
            else _("You are checked in."),
        )
    return _private(redirect("selfentry:entry", token=token))


def record_games(entry: Entry) -> list[dict[str, Any]]:
    """The player's scored games (byes have no record), for the record form: round, the
    opponent, and whether a record is attached."""
    games = (
        Game.objects.filter(player2__isnull=False, score1__isnull=False)
        .filter(Q(player1=entry) | Q(player2=entry))
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number")
    )
    with_record = set(
        GameRecord.objects.filter(game__in=[g.pk for g in games]).values_list("game_id", flat=True)
    )
    return [
        {
            "pk": g.pk,
            "round": g.round.number,
            "opponent": (g.player2 if g.player1_id == entry.pk else g.player1).player.name,
            "has_record": g.pk in with_record,
        }
        for g in games
    ]


def _record_refused(
    request: HttpRequest, entry: Entry, exc: ServiceError, *, photo: bool = False
) -> HttpResponseBase:
    """A refused record or photo: the page with the refusal (naming the file's line) above
    its form. A refusal spends the link's budget as a refused report does."""
    try:
        spend_refused_report(entry)
    except ServiceError as spent:
        shut_self(entry.entry_token or "")
        context = {"message": spent.message, "card": entry.entry_token}
        response = render(request, "selfentry/throttled.html", context, status=429)
        response["Retry-After"] = "60"
        return _private(response)
    if photo:
        return _page(request, entry, status=400, photo_error=exc.message)
    return _page(request, entry, status=400, record_error=exc.message)


@require_POST
def send_photo(request: HttpRequest, token: str) -> HttpResponseBase:
    """The player sends their photo; it waits for a director's approval."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    upload = request.FILES.get("photo")
    try:
        if upload is None:
            raise ServiceError("setup_required", field="photo", what="the photo file")
        with busy_refusal("photo"):
            submit_photo_by_token(
                token, upload.read(MAX_PHOTO_BYTES + 1), file_name=upload.name or ""
            )
    except ServiceError as exc:
        return _record_refused(request, entry, exc, photo=True)
    return _done(request, token, _("Your photo is sent: it shows once a director approves it."))


@require_POST
def attach_record(request: HttpRequest, token: str) -> HttpResponseBase:
    """Attach (or replace) the GCG record of one of the player's scored games."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    upload = request.FILES.get("file")
    if upload is None:
        return _record_refused(
            request, entry, ServiceError("setup_required", field="file", what="the GCG file")
        )
    data = upload.read(MAX_BYTES + 1)
    try:
        with busy_refusal("file"):
            attached = attach_record_by_token(
                token, request.POST.get("game", ""), data, file_name=upload.name or ""
            )
    except ServiceError as exc:
        return _record_refused(request, entry, exc)
    game = attached.record.game
    turns = len(attached.parsed.turns)
    if attached.replaced:
        text = ngettext(
            "Round {round}: your game record is replaced ({turns} turn).",
            "Round {round}: your game record is replaced ({turns} turns).",
            turns,
        )
    else:
        text = ngettext(
            "Round {round}: your game record is attached ({turns} turn).",
            "Round {round}: your game record is attached ({turns} turns).",
            turns,
        )
    return _done(request, token, text.format(round=game.round.number, turns=turns))


@require_POST
def remove_record(request: HttpRequest, token: str, game: str) -> HttpResponseBase:
    """Take the record of one of the player's games off."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    try:
        remove_record_by_token(token, game)
    except ServiceError as exc:
        return _record_refused(request, entry, exc)
    return _done(request, token, _("Your game record is removed."))


@require_safe
def view_record(request: HttpRequest, token: str, game: str) -> HttpResponseBase:
    """The viewer for one of the player's own games (private records too)."""
    entry = _entry(request, token)
    if isinstance(entry, HttpResponse):
        return entry
    found = (
        Game.objects.select_related("round__division__tournament", "player1__player")
        .select_related("player2__player")
        .filter(pk=game if game.isascii() and game.isdigit() else -1)
        .filter(Q(player1=entry) | Q(player2=entry))
        .first()
    )
    record = record_of(found, public=False) if found is not None else None
    if record is None:
        raise Http404()
    back = reverse("selfentry:entry", args=(token,))
    return _private(game_page(request, found, record, back))


urlpatterns: list[URLPattern] = [
    path("<str:token>/record/", attach_record, name="attach_record"),
    path("<str:token>/record/<str:game>/", view_record, name="record"),
    path("<str:token>/record/<str:game>/remove/", remove_record, name="remove_record"),
    path("<str:token>/photo/", send_photo, name="send_photo"),
    path("<str:token>/", entry_page, name="entry"),
    path("<str:token>/report/", report, name="report"),
    path("<str:token>/confirm/", confirm, name="confirm"),
    path("<str:token>/dispute/", dispute, name="dispute"),
    path("<str:token>/check-in/", check_in, name="check_in"),
    path("<str:token>/state/", state, name="state"),
]
