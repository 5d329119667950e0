"""Club pages for organisers: found a club, run its settings, organisers, members and seasons.

- /clubs/new/: any signed-in user founds a club (and becomes its organiser).
- /clubs/mine/: the clubs the signed-in user organises.
- /clubs/SLUG/manage/: the club's settings, its organisers (invite by a one-time link, turn a
  link off, remove; the last one stays) and its members (add by name with suggestions from
  the player registry as one types, mark lapsed or active, make a guest a member), with
  links to the nights and seasons.
- /clubs/join/TOKEN/: whoever opens an organiser's invitation link, signed in, joins the
  organisers (an account is never named by username: that would tell who has one).
- /clubs/SLUG/seasons/manage/: the club's seasons; create (a preset or configured points),
  edit, archive (the awards are kept and shown).

Every page but the first two is for the club's organisers only (``organiser_required``). Writes
go through tournament.clubs.services, whose refusals (ServiceError) are shown at the field they
name with status 400 and nothing written; every form posts with htmx and gets its panel back
(a plain post gets the whole page, or a redirect after a change), so the pages work the same
without JavaScript.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from ratings.models import PlayerRating
from tournament.access import can_found_club
from tournament.errors import ServiceError
from tournament.refusals import refuse

from ...models import Club, Entry, Membership, Player
from ...selectors import near_duplicates, search_players
from .. import selectors, services
from ..ladder import PRESETS, Rule
from ..models import Season
from .forms import (
    MEMBER_ACTIONS,
    ClubForm,
    MemberChangeForm,
    MemberForm,
    OrganiserRemoveForm,
    SeasonForm,
)
from .permissions import organiser_required

GET_POST = require_http_methods(["GET", "HEAD", "POST"])


def _htmx(request: HttpRequest) -> bool:
    return bool(getattr(request, "htmx", False))


def _page(
    request: HttpRequest, name: str, context: dict[str, Any], status: int = 200
) -> HttpResponse:
    """The panel alone for htmx (it replaces itself), the whole page otherwise."""
    suffix = "_panel" if _htmx(request) else ""
    return render(request, f"clubs/manage_{name}{suffix}.html", context, status=status)


def _done(request: HttpRequest, url: str, notice: str, render_panel: Any) -> HttpResponse:
    """After a change: htmx gets the fresh panel with the notice, a plain post a redirect."""
    if _htmx(request):
        return render_panel(notice)
    messages.success(request, notice)
    return redirect(url)


# ----------------------------------------------------------------------- links


def club_links(club: Club) -> dict[str, str]:
    """The organiser's way around one club: its management pages, nights and public page."""
    return {
        "manage": reverse("clubs:manage", args=[club.slug]),
        "seasons": reverse("clubs:seasons", args=[club.slug]),
        "new_night": f"/clubs/{club.slug}/nights/new/",
        "public": f"/clubs/{club.slug}/",
    }


# ----------------------------------------------------------------------- found a club, mine


@login_required
@GET_POST
def club_new(request: HttpRequest) -> HttpResponseBase:
    """Found a club: its founder becomes its organiser and lands on its management page
    (403 with the reason when the site has a site administrator found clubs)."""
    if not can_found_club(request.user):
        raise PermissionDenied(ServiceError("club_founding_closed").message)
    if request.method != "POST":
        return _page(request, "new", {"form": ClubForm(new=True)})
    form = ClubForm(request.POST, new=True)
    if not form.is_valid():
        return _page(request, "new", {"form": form}, 400)
    data = form.cleaned_data
    try:
        club = services.create_club(
            name=data["name"],
            actor=request.user,
            rating_system=data["rating_system"],
            **form.settings(),
        )
    except ServiceError as exc:
        refuse(form, exc, "name")
        return _page(request, "new", {"form": form}, 400)
    url = reverse("clubs:manage", args=[club.slug])
    if _htmx(request):
        return HttpResponseClientRedirect(url)
    messages.success(
        request, _("{club} founded: add its members and its first season.").format(club=club.name)
    )
    return redirect(url)


@login_required
@require_safe
def clubs_mine(request: HttpRequest) -> HttpResponse:
    """The clubs the signed-in user organises, with their management links."""
    clubs = (
        Club.objects.filter(organisers=request.user)
        .annotate(
            members=Count(
                "memberships", filter=Q(memberships__guest=False, memberships__active=True)
            )
        )
        .order_by("name")
    )
    rows = [{"club": c, "links": club_links(c)} for c in clubs]
    return render(
        request,
        "clubs/manage_mine.html",
        {"rows": rows, "may_found": can_found_club(request.user)},
    )


# ----------------------------------------------------------------------- one club


def _member_rows(club: Club) -> list[dict[str, Any]]:
    """Every membership with the player's rating on the club's own list (None: unrated)."""
    members = list(
        Membership.objects.filter(club=club).select_related("player").order_by("player__name")
    )
    ratings: dict[int, int] = {}
    if club.rating_list_id:
        ratings = dict(
            PlayerRating.objects.filter(
                rating_list_id=club.rating_list_id, player__in=[m.player_id for m in members]
            ).values_list("player_id", "rating")
        )
    return [{"m": m, "rating": ratings.get(m.player_id)} for m in members]


def _club_context(request: HttpRequest, club: Club, **forms: Any) -> dict[str, Any]:
    """The management page: a refused form comes back bound (with its errors), the others
    fresh; the settings form is filled with the club's current values."""
    settings = forms.pop("settings", None)
    if settings is None:
        settings = ClubForm(
            initial={"name": club.name, **{k: getattr(club, k) for k in services.CLUB_FIELDS}}
        )
    member_form = forms.pop("member_form", None)
    return {
        "club": club,
        "links": club_links(club),
        "settings": settings,
        "organisers": list(club.organisers.order_by("username")),
        "invites": services.open_organiser_invites(club),
        "invite_days": services.ORGANISER_INVITE_DAYS,
        "member_form": MemberForm() if member_form is None else member_form,
        "members": _member_rows(club),
        "actions": MEMBER_ACTIONS,
        "urls": {
            "settings": reverse("clubs:manage", args=[club.slug]),
            "organiser_invite": reverse("clubs:organiser_invite", args=[club.slug]),
            "organiser_invite_revoke": reverse("clubs:organiser_invite_revoke", args=[club.slug]),
            "organiser_remove": reverse("clubs:organiser_remove", args=[club.slug]),
            "member_search": reverse("clubs:member_search", args=[club.slug]),
            "member_add": reverse("clubs:member_add", args=[club.slug]),
            "member_change": reverse("clubs:member_change", args=[club.slug]),
        },
        **forms,
    }


def _club_page(request: HttpRequest, club: Club, status: int = 200, **forms: Any) -> HttpResponse:
    return _page(request, "club", _club_context(request, club, **forms), status)


def _club_done(request: HttpRequest, club: Club, notice: str) -> HttpResponse:
    club.refresh_from_db()
    return _done(
        request,
        reverse("clubs:manage", args=[club.slug]),
        notice,
        lambda text: _club_page(request, club, notice=text),
    )


@organiser_required
@GET_POST
def manage(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's management page; a post changes its settings."""
    if request.method != "POST":
        return _club_page(request, club)
    form = ClubForm(request.POST)
    if not form.is_valid():
        return _club_page(request, club, 400, settings=form)
    try:
        club = services.update_club(
            club, actor=request.user, name=form.cleaned_data["name"], **form.settings()
        )
    except ServiceError as exc:
        refuse(form, exc)
        return _club_page(request, club, 400, settings=form)
    return _club_done(request, club, _("{club}: settings saved.").format(club=club.name))


@organiser_required
@require_POST
def organiser_invite(request: HttpRequest, club: Club) -> HttpResponse:
    """A one-time link for another organiser, shown once on the answer (never stored, so the
    page is rendered here rather than after a redirect)."""
    _invite, token = services.create_organiser_invite(club, actor=request.user)
    link = request.build_absolute_uri(reverse("clubs:join", args=[token]))
    return _club_page(
        request,
        club,
        invite_link=link,
        notice=_("Invitation link made: copy it now, it is shown only this once."),
    )


@organiser_required
@require_POST
def organiser_invite_revoke(request: HttpRequest, club: Club) -> HttpResponse:
    """Turn off a link not yet opened (400 with the reason if it is gone already)."""
    try:
        services.revoke_organiser_invite(club, request.POST.get("invite", ""), actor=request.user)
    except ServiceError as exc:
        return _club_page(request, club, 400, organiser_error=exc.message)
    return _club_done(request, club, _("Invitation link turned off."))


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """/clubs/join/TOKEN/: the invited person, signed in, confirms and joins the organisers."""
    invite = services.open_organiser_invite(token)
    if invite is None:
        return render(
            request,
            "clubs/join.html",
            {"error": ServiceError("organiser_invite_invalid").message},
            status=404,
        )
    club = invite.club
    if request.method == "POST":
        try:
            services.accept_organiser_invite(token, request.user)
        except ServiceError as exc:
            return render(
                request, "clubs/join.html", {"club": club, "error": exc.message}, status=400
            )
        messages.success(request, _("You now organise {club}.").format(club=club.name))
        return redirect("clubs:manage", slug=club.slug)
    return render(request, "clubs/join.html", {"club": club, "invite": invite})


@organiser_required
@require_POST
def organiser_remove(request: HttpRequest, club: Club) -> HttpResponse:
    """Take an account off the organisers; the service keeps the last one."""
    form = OrganiserRemoveForm(request.POST)
    user = None
    if form.is_valid():
        user = club.organisers.filter(pk=form.cleaned_data["user"]).first()
    try:
        if user is None:
            raise ServiceError("not_organiser", field="user", user="that account", club=club.name)
        services.remove_organiser(club, user, actor=request.user)
    except ServiceError as exc:
        return _club_page(
            request,
            club,
            400,
            organiser_error=exc.message,
            organiser_error_for=user.pk if user else None,
        )
    return _club_done(
        request,
        club,
        _("{user} no longer organises {club}.").format(user=user.get_username(), club=club.name),
    )


class _EveryList:
    """What ``search_players`` asks of a division, for a club's member search: ratings from
    every list (a new member is recognised by a federation rating) and nobody entered."""

    rating_list_id = None
    rating_list = None
    tournament_id = None  # no tournament: nobody is "entered in another division"

    def __init__(self) -> None:
        self.entries = Entry.objects.none()


def member_choices(club: Club, query: str) -> list[dict[str, Any]]:
    """Registry players matching the typed name (the console's search), one row a player
    with every rating they hold, marked when already in the club."""
    rows = search_players(_EveryList(), query)  # type: ignore[arg-type]
    in_club = dict(
        Membership.objects.filter(
            club=club, player_id__in={r["player_id"] for r in rows}
        ).values_list("player_id", "guest")
    )
    by_player: dict[int, dict[str, Any]] = {}
    for r in rows:
        row = by_player.setdefault(
            r["player_id"],
            {
                "player_id": r["player_id"],
                "name": r["name"],
                "ids": r["ids"],
                "country": r["country"],
                "ratings": [],
                "member": r["player_id"] in in_club and not in_club[r["player_id"]],
                "guest": in_club.get(r["player_id"], False),
            },
        )
        if r["rating"] is not None:
            row["ratings"].append((r["rating"], r["list"]))
    return list(by_player.values())


@organiser_required
@require_safe
def member_search(request: HttpRequest, club: Club) -> HttpResponse:
    """Suggestions for the name typed so far (htmx, as one types)."""
    query = request.GET.get("name", request.GET.get("q", ""))[:200]
    return render(
        request,
        "clubs/manage_suggestions.html",
        {"choices": member_choices(club, query), "query": " ".join(query.split()), "club": club},
    )


def _near_members(club: Club, name: str) -> list[dict[str, Any]]:
    """Registry players with a name like ``name`` (as the console's registration warns),
    unless exactly one player has exactly that name (adding it then finds them, creating
    nobody: find_or_create_player's rule)."""
    if not name or Player.objects.filter(name=name).count() == 1:
        return []
    members = set(Membership.objects.filter(club=club).values_list("player_id", flat=True))
    return [{"id": p.pk, "name": p.name, "member": p.pk in members} for p in near_duplicates(name)]


@organiser_required
@require_POST
def member_add(request: HttpRequest, club: Club) -> HttpResponse:
    """Add a member: a picked suggestion, or a name (found in the registry or added to it)."""
    form = MemberForm(request.POST)
    if not form.is_valid():
        return _club_page(request, club, 400, member_form=form)
    data = form.cleaned_data
    who = data["player_id"] if data.get("player_id") is not None else data["name"]
    if data.get("player_id") is None and not data.get("confirm"):
        near = _near_members(club, " ".join(data["name"].split()))
        if near:  # "Yamamoto, Yuky" beside "Yamamoto, Yuki": ask before a second person
            return _club_page(request, club, member_form=form, near=near)
    try:
        m = services.add_member(
            club, who, actor=request.user, since=data.get("since"), guest=data["guest"]
        )
    except ServiceError as exc:
        refuse(form, exc, "name")
        return _club_page(request, club, 400, member_form=form)
    if m.guest:
        notice = _("{player} is a guest of {club}.")
    else:
        notice = _("{player} is a member of {club}.")
    return _club_done(request, club, notice.format(player=m.player.name, club=club.name))


@organiser_required
@require_POST
def member_change(request: HttpRequest, club: Club) -> HttpResponse:
    """Mark a member lapsed or active again, or make a guest a member."""
    form = MemberChangeForm(request.POST)
    m = None
    if form.is_valid():
        m = (
            Membership.objects.filter(club=club, pk=form.cleaned_data["membership"])
            .select_related("player", "club")
            .first()
        )
    if m is None:
        why = (
            _("choose what to change")
            if "action" in form.errors
            else _("that member is not in this club; reload the page")
        )
        return _club_page(request, club, 400, member_error=why)
    action = form.cleaned_data["action"]
    try:
        if action == "join":
            m = services.add_member(club, m.player, actor=request.user)
            notice = _("{player} is a member of {club}.").format(
                player=m.player.name, club=club.name
            )
        else:
            m = services.update_member(m, actor=request.user, active=action == "activate")
            notice = (_("{player} is active.") if m.active else _("{player} is lapsed.")).format(
                player=m.player.name
            )
    except ServiceError as exc:
        return _club_page(request, club, 400, member_error=exc.message, member_error_for=m.pk)
    return _club_done(request, club, notice)


# ----------------------------------------------------------------------- seasons


def describe_rule(season: Season) -> str:
    """The season's scoring in words: its preset's description, or the configured points."""
    if season.preset in PRESETS:
        return selectors.preset_words(season.preset)
    return selectors.rule_words(Rule.from_dict(season.rule))


def _seasons_context(club: Club, **extra: Any) -> dict[str, Any]:
    seasons = list(Season.objects.filter(club=club).order_by("-start_date"))
    return {
        "club": club,
        "links": club_links(club),
        "rows": [{"season": s, "rule": describe_rule(s)} for s in seasons],
        "form": form if (form := extra.pop("form", None)) is not None else SeasonForm(),
        "presets": selectors.preset_list(),
        "urls": {"create": reverse("clubs:seasons", args=[club.slug])},
        **extra,
    }


def _season_fields(form: SeasonForm) -> dict[str, Any]:
    data = form.cleaned_data
    return {
        "name": data["name"],
        "start_date": data["start_date"],
        "end_date": data["end_date"],
        "preset": data["preset"],
        "rule": form.rule(),
    }


def _seasons_done(request: HttpRequest, club: Club, notice: str) -> HttpResponse:
    return _done(
        request,
        reverse("clubs:seasons", args=[club.slug]),
        notice,
        lambda text: _page(request, "seasons", _seasons_context(club, notice=text)),
    )


@organiser_required
@GET_POST
def seasons(request: HttpRequest, club: Club) -> HttpResponse:
    """The club's seasons; a post creates one."""
    if request.method != "POST":
        return _page(request, "seasons", _seasons_context(club))
    form = SeasonForm(request.POST)
    if not form.is_valid():
        return _page(request, "seasons", _seasons_context(club, form=form), 400)
    try:
        season = services.create_season(club, actor=request.user, **_season_fields(form))
    except ServiceError as exc:
        refuse(form, exc)
        return _page(request, "seasons", _seasons_context(club, form=form), 400)
    return _seasons_done(request, club, _("Season {season} created.").format(season=season.name))


def _season(club: Club, pk: int) -> Season:
    return get_object_or_404(Season, club=club, pk=pk)


def _season_page(
    request: HttpRequest,
    club: Club,
    season: Season,
    form: SeasonForm | None = None,
    status: int = 200,
    panel_error: str = "",
) -> HttpResponse:
    context = {
        "panel_error": panel_error,
        "club": club,
        "links": club_links(club),
        "season": season,
        "rule": describe_rule(season),
        "form": SeasonForm.for_season(season) if form is None else form,
        "presets": selectors.preset_list(),
        "urls": {
            "edit": reverse("clubs:season_edit", args=[club.slug, season.pk]),
            "archive": reverse("clubs:season_archive", args=[club.slug, season.pk]),
        },
    }
    return _page(request, "season", context, status)


@organiser_required
@GET_POST
def season_edit(request: HttpRequest, club: Club, season: int) -> HttpResponse:
    """One season: change its name, dates or scoring (an archived one only shows)."""
    s = _season(club, season)
    if request.method != "POST":
        return _season_page(request, club, s)
    form = SeasonForm(request.POST)
    if not form.is_valid():
        return _season_page(request, club, s, form, 400)
    try:
        s = services.update_season(s, actor=request.user, **_season_fields(form))
    except ServiceError as exc:
        if exc.field not in form.fields:  # about the season itself (archived): above the form
            return _season_page(request, club, s, form, 400, panel_error=exc.message)
        refuse(form, exc)
        return _season_page(request, club, s, form, 400)
    messages.success(request, _("Season {season} saved.").format(season=s.name))
    url = reverse("clubs:seasons", args=[club.slug])
    return HttpResponseClientRedirect(url) if _htmx(request) else redirect(url)


@organiser_required
@require_POST
def season_archive(request: HttpRequest, club: Club, season: int) -> HttpResponse:
    """End a season: its awards are computed once and kept with it."""
    s = _season(club, season)
    # a button, no typed input: archived already (409) is answered by the web face's one
    # place for refusals (tournament/web/refusals.py), an alert on the page under htmx
    s = services.archive_season(s, actor=request.user)
    return _seasons_done(
        request, club, _("Season {season} archived with its awards.").format(season=s.name)
    )


urlpatterns: list[URLPattern] = [
    path("new/", club_new, name="new"),
    path("mine/", clubs_mine, name="mine"),
    path("<slug:slug>/manage/", manage, name="manage"),
    path("join/<str:token>/", join, name="join"),
    path("<slug:slug>/manage/organisers/invite/", organiser_invite, name="organiser_invite"),
    path(
        "<slug:slug>/manage/organisers/invite/revoke/",
        organiser_invite_revoke,
        name="organiser_invite_revoke",
    ),
    path("<slug:slug>/manage/organisers/remove/", organiser_remove, name="organiser_remove"),
    path("<slug:slug>/manage/members/search/", member_search, name="member_search"),
    path("<slug:slug>/manage/members/add/", member_add, name="member_add"),
    path("<slug:slug>/manage/members/change/", member_change, name="member_change"),
    path("<slug:slug>/seasons/manage/", seasons, name="seasons"),
    path("<slug:slug>/seasons/manage/<int:season>/", season_edit, name="season_edit"),
    path(
        "<slug:slug>/seasons/manage/<int:season>/archive/",
        season_archive,
        name="season_archive",
    ),
]
