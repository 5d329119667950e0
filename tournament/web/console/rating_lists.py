"""/console/rating-lists/: open a rating list and load its starting ratings, without the admin.

A director seeding an event from NASPA's ratings file needs a list to hold them; before this
page only the admin could open one. Opening is a site administrator's right
(``ratings.add_ratinglist``: superusers, or an account granted it), and the opener becomes the
list's first officer; loading starting ratings is each list's officers' (the same services as
``manage.py import_ratings``, audited). Everyone signed in sees the lists they keep.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import URLPattern, path
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from ratings.engine import RatingError
from ratings.models import RatingList
from ratings.services import import_ratings, open_rating_list
from tournament.access import can_open_rating_list
from tournament.errors import ServiceError

from ..forms.rating_lists import LoadRatingsForm, OpenListForm

# a ratings file is a few MB at most (NASPA's whole list is ~1 MB); the upload limit of the
# site (GIBSON_MAX_UPLOAD_MB) already refuses a larger request before it is read


def _kept(user: Any) -> list[RatingList]:
    lists = RatingList.objects.order_by("name")
    if not user.is_superuser:
        lists = lists.filter(officers=user)
    return list(lists.filter(club__isnull=True))


def _decode(data: bytes) -> str:
    """UTF-8 (with or without a byte-order mark), else Latin-1: as import_ratings_file reads."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


@never_cache
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def rating_lists(request: HttpRequest) -> HttpResponse:
    user = request.user
    may_open = can_open_rating_list(user)
    open_form = OpenListForm(prefix="open") if may_open else None
    load_form = LoadRatingsForm(prefix="load")
    context: dict[str, Any] = {"may_open": may_open, "done": "", "error": "", "failed": ""}
    status = 200
    if request.method == "POST":
        action = request.POST.get("action", "")
        try:
            if action == "open":
                open_form = OpenListForm(request.POST, prefix="open")
                if not open_form.is_valid():
                    raise RatingError(_("the new list's form has errors: see below"))
                data = open_form.cleaned_data
                lst = open_rating_list(
                    data["name"],
                    system=data["system"],
                    start_date=data["start_date"],
                    description=data["description"],
                    actor=user,
                )
                context["done"] = _("Rating list {name} opened: you are its officer.").format(
                    name=lst.name
                )
                open_form = OpenListForm(prefix="open")
            elif action == "load":
                context["failed"] = slug = request.POST.get("list", "")
                lst = next((x for x in _kept(user) if x.slug == slug), None)
                if lst is None:
                    raise RatingError(_("you keep no rating list {slug}").format(slug=repr(slug)))
                load_form = LoadRatingsForm(request.POST, request.FILES, prefix="load")
                if not load_form.is_valid():
                    raise RatingError(_("choose a ratings file to load"))
                upload = load_form.cleaned_data["ratings_file"]
                summary = import_ratings(
                    lst, _decode(upload.read()), source=upload.name, actor=user
                )
                context["done"] = _("{name}: {rows} ratings loaded, {created} new players.").format(
                    name=lst.name, rows=summary["rows"], created=summary["players_created"]
                )
                context["failed"] = ""
                load_form = LoadRatingsForm(prefix="load")
            else:
                raise RatingError(_("choose open or load"))
        except (RatingError, ServiceError) as exc:
            context["error"] = str(exc)
            status = 403 if getattr(exc, "code", "") == "not_allowed" else 400
    context.update(open_form=open_form, load_form=load_form, lists=_kept(user))
    return render(request, "console/rating_lists.html", context, status=status)


urlpatterns: list[URLPattern] = [path("", rating_lists, name="rating_lists")]
