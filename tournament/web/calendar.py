"""The events calendar: /events/ (upcoming and in play, filterable), /events/past/ (finished,
with winners), /events/calendar.ics (every dated event, for a calendar app), /t/SLUG/event.ics
(one event) and /t/SLUG/contact/ (write to the directors without seeing their address).

Reads go through tournament.selectors.calendar, the one write (a message) through
tournament.services.calendar. Not cached: whether an event is upcoming or finished changes
with the date, not only with its data. A bad filter is a 400 that says what to send instead.
"""

from __future__ import annotations

import datetime

from django import forms
from django.conf import settings
from django.core.paginator import EmptyPage, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_safe

from ..errors import ServiceError
from ..formats.ical import CalendarEntry, write_calendar
from ..models import Tournament
from ..refusals import refuse
from ..selectors.calendar import (
    FINISHED,
    CalendarEvent,
    CalendarFilters,
    calendar_choices,
    calendar_event,
    feed_events,
    parse_filters,
    past_event_ids,
    past_events,
    upcoming_events,
)
from ..services.calendar import MESSAGE_LENGTH, NAME_LENGTH, contact_directors
from ..templatetags.calendar_words import band_text, entries_text, event_status
from ..throttle import rate_wait
from .permissions import can_view

PAST_PAGE = 20


class BadFilter(Exception):
    """A query string the calendar cannot answer; the message says what to send instead."""


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    heading = _("Not found") if status == 404 else _("That did not work")
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def filters_from(request: HttpRequest) -> CalendarFilters:
    """The calendar's filters from the query string; BadFilter names a bad one."""
    try:
        return parse_filters(request.GET)
    except ServiceError as exc:
        raise BadFilter(str(exc)) from None


def _today() -> datetime.date:
    return timezone.localdate()


@csrf_exempt
@require_safe
def events(request: HttpRequest) -> HttpResponse:
    try:
        filters = filters_from(request)
    except BadFilter as exc:
        return _refuse(request, str(exc), 400)
    return render(
        request,
        "tournament/calendar.html",
        {
            "events": upcoming_events(_today(), filters),
            "filters": filters,
            "choices": calendar_choices(),
            "query": request.GET.urlencode(),
        },
    )


@csrf_exempt
@require_safe
def past(request: HttpRequest) -> HttpResponse:
    try:
        filters = filters_from(request)
        paginator = Paginator(past_event_ids(_today(), filters), PAST_PAGE)
        raw = request.GET.get("page", "1").strip()
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) < 1:
            raise BadFilter(f"page={raw[:20]!r}: give a page number from 1")
        try:
            page = paginator.page(int(raw))
        except EmptyPage:
            raise BadFilter(f"page {raw}: there are {paginator.num_pages} pages") from None
    except BadFilter as exc:
        return _refuse(request, str(exc), 400)
    query = request.GET.copy()
    query.pop("page", None)
    return render(
        request,
        "tournament/calendar_past.html",
        {
            "events": past_events(list(page.object_list), _today()),
            "page": page,
            "filters": filters,
            "choices": calendar_choices(),
            "query": query.urlencode(),
        },
    )


def _entry(request: HttpRequest, e: CalendarEvent) -> CalendarEntry:
    assert e.start_date is not None
    # the event's texts in the subscriber's language (names and places are the directors')
    lines = [event_status(e.status).capitalize() + "."]
    if e.lexicon:
        lines.append(_("Lexicon: {lexicon}.").format(lexicon=e.lexicon))
    for d in e.divisions:
        if d.fee:
            text = ngettext(
                "Division {name}: {rounds} round, {band}, fee {fee}.",
                "Division {name}: {rounds} rounds, {band}, fee {fee}.",
                d.rounds,
            )
        else:
            text = ngettext(
                "Division {name}: {rounds} round, {band}.",
                "Division {name}: {rounds} rounds, {band}.",
                d.rounds,
            )
        lines.append(text.format(name=d.name, rounds=d.rounds, band=band_text(d), fee=d.fee))
    if e.entries:
        lines.append(_("Entries {state}.").format(state=entries_text(e.entries)))
    url = request.build_absolute_uri(reverse("public:tournament", args=[e.slug]))
    return CalendarEntry(
        uid=f"{e.slug}@{request.get_host().split(':')[0] or 'gibson'}",
        name=e.name,
        start=e.start_date,
        end=e.end_date,
        stamp=e.created or timezone.now(),
        location=e.place,
        description="\n".join(lines),
        url=url,
        status="CONFIRMED",
    )


def _ics(body: str, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@csrf_exempt
@require_safe
def feed(request: HttpRequest) -> HttpResponse:
    """Every published event with a date, past and upcoming: a calendar app subscribes here."""
    entries = [_entry(request, e) for e in feed_events(_today())]
    return _ics(write_calendar(entries, name=_("Crossword game events")), "events.ics")


def _visible(request: HttpRequest, slug: str) -> Tournament | None:
    tournament = Tournament.objects.filter(slug=slug, importing=False).first()
    if tournament is None or not tournament.published or not can_view(request.user, tournament):
        return None
    return tournament


def _unknown(request: HttpRequest, slug: str) -> HttpResponse:
    return _refuse(
        request, _("There is no published tournament {slug}.").format(slug=repr(slug[:60])), 404
    )


@csrf_exempt
@require_safe
def event_ics(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _visible(request, slug)
    if tournament is None:
        return _unknown(request, slug)
    if tournament.start_date is None:
        return _refuse(
            request,
            _("{name} has no dates yet, so there is nothing to add.").format(name=tournament.name),
            404,
        )
    event = calendar_event(tournament, _today())
    return _ics(write_calendar([_entry(request, event)], name=tournament.name), f"{slug}.ics")


class ContactForm(forms.Form):
    name = forms.CharField(max_length=NAME_LENGTH, label=gettext_lazy("Your name"))
    email = forms.EmailField(
        label=gettext_lazy("Your e-mail address"),
        help_text=gettext_lazy("the directors answer here"),
    )
    message = forms.CharField(
        max_length=MESSAGE_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        label=gettext_lazy("Message"),
    )


@require_http_methods(["GET", "HEAD", "POST"])
def contact(request: HttpRequest, slug: str) -> HttpResponse:
    """Write to the event's directors: the message is mailed to each; their addresses are
    never shown. ``CONTACT_RATE`` messages an address, then a 429 saying when to try again."""
    tournament = _visible(request, slug)
    if tournament is None:
        return _unknown(request, slug)
    event = calendar_event(tournament, _today())
    context = {"tournament": tournament, "event": event, "finished": event.status == FINISHED}
    if request.method != "POST":
        context["form"] = ContactForm()
        return render(request, "tournament/contact.html", context)
    form = ContactForm(request.POST)
    context["form"] = form
    if not form.is_valid():
        return render(request, "tournament/contact.html", context, status=400)
    wait = rate_wait(request, "contact", settings.CONTACT_RATE)
    if wait:
        message = _(
            "Too many messages from your address: at most {rate}. Try again in {wait} seconds."
        ).format(rate=settings.CONTACT_RATE, wait=wait)
        response = render(
            request,
            "tournament/error.html",
            {"heading": _("Too many messages"), "message": message},
            status=429,
        )
        response["Retry-After"] = str(wait)
        return response
    try:
        who = request.user if request.user.is_authenticated else "calendar"
        contact_directors(tournament, actor=who, **form.cleaned_data)
    except ServiceError as exc:
        refuse(form, exc)
        return render(request, "tournament/contact.html", context, status=400)
    context["sent"] = True
    return render(request, "tournament/contact.html", context)


# --- what if: a player's rating after the games they name -----------------------------------


def _what_if_games(request: HttpRequest) -> list[tuple[int, int | None]]:
    """``spread`` (one per game, "+100" a win by 100, "-30" a loss) and ``opponent`` (their
    rating, blank for one's own) from the query string; BadFilter names a bad one."""
    spreads = [s.strip() for s in request.GET.getlist("spread")]
    opponents = [o.strip() for o in request.GET.getlist("opponent")]
    games = []
    for i, raw in enumerate(spreads):
        if not raw:
            continue
        text = raw.removeprefix("+")
        if not (text.lstrip("-").isascii() and text.lstrip("-").isdigit()) or len(text) > 5:
            raise BadFilter(f"game {i + 1}: spread {raw[:20]!r} is not a number like +100 or -30")
        opp_raw = opponents[i] if i < len(opponents) else ""
        if opp_raw and not (opp_raw.isascii() and opp_raw.isdigit() and len(opp_raw) <= 4):
            raise BadFilter(f"game {i + 1}: opponent rating {opp_raw[:20]!r} is not a number")
        games.append((int(text), int(opp_raw) if opp_raw else None))
    return games


@csrf_exempt
@require_safe
def what_if_page(request: HttpRequest, slug: str, division: str, number: str) -> HttpResponse:
    """ "If I win my last three by 100": the player's rating by the division's own system,
    after the games so far and those typed here. Changes nothing."""
    from ratings.division import WHAT_IF_GAMES, what_if

    from .permissions import division_by_slug

    tournament = _visible(request, slug)
    if tournament is None:
        return _unknown(request, slug)
    try:
        div = division_by_slug(tournament, division)
    except Exception:  # noqa: BLE001 - unknown or moved: a plain not-found either way
        div = None
    if div is None:
        return _refuse(request, f"{tournament.name} has no division {division[:40]!r}.", 404)
    entry = (
        div.entries.select_related("player").filter(number=int(number)).first()
        if number.isascii() and number.isdigit() and len(number) <= 6
        else None
    )
    if entry is None:
        return _refuse(request, f"division {div.name} has no player {number[:20]!r}.", 404)
    try:
        games = _what_if_games(request)
        answer = what_if(div, entry.number, games)
    except BadFilter as exc:
        return _refuse(request, str(exc), 400)
    # a refused what-if (the service's words) is answered by RefusalMiddleware
    rows = [
        {"n": i + 1, "spread": f"{s:+d}", "opponent": "" if o is None else o}
        for i, (s, o) in enumerate(games)
    ]
    blank = max(0, min(WHAT_IF_GAMES, 3) - len(rows))
    rows += [{"n": len(rows) + i + 1, "spread": "", "opponent": ""} for i in range(blank)]
    return render(
        request,
        "tournament/what_if.html",
        {
            "tournament": tournament,
            "division": div,
            "entry": entry,
            "name": entry.player.name,
            "rows": rows,
            "asked": bool(games),
            "answer": answer,
        },
    )


urlpatterns = [
    path("", events, name="events"),
    path("past/", past, name="past"),
    path("calendar.ics", feed, name="feed"),
]

event_patterns = [
    path("t/<slug:slug>/event.ics", event_ics, name="event_ics"),
    path("t/<slug:slug>/contact/", contact, name="contact"),
    path(
        "t/<slug:slug>/<str:division>/player/<str:number>/what-if/",
        what_if_page,
        name="what_if",
    ),
]
