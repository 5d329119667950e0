"""The weekend's public page: its events in the order they start (and are rated), and one
entry form for every event of it that takes entries now (a division per event).

Only events the visitor may see are listed (a draft event stays hidden from the public); a
weekend with none to show is a 404, like a draft tournament, so its name does not leak. The
form enters through tournament.services.online_entries (each event's own rules apply); one
mailed link confirms every entry it made.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from ..access import can_view
from ..errors import ServiceError
from ..models import Division, DivisionEntryRule, Tournament, Weekend
from ..refusals import refuse
from ..services import entry_mail
from ..services import online_entries as oe
from .entries import (
    ENTRIES_PER_ADDRESS,
    ENTRY_WINDOW_SECONDS,
    _count_entry,
    _entries_from,
    _site,
)
from .errors import busy_refusal
from .forms.entries import WeekendEntryForm
from .selfentry import _private


def _open_events(events: list[Any]) -> list[tuple[Tournament, list[Division]]]:
    """The weekend's events taking entries now, each with its divisions open to entries."""
    rows = []
    for we in events:
        t = we.tournament
        if oe.window_state(t) != "open":
            continue
        divisions = [
            d
            for d in t.divisions.order_by("position", "name")
            if DivisionEntryRule.objects.filter(division=d).exists()
        ]
        if divisions:
            rows.append((t, divisions))
    return rows


def _render(
    request: HttpRequest, weekend: Weekend, events: list[Any], form: Any, status: int = 200
) -> HttpResponse:
    context = {
        "weekend": weekend,
        "events": events,
        "form": form,
        "signed_in": request.user.is_authenticated,
    }
    return render(request, "tournament/weekend.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def weekend_detail(request: HttpRequest, slug: str) -> HttpResponseBase:
    weekend = get_object_or_404(Weekend, slug=slug)
    events = [
        we
        for we in weekend.events.select_related("tournament").order_by("position")
        if can_view(request.user, we.tournament)
    ]
    if not events:
        raise Http404(f"no weekend {slug!r}")
    open_events = _open_events(events)
    if request.method != "POST":
        form = WeekendEntryForm(events=open_events) if open_events else None
        return _render(request, weekend, events, form)
    if not open_events:
        return _render(request, weekend, events, None, 400)
    form = WeekendEntryForm(request.POST, events=open_events)
    if not form.is_valid():
        return _render(request, weekend, events, form, 400)
    user = request.user if request.user.is_authenticated else None
    if user is None and _entries_from(request) >= ENTRIES_PER_ADDRESS:
        form.add_error(None, _("too many entries from this address: try again in a few minutes"))
        response = _render(request, weekend, events, form, 429)
        response["Retry-After"] = str(ENTRY_WINDOW_SECONDS)
        return response
    data = form.cleaned_data
    choices = {
        t: next((d for d in divisions if d.slug == data["event-" + t.slug]), None)
        for t, divisions in open_events
    }
    try:
        with busy_refusal("events"):
            done = oe.submit_weekend_entries(
                weekend,
                choices,
                name=data["name"],
                email=data["email"],
                notices_opt_in=data["notices"],
                user=user,
                site=_site(request),
            )
    except ServiceError as exc:
        refuse(form, exc)
        return _render(request, weekend, events, form, 400)
    _count_entry(request)
    first = done.entries[0].online
    awaits = done.entries[0].awaits
    context = {
        "weekend": weekend,
        "done": done.entries,
        "mailed": bool(done.confirm_token) and not awaits,
        "awaits": awaits,
        "late": entry_mail.mail_failed(first),  # the service queued the mail: it follows
    }
    return _private(render(request, "tournament/weekend_sent.html", context))


@require_http_methods(["GET", "HEAD", "POST"])
def weekend_confirm(request: HttpRequest, slug: str, token: str) -> HttpResponseBase:
    """The weekend form's mailed link: a button confirms every entry it made (a GET changes
    nothing, as mail scanners open links)."""
    weekend = get_object_or_404(Weekend, slug=slug)
    context: dict[str, Any] = {"weekend": weekend}
    if request.method != "POST":
        return _private(render(request, "tournament/weekend_confirm.html", context))
    try:
        with busy_refusal():
            confirmed = oe.confirm_weekend_links(weekend, token, site=_site(request))
    except ServiceError as exc:
        context["error"] = exc.message
        return _private(render(request, "tournament/weekend_confirm.html", context, status=400))
    context["confirmed"] = [(c.online, oe.waiting_position(c.online)) for c in confirmed]
    if any(c.link_token for c in confirmed):  # their new pages are mailed to the player
        context["renewed"] = True
    return _private(render(request, "tournament/weekend_confirm.html", context))
