"""Club pages: nights. Starting a night, running it, the venue's screen and the list of nights.

A night is a one-division tournament owned by the club (tournament.clubs.models.Night), so
these pages are a club organiser's short way through what the console already does: tick who
is here and the night is created with its numbers; "Draw game N" pairs the next game with the
night's scheduled draw; results are typed in one box as in the console (``3 412 389``), or by
names (``ann 412 bob 389``, ``ann 412 389``) since a club knows its players by name; a game
played without a draw is logged for the two; the night is closed (rated, counted for the
season) and may be reopened with a reason. Printing, exports and the full console stay where
they are and are linked.

Organisers only (``organiser_required``), except the screen at the venue and the list of
nights, which anyone may see. Every write goes through tournament.clubs.services and
tournament.services; a refusal is shown at its field with status 400 (an htmx request gets the
fragment) and writes nothing.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.db.models import Count, F, Max, Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from tournament.errors import ServiceError
from tournament.languages import lang_query
from tournament.refusals import refuse

from ...models import Club, Division, First, Game, Membership
from ...scoreline import FORFEIT, FORMS, MAX_SCORE
from ...selectors import division_standings
from ...services.results import Entered, correct_result, enter_line, resolve_line
from ...web.echo import game_echo, line_echo, record_echo
from ...web.errors import busy_refusal
from .. import services as club_services
from ..models import Draw, Night
from .permissions import can_organise, organiser_required

# The federation rates club events of this many players or more; a smaller night is not
# offered the all.tsh export (desk.export_file would still write it, but it would be refused).
TSH_MIN_PLAYERS = club_services.FEDERATION_MIN_PLAYERS
TSH_REASON = gettext_lazy("the federation rates club events of {players} or more players")
SCREEN_REFRESH_SECONDS = 15
# The draws' names as an organiser reads them (the model's labels are English; these are the
# same words, translated).
DRAW_LABELS = {
    Draw.RANDOM.value: pgettext_lazy("a night's draw", "random"),
    Draw.KOTH.value: gettext_lazy("winners play winners (King of the Hill)"),
    Draw.SWISS.value: pgettext_lazy("a night's draw", "Swiss"),
    Draw.RR.value: gettext_lazy("round robin"),
    Draw.RATING.value: gettext_lazy("by rating (first game: strongest play each other)"),
}
DRAW_CHOICES = [(d.value, DRAW_LABELS.get(d.value, d.label)) for d in Draw]
LINE_HELP = gettext_lazy(
    "By number: 3 412 389 (player 3 scored 412, their opponent 389), 3 412 17 389, "
    "b2 412 389 (board 2, first player's score first), 3 f (forfeit). By name: ann 412 bob 389 "
    "or ann 412 389; the start of a name is enough when it fits one player."
)


# --------------------------------------------------------------------------- forms


class NightForm(forms.Form):
    """Who is here tonight, how many games and how each is drawn, and the date."""

    players = forms.TypedMultipleChoiceField(
        label=gettext_lazy("Members here"),
        coerce=int,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        error_messages={
            "invalid_choice": gettext_lazy("%(value)s is not an active member of the club")
        },
    )
    guests = forms.CharField(
        label=gettext_lazy("Guests"),
        required=False,
        max_length=3000,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": gettext_lazy("one name a line")}),
        help_text=gettext_lazy("one name a line"),
    )
    games = forms.IntegerField(
        label=gettext_lazy("Games"),
        initial=3,
        min_value=1,
        max_value=club_services.MAX_NIGHT_GAMES,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    draw = forms.MultipleChoiceField(
        label=pgettext_lazy("how a game is paired", "Draw"),
        choices=DRAW_CHOICES,
        required=False,
        help_text=gettext_lazy("one draw a game; later games repeat the last one"),
    )
    date = forms.DateField(
        label=gettext_lazy("Date"),
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"invalid": gettext_lazy("give the date as YYYY-MM-DD")},
    )

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.members = list(
            Membership.objects.filter(club=club, active=True, guest=False)
            .select_related("player")
            .order_by("player__name")
        )
        self.fields["players"].choices = [(m.player_id, m.player.name) for m in self.members]
        self.fields["date"].initial = timezone.localdate

    def guest_names(self) -> list[str]:
        return [
            " ".join(line.split())
            for line in self.cleaned_data.get("guests", "").splitlines()
            if line.strip()
        ]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        ticked = {m.player_id: m.player.name for m in self.members}
        names = {ticked[p].casefold(): ticked[p] for p in data.get("players", []) if p in ticked}
        if "guests" in data:
            for guest in self.guest_names():
                if guest.casefold() in names:
                    self.add_error(
                        "guests",
                        _("{name} is ticked as a member; leave them out of the guests").format(
                            name=names[guest.casefold()]
                        ),
                    )
                    break
        return data

    def draw_slots(self) -> list[dict[str, Any]]:
        """One select a game (at least 3), each with its chosen draw: random, then koth."""
        chosen = self["draw"].value() or []
        if isinstance(chosen, str):
            chosen = [chosen]
        try:
            count = int(self["games"].value() or 3)
        except (TypeError, ValueError):
            count = 3
        count = max(3, min(count, club_services.MAX_NIGHT_GAMES), len(chosen))
        count = min(count, club_services.MAX_NIGHT_GAMES)
        default = [Draw.RANDOM.value] + [Draw.KOTH.value] * (count - 1)
        return [
            {"game": i + 1, "value": chosen[i] if i < len(chosen) else default[i]}
            for i in range(count)
        ]


class LineForm(forms.Form):
    """The night's one result box: the console's line, with names allowed for numbers."""

    line = forms.CharField(
        label=gettext_lazy("Result"),
        max_length=200,
        error_messages={
            "required": format_lazy(
                gettext_lazy("type a result, e.g. {forms} or ann 412 bob 389"), forms=FORMS
            )
        },
        widget=forms.TextInput(
            attrs={
                "autofocus": True,
                "autocomplete": "off",
                "autocapitalize": "off",
                "autocorrect": "off",
                "spellcheck": "false",
                "enterkeyhint": "enter",
                "list": "night-names",
                "aria-describedby": "line-help id_line_error",
            }
        ),
    )
    # a correction (a reopened night's wrong result): the reason goes to the audit trail
    reason = forms.CharField(
        label=gettext_lazy("Correction reason"),
        max_length=300,
        required=False,
        help_text=gettext_lazy("only to change a result already recorded"),
        widget=forms.TextInput(attrs={"id": "id_correction_reason", "autocomplete": "off"}),
    )
    game = forms.IntegerField(
        label=gettext_lazy("Game"),
        min_value=1,
        max_value=99,
        required=False,
        help_text=gettext_lazy("blank: the current one"),
        widget=forms.NumberInput(attrs={"id": "id_correction_game", "style": "width:4rem"}),
    )


def _score_field(label: Any) -> forms.IntegerField:
    return forms.IntegerField(
        label=label,
        min_value=0,
        max_value=MAX_SCORE,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
        error_messages={
            "min_value": format_lazy(gettext_lazy("a score is 0..{max}"), max=MAX_SCORE),
            "max_value": format_lazy(gettext_lazy("a score is 0..{max}"), max=MAX_SCORE),
        },
    )


class LogForm(forms.Form):
    """A game played without a draw: both players (number or name) and both scores."""

    player = forms.CharField(
        label=gettext_lazy("Player"),
        max_length=200,
        widget=forms.TextInput(attrs={"list": "night-names"}),
    )
    score = _score_field(gettext_lazy("Score"))
    opponent = forms.CharField(
        label=gettext_lazy("Opponent"),
        max_length=200,
        widget=forms.TextInput(attrs={"list": "night-names"}),
    )
    opp_score = _score_field(gettext_lazy("Opponent's score"))


class LatecomerForm(forms.Form):
    """A player who came after the draw: the next number, no games before they came."""

    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=200,
        widget=forms.TextInput(attrs={"list": "club-names"}),
    )
    guest = forms.BooleanField(label=gettext_lazy("guest (not a member)"), required=False)


class ReopenForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        max_length=500,
        error_messages={"required": gettext_lazy("say why the night is reopened")},
    )


# --------------------------------------------------------------------------- helpers


def _night(club: Club, number: int) -> Night:
    """The club's night by id; another club's night is not found here (404)."""
    return get_object_or_404(
        Night.objects.select_related("tournament", "club"), pk=number, club=club
    )


def _division(night: Night) -> Division:
    return night.tournament.divisions.get()


_SCORE_TOKEN = re.compile(r"[+-]?[0-9]+\Z")
_BOARD_TOKEN = re.compile(r"b[0-9]+\Z", re.IGNORECASE)


def numbered_line(division: Division, text: str) -> str:
    """The typed line with every name replaced by its player's number, for the console's
    parser: ``ann 412 bob 389`` -> ``3 412 17 389``, ``ann lee 412 389`` -> ``3 412 389``,
    ``ann f`` -> ``3 f``. Numbers, a board (``b2``) and a final ``f`` are kept as typed; a
    name resolves as in log_game (whole name, or the start of one that fits one player)."""
    tokens = " ".join(str(text).split()).split(" ")
    if tokens == [""]:
        return ""
    out: list[str] = []
    name: list[str] = []

    def flush() -> None:
        if name:
            entry = club_services.night_entry(division, " ".join(name), "line")
            out.append(str(entry.number))
            name.clear()

    last = len(tokens) - 1
    for i, token in enumerate(tokens):
        forfeit = i == last and i > 0 and token.lower() in ("f", "forfeit")
        if _SCORE_TOKEN.match(token) or forfeit or (i == 0 and _BOARD_TOKEN.match(token)):
            flush()
            out.append(token)
        else:
            name.append(token)
    flush()
    return " ".join(out)


def _missing(division: Division) -> list[Game]:
    """Games drawn without their result yet (a bye has its score when paired)."""
    return list(
        Game.objects.filter(round__division=division, score1__isnull=True)
        .select_related("round", "player1__player", "player2__player")
        .order_by("round__number", F("board").asc(nulls_last=True), "id")
    )


def _seats(game: Game) -> dict[str, Any]:
    """Who goes first and second at a board (player1 first when unknown, flagged)."""
    one, two = game.player1, game.player2
    known = game.first in (First.PLAYER1, First.PLAYER2)
    if game.first == First.PLAYER2:
        one, two = two, one
    return {"game": game, "first": one, "second": two, "known": known and two is not None}


def _round_games(division: Division, number: int) -> list[dict[str, Any]]:
    if not number:
        return []
    games = (
        Game.objects.filter(round__division=division, round__number=number)
        .select_related("player1__player", "player2__player")
        .order_by(F("board").asc(nulls_last=True), "id")
    )
    return [_seats(g) for g in games]


def _draw_block(night: Night, number: int, missing: list) -> str:
    """Why another game cannot be drawn now ("" when it can)."""
    if night.closed:
        return _("the night is closed; reopen it to draw another game")
    if missing:
        return _("game {number} still has {missing} result(s) missing; enter them first").format(
            number=number, missing=len(missing)
        )
    if number + 1 > club_services.MAX_NIGHT_GAMES:
        return _("a night has at most {games} games").format(games=club_services.MAX_NIGHT_GAMES)
    return ""


def _run_context(request: HttpRequest, club: Club, night: Night, **extra: Any) -> dict[str, Any]:
    division = _division(night)
    tournament = night.tournament
    number = club_services.current_round(division)
    rows = {r.number: r for r in division_standings(division)}
    entries = list(division.entries.select_related("player").order_by("number"))
    players = [
        {"number": e.number, "name": e.name, **record_echo(rows.get(e.number))} for e in entries
    ]
    missing = _missing(division)
    draws = night.draws()
    next_game = number + 1
    next_draw = draws[min(next_game, len(draws)) - 1]
    draw_block = _draw_block(night, number, missing)
    report = reverse("desk:report", args=[tournament.slug, division.slug])
    members = (
        Membership.objects.filter(club=club, active=True)
        .exclude(player__entries__division=division)
        .values_list("player__name", flat=True)
        .order_by("player__name")
    )
    base = reverse("clubs:night", args=[club.slug, night.pk])
    ctx: dict[str, Any] = {
        "club": club,
        "night": night,
        "tournament": tournament,
        "division": division,
        "round": number,
        "games": _round_games(division, number),
        "players": players,
        "missing": missing,
        "current_missing": sum(1 for g in missing if g.round.number == number),
        "next_game": next_game,
        "next_draw": dict(DRAW_CHOICES).get(next_draw, next_draw),
        "planned": night.games,
        "draw_block": draw_block,
        "club_names": list(members),
        "help": LINE_HELP,
        "urls": {
            "run": base,
            "line": base + "results/",
            "draw": base + "draw/",
            "log": base + "log/",
            "latecomer": base + "players/",
            "close": base + "close/",
            "reopen": base + "reopen/",
            "delete": base + "delete/",
            "screen": base + "screen/",
            "pairings_pdf": f"{report}?kind=pairings&round={number}" if number else "",
            "scorecards_pdf": f"{report}?kind=scorecards",
            "standings": reverse("public:standings", args=[tournament.slug, division.slug]),
            "console": reverse("console:home", args=[tournament.slug]),
            "console_results": reverse(
                "console:results", args=[tournament.slug, division.slug, number]
            )
            if number
            else "",
            "tsh": reverse("desk:export", args=[tournament.slug, "all.tsh"])
            if len(entries) >= TSH_MIN_PLAYERS
            else "",
        },
        "tsh_reason": ""
        if len(entries) >= TSH_MIN_PLAYERS
        else _("No TSH export: {reason}, and this night has {players}.").format(
            reason=TSH_REASON.format(players=TSH_MIN_PLAYERS), players=len(entries)
        ),
        "line_form": LineForm(),
        "log_form": LogForm(),
        "latecomer_form": LatecomerForm(),
        "reopen_form": ReopenForm(),
        # a night nobody has played at yet can go (a double start, a wrong date)
        "can_delete": not night.closed and not club_services.night_has_play(night),
    }
    ctx.update(extra)
    return ctx


def _run_page(
    request: HttpRequest, club: Club, night: Night, *, status: int = 200, **extra: Any
) -> HttpResponse:
    """The run page, or its live part for htmx (the result box outside it keeps its focus)."""
    night.refresh_from_db()
    ctx = _run_context(request, club, night, **extra)
    template = "clubs/night_run_live.html" if request.htmx else "clubs/night_run.html"
    return render(request, template, ctx, status=status)


# --------------------------------------------------------------------------- organiser pages


@organiser_required
@require_http_methods(["GET", "HEAD", "POST"])
def night_new(request: HttpRequest, club: Club) -> HttpResponseBase:
    """Tick who is here (one tap a member), name the guests, choose games and draws."""
    form = NightForm(request.POST or None, club=club)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            data = form.cleaned_data
            try:
                with busy_refusal("players"):
                    night = club_services.create_night(
                        club,
                        date=data["date"],
                        players=data["players"],
                        guests=form.guest_names(),
                        games=data["games"],
                        draw=data["draw"] or "random,koth",
                        actor=request.user,
                    )
            except ServiceError as exc:
                refuse(form, exc)
            else:
                url = reverse("clubs:night", args=[club.slug, night.pk])
                if request.htmx:
                    response = HttpResponse(status=204)
                    response["HX-Redirect"] = url
                    return response
                return redirect(url)
    template = "clubs/night_new_form.html" if request.htmx else "clubs/night_new.html"
    return render(request, template, {"club": club, "form": form}, status=status)


@organiser_required
@require_http_methods(["GET", "HEAD"])
def night_run(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """The night as it is played: numbers, the current game, the result box, the rest."""
    return _run_page(request, club, _night(club, night))


def _correct(division: Division, number: int, line: str, reason: str, actor: Any) -> Entered:
    """Correct a recorded result of game ``number`` (a reopened night's mistake) with a reason,
    as the console's correction does: the same two players, new scores, audited."""
    target = resolve_line(division, number, line)
    game = target.game
    if target.line.kind == FORFEIT or target.score2 is None or not game.has_result:
        raise ServiceError(
            "no_result_to_correct",
            field="line",
            where=f"game {number}",
            number=game.player1.number,
        )
    game = correct_result(game, target.score1, target.score2, reason=reason, actor=actor)
    return Entered(target.line, "recorded", (game,))


@organiser_required
@require_POST
def night_line(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """One typed result for the current game, by numbers or by names."""
    n = _night(club, night)
    form = LineForm(request.POST)
    if not form.is_valid():
        return _run_page(request, club, n, status=400, line_form=form)
    division = _division(n)
    number = club_services.current_round(division)
    text = form.cleaned_data["line"]
    try:
        if n.closed:
            raise ServiceError("night_closed", date=n.date.isoformat(), club=club.name)
        if not number:
            raise ServiceError("round_not_paired", field="line", round=1, division=division.name)
        line = numbered_line(division, text)
        with busy_refusal("line"):
            reason = form.cleaned_data.get("reason") or ""
            if reason.strip():
                entered = _correct(
                    division, form.cleaned_data.get("game") or number, line, reason, request.user
                )
            else:
                entered = enter_line(division, number, line, actor=request.user)
    except ServiceError as exc:
        form.add_error("line", exc.message)
        return _run_page(request, club, n, status=400, line_form=form, refused_line=text)
    echo = line_echo(division, entered)
    echo["typed"] = text
    return _run_page(request, club, n, echo=echo)


@organiser_required
@require_POST
def night_draw(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """Draw the next game with the night's scheduled draw."""
    n = _night(club, night)
    try:
        with busy_refusal("draw"):
            drawn = club_services.pair_next_game(n, actor=request.user)
    except ServiceError as exc:
        return _run_page(request, club, n, status=400, draw_error=exc.message)
    return _run_page(request, club, n, drawn=drawn)


@organiser_required
@require_POST
def night_log(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """A game the two played without a draw, into the night's current game."""
    n = _night(club, night)
    form = LogForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            with busy_refusal("player"):
                game = club_services.log_game(
                    n,
                    player=data["player"],
                    opponent=data["opponent"],
                    score=data["score"],
                    opp_score=data["opp_score"],
                    actor=request.user,
                )
        except ServiceError as exc:
            refuse(form, exc)
        else:
            rows = {r.number: r for r in division_standings(_division(n))}
            echo = {"kind": "logged", "game_ids": [game.pk], **game_echo(game, rows)}
            return _run_page(request, club, n, echo=echo)
    return _run_page(request, club, n, status=400, log_form=form)


@organiser_required
@require_POST
def night_latecomer(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """A latecomer or a guest joins the night with the next number."""
    n = _night(club, night)
    form = LatecomerForm(request.POST)
    if form.is_valid():
        try:
            with busy_refusal("name"):
                entry = club_services.add_night_player(
                    n,
                    form.cleaned_data["name"],
                    guest=form.cleaned_data["guest"],
                    actor=request.user,
                )
        except ServiceError as exc:
            refuse(form, exc, "name")
        else:
            return _run_page(request, club, n, added=entry)
    return _run_page(request, club, n, status=400, latecomer_form=form)


@organiser_required
@require_POST
def night_close(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """Close the night: all results in; it is rated and counts for the season."""
    n = _night(club, night)
    try:
        with busy_refusal("close"):
            club_services.close_night(n, actor=request.user)
    except ServiceError as exc:
        return _run_page(request, club, n, status=400, close_error=exc.message)
    return _run_page(request, club, n, closed_now=True)


@organiser_required
@require_POST
def night_reopen(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """Reopen a closed night to correct it, with the reason kept in the audit trail."""
    n = _night(club, night)
    form = ReopenForm(request.POST)
    if form.is_valid():
        try:
            with busy_refusal("reason"):
                club_services.reopen_night(
                    n, actor=request.user, reason=form.cleaned_data["reason"]
                )
        except ServiceError as exc:
            form.add_error("reason", exc.message)
        else:
            return _run_page(request, club, n, reopened_now=True)
    return _run_page(request, club, n, status=400, reopen_form=form)


@organiser_required
@require_POST
def night_delete(request: HttpRequest, club: Club, night: int) -> HttpResponseBase:
    """Delete a night no game was played at (a double "Start the night", a wrong date)."""
    n = _night(club, night)
    try:
        with busy_refusal("close"):
            club_services.delete_night(n, actor=request.user)
    except ServiceError as exc:
        return _run_page(request, club, n, status=400, close_error=exc.message)
    url = reverse("clubs:nights", args=[club.slug])
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


# --------------------------------------------------------------------------- public pages


@require_GET
def night_screen(request: HttpRequest, slug: str, night: int) -> HttpResponseBase:
    """The current game's boards in very large type for a screen at the venue; htmx polls it
    every 15 seconds, so a new draw shows up without anyone touching the screen. It is the
    room's: in the night's tournament's language, which the language middleware activates
    (tournament/web/language.py) unless the address asks for another (``?lang=``)."""
    club = get_object_or_404(Club, slug=slug)
    return _night_screen(request, club, _night(club, night))


def _night_screen(request: HttpRequest, club: Club, n: Night) -> HttpResponseBase:
    division = _division(n)
    number = club_services.current_round(division)
    ctx = {
        "club": club,
        "night": n,
        "round": number,
        "games": _round_games(division, number),
        "refresh": SCREEN_REFRESH_SECONDS,
        "url": reverse("clubs:night_screen", args=[club.slug, n.pk]) + lang_query(request),
    }
    template = "clubs/night_screen_live.html" if request.htmx else "clubs/night_screen.html"
    return render(request, template, ctx)


@require_GET
def night_list(request: HttpRequest, slug: str) -> HttpResponseBase:
    """Every night of the club, newest first, each linking to its standings."""
    club = get_object_or_404(Club, slug=slug)
    nights = (
        Night.objects.filter(club=club)
        .select_related("tournament")
        .annotate(
            players=Count("tournament__divisions__entries", distinct=True),
            drawn=Max(
                "tournament__divisions__round_set__number",
                filter=Q(tournament__divisions__round_set__games__isnull=False),
            ),
        )
    )
    rows = [
        {
            "night": n,
            "players": n.players,
            "drawn": n.drawn or 0,
            "standings": reverse("public:standings", args=[n.tournament.slug, "club"]),
        }
        for n in nights
    ]
    return render(
        request,
        "clubs/night_list.html",
        {
            "club": club,
            "rows": rows,
            "organiser": can_organise(request.user, club),
        },
    )


urlpatterns: list[URLPattern] = [
    path("<slug:slug>/nights/", night_list, name="nights"),
    path("<slug:slug>/nights/new/", night_new, name="night_new"),
    path("<slug:slug>/nights/<int:night>/", night_run, name="night"),
    path("<slug:slug>/nights/<int:night>/results/", night_line, name="night_results"),
    path("<slug:slug>/nights/<int:night>/draw/", night_draw, name="night_draw"),
    path("<slug:slug>/nights/<int:night>/log/", night_log, name="night_log"),
    path("<slug:slug>/nights/<int:night>/players/", night_latecomer, name="night_players"),
    path("<slug:slug>/nights/<int:night>/close/", night_close, name="night_close"),
    path("<slug:slug>/nights/<int:night>/reopen/", night_reopen, name="night_reopen"),
    path("<slug:slug>/nights/<int:night>/delete/", night_delete, name="night_delete"),
    path("<slug:slug>/nights/<int:night>/screen/", night_screen, name="night_screen"),
]
