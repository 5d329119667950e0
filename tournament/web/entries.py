"""Entries online, the public side: /t/SLUG/entries/ (the entry lists and the entry form),
the mailed confirmation link and the entrant's personal page, /entry/TOKEN/.

The lists show name, rating and club, never an e-mail address or phone number. A player finds
themself in the registry by name or federation id (the console's search, ``search_players``),
picks their line, or types their name. Anonymous entries are confirmed by a mailed link;
entries from one address are counted (``ENTRIES_PER_ADDRESS`` in ``ENTRY_WINDOW_SECONDS``)
so the form cannot be used to mail-bomb someone.

The personal page carries a secret (only its hash is stored): private, no-store, no
referrer to other sites, and an unknown link is a plain 404, as the self-entry page is.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from tournament.errors import ServiceError

from ..models import Division, DivisionEntryRule, EntryWindow, OnlineEntry, Player, Tournament
from ..selectors import (
    checked_in_count,
    near_duplicates,
    paired_rounds,
    player_choices,
    public_entry_list,
    search_players,
)
from ..services import checkin, entry_mail
from ..services import online_entries as oe
from ..services.venue import held_by_venue, venue_answers
from ..templatetags.calendar_words import band_text
from ..throttle import client_address
from .errors import busy_refusal
from .forms.entries import EntryForm
from .selfentry import _private

# a check-in on a copy a venue runs (venue mode): the venue answers on the player's page
SENT_TO_VENUE = gettext_lazy(
    "Your check-in is sent to the venue, which runs the event: this page shows its answer."
)
WAITING_HERE = gettext_lazy(
    "You are checked in, if a place frees: when the players who did not come are removed "
    "before round 1, you move into a freed place in your waiting-list order."
)
ENTRIES_PER_ADDRESS = 40
ENTRY_WINDOW_SECONDS = 600
RESEND_SECONDS = 300  # one "send the link again" per address typed in this time
MAIL_LATE = gettext_lazy(
    "Our mail server is not answering just now: your entry is stored, and its mail will "
    "follow as soon as the server is back."
)


def _entry_band(rule: DivisionEntryRule) -> str:
    """The ratings a division's online entry admits, in the reader's words (the service's
    ``band_text`` keeps the English for the API and the command line)."""
    return _("any rating") if rule.player_picks else band_text(rule)


def _site(request: HttpRequest) -> str:
    """The address the visitor used, for the links in the mails queued for them."""
    return request.build_absolute_uri("/").rstrip("/")


def _tournament(slug: str) -> Tournament:
    """A published tournament (entries are public business only once it is published)."""
    return get_object_or_404(Tournament, slug=slug, published=True, importing=False)


def _entry_divisions(tournament: Tournament) -> list[Division]:
    return [
        d
        for d in tournament.divisions.all()
        if DivisionEntryRule.objects.filter(division=d).exists()
    ]


def _address_key(request: HttpRequest) -> str:
    address = client_address(request) or "unknown"
    return "entries:from:" + hashlib.sha256(address.encode("utf-8", "replace")).hexdigest()[:24]


def _entries_from(request: HttpRequest) -> int:
    try:
        return int(cache.get(_address_key(request), 0))
    except Exception:  # noqa: BLE001 - any cache backend's failure: do not count
        return 0


def _count_entry(request: HttpRequest) -> None:
    key = _address_key(request)
    try:
        cache.add(key, 0, timeout=ENTRY_WINDOW_SECONDS)
        cache.incr(key)
    except Exception:  # noqa: BLE001 - expired meanwhile, or the cache failed
        pass


def _lists(tournament: Tournament) -> list[dict[str, Any]]:
    rows = []
    for d in tournament.divisions.all():
        rule = DivisionEntryRule.objects.filter(division=d).first()
        placed, waiting = public_entry_list(d)
        rows.append(
            {
                "division": d,
                "rule": rule,
                "band": _entry_band(rule) if rule else "",
                "placed": placed,
                "waiting": waiting,
            }
        )
    return rows


def _page(
    request: HttpRequest,
    tournament: Tournament,
    form: EntryForm,
    status: int = 200,
    *,
    near: list[dict[str, Any]] | None = None,
) -> HttpResponse:
    divisions = _entry_divisions(tournament)
    query = " ".join(str(request.GET.get("q", "")).split())[:100]
    found = search_players(divisions[0], query) if divisions and query else []
    if near:
        query, found = form.data.get("name", "")[:100], near
    window = EntryWindow.objects.filter(tournament=tournament).first()
    here, entered = checked_in_count(tournament)
    picked = str(form.data.get("player") or form.initial.get("player") or "")
    picked_name = (
        Player.objects.filter(pk=int(picked)).values_list("name", flat=True).first()
        if picked.isascii() and picked.isdigit() and len(picked) < 12
        else None
    )
    context = {
        "picked": picked_name,
        "tournament": tournament,
        "form": form,
        "state": oe.window_state(tournament),
        "window": window,
        "lists": _lists(tournament),
        "query": query,
        "found": found,
        "signed_in": request.user.is_authenticated,
        "here": here,
        "entered": entered,
    }
    return render(request, "entries/entries.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def entries(request: HttpRequest, slug: str) -> HttpResponseBase:
    """The entry lists and the form; a POST enters (or asks for the mailed confirmation)."""
    tournament = _tournament(slug)
    divisions = _entry_divisions(tournament)
    if request.method != "POST":
        initial = {"player": request.GET.get("player", "")} if request.GET.get("player") else {}
        return _page(request, tournament, EntryForm(initial=initial, divisions=divisions))
    form = EntryForm(request.POST, divisions=divisions)
    if not form.is_valid():
        return _page(request, tournament, form, 400)
    user = request.user if request.user.is_authenticated else None
    if user is None and _entries_from(request) >= ENTRIES_PER_ADDRESS:
        form.add_error(None, "too many entries from this address: try again in a few minutes")
        response = _page(request, tournament, form, 429)
        response["Retry-After"] = str(ENTRY_WINDOW_SECONDS)
        return response
    data = form.cleaned_data
    division = next(d for d in divisions if d.slug == data["division"])
    try:
        with busy_refusal("division"):
            done = oe.submit_entry(
                division,
                player_id=data["player"] or None,
                name=data["name"],
                email=data["email"],
                notices_opt_in=data["notices"],
                user=user,
                site=_site(request),
            )
    except ServiceError as exc:
        field = exc.field if exc.field in form.fields and exc.field != "player" else None
        form.add_error(field, exc.message)
        near = None
        if exc.code == "entries_name_ambiguous":  # offer the registry's near names to pick
            near = player_choices(division, near_duplicates(str(form.data.get("name", ""))))
        return _page(request, tournament, form, 400, near=near)
    _count_entry(request)
    online = done.online
    if done.awaits:
        return _pending(request, tournament, done)
    late = entry_mail.mail_failed(online)
    if done.confirm_token:
        context = {"tournament": tournament, "online": online, "late": late}
        return _private(render(request, "entries/sent.html", context))
    if late:
        messages.warning(request, MAIL_LATE)
    if online.status == OnlineEntry.Status.SENT:  # a venue runs the event (venue mode)
        messages.success(
            request,
            _(
                "Your entry is sent to the venue, which runs the event: this page shows its "
                "answer. Keep this page's address: it is your own."
            ),
        )
    else:
        messages.success(request, _("Your entry is in. Keep this page's address: it is your own."))
    return _private(redirect("entries:mine", token=done.link_token))


def _pending(request: HttpRequest, tournament: Tournament, done: oe.Submitted) -> HttpResponseBase:
    """An entry naming a registry player, made by someone not known to be them: the player
    is asked at the address the registry holds (never the one typed), the maker is told it
    holds no place until the player confirms it or a director approves it (the service
    queued both mails)."""
    online = done.online
    # (the player's own address typed: the confirmation mail is all they need)
    to_maker = bool(online.email) and online.email.lower() != online.player.email.lower()
    late = entry_mail.mail_failed(online)
    if request.user.is_authenticated:
        if late:
            messages.warning(request, MAIL_LATE)
        messages.success(
            request,
            _(
                "Your entry awaits the player's confirmation or a director's approval: it "
                "holds no place until then. Keep this page's address: it is your entry's own."
            )
            if done.awaits == "player"
            else _(
                "Your entry awaits a director's approval: it holds no place until then. "
                "Keep this page's address: it is your entry's own."
            ),
        )
        return _private(redirect("entries:mine", token=done.link_token))
    context = {
        "tournament": tournament,
        "online": online,
        "awaits": done.awaits,
        "to_maker": to_maker,
        "late": late,
    }
    return _private(render(request, "entries/sent.html", context))


def _resend_key(tournament: Tournament, address: str) -> str:
    digest = hashlib.sha256(f"{tournament.pk}|{address.lower()}".encode("utf-8", "replace"))
    return "entries:resend:" + digest.hexdigest()[:24]


@require_POST
def resend(request: HttpRequest, slug: str) -> HttpResponseBase:
    """ "Send the link again" (the "check your e-mail" page): the confirmation of the entries
    from the address typed that still await it goes out once more. The answer is the same
    whether there are any (it reveals no entry); one resend per address each
    ``RESEND_SECONDS``, and each counts against the client's entries."""
    tournament = _tournament(slug)
    address = " ".join(str(request.POST.get("email", "")).split())[:254]
    context: dict[str, Any] = {"tournament": tournament, "resend_email": address}
    if not address or "@" not in address:
        context["resend_error"] = _("Type the e-mail address you entered with.")
        return _private(render(request, "entries/sent.html", context, status=400))
    key = _resend_key(tournament, address)
    try:
        fresh = cache.add(key, 1, timeout=RESEND_SECONDS)
    except Exception:  # noqa: BLE001 - a cache down: the client's own count still holds
        fresh = True
    if not fresh or _entries_from(request) >= ENTRIES_PER_ADDRESS:
        context["resend_error"] = _(
            "A link was sent again to that address a moment ago: "
            "wait a few minutes for it before asking once more."
        )
        response = _private(render(request, "entries/sent.html", context, status=429))
        response["Retry-After"] = str(RESEND_SECONDS)
        return response
    _count_entry(request)
    try:
        with busy_refusal("email"):
            entry_mail.resend_entry_link(tournament, address)
    except ServiceError as exc:
        context["resend_error"] = exc.message
        return _private(render(request, "entries/sent.html", context, status=400))
    context["resent"] = True
    return _private(render(request, "entries/sent.html", context))


@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request: HttpRequest, token: str) -> HttpResponseBase:
    """The mailed link: a button confirms (a GET changes nothing, as mail scanners open
    links); confirming places the entry or puts it on the waiting list."""
    context: dict[str, Any] = {"token": token}
    if request.method != "POST":
        return _private(render(request, "entries/confirm.html", context))
    try:
        with busy_refusal():
            done = oe.confirm_entry_link(token, site=_site(request))
    except ServiceError as exc:
        context["error"] = exc.message
        return _private(render(request, "entries/confirm.html", context, status=400))
    online = done.online
    if done.link_token:  # the player confirmed an entry made for them: the page is theirs now
        # (mailed to them too, by the service, after the commit)
        context["mine"] = request.build_absolute_uri(
            reverse("entries:mine", args=[done.link_token])
        )
    context["online"] = online
    context["position"] = oe.waiting_position(online)
    return _private(render(request, "entries/confirm.html", context))


def _online(request: HttpRequest, token: str) -> OnlineEntry:
    online = oe.entry_for_link(token)
    if online is None:
        raise Http404()
    return online


@require_safe
def mine(request: HttpRequest, token: str) -> HttpResponseBase:
    """The entrant's own page: status, place or waiting position, withdraw, check in."""
    online = _online(request, token)
    division = online.division
    rule = DivisionEntryRule.objects.filter(division=division).first()
    at_venue = held_by_venue(online.tournament) is not None
    answers = venue_answers(online)
    if online.status != oe.Status.SENT:
        # the status line tells the venue's latest word on the entry (its pushes carry it),
        # or this site's own once the tournament is back: an older "entered" answer would
        # contradict a later refusal, a removal, or a waiting place that changed
        answers = [a for a in answers if not (a.kind == "entry" and a.status == "accepted")]
    context = {
        "online": online,
        "tournament": online.tournament,
        "division": division,
        "position": oe.waiting_position(online),
        "rule": rule,
        "token": token,
        "started": bool(paired_rounds(division)),
        "may_withdraw": online.status in oe.LIVE
        and not paired_rounds(division)
        and not any(a.kind == "withdraw" and a.status == "queued" for a in answers),
        "entry": online.entry,
        "venue_answers": answers,
        "at_venue": at_venue,
        "withdrawal_sent": any(a.kind == "withdraw" and a.status == "queued" for a in answers),
    }
    return _private(render(request, "entries/mine.html", context))


@require_POST
def withdraw(request: HttpRequest, token: str) -> HttpResponseBase:
    _online(request, token)
    if request.POST.get("sure") != "yes":
        messages.error(request, _("Tick “yes, withdraw my entry” to withdraw it."))
        return _private(redirect("entries:mine", token=token))
    try:
        with busy_refusal():
            oe.withdraw_entry(token)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your entry is withdrawn."))
    return _private(redirect("entries:mine", token=token))


@require_POST
def check_in(request: HttpRequest, token: str) -> HttpResponseBase:
    online = _online(request, token)
    if online.entry is None and online.status == oe.Status.WAITING:
        try:  # "if a place frees": removing the absent moves them in, in list order
            with busy_refusal():
                checkin.check_in_waiting(online, actor=oe.entries_actor(online))
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, WAITING_HERE)
        return _private(redirect("entries:mine", token=token))
    if online.entry is None:
        messages.error(request, _("Only an entrant with a place in a division checks in."))
        return _private(redirect("entries:mine", token=token))
    try:
        with busy_refusal():
            done = checkin.player_check_in(online.entry, actor=oe.entries_actor(online))
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, SENT_TO_VENUE if done == "sent" else _("You are checked in. Good luck!")
        )
    return _private(redirect("entries:mine", token=token))


urlpatterns: list[URLPattern] = [
    path("confirm/<str:token>/", confirm, name="confirm"),
    path("<str:token>/", mine, name="mine"),
    path("<str:token>/withdraw/", withdraw, name="withdraw"),
    path("<str:token>/check-in/", check_in, name="check_in"),
]
