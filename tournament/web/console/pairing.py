"""Console: pairing a round. The engine proposes, the director edits, then publishes.

``/t/SLUG/console/<division>/round/<n>/pair/`` shows the engine's pairing with its explanations
and the independent checker's report (repeats, win difference, start/reply balance) before
anything is stored. The director may swap two players or pin a pair and sees the checker run
again on the edited round; publishing stores it with one audit event. The page keeps no state
on the server: the pairing travels in the forms and the shell validates it again each time, so
a forged form is refused with a message and changes nothing. Swap and pin re-render the
proposal in place with htmx and work as plain posts too.

``.../round/<n>/unpair/`` removes a round's pairings while it has no results; it is also the
"undo the last pairing" of the division page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from pairings.engine import system_names
from pairings.services.rounds import (
    Proposal,
    add_bye,
    edit_proposal,
    pin_in_round,
    preview_repair,
    propose_round,
    publish_proposal,
    remove_bye,
    repair_round,
    swap_in_round,
    unpair_round,
)
from tournament.checks import forfeit_opponent
from tournament.errors import ServiceError
from tournament.standings import format_record

from ...models import Division, Game, Tournament
from ...selectors import last_round_number, round_has_results
from ...throttle import heavy_wait
from ..errors import busy_refusal
from ..forms.pairing import ACTIONS, PairingEditForm, encode_pairs
from ..permissions import DivisionMoved, director_required, division_by_slug, moved
from ..ratelimit import too_many

FRAGMENT = "console/pairing_proposal.html"
CLOSED = {"pairing_has_results", "pairing_already_paired", "pairing_later_paired"}
PAGE = "console/pairing.html"

# The page's own words for refusals whose neutral message would not say what to do here.
WORDING = {
    "pairing_already_paired": gettext_lazy(
        "Round {round} of division {division} is already paired. Unpair it below to pair it again."
    ),
    "pairing_malformed": gettext_lazy(
        "The pairing sent is not readable ({detail}). Reload the page to "
        "start again from the engine's proposal."
    ),
}


def _player(proposal: Proposal, number: int) -> dict[str, Any] | None:
    if not number:
        return None
    p = proposal.players[number]
    return {
        # text, not an int: the template would localise each of a 500-player page's numbers
        "number": str(number),
        "name": p.name,
        "record": format_record(p.wins, p.losses),
        "spread": f"{p.spread:+d}",
    }


def _report(proposal: Proposal) -> dict[str, Any]:
    """The checker's verdict and measures beside the engine's own proposal's."""
    quality, engine = proposal.report.quality, proposal.engine_quality
    rows = [
        (_("Repeats"), "repeats"),
        (_("Win difference (total)"), "win_diff"),
        (_("Games across score groups"), "floats"),
    ]
    return {
        "ok": proposal.report.ok,
        "errors": proposal.report.errors,
        "warnings": proposal.report.warnings,
        "repeats": proposal.report.repeats,
        "measures": [
            {
                "label": label,
                "key": key,
                "value": f"{quality.get(key, 0):g}",
                "engine": f"{engine.get(key, 0):g}",
            }
            for label, key in rows
        ],
        "imbalance": f"{quality.get('max_imbalance', 0):g}",
    }


def _forms(proposal: Proposal, bound: PairingEditForm | None = None) -> dict[str, Any]:
    initial = {
        "games": encode_pairs(proposal.pairs),
        "pins": encode_pairs(proposal.pins),
        "system": proposal.system,
    }
    out = {}
    for action in ACTIONS:
        if bound is not None and bound.action == action:
            out[f"{action}_form"] = bound
        else:
            out[f"{action}_form"] = PairingEditForm(initial=initial, action=action)
    return out


def _context(
    tournament: Tournament,
    division: Division,
    round_number: int,
    proposal: Proposal | None,
    *,
    error: ServiceError | None = None,
    bound: PairingEditForm | None = None,
) -> dict[str, Any]:
    last = last_round_number(division)
    undo = last if last and not round_has_results(division, last) else None
    context: dict[str, Any] = {
        "tournament": tournament,
        "division": division,
        "round": round_number,
        "proposal": proposal,
        "error": error.worded(WORDING) if error is not None else "",
        "error_code": error.code if error is not None else "",
        "undo_round": undo,
        "undo_url": undo and reverse("console:unpair", args=(tournament.slug, division.slug, undo)),
        "pair_url": reverse("console:pair", args=(tournament.slug, division.slug, round_number)),
        "division_url": reverse("console:division", args=(tournament.slug, division.slug)),
        "systems": system_names(),
        # Choosing a system helps unless the round is past pairing (paired, results).
        "show_systems": error is None or error.code not in CLOSED,
        "system": proposal.system if proposal is not None else "",
    }
    if error is not None and error.code in ("pairing_has_results", "pairing_already_paired"):
        context.update(_in_play(tournament, division, round_number))
    if proposal is not None:
        pinned = {frozenset(p) for p in proposal.pins}
        context["rows"] = [
            {
                "board": str(g.board) if g.board else "",
                "first": _player(proposal, g.first),
                "second": _player(proposal, g.second),
                "explanation": g.explanation,
                "pinned": frozenset((g.first, g.second)) in pinned,
            }
            for g in proposal.games
        ]
        context["report"] = _report(proposal)
        context.update(_forms(proposal, bound))
    return context


def _in_play(tournament: Tournament, division: Division, round_number: int) -> dict[str, Any]:
    """A paired round as stored, each game marked locked when scored (played, forfeit), for
    the changes a round in play allows: swap two players, re-pair the unscored games."""
    games = Game.objects.filter(round__division=division, round__number=round_number)
    rows = []
    for g in games.select_related("player1__player", "player2__player").order_by("board", "pk"):
        bye = g.player2_id is None
        rows.append(
            {
                "board": g.board,
                "first": f"#{g.player1.number} {g.player1.name}",
                "second": f"#{g.player2.number} {g.player2.name}" if not bye else "",
                "result": (g.explanation or "bye")
                if bye
                else (f"{g.score1}-{g.score2}" if g.score1 is not None else ""),
                # a late arrival's missed round is a pairing while its round is in play
                "locked": (not bye and g.score1 is not None)
                or forfeit_opponent(g) is not None
                or g.explanation == "withdrawn",
            }
        )
    url = reverse("console:change_round", args=(tournament.slug, division.slug, round_number))
    return {"in_play": rows, "change_url": url}


def _show(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The whole page, or for htmx only the proposal (table, report, forms) it swaps in."""
    template = FRAGMENT if request.htmx else PAGE
    return render(request, template, context, status=status)


def _division(tournament: Tournament, key: str) -> Division:
    return division_by_slug(tournament, key)


@director_required
@require_http_methods(["GET", "HEAD", "POST"])
def pair(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """GET: the engine's proposal; POST action=swap/pin: the edited one; action=publish."""
    try:
        div = _division(tournament, division)
    except DivisionMoved as to:
        return moved(request, division, to.division)
    if request.POST.get("action") != "publish" and (wait := heavy_wait(request)):
        return too_many(request, wait)  # each proposal runs the engine: a worker's seconds
    if request.method != "POST":
        system = (request.GET.get("system") or "")[:20] or None
        try:
            proposal = propose_round(div, round, system)
        except ServiceError as exc:
            return _show(request, _context(tournament, div, round, None, error=exc), 400)
        return _show(request, _context(tournament, div, round, proposal))

    action = request.POST.get("action", "")
    if action not in ACTIONS:
        exc = ServiceError("pairing_malformed", detail=f"unknown action {action[:20]!r}")
        return _show(request, _context(tournament, div, round, None, error=exc), 400)
    form = PairingEditForm(request.POST, action=action)
    form.is_valid()
    data = form.cleaned_data
    if any(name in form.errors for name in ("games", "pins", "system")):
        detail = "; ".join(
            str(e) for name in ("games", "pins", "system") for e in form.errors.get(name, [])
        )
        exc = ServiceError("pairing_malformed", detail=detail)
        return _show(request, _context(tournament, div, round, None, error=exc), 400)
    games, pins, system = data["games"], data["pins"], data["system"]
    if form.errors:  # a swap or pin without two player numbers: show the pairing as it was
        try:
            current = edit_proposal(div, round, games, pins=pins, system=system)
        except ServiceError as exc:
            return _show(request, _context(tournament, div, round, None, error=exc), 400)
        return _show(request, _context(tournament, div, round, current, bound=form), 400)
    try:
        if action == "publish":
            with busy_refusal():
                rnd = publish_proposal(
                    div, round, games, pins=pins, system=system, actor=request.user
                )
            messages.success(
                request,
                ngettext(
                    "Round {round} of division {division} is paired ({count} games).",
                    "Round {round} of division {division} is paired ({count} games).",
                    rnd.games.count(),
                ).format(round=round, division=div.name, count=rnd.games.count()),
            )
            target = reverse("console:division", args=(tournament.slug, div.slug))
            if request.htmx:
                return HttpResponseClientRedirect(target)
            return redirect(target)
        proposal = edit_proposal(div, round, games, pins=pins, system=system, **form.edit())
    except ServiceError as exc:
        return _refused(request, tournament, div, round, form, exc, games, pins, system)
    return _show(request, _context(tournament, div, round, proposal))


def _refused(
    request: HttpRequest,
    tournament: Tournament,
    div: Division,
    round_number: int,
    form: PairingEditForm,
    exc: ServiceError,
    games: list[tuple[int, int]],
    pins: list[tuple[int, int]],
    system: str | None,
) -> HttpResponse:
    """A refused edit or publish: the message at its field, the pairing as it was, 400."""
    if exc.field in ("a", "b") and exc.field in form.fields:
        try:
            current = edit_proposal(div, round_number, games, pins=pins, system=system)
        except ServiceError as again:
            exc = again
        else:
            form.add_error(exc.field, exc.worded(WORDING))
            context = _context(tournament, div, round_number, current, bound=form)
            return _show(request, context, 400)
    return _show(request, _context(tournament, div, round_number, None, error=exc), 400)


@director_required
@require_POST
def unpair(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """Remove a round's pairings (no results yet), then offer to pair it again."""
    try:
        div = _division(tournament, division)
    except DivisionMoved as to:
        return moved(request, division, to.division)
    try:
        with busy_refusal():
            count = unpair_round(div, round, actor=request.user)
    except ServiceError as exc:
        return _show(request, _context(tournament, div, round, None, error=exc), 400)
    messages.success(
        request,
        ngettext(
            "Round {round} of division {division} is unpaired ({count} games).",
            "Round {round} of division {division} is unpaired ({count} games).",
            count,
        ).format(round=round, division=div.name, count=count),
    )
    target = reverse("console:pair", args=(tournament.slug, div.slug, round))
    if request.htmx:
        return HttpResponseClientRedirect(target)
    return redirect(target)


@director_required
@require_POST
def change_round(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """A round in play: swap two players (action=swap, a, b), make two players meet
    (action=pin, a, b: a late arrival and the bye's player), give a player a bye
    (action=add_bye, player), pair a bye's player (action=remove_bye, player, optional
    opponent) or re-pair its unscored games with the engine (action=repair: first the players
    whose opponent would change, then, confirmed with the preview's ``expect`` digest, the
    re-pairing); scored games stay exactly as recorded."""
    try:
        div = _division(tournament, division)
    except DivisionMoved as to:
        return moved(request, division, to.division)
    action = request.POST.get("action", "")
    try:
        with busy_refusal():
            if action == "repair":
                expect = request.POST.get("expect", "").strip()[:64]
                if not expect:  # first the changes, then the confirmation
                    preview = preview_repair(div, round, actor=request.user)
                    context = _context(tournament, div, round, None)
                    context.update(_in_play(tournament, div, round))
                    context["repair"] = preview
                    return render(request, PAGE, context)
                result = repair_round(div, round, expect, actor=request.user)
                done = ngettext(
                    "Round {round} of division {division}: its unscored games re-paired "
                    "({count} games).",
                    "Round {round} of division {division}: its unscored games re-paired "
                    "({count} games).",
                    len(result.games),
                ).format(round=round, division=div.name, count=len(result.games))
            elif action == "add_bye":
                number = _number(request, "player", "the player to give the bye")
                add_bye(div, round, number, actor=request.user)
                done = _("Round {round} of division {division}: #{number} has the bye.").format(
                    round=round, division=div.name, number=number
                )
            elif action == "remove_bye":
                number = _number(request, "player", "the player whose bye to remove")
                opponent = (
                    _number(request, "opponent", "the opponent")
                    if request.POST.get("opponent", "").strip()
                    else None
                )
                rnd = remove_bye(div, round, number, opponent, actor=request.user)
                done = _(
                    "Round {round} of division {division}: #{number} now plays #{opponent}."
                ).format(
                    round=round,
                    division=div.name,
                    number=number,
                    opponent=_opponent_in(rnd, number),
                )
            else:
                numbers = [request.POST.get(k, "").strip() for k in ("a", "b")]
                if not all(n.isascii() and n.isdigit() for n in numbers):
                    raise ServiceError("pairing_malformed", detail="give two player numbers")
                a, b = (int(n) for n in numbers)
                if action == "pin":
                    pin_in_round(div, round, a, b, actor=request.user)
                    done = _("Round {round} of division {division}: #{a} plays #{b}.").format(
                        round=round, division=div.name, a=a, b=b
                    )
                else:
                    swap_in_round(div, round, a, b, actor=request.user)
                    done = _("Round {round} of division {division}: #{a} and #{b} swapped.").format(
                        round=round, division=div.name, a=a, b=b
                    )
    except ServiceError as exc:
        context = _context(tournament, div, round, None, error=exc)
        context.update(_in_play(tournament, div, round))
        if exc.code == "repair_changed":  # the changes as they are now, to confirm again
            try:
                context["repair"] = preview_repair(div, round, actor=request.user)
            except ServiceError:
                pass
        return render(request, PAGE, context, status=400)
    messages.success(request, done)
    return redirect(reverse("console:pair", args=(tournament.slug, div.slug, round)))


def _number(request: HttpRequest, key: str, what: str) -> int:
    """A player number from the form, refused with a message naming the field."""
    value = request.POST.get(key, "").strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 6:
        raise ServiceError("pairing_malformed", field=key, detail=f"give {what} by number")
    return int(value)


def _opponent_in(rnd: Any, number: int) -> int:
    game = rnd.games.select_related("player1", "player2").get(
        Q(player1__number=number) | Q(player2__number=number)
    )
    return game.player2.number if game.player1.number == number else game.player1.number


urlpatterns: list[URLPattern] = [
    path("<str:division>/round/<int:round>/pair/", pair, name="pair"),
    path("<str:division>/round/<int:round>/change/", change_round, name="change_round"),
    path("<str:division>/round/<int:round>/unpair/", unpair, name="unpair"),
]
