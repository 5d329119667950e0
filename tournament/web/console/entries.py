"""Console: entries online (open, close, each division's rule, the list of entrants with paid,
move, refuse, promote and demote) and check-in on the day (tap players in; remove those not
checked in before round 1).

The pages live under setup/ (a one-word console page would hide a division of that slug).
Every button is one service call (tournament.services.online_entries and .checkin): audited,
refused in words beside its field, and only for the tournament's directors.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from tournament.errors import ServiceError
from tournament.refusals import refuse

from ...models import DivisionEntryRule, Entry, EntryWindow, OnlineEntry, Tournament
from ...selectors import checked_in_count, paired_rounds
from ...services import checkin
from ...services import online_entries as oe
from ..errors import busy_refusal
from ..forms.entries import RuleForm, WindowForm
from ..permissions import director_required


def _window_initial(tournament: Tournament) -> dict[str, str]:
    window = EntryWindow.objects.filter(tournament=tournament).first()
    if window is None:
        return {}
    shown = "%Y-%m-%d %H:%M"
    return {
        "opens": timezone.localtime(window.opens_at).strftime(shown),
        "closes": timezone.localtime(window.closes_at).strftime(shown),
    }


def _rule_initial(rule: DivisionEntryRule | None) -> dict[str, Any]:
    if rule is None:
        return {}
    return {
        "cap": rule.cap if rule.cap is not None else "",
        "rating_min": rule.rating_min if rule.rating_min is not None else "",
        "rating_max": rule.rating_max if rule.rating_max is not None else "",
        "fee_amount": rule.fee_amount,
        "fee_currency": rule.fee_currency,
    }


def _entries_page(
    request: HttpRequest,
    tournament: Tournament,
    *,
    window_form: WindowForm | None = None,
    bound_rule: tuple[str, RuleForm] | None = None,
    status: int = 200,
) -> HttpResponse:
    divisions = []
    for d in tournament.divisions.all():
        rule = DivisionEntryRule.objects.filter(division=d).first()
        if bound_rule and bound_rule[0] == d.slug:
            form = bound_rule[1]
        else:
            form = RuleForm(initial=_rule_initial(rule), prefix=d.slug)
        online = list(
            OnlineEntry.objects.filter(division=d)
            .select_related("player", "entry")
            .order_by("status", "waiting_since", "pk")
        )
        divisions.append(
            {
                "division": d,
                "rule": rule,
                "form": form,
                "entered": [o for o in online if o.status == OnlineEntry.Status.ENTERED],
                "waiting": oe.waiting_list(d),
                "pending": [o for o in online if o.status == OnlineEntry.Status.PENDING],
                "others": [
                    o
                    for o in online
                    if o.status
                    not in (
                        OnlineEntry.Status.ENTERED,
                        OnlineEntry.Status.WAITING,
                        OnlineEntry.Status.PENDING,
                    )
                ],
                "started": bool(paired_rounds(d)),
            }
        )
    context = {
        "tournament": tournament,
        "window": EntryWindow.objects.filter(tournament=tournament).first(),
        "state": oe.window_state(tournament),
        "window_form": window_form or WindowForm(initial=_window_initial(tournament)),
        "divisions": divisions,
        "all_divisions": list(tournament.divisions.all()),
    }
    return render(request, "console/entries.html", context, status=status)


def _back(tournament: Tournament, anchor: str = "") -> HttpResponseBase:
    return redirect(reverse("console:entries", args=(tournament.slug,)) + anchor)


@director_required
@require_http_methods(["GET", "HEAD"])
def entries_page(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    return _entries_page(request, tournament)


@director_required
@require_POST
def open_window(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Open (or reopen, or move) the entry window."""
    form = WindowForm(request.POST)
    if not form.is_valid():
        return _entries_page(request, tournament, window_form=form, status=400)
    try:
        with busy_refusal("opens"):
            oe.open_entries(
                tournament,
                form.cleaned_data["opens"],
                form.cleaned_data["closes"],
                actor=request.user,
            )
    except ServiceError as exc:
        refuse(form, exc)
        return _entries_page(request, tournament, window_form=form, status=400)
    messages.success(request, _("Entries are open for the dates given."))
    return _back(tournament)


@director_required
@require_POST
def close_window(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    try:
        oe.close_entries(tournament, actor=request.user)
    except ServiceError as exc:
        messages.error(request, _("Close entries: {message}").format(message=exc.message))
    else:
        messages.success(request, _("Entries are closed."))
    return _back(tournament)


@director_required
@require_POST
def division_rule(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    """One division's rule: cap, rating band, fee."""
    div = tournament.divisions.filter(slug=division).first()
    if div is None:
        messages.error(
            request,
            _("{name} has no division {division}").format(
                name=tournament.name, division=repr(division[:50])
            ),
        )
        return _back(tournament)
    div.tournament = tournament
    form = RuleForm(request.POST, prefix=div.slug)
    if not form.is_valid():
        return _entries_page(request, tournament, bound_rule=(div.slug, form), status=400)
    try:
        with busy_refusal():
            oe.set_division_rule(div, **form.cleaned_data, actor=request.user)
    except ServiceError as exc:
        refuse(form, exc)
        return _entries_page(request, tournament, bound_rule=(div.slug, form), status=400)
    messages.success(request, _("Division {division}: entry rule saved.").format(division=div.name))
    return _back(tournament, f"#rule-{div.slug}")


@director_required
@require_POST
def entry_action(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """One button of an entrant's row: ``action`` paid, unpaid, approve (a pending entry),
    refuse (``reason``), promote, demote, or move (``to``: a division's slug)."""
    try:
        online = oe.online_entry(tournament, request.POST.get("entry"))
        online.tournament = tournament
        with busy_refusal():
            done = oe.apply_entry_action(
                online,
                request.POST.get("action", ""),
                reason=request.POST.get("reason", ""),
                to=request.POST.get("to", ""),
                actor=request.user,
            )
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return _back(tournament, "#entrants")


# --------------------------------------------------------------------------- check-in


def _checkin_rows(tournament: Tournament) -> list[dict[str, Any]]:
    rows = []
    for d in tournament.divisions.all():
        entries = list(d.entries.select_related("player").order_by("number"))
        here = sum(1 for e in entries if e.checked_in_at is not None)
        rows.append(
            {
                "division": d,
                "entries": entries,
                "waiting": oe.waiting_list(d),
                "here": here,
                "absent": len(entries) - here,
                "started": bool(paired_rounds(d)),
                "hidden": set(),  # rows the find box's query does not match
            }
        )
    return rows


def finds(entry: Entry, words: list[str]) -> bool:
    """The find box's rule (the page's script applies the same): every word is in the name,
    a number is the player's number."""
    name = entry.player.name.lower()
    return all(str(entry.number) == w if w.isascii() and w.isdigit() else w in name for w in words)


def find_answer(query: str, matches: list[Entry]) -> str:
    """What the find box says to Enter: an Enter that matched no one or several people did
    nothing at all, and the director at the desk could not tell why."""
    if not matches:
        return _("No one matches {query}.").format(query=query)
    if len(matches) == 1:
        e = matches[0]
        return _("One player matches {query}: {division} #{number} {name}.").format(
            query=query, division=e.division.name, number=e.number, name=e.player.name
        )
    named = "; ".join(f"{e.division.name} #{e.number} {e.player.name}" for e in matches[:8])
    more = _("; and {count} more").format(count=len(matches) - 8) if len(matches) > 8 else ""
    return _(
        "{count} players match {query}: {named}{more}. Type more of the name, or the number."
    ).format(count=len(matches), query=query, named=named, more=more)


@director_required
@require_http_methods(["GET", "HEAD"])
def checkin_page(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Every player, by division and number, with a Here / Undo button; a find box on top
    (type part of a name or a number, Enter checks in the one row left, and says who matches
    when no one or several do). Without a script the box is a search form: the rows that do
    not match are hidden and the same answer shown."""
    here, entered = checked_in_count(tournament)
    query = " ".join(request.GET.get("q", "").split())[:60]
    words = query.lower().split()
    rows = _checkin_rows(tournament)
    answer = ""
    if words:
        matches = []
        for row in rows:
            for e in row["entries"]:
                e.division = row["division"]
                if finds(e, words):
                    matches.append(e)
                else:
                    row["hidden"].add(e.pk)
        answer = find_answer(query, matches)
    context = {
        "tournament": tournament,
        "rows": rows,
        "here": here,
        "entered": entered,
        "query": query,
        "find_answer": answer,
    }
    return render(request, "console/checkin.html", context)


@director_required
@require_POST
def checkin_tap(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    """Check one player in (``here=1``) or out (``here=0``); ``online`` instead of ``entry``:
    a waiting entrant, checked in if a place frees."""
    if request.POST.get("online"):
        return _waiting_tap(request, tournament)
    entry = (
        Entry.objects.select_related("player", "division")
        .filter(division__tournament=tournament, pk=_pk(request.POST.get("entry")))
        .first()
    )
    back = reverse("console:checkin", args=(tournament.slug,))
    if entry is None:
        messages.error(request, _("That player is not in this tournament (any more)."))
        return redirect(back)
    entry.division.tournament = tournament
    here = request.POST.get("here", "1") != "0"
    try:
        with busy_refusal():
            checkin.check_in(entry, here=here, actor=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            (
                _("{division} #{number} {name}: checked in")
                if here
                else _("{division} #{number} {name}: not checked in")
            ).format(division=entry.division.name, number=entry.number, name=entry.name),
        )
    return redirect(back)  # the find box has the focus again, for the next name


def _coming(division: Any, absent: int) -> list[OnlineEntry]:
    """The checked-in waiting entrants who would take the places ``absent`` removals free,
    in waiting-list order (as ``checkin.remove_absent`` promotes them)."""
    rule = DivisionEntryRule.objects.filter(division=division).first()
    here = [o for o in oe.waiting_list(division) if o.checked_in_at is not None]
    if rule is None or rule.cap is None:
        return here
    return here[: max(rule.cap - (division.entries.count() - absent), 0)]


def _waiting_tap(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    back = reverse("console:checkin", args=(tournament.slug,))
    here = request.POST.get("here", "1") != "0"
    try:
        online = oe.online_entry(tournament, request.POST.get("online"))
        online.tournament = online.division.tournament = tournament
        with busy_refusal():
            checkin.check_in_waiting(online, here=here, actor=request.user)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            (
                _("{division} waiting list: {name}: checked in if a place frees")
                if here
                else _("{division} waiting list: {name}: not checked in")
            ).format(division=online.division.name, name=online.player.name),
        )
    return redirect(back)


def _pk(value: Any) -> int | None:
    text = str(value or "")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else None


@director_required
@require_http_methods(["GET", "HEAD", "POST"])
def remove_absent(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    """GET: who would be removed, and one button; POST: remove them (numbers close up)."""
    div = tournament.divisions.filter(slug=division).first()
    back = reverse("console:checkin", args=(tournament.slug,))
    if div is None:
        messages.error(
            request,
            _("{name} has no division {division}").format(
                name=tournament.name, division=repr(division[:50])
            ),
        )
        return redirect(back)
    div.tournament = tournament
    if request.method == "POST":
        try:
            with busy_refusal():
                names = checkin.remove_absent(div, actor=request.user)
        except ServiceError as exc:
            messages.error(request, exc.message)
        else:
            promoted = names.promoted
            messages.success(
                request,
                _("Division {division}: {count} not checked in removed; numbers closed up.").format(
                    division=div.name, count=len(names)
                )
                + (
                    " "
                    + _("Off the waiting list into the freed places: {names}.").format(
                        names=", ".join(promoted)
                    )
                    if promoted
                    else ""
                ),
            )
        return redirect(back + f"#d-{div.slug}")
    absent = list(div.entries.filter(checked_in_at__isnull=True).select_related("player"))
    context = {
        "tournament": tournament,
        "division": div,
        "absent": absent,
        "coming": _coming(div, len(absent)),
        "started": bool(paired_rounds(div)),
    }
    return render(request, "console/checkin_absent.html", context)


urlpatterns: list[URLPattern] = [
    path("setup/entries/", entries_page, name="entries"),
    path("setup/entries/open/", open_window, name="entries_open"),
    path("setup/entries/close/", close_window, name="entries_close"),
    path("setup/entries/act/", entry_action, name="entries_act"),
    path("setup/entries/rule/<str:division>/", division_rule, name="entries_rule"),
    path("setup/checkin/", checkin_page, name="checkin"),
    path("setup/checkin/tap/", checkin_tap, name="checkin_tap"),
    path("setup/checkin/absent/<str:division>/", remove_absent, name="checkin_absent"),
]
