"""Console: setting up a tournament: the list of one's tournaments, a new tournament (typed in
or uploaded as TSH files) and the settings page of one tournament.

Who may create a tournament: a superuser or an account a site administrator granted
``tournament.create_tournament`` (``access.can_create_tournament``; directing a tournament or
organising a club does not bring it); the creator becomes its director. A new tournament is a draft,
hidden from public pages and feeds until a director publishes it on the settings page.

Every write goes through a service; a refusal is shown at its field with status 400 (an htmx
request gets its division's section back, re-rendered), never a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from pairings.models import ForbiddenPair, ScheduleRange
from pairings.services.schedule import (
    add_forbidden_pair,
    add_schedule_range,
    delete_forbidden_pair,
    delete_schedule_range,
    update_schedule_range,
)
from tournament.errors import ServiceError
from tournament.interchange import jobs
from tournament.interchange.imports import check_upload_size
from tournament.refusals import refuse

from ... import services
from ...access import can_create_tournament, can_direct, staffed_tournaments
from ...models import Division, Tournament
from ..forms.setup import (
    DivisionForm,
    DivisionFormSet,
    ForbiddenPairForm,
    NewDivisionForm,
    ScheduleRangeForm,
    TournamentForm,
    UploadForm,
)
from ..permissions import DivisionMoved, director_required, division_by_slug
from .import_jobs import import_job, launch_import
from .venue_mode import venue_take_page


@login_required
@require_safe
def tournaments(request: HttpRequest) -> HttpResponse:
    """Every tournament the signed-in user directs or keeps score for (all, for a superuser)."""
    user = request.user
    qs = staffed_tournaments(user)
    rows = [
        {"tournament": t, "directs": can_direct(user, t)}
        for t in qs.prefetch_related("divisions").order_by("-start_date", "name")
    ]
    return render(
        request,
        "console/tournaments.html",
        {"rows": rows, "may_create": can_create_tournament(user)},
    )


# --------------------------------------------------------------------------- new tournament


def _new_page(request: HttpRequest, form: Any, divisions: Any, upload: Any, status: int = 200):
    return render(
        request,
        "console/new.html",
        {
            "form": form,
            "divisions": divisions,
            "upload": upload,
            "max_upload_mb": settings.MAX_UPLOAD_MB,
        },
        status=status,
    )


def _division_rows(formset: Any) -> list[tuple[int, dict[str, Any]]]:
    """The filled-in division rows (index in the formset, values); blank rows are skipped."""
    rows = []
    for i, f in enumerate(formset.forms):
        if not f.has_changed():
            continue
        values = {k: v for k, v in f.cleaned_data.items() if k != "DELETE"}
        rows.append((i, values))
    return rows


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def new_tournament(request: HttpRequest) -> HttpResponse:
    """Type in a new tournament: its settings and its divisions, created as one draft."""
    if not can_create_tournament(request.user):
        raise PermissionDenied(_("a site administrator grants the right to create tournaments"))
    upload = UploadForm(prefix="upload")
    if request.method != "POST":
        form = TournamentForm(
            new=True,
            initial={
                "realm": "nsa",
                "gibson": True,
                "gibson_spread": 500,
                "late_entry": "forfeit",
                "paper": "letter",
            },
        )
        return _new_page(request, form, DivisionFormSet(prefix="divisions"), upload)
    form = TournamentForm(request.POST, new=True)
    divisions = DivisionFormSet(request.POST, prefix="divisions")
    if not (form.is_valid() & divisions.is_valid()):
        return _new_page(request, form, divisions, upload, status=400)
    rows = _division_rows(divisions)
    try:
        tournament = services.setup_tournament(
            **form.settings(),
            divisions=[values for _form, values in rows],
            actor=request.user,
            director=request.user,
        )
    except ServiceError as exc:
        parts = exc.field.split(".")
        if len(parts) == 3 and parts[0] == "divisions":
            index, field = rows[int(parts[1])][0], parts[2]
            target = divisions.forms[index]
            target.add_error(field if field in target.fields else None, exc.message)
        else:
            refuse(form, exc)
        return _new_page(request, form, divisions, upload, status=400)
    return redirect("console:setup", slug=tournament.slug)


@login_required
@require_POST
def upload_tournament(request: HttpRequest) -> HttpResponse:
    """A new draft tournament from an uploaded .t, config.tsh (with its .t files), all.tsh or
    tourney.js, imported by a background job: this request checks the size and the pre-scan's
    limits (refused here, at once, naming the limit), stores the files and answers with the
    job's page; a malformed file fails the job with its file and line and nothing is created."""
    if not can_create_tournament(request.user):
        raise PermissionDenied(_("a site administrator grants the right to create tournaments"))
    upload = UploadForm(request.POST, request.FILES, prefix="upload")
    form = TournamentForm(new=True)
    divisions = DivisionFormSet(prefix="divisions")
    if not upload.is_valid():
        return _new_page(request, form, divisions, upload, status=400)
    main = upload.cleaned_data["file"]
    others = upload.cleaned_data["division_files"]
    try:  # the sizes the upload declared, before a byte of it is read into memory
        check_upload_size(sum(f.size for f in [main, *others]))
    except ServiceError as exc:
        refuse(upload, exc)
        return _new_page(request, form, divisions, upload, status=400)
    try:  # the pre-scan's limits, now; the parse and the writes in the background job
        job = jobs.create_upload_job(
            request.user,
            main.name,
            main.read(),
            others={f.name: f.read() for f in others},
            name=upload.cleaned_data["name"] or None,
            rounds=upload.cleaned_data["rounds"],
        )
    except ServiceError as exc:
        refuse(upload, exc)
        return _new_page(request, form, divisions, upload, status=400)
    launch_import(job)
    return redirect("console_site:import_job", job=job.pk)


# --------------------------------------------------------------------------- settings page


def _division(tournament: Tournament, key: str) -> Division:
    try:
        return division_by_slug(tournament, key)
    except DivisionMoved:
        raise Http404(_("no such division")) from None


def _row_id(pk: int) -> int:
    """A URL's row number, or 0 (no such row) when it is too long for the database."""
    return pk if 0 < pk < 2**31 else 0


def _division_block(division: Division, bound: dict[str, Any]) -> dict[str, Any]:
    """One division's section: its settings, schedule ranges and forbidden pairs, with any
    bound (refused) form in place of the blank one."""
    key = division.pk
    ranges = [
        {
            "range": r,
            "form": bound.get(("range", r.pk))
            or ScheduleRangeForm(
                prefix=f"range-{r.pk}",
                initial={
                    "first_round": r.first_round,
                    "last_round": r.last_round,
                    "system": r.system,
                    "lag": r.lag,
                },
            ),
        }
        for r in division.schedule_ranges.order_by("first_round")
    ]
    return {
        "division": division,
        "form": bound.get(("division", key))
        or DivisionForm(prefix=f"div-{key}", initial=DivisionForm.initial_for(division)),
        "ranges": ranges,
        "new_range": bound.get(("new_range", key))
        or ScheduleRangeForm(prefix=f"newrange-{key}", initial={"lag": 0}),
        "pairs": division.forbidden_pairs.select_related("entry_a__player", "entry_b__player"),
        "new_pair": bound.get(("new_pair", key)) or ForbiddenPairForm(prefix=f"pair-{key}"),
        "players": division.entries.count(),
    }


def _setup_page(
    request: HttpRequest,
    tournament: Tournament,
    bound: dict[str, Any] | None = None,
    status: int = 200,
    focus: Division | None = None,
) -> HttpResponse:
    """The whole settings page, or (for htmx) the one division section that was posted."""
    bound = bound or {}
    if focus is not None and request.htmx:
        return render(
            request,
            "console/setup_division.html",
            {"tournament": tournament, "block": _division_block(focus, bound)},
            status=status,
        )
    context = {
        "tournament": tournament,
        "form": bound.get("tournament")
        or TournamentForm(initial=TournamentForm.initial_for(tournament)),
        "blocks": [_division_block(d, bound) for d in tournament.divisions.all()],
        "new_division": bound.get("new_division")
        or NewDivisionForm(prefix="newdiv", initial={"rounds": 7, "prize_places": 0}),
    }
    return render(request, "console/setup.html", context, status=status)


def _done(request: HttpRequest, tournament: Tournament, division: Division | None = None):
    """After a change: the division's fresh section (htmx) or the page again (post/redirect)."""
    if division is not None and request.htmx:
        division.refresh_from_db()
        return _setup_page(request, tournament, focus=division)
    url = reverse("console:setup", kwargs={"slug": tournament.slug})
    return redirect(url + (f"#division-{division.pk}" if division is not None else ""))


@director_required
@require_http_methods(["GET", "HEAD", "POST"])
def setup(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """The settings page; a POST changes the tournament-level settings."""
    if request.method != "POST":
        return _setup_page(request, tournament)
    form = TournamentForm(request.POST)
    if form.is_valid():
        try:
            services.update_tournament(tournament, actor=request.user, **form.settings())
            return _done(request, tournament)
        except ServiceError as exc:
            refuse(form, exc)
    tournament.refresh_from_db()
    return _setup_page(request, tournament, {"tournament": form}, status=400)


@director_required
@require_POST
def setup_publish(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """Publish a draft (public pages and feeds show it) or hide it again."""
    services.publish_tournament(tournament, request.POST.get("published") == "1", request.user)
    return _done(request, tournament)


@director_required
@require_POST
def setup_add_division(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    form = NewDivisionForm(request.POST, prefix="newdiv")
    if form.is_valid():
        try:
            division = services.add_division(tournament, actor=request.user, **form.cleaned_data)
            return _done(request, tournament, None if request.htmx else division)
        except ServiceError as exc:
            refuse(form, exc)
    return _setup_page(request, tournament, {"new_division": form}, status=400)


def _submit(
    request: HttpRequest,
    tournament: Tournament,
    div: Division,
    form: Any,
    failed: tuple[str, int],
    write: Callable[..., Any],
) -> HttpResponse:
    """The settings forms' one shape: a valid form goes to its service (done: back to the page);
    an invalid one, or the service's refusal at its field, re-renders that form with 400."""
    if form.is_valid():
        try:
            write(actor=request.user, **form.cleaned_data)
            return _done(request, tournament, div)
        except ServiceError as exc:
            refuse(form, exc)
    return _setup_page(request, tournament, {failed: form}, 400, focus=div)


@director_required
@require_POST
def setup_division(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    div = _division(tournament, division)
    form = DivisionForm(request.POST, prefix=f"div-{div.pk}")
    return _submit(
        request,
        tournament,
        div,
        form,
        ("division", div.pk),
        lambda **kw: _update_division(div, **kw),
    )


def _update_division(div: Division, *, actor: Any, **fields: Any) -> None:
    """The division form's two writes: its settings, then its chances' visibility (each its
    own service and audit event; the form has checked the number already)."""
    hide = fields.pop("chances_hidden", False)
    hide_last = fields.pop("chances_hide_last", 0)
    services.update_division(div, actor=actor, **fields)
    services.set_chances_visibility(div, actor=actor, hide=hide, hide_last=hide_last or 0)


@director_required
@require_POST
def setup_range_add(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    div = _division(tournament, division)
    form = ScheduleRangeForm(request.POST, prefix=f"newrange-{div.pk}")
    return _submit(
        request,
        tournament,
        div,
        form,
        ("new_range", div.pk),
        lambda **kw: add_schedule_range(div, **kw),
    )


@director_required
@require_POST
def setup_range(
    request: HttpRequest, tournament: Tournament, division: str, pk: int
) -> HttpResponse:
    div = _division(tournament, division)
    rng = get_object_or_404(ScheduleRange, pk=_row_id(pk), division=div)
    if request.POST.get("delete"):
        delete_schedule_range(rng, actor=request.user)
        return _done(request, tournament, div)
    form = ScheduleRangeForm(request.POST, prefix=f"range-{rng.pk}")
    return _submit(
        request,
        tournament,
        div,
        form,
        ("range", rng.pk),
        lambda **kw: update_schedule_range(rng, **kw),
    )


@director_required
@require_POST
def setup_pair_add(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    div = _division(tournament, division)
    form = ForbiddenPairForm(request.POST, prefix=f"pair-{div.pk}")
    return _submit(
        request,
        tournament,
        div,
        form,
        ("new_pair", div.pk),
        lambda **kw: add_forbidden_pair(div, **kw),
    )


@director_required
@require_POST
def setup_pair_delete(
    request: HttpRequest, tournament: Tournament, division: str, pk: int
) -> HttpResponse:
    div = _division(tournament, division)
    pair = get_object_or_404(ForbiddenPair, pk=_row_id(pk), division=div)
    delete_forbidden_pair(pair, actor=request.user)
    return _done(request, tournament, div)


# Paths relative to /t/SLUG/console/; a division's pages sit under "setup/division/" so no
# division slug can collide with "publish" or "divisions".
urlpatterns: list[URLPattern] = [
    path("setup/", setup, name="setup"),
    path("setup/publish/", setup_publish, name="setup_publish"),
    path("setup/divisions/", setup_add_division, name="setup_add_division"),
    path("setup/division/<str:division>/", setup_division, name="setup_division"),
    path("setup/division/<str:division>/schedule/", setup_range_add, name="setup_range_add"),
    path("setup/division/<str:division>/schedule/<int:pk>/", setup_range, name="setup_range"),
    path("setup/division/<str:division>/forbidden/", setup_pair_add, name="setup_pair_add"),
    path(
        "setup/division/<str:division>/forbidden/<int:pk>/delete/",
        setup_pair_delete,
        name="setup_pair_delete",
    ),
]

# Pages outside any one tournament, under /console/ (namespace "console_site").
site_patterns: list[URLPattern] = [
    path("", tournaments, name="tournaments"),
    path("new/", new_tournament, name="new"),
    path("new/upload/", upload_tournament, name="upload"),
    path("imports/<uuid:job>/", import_job, name="import_job"),
    path("venue/take/", venue_take_page, name="venue_take"),
]
