"""Console: registering a division's players (directors only).

One page, /t/SLUG/console/DIVISION/players/, lists the entries and does every registration
job: add a player by typing a name (suggestions from the player registry and the rating
lists as one types), paste a whole list, correct a seed rating or class, withdraw a player
from a round or bring them back, and remove a mistaken entry before round 1 is paired.

Every form posts with htmx and gets the whole panel back (the list, the forms, a confirmation
or the errors at their fields, status 400 on a refusal), so the page never reloads and works
the same without JavaScript. Writes go through the services; their refusals (ServiceError)
are shown at the field they name. Search results show names, federation ids and ratings only,
never a player's email or phone.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST, require_safe

from tournament.errors import ServiceError
from tournament.refusals import refuse
from tournament.services import (
    register_new_player,
    register_player,
    register_players,
    reinstate_player,
    remove_entry,
    update_entry,
    withdraw_player,
)

from ...models import Division, Entry, Game, Player, Tournament
from ...selectors import (
    federation_ids,
    missing_games,
    near_duplicates,
    paired_rounds,
    player_choices,
    same_name_entries,
    search_players,
)
from ...services.entries import (
    move_entry,
    removable_mid_event,
    renumber_by_rating,
    renumber_preview,
)
from ...services.selfentry import issue_token, revoke_token
from ..forms.registration import AddPlayerForm, EntryForm, PasteForm, RoundForm
from ..permissions import DivisionMoved, director_required, division_by_slug, moved

# ----------------------------------------------------------------------- the page


def _spans(numbers: list[int]) -> str:
    """[1, 2, 3, 5] -> "1-3, 5"."""
    out: list[str] = []
    for n in numbers:
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)


def _rows(
    division: Division, next_round: int, failed: dict[str, Any] | None, paired: list[int]
) -> list[dict[str, Any]]:
    failed = failed or {}
    rows = []
    entries = list(division.entries.select_related("player").order_by("number"))
    # Remove: any entry before round 1; after, only a last number added by mistake who has
    # played no game (services.entries.removable_mid_event), else they are withdrawn.
    last = entries[-1].pk if entries and paired and removable_mid_event(entries[-1]) else None
    for e in entries:
        mine = failed.get("entry") == e.pk
        auto = f"id_e{e.pk}_%s"
        # Forms only for the row being answered (its errors at its fields); every other row's
        # inputs are written out in the template: 500 rows of bound forms cost most of a second.
        edit = status = None
        if mine:
            edit = (
                failed["form"]
                if failed.get("kind") == "edit"
                else EntryForm(
                    initial={
                        "seed_rating": e.seed_rating,
                        "player_class": e.player_class,
                        "naspa_id": e.player.naspa_id,
                    },
                    auto_id=auto,
                )
            )
            status = (
                failed["form"]
                if failed.get("kind") == "status"
                else RoundForm(initial={"round": next_round}, auto_id=auto)
            )
        rows.append(
            {
                "entry": e,
                "ids": federation_ids(e.player),
                "edit": edit,
                "status": status,
                "error": failed.get("message", "") if mine else "",
                "open": mine,
                "removable": not paired or e.pk == last,
            }
        )
    return rows


def _context(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    *,
    add: AddPlayerForm | None = None,
    paste: PasteForm | None = None,
    failed: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    paired = paired_rounds(division)
    next_round = (paired[-1] if paired else 0) + 1

    def url(name: str) -> str:
        return reverse(f"console:{name}", args=(tournament.slug, division.slug))

    return {
        "tournament": tournament,
        "division": division,
        "rows": _rows(division, next_round, failed, paired),
        "add": add or AddPlayerForm(),
        "paste": paste or PasteForm(),
        "paired": paired,
        "next_round": next_round,
        "late_entry": tournament.get_late_entry_display(),
        "urls": {
            k: url(f"players{'_' + k if k else ''}")
            for k in (
                "",
                "search",
                "add",
                "paste",
                "edit",
                "withdraw",
                "reinstate",
                "remove",
                "link",
                "renumber",
                "move",
            )
        },
        # Before round 1: the renumbering by seed rating the button would apply (shown first),
        # and the divisions a wrongly entered player may be moved to.
        "renumber": [] if paired else [r for r in renumber_preview(division) if r.old != r.new],
        "other_divisions": []
        if paired
        else list(tournament.divisions.exclude(pk=division.pk).order_by("name")),
        "home_url": reverse("console:division", args=(tournament.slug, division.slug)),
        **extra,
    }


def _render(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The panel alone for htmx (it replaces itself), the whole page otherwise."""
    template = (
        "console/players_panel.html" if getattr(request, "htmx", False) else "console/players.html"
    )
    return render(request, template, context, status=status)


def _division(request: HttpRequest, tournament: Tournament, key: str) -> Division | HttpResponse:
    try:
        return division_by_slug(tournament, key)
    except DivisionMoved as to:
        if request.method == "GET":
            return moved(request, key, to.division)
        return to.division


def _late_note(entry: Entry, tournament: Tournament, paired_before: list[int]) -> str:
    """What a late entry got for the rounds paired before they came, in the director's words."""
    if not paired_before:
        return ""
    rounds = _spans(paired_before)
    if tournament.late_entry == "none":
        note = _(
            "Rounds {rounds} were already paired: no record for them (late-entry rule)."
        ).format(rounds=rounds)
    elif tournament.late_entry == "bye":
        note = _("Missed rounds {rounds}: each a bye scored 0 (neither a win nor a loss).").format(
            rounds=rounds
        )
    else:
        note = _(
            "Missed rounds {rounds}: each a forfeit loss ({spread}), "
            "as this tournament's late-entry rule says."
        ).format(rounds=rounds, spread=f"{tournament.forfeit_spread:+d}")
    last = paired_before[-1]
    if missing_games(entry.division, last):
        # the round is still being played: the late arrival may yet play in it
        note += " " + _(
            "Round {round} is in play: to give them a game in it, use Pair them on its "
            "pairing page (with the bye's player, or a player whose game is unscored)."
        ).format(round=last)
    return note


def _registered(
    entry: Entry, tournament: Tournament, paired_before: list[int], seed_from: str = ""
) -> str:
    """The notice after adding a player: their number, and the seed with the list it came
    from ("seed 2087 on NASPA-CSW"; "unrated: no rating on NASPA-CSW; club rating 1004")."""
    if entry.seed_rating:
        seed = _("seed {rating}").format(rating=seed_from or entry.seed_rating)
    elif seed_from not in ("", "unrated"):
        seed = _("unrated: {source}").format(source=seed_from)
    else:
        seed = _("unrated")
    if entry.player_class:
        text = _("Registered #{number} {name} ({seed}, class {player_class}).").format(
            number=entry.number, name=entry.name, seed=seed, player_class=entry.player_class
        )
    else:
        text = _("Registered #{number} {name} ({seed}).").format(
            number=entry.number, name=entry.name, seed=seed
        )
    note = _late_note(entry, tournament, paired_before)
    return f"{text} {note}" if note else text


@director_required
@require_safe
def players(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    """The division's players with every registration form."""
    div = _division(request, tournament, division)
    if isinstance(div, HttpResponse):
        return div
    return _render(request, _context(request, tournament, div))


@director_required
@require_safe
def players_search(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Suggestions for the name typed so far (htmx, as one types)."""
    div = _division(request, tournament, division)
    if isinstance(div, HttpResponse):
        return div
    query = request.GET.get("name", request.GET.get("q", ""))
    choices = search_players(div, query)
    return render(
        request,
        "console/players_suggestions.html",
        {"choices": choices, "query": " ".join(query.split()), "division": div},
    )


def _pick(division: Division, data: dict[str, Any]) -> tuple[Player, int, int | None] | str:
    """The picked player with the seed rating and career games to register, or why not."""
    from ratings.models import PlayerRating

    player = Player.objects.filter(pk=data["player_id"]).first()
    if player is None:
        return _("that player is no longer in the registry; search again")
    list_id = data.get("list_id")
    if list_id is None:
        return player, data.get("rating") or 0, None
    if division.rating_list_id and list_id != division.rating_list_id:
        return _("division {division} seeds from {rating_list}; search again").format(
            division=division.name, rating_list=division.rating_list
        )
    rating = PlayerRating.objects.filter(rating_list_id=list_id, player=player).first()
    if rating is None:
        return _("{name} is not on that rating list; search again").format(name=player.name)
    return player, rating.rating, rating.career_games


def _near_context(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    form: AddPlayerForm,
    name: str,
    near: list[Player],
) -> dict[str, Any]:
    """The near-duplicate warning: registry players like the name, and those of them already
    entered in this tournament, for whom "add anyway" asks which person this is."""
    in_event = same_name_entries(tournament.pk, name)
    return _context(
        request,
        tournament,
        division,
        add=form,
        near=player_choices(division, near),
        in_event=[
            {"name": e.player.name, "division": e.division.name, "number": e.number}
            for e in in_event
        ],
    )


@director_required
@require_POST
def players_add(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Register a picked suggestion, or a new player (after a near-duplicate warning)."""
    div = _division(request, tournament, division)
    form = AddPlayerForm(request.POST)
    if not form.is_valid():
        if "note" in form.errors:  # the answer to "which person?" was not complete: ask again
            name = " ".join((form.cleaned_data.get("name") or "").split())
            ctx = _near_context(request, tournament, div, form, name, near_duplicates(name))
            return _render(request, ctx, 400)
        return _render(request, _context(request, tournament, div, add=form), 400)
    data = form.cleaned_data
    paired_before = paired_rounds(div)
    seed_from = ""  # where the seed rating came from, for the notice
    try:
        if data.get("player_id") is not None:
            picked = _pick(div, data)
            if isinstance(picked, str):
                form.add_error("name", picked)
                return _render(request, _context(request, tournament, div, add=form), 400)
            player, rating, career = picked
            pick = f"{player.pk}:{data['list_id']}" if data.get("list_id") else str(player.pk)
            seed_from = next(
                (c["label"] for c in player_choices(div, [player]) if c["pick"] == pick), ""
            )
            entry = register_player(
                div,
                player=player,
                rating=rating,
                career_games=career,
                player_class=data.get("player_class") or "",
                actor=request.user,
            )
        else:
            name = " ".join(data["name"].split())
            near = [] if data.get("confirm") else near_duplicates(name)
            if near:
                return _render(request, _near_context(request, tournament, div, form, name, near))
            entry = register_new_player(
                div,
                name=name,
                rating=data.get("rating") or 0,
                player_class=data.get("player_class") or "",
                actor=request.user,
                different_person=data.get("note", "") if data.get("different") else "",
            )
    except ServiceError as exc:
        if exc.code == "reg_same_name_in_event":
            # the warning again, now with the question unanswered at its box
            form.add_error("different", exc.message)
            ctx = _near_context(request, tournament, div, form, name, near_duplicates(name))
            return _render(request, ctx, 400)
        refuse(form, exc, "name")
        return _render(request, _context(request, tournament, div, add=form), 400)
    notice = _registered(entry, tournament, paired_before, seed_from)
    return _render(request, _context(request, tournament, div, notice=notice))


@director_required
@require_POST
def players_paste(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Register a pasted list or a .t roster (pasted or uploaded): all lines or none."""
    div = _division(request, tournament, division)
    form = PasteForm(request.POST, request.FILES, division=div)
    if not form.is_valid():
        return _render(request, _context(request, tournament, div, paste=form), 400)
    paired_before = paired_rounds(div)
    try:
        entries = register_players(div, form.cleaned_data["rows"], actor=request.user)
    except ServiceError as exc:
        form.add_error("t_file" if form.cleaned_data.get("t_file") else "lines", exc.message)
        return _render(request, _context(request, tournament, div, paste=form), 400)
    names = ", ".join(f"#{e.number} {e.name}" for e in entries)
    notice = ngettext(
        "Registered {count} player: {names}.", "Registered {count} players: {names}.", len(entries)
    ).format(count=len(entries), names=names)
    note = _late_note(entries[0], tournament, paired_before)
    notice = f"{notice} {note}" if note else notice
    return _render(request, _context(request, tournament, div, notice=notice))


def _posted_entry(request: HttpRequest, division: Division) -> Entry | None:
    """The entry named by the form, only if it belongs to this division."""
    raw = request.POST.get("entry", "").strip()
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        return None
    return Entry.objects.select_related("player").filter(pk=int(raw), division=division).first()


def _no_entry(request: HttpRequest, tournament: Tournament, division: Division) -> HttpResponse:
    message = _(
        "there is no such player in division {division}; the list below is up to date"
    ).format(division=division.name)
    return _render(request, _context(request, tournament, division, panel_error=message), 400)


def _row_refused(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    entry: Entry,
    kind: str,
    form: Any,
    message: str = "",
) -> HttpResponse:
    failed = {"entry": entry.pk, "kind": kind, "form": form, "message": message}
    return _render(request, _context(request, tournament, division, failed=failed), 400)


@director_required
@require_POST
def players_edit(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Correct one player's seed rating and class, or give the NASPA id the registry lacks
    (the field is on the form only while the player has none)."""
    div = _division(request, tournament, division)
    entry = _posted_entry(request, div)
    if entry is None:
        return _no_entry(request, tournament, div)
    form = EntryForm(request.POST, auto_id=f"id_e{entry.pk}_%s")
    if not form.is_valid():
        return _row_refused(request, tournament, div, entry, "edit", form)
    try:
        update_entry(
            entry,
            seed_rating=form.cleaned_data["seed_rating"],
            player_class=form.cleaned_data["player_class"],
            naspa_id=form.cleaned_data["naspa_id"] if "naspa_id" in request.POST else None,
            actor=request.user,
        )
    except ServiceError as exc:
        refuse(form, exc, "seed_rating")
        return _row_refused(request, tournament, div, entry, "edit", form)
    facts = {
        "number": entry.number,
        "name": entry.name,
        "seed": entry.seed_rating,
        "player_class": entry.player_class,
        "naspa_id": entry.player.naspa_id,
    }
    if entry.player_class and entry.player.naspa_id:
        notice = _("#{number} {name}: seed {seed}, class {player_class}, NASPA id {naspa_id}.")
    elif entry.player_class:
        notice = _("#{number} {name}: seed {seed}, class {player_class}.")
    elif entry.player.naspa_id:
        notice = _("#{number} {name}: seed {seed}, no class, NASPA id {naspa_id}.")
    else:
        notice = _("#{number} {name}: seed {seed}, no class.")
    notice = notice.format(**facts)
    return _render(request, _context(request, tournament, div, notice=notice))


def _status_change(request: HttpRequest, tournament: Tournament, division: str, kind: str):
    div = _division(request, tournament, division)
    entry = _posted_entry(request, div)
    if entry is None:
        return _no_entry(request, tournament, div)
    form = RoundForm(request.POST, auto_id=f"id_e{entry.pk}_%s")
    if not form.is_valid():
        return _row_refused(request, tournament, div, entry, "status", form)
    number = form.cleaned_data["round"]
    try:
        if kind == "withdraw":
            withdraw_player(entry, from_round=number, actor=request.user)
            forfeits = Game.objects.filter(
                player1=entry,
                player2__isnull=True,
                explanation="withdrawn",
                round__number__gte=number,
            ).count()
            notice = _("#{number} {name} withdrawn from round {round}.").format(
                number=entry.number, name=entry.name, round=number
            )
            if forfeits:
                notice += " " + ngettext(
                    "{count} paired round recorded as a forfeit ({spread}); "
                    "opponents get a forfeit win.",
                    "{count} paired rounds recorded as a forfeit ({spread}); "
                    "opponents get a forfeit win.",
                    forfeits,
                ).format(count=forfeits, spread=f"{entry.withdrawal_score:+d}")
        else:
            reinstate_player(entry, number, actor=request.user)
            notice = _("#{number} {name} plays again from round {round}.").format(
                number=entry.number, name=entry.name, round=number
            )
    except ServiceError as exc:
        form.add_error("round", exc.message)
        return _row_refused(request, tournament, div, entry, "status", form)
    return _render(request, _context(request, tournament, div, notice=notice))


@director_required
@require_POST
def players_withdraw(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Withdraw a player from a round on: paired games there become forfeits."""
    return _status_change(request, tournament, division, "withdraw")


@director_required
@require_POST
def players_reinstate(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Bring a withdrawn player back from the next round to pair."""
    return _status_change(request, tournament, division, "reinstate")


@director_required
@require_POST
def players_remove(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Remove a mistaken entry (before round 1 is paired, or the last number with no game
    played); later numbers close up."""
    div = _division(request, tournament, division)
    entry = _posted_entry(request, div)
    if entry is None:
        return _no_entry(request, tournament, div)
    number, name = entry.number, entry.name
    try:
        moved_numbers = remove_entry(entry, actor=request.user)
    except ServiceError as exc:
        return _row_refused(request, tournament, div, entry, "remove", RoundForm(), exc.message)
    notice = _("Removed #{number} {name}.").format(number=number, name=name)
    if moved_numbers:
        notice += " " + _("Players #{first}-#{last} moved up one number.").format(
            first=moved_numbers[0][0], last=moved_numbers[-1][0]
        )
    return _render(request, _context(request, tournament, div, notice=notice))


@director_required
@require_POST
def players_link(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Issue a new self-entry link (the old card stops working) or revoke it; never shown here:
    the link is printed on the player's scorecard only."""
    div = _division(request, tournament, division)
    entry = _posted_entry(request, div)
    if entry is None:
        return _no_entry(request, tournament, div)
    who = f"#{entry.number} {entry.name}"
    try:
        if request.POST.get("action") == "revoke":
            revoke_token(entry, actor=request.user)
            notice = _(
                "Self-entry link of {who} revoked: their card's code no longer opens it; a "
                "reprinted card shows the public page until you issue a new link."
            ).format(who=who)
        else:
            issue_token(entry, actor=request.user)
            notice = _("New self-entry link for {who}: print their scorecard again.").format(
                who=who
            )
    except ServiceError as exc:
        return _row_refused(request, tournament, div, entry, "link", RoundForm(), exc.message)
    return _render(request, _context(request, tournament, div, notice=notice))


@director_required
@require_POST
def players_renumber(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Renumber by seed rating (the preview on the page) before round 1 is paired."""
    div = _division(request, tournament, division)
    try:
        plan = renumber_by_rating(div, actor=request.user)
    except ServiceError as exc:
        return _render(request, _context(request, tournament, div, panel_error=exc.message), 400)
    moved_count = sum(p.old != p.new for p in plan)
    notice = ngettext(
        "Renumbered by seed rating: {count} player moved.",
        "Renumbered by seed rating: {count} players moved.",
        moved_count,
    ).format(count=moved_count)
    return _render(request, _context(request, tournament, div, notice=notice))


@director_required
@require_POST
def players_move(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """Move a player entered in the wrong division to another one, before round 1."""
    div = _division(request, tournament, division)
    entry = _posted_entry(request, div)
    if entry is None:
        return _no_entry(request, tournament, div)
    raw = request.POST.get("to", "").strip()
    to = (
        tournament.divisions.filter(pk=int(raw)).first()
        if raw.isascii() and raw.isdigit()
        else None
    )
    number, name = entry.number, entry.name
    try:
        if to is None:
            raise ServiceError("reg_move_where", field="division", name=name, division=div.name)
        moved_entry = move_entry(entry, to, actor=request.user)
    except ServiceError as exc:
        return _row_refused(request, tournament, div, entry, "move", RoundForm(), exc.message)
    notice = _("Moved #{number} {name} to division {division} as #{new_number}.").format(
        number=number, name=name, division=to.name, new_number=moved_entry.number
    )
    return _render(request, _context(request, tournament, div, notice=notice))


urlpatterns: list[URLPattern] = [
    path("<str:division>/players/", players, name="players"),
    path("<str:division>/players/search/", players_search, name="players_search"),
    path("<str:division>/players/add/", players_add, name="players_add"),
    path("<str:division>/players/paste/", players_paste, name="players_paste"),
    path("<str:division>/players/edit/", players_edit, name="players_edit"),
    path("<str:division>/players/withdraw/", players_withdraw, name="players_withdraw"),
    path("<str:division>/players/reinstate/", players_reinstate, name="players_reinstate"),
    path("<str:division>/players/remove/", players_remove, name="players_remove"),
    path("<str:division>/players/link/", players_link, name="players_link"),
    path("<str:division>/players/renumber/", players_renumber, name="players_renumber"),
    path("<str:division>/players/move/", players_move, name="players_move"),
]
