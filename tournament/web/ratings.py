"""Public rating lists and player profiles: read-only pages anyone may open on a phone.

/ratings/ lists every rating list (all are public); /ratings/LIST/ is one list, searchable,
filtered by club, country and class, paginated, and downloadable as CSV. /players/?q= finds a
player; /players/ID/ is their profile (ratings and ranks, a rating chart drawn on the server,
events with records and performance ratings, records, upcoming entries) and
/players/ID/vs/ID/ a head-to-head. Reads go through ratings.selectors; nothing here writes.

Bad input never costs a 500: an unknown list or player is a 404 that says what was not found,
a malformed page number or query string a 400 that says what to send instead. Email and phone
are never read for these pages.
"""

from __future__ import annotations

import csv
import datetime
from collections.abc import Iterator

from django.contrib import messages
from django.core.paginator import EmptyPage, Page, Paginator
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, path, reverse
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST, require_safe

from ratings import selectors
from ratings.chart import rating_chart
from ratings.models import RatingList

from ..cache import site_page
from ..errors import ServiceError
from ..formats.csvcell import csv_cell
from ..models import Player
from ..selectors.photos import approved_photo, public_photo
from ..services.online_entries import speaks_for
from ..services.photos import MAX_PHOTO_BYTES, submit_photo_for_account
from .ratelimit import heavy

LIST_PAGE = 100
EVENTS_PAGE = 20
H2H_PAGE = 100
ACTIVE_DAYS = 365  # "active": rated at an event of the list within 12 months
MAX_QUERY = 100  # characters in a search or filter value
CSV_CHUNK = 2000


class BadRequest(Exception):
    """A query string the page cannot answer; the message says what to send instead."""


def _refuse(request: HttpRequest, message: str, status: int) -> HttpResponse:
    heading = _("Not found") if status == 404 else _("That did not work")
    return render(
        request, "tournament/error.html", {"message": message, "heading": heading}, status=status
    )


def _text(request: HttpRequest, name: str) -> str:
    """One search or filter value, stripped; control characters and overlong values refused
    (NUL is not storable text on PostgreSQL and means nothing in a name)."""
    value = request.GET.get(name, "").strip()
    if len(value) > MAX_QUERY:
        raise BadRequest(f"{name}: at most {MAX_QUERY} characters, please")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise BadRequest(f"{name}: control characters are not part of any name")
    return value


def _page(request: HttpRequest, paginator: Paginator) -> Page:
    raw = request.GET.get("page", "1").strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9 or int(raw) < 1:
        raise BadRequest(f"page={raw[:20]!r}: give a page number from 1 to {paginator.num_pages}")
    try:
        return paginator.page(int(raw))
    except EmptyPage:
        raise BadRequest(
            f"page {int(raw)}: there {'is' if paginator.num_pages == 1 else 'are'} "
            f"{paginator.num_pages} page{'s' if paginator.num_pages != 1 else ''}"
        ) from None


def _player_id(raw: str) -> int | None:
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18 or int(raw) < 1:
        return None
    return int(raw)


# --- rating lists ---------------------------------------------------------------------------


@csrf_exempt
@require_safe
@site_page("rating_lists")
def rating_lists(request: HttpRequest) -> HttpResponse:
    return render(request, "ratings/lists.html", {"lists": selectors.list_summaries()})


def _list_and_filters(
    request: HttpRequest, slug: str
) -> tuple[RatingList | None, selectors.ListFilters]:
    lst = RatingList.objects.filter(slug=slug).first()
    active = _text(request, "active")
    if active not in ("", "1", "on"):
        raise BadRequest(f"active={active[:20]!r}: give active=1 for players rated in 12 months")
    filters = selectors.ListFilters(
        q=_text(request, "q"),
        club=_text(request, "club"),
        country=_text(request, "country"),
        player_class=_text(request, "class"),
        lexicon=_text(request, "lexicon"),
        active_since=datetime.date.today() - datetime.timedelta(days=ACTIVE_DAYS)
        if active
        else None,
    )
    return lst, filters


def _unknown_list(request: HttpRequest, slug: str) -> HttpResponse:
    names = ", ".join(RatingList.objects.values_list("slug", flat=True)) or "none yet"
    return _refuse(
        request,
        _("There is no rating list {slug} (lists: {names}).").format(slug=repr(slug), names=names),
        404,
    )


def _check_club(lst: RatingList, filters: selectors.ListFilters, clubs: list) -> None:
    if filters.club and filters.club not in {s for s, _ in clubs}:
        raise BadRequest(f"club={filters.club!r}: no club of that name has players on {lst.name}")


@csrf_exempt
@require_safe
@site_page("rating_list")
def rating_list(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        lst, filters = _list_and_filters(request, slug)
        if lst is None:
            return _unknown_list(request, slug)
        choices = selectors.list_choices(lst)
        _check_club(lst, filters, choices["clubs"])
        paginator = Paginator(selectors.rating_ids(lst, filters), LIST_PAGE)
        page = _page(request, paginator)
    except BadRequest as exc:
        return _refuse(request, str(exc), 400)
    ratings = selectors.rating_page(list(page.object_list))
    rank = selectors.ranks(lst, [r.rating for r in ratings])
    last = selectors.last_events(lst, [r.player_id for r in ratings])
    rows = []
    for r in ratings:  # plain dicts: a hundred rows of model lookups cost the template more
        h = last.get(r.player_id)
        change = h.after - h.before if h is not None and h.before else None
        rows.append(
            {
                "rank": rank.get(r.rating),
                "id": r.player_id,
                "name": r.player.name,
                "country": r.player.country,
                "rating": r.rating,
                "deviation": "" if r.deviation is None else f"±{r.deviation:.0f}",
                "games": "" if r.rated_games is None else r.rated_games,
                "event": h.event.name if h else "",
                "date": h.event.date.isoformat() if h else "",
                "change": "" if change is None else f"{change:+d}",
                "trend": "" if not change else (" up" if change > 0 else " down"),
            }
        )
    query = request.GET.copy()
    query.pop("page", None)
    glicko = lst.system == "glicko2"
    return render(
        request,
        "ratings/list.html",
        {
            "list": lst,
            "rows": rows,
            # the rows as HTML built here: the template's loop over a hundred rows was half the
            # page's time on a 30,000-player list (the rating page's 50 ms budget)
            "rows_html": mark_safe(  # noqa: S308 - every value is escaped by list_rows_html
                list_rows_html(rows, reverse("players:search"), glicko)
            ),
            "page": page,
            "filters": filters,
            "clubs": choices["clubs"],
            "deviation": glicko,
            "query": query.urlencode(),
            "players_root": reverse("players:search"),  # rows link to players_root + id
            "filtered": any(
                [
                    filters.q,
                    filters.club,
                    filters.country,
                    filters.player_class,
                    filters.lexicon,
                    filters.active_since,
                ]
            ),
        },
    )


def list_rows_html(rows: list[dict], players_root: str, deviation: bool) -> str:
    """A rating list page's table rows (``rating_list``'s dicts), every value escaped."""
    out = []
    for r in rows:
        country = f' <span class="muted wide">{escape(r["country"])}</span>' if r["country"] else ""
        event = (
            f'{escape(r["event"])} <span class="muted">{escape(r["date"])}</span>'
            if r["event"]
            else ""
        )
        cells = [
            f'<td class="num">{escape(r["rank"] or "")}</td>',
            f'<td><a href="{players_root}{r["id"]}/">{escape(r["name"])}</a>{country}</td>',
            f'<td class="num">{r["rating"]}</td>',
        ]
        if deviation:
            cells.append(f'<td class="num">{escape(r["deviation"])}</td>')
        cells += [
            f'<td class="num wide">{escape(r["games"])}</td>',
            f'<td class="wide">{event}</td>',
            f'<td class="num{r["trend"]}">{escape(r["change"])}</td>',
        ]
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "\n".join(out)


class _Echo:
    def write(self, value: str) -> str:
        return value


@csrf_exempt
@require_safe
@heavy
def rating_list_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The whole filtered list as CSV, streamed in chunks (a 30,000-player list stays small
    in memory)."""
    try:
        lst, filters = _list_and_filters(request, slug)
        if lst is None:
            return _unknown_list(request, slug)
        _check_club(lst, filters, selectors.list_choices(lst)["clubs"])
    except BadRequest as exc:
        return _refuse(request, str(exc), 400)
    glicko = lst.system == "glicko2"
    header = ["rank", "name", "country", "rating"]
    header += ["deviation"] if glicko else []
    header += ["rated games", "last event", "last event date", "change"]
    ids = list(selectors.rating_ids(lst, filters))

    def rows() -> Iterator[str]:
        writer = csv.writer(_Echo())
        yield writer.writerow(header)
        start = 0
        while start < len(ids):
            chunk = selectors.rating_page(ids[start : start + CSV_CHUNK])
            start += CSV_CHUNK
            rank = selectors.ranks(lst, [r.rating for r in chunk])
            last = selectors.last_events(lst, [r.player_id for r in chunk])
            for r in chunk:
                h = last.get(r.player_id)
                cells = [rank.get(r.rating), r.player.name, r.player.country, r.rating]
                if glicko:
                    cells.append(round(r.deviation) if r.deviation is not None else None)
                cells += [
                    r.rated_games,
                    h.event.name if h else None,
                    h.event.date.isoformat() if h else None,
                    h.after - h.before if h and h.before else None,
                ]
                yield writer.writerow([csv_cell(c) for c in cells])

    response = StreamingHttpResponse(rows(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{lst.slug}-ratings.csv"'
    return response


# --- players --------------------------------------------------------------------------------


@csrf_exempt
@require_safe
def player_search(request: HttpRequest) -> HttpResponse:
    """Players whose name contains ``q``; with ``vs=ID`` each match links to a head-to-head
    with that player (the profile's "games against" box)."""
    try:
        q = _text(request, "q")
        vs = None
        raw_vs = _text(request, "vs")
        if raw_vs:
            pid = _player_id(raw_vs)
            vs = selectors.public_player(pid) if pid is not None else None
            if vs is None:
                raise BadRequest(f"vs={raw_vs[:30]!r}: there is no such player")
    except BadRequest as exc:
        return _refuse(request, str(exc), 400)
    found = selectors.search_players(q) if q else []
    more = len(found) > 100
    return render(
        request,
        "players/search.html",
        {"q": q, "vs": vs, "players": found[:100], "more": more},
    )


def _unknown_player(request: HttpRequest, raw: str) -> HttpResponse:
    return _refuse(
        request,
        _("There is no player {player} on any public page.").format(player=repr(raw[:30])),
        404,
    )


@csrf_exempt
@require_safe
@site_page("profile")
def player_profile(request: HttpRequest, player_id: str) -> HttpResponse:
    pid = _player_id(player_id)
    player = selectors.public_player(pid) if pid is not None else None
    if player is None:
        return _unknown_player(request, player_id)
    try:
        paginator = Paginator(selectors.history_ids(pid), EVENTS_PAGE)
        page = _page(request, paginator)
    except BadRequest as exc:
        return _refuse(request, str(exc), 400)
    chart = rating_chart(
        selectors.chart_series(pid), title=_("Rating history of {name}").format(name=player.name)
    )
    today = datetime.date.today()
    live = {e.pk: e for e in selectors.live_entries(pid, today)}  # not also "upcoming"
    return render(
        request,
        "players/profile.html",
        {
            "player": player,
            "ratings": selectors.player_ratings(pid),
            "chart": mark_safe(chart),  # noqa: S308 - rating_chart escapes every text itself
            "page": page,
            "events": selectors.event_rows(pid, selectors.history_page(list(page.object_list))),
            "records": selectors.player_records(pid),
            "upcoming": [e for e in selectors.upcoming_entries(pid, today) if e.pk not in live],
            "live": list(live.values()),
            "photo": approved_photo(pid),
            # the upload form, for the account that speaks for this player (never cached:
            # site_page caches anonymous visitors' pages only)
            "may_send_photo": request.user.is_authenticated
            and speaks_for(request.user, Player.objects.only("email").get(pk=pid)),
            "photo_max_kb": MAX_PHOTO_BYTES // 1024,
        },
    )


@require_POST
def send_photo(request: HttpRequest, player_id: str) -> HttpResponse:
    """A signed-in player sends their own photo; it waits for a director's approval."""
    pid = _player_id(player_id)
    player = Player.objects.filter(pk=pid).first() if pid is not None else None
    if player is None or selectors.public_player(pid) is None:
        return _unknown_player(request, player_id)
    upload = request.FILES.get("photo")
    # a refusal (not your player: 403; no file, a bad one: 400) is the refusal page of
    # tournament/web/refusals.py, with a way back to the profile
    if upload is None:
        raise ServiceError("setup_required", field="photo", what="the photo file")
    submit_photo_for_account(
        request.user, player, upload.read(MAX_PHOTO_BYTES + 1), file_name=upload.name or ""
    )
    messages.success(request, _("Your photo is sent: it shows once a director approves it."))
    return redirect("players:profile", pid)


@require_safe
def photo(request: HttpRequest, photo_id: int, ext: str) -> HttpResponse:
    """An approved photo; a pending, refused or replaced one is not found."""
    found = public_photo(photo_id)
    if found is None or ext != found.extension:
        return _refuse(request, _("There is no such photo."), 404)
    response = HttpResponse(bytes(found.image), content_type=found.content_type)
    # its id names one image: a replaced photo is a new address, so a day's caching is safe
    response["Cache-Control"] = "public, max-age=86400"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@csrf_exempt
@require_safe
@site_page("head_to_head")
def head_to_head(request: HttpRequest, player_id: str, other_id: str) -> HttpResponse:
    a, b = _player_id(player_id), _player_id(other_id)
    pa = selectors.public_player(a) if a is not None else None
    if pa is None:
        return _unknown_player(request, player_id)
    pb = selectors.public_player(b) if b is not None else None
    if pb is None:
        return _unknown_player(request, other_id)
    if a == b:
        return _refuse(request, "A head-to-head needs two different players.", 400)
    h2h = selectors.head_to_head(a, b)
    # the record counts every game; the table shows them newest first, H2H_PAGE a page (two
    # players who met 2,000 times made a page of 2,000 rows)
    try:
        page = _page(request, Paginator(h2h.games[::-1], H2H_PAGE))
    except BadRequest as exc:
        return _refuse(request, str(exc), 400)
    links: dict[tuple[str, str], str] = {}
    for g in page.object_list:  # reversed once per division, not once per game
        key = (g.tournament_slug, g.division_slug)
        if g.tournament_slug and key not in links:
            try:
                links[key] = reverse("public:standings", args=key)
            except NoReverseMatch:
                links[key] = ""
        g.link = links.get(key, "")
        if g.record_board is not None and g.link:
            g.record_link = reverse("public:game", args=(*key, g.round, g.record_board))
    return render(
        request,
        "players/vs.html",
        {
            "player": pa,
            "other": pb,
            "h2h": h2h,
            "page": page,
            "last": h2h.games[-1] if h2h.games else None,
        },
    )


list_patterns = [
    path("", rating_lists, name="lists"),
    path("<str:slug>/", rating_list, name="list"),
    path("<str:slug>/ratings.csv", rating_list_csv, name="csv"),
]

player_patterns = [
    path("", player_search, name="search"),
    path("photos/<int:photo_id>.<str:ext>", photo, name="photo"),
    path("<str:player_id>/photo/", send_photo, name="send_photo"),
    path("<str:player_id>/", player_profile, name="profile"),
    path("<str:player_id>/vs/<str:other_id>/", head_to_head, name="vs"),
]
