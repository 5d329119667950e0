"""Console: keyboard-first result entry, one line a game, as TSH directors type them.

``/t/SLUG/console/DIVISION/round/N/results/`` shows the round's games and one box, "Result",
focused on load. A scorekeeper types ``3 412 389`` and Enter: htmx posts the line, the answer
is swapped in place with, out of band, the game's rows and the round's counter (only what the
line changed: a kilobyte at any field size, not the whole table), the box is emptied and keeps
the focus, so a game costs its digits, two spaces and Enter, and a whole round needs no mouse.
Without JavaScript the same form is a normal POST that renders the whole page.

The answer echoes what TSH's add-score echoes: both names, the game's spread and each player's
new record and cumulative spread (from the standings core), with a warning for a score under
100. A refused line says why beside the box (unknown player, not paired this round, two
players who do not play each other, a score outside 0..1500, ...) and writes nothing; a game
that already has its result shows the stored scores with a small correction form that needs a
reason. ArrowUp in the empty box brings the last line back for editing; sending it again opens
that game's correction with the new scores filled in.

Double entry (a division setting a director turns on here): each line is a card; two agreeing
cards record the game, two differing ones are listed as disputed for a director to settle.
Scorekeepers and directors may enter; only directors toggle double entry or settle disputes.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, F, Max, OuterRef, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, QueryDict
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from tournament.checks import forfeit_opponent
from tournament.errors import ServiceError
from tournament.refusals import refuse
from tournament.services import correct_result

from ...models import AuditEvent, Division, Game, PendingResult, Tournament
from ...selectors import last_round_number, pairings_after, records_of
from ...services.results import (
    double_entry,
    enter_line,
    resolve_dispute,
    resolve_line,
    round_seen,
    seen_result,
    set_double_entry,
)
from ..echo import game_echo, line_echo, players_of
from ..errors import busy_refusal
from ..forms.results import (
    CorrectionForm,
    DisputeForm,
    DoubleEntryForm,
    ResultLineForm,
    encode_seen,
)
from ..permissions import DivisionMoved, can_direct, division_by_slug, moved, scorekeeper_required

HELP = gettext_lazy(
    "3 412 389: player 3 scored 412, their opponent 389. 3 412 17 389: the same, checking "
    "that 17 is the opponent. b12 412 389: board 12, first player's score first. 3 f: player "
    "3 forfeits; 3 ff: both forfeit. To fix a recorded game type what it should be and a "
    "reason after a colon (3 400 380: misread card, 3 f: wrong player, 3 clear: wrong game). "
    "Enter records; ArrowUp in the empty box brings back the last line; Escape "
    "empties the box."
)
OPEN = (PendingResult.Status.PENDING, PendingResult.Status.DISPUTED)


# --------------------------------------------------------------------------- helpers


def _division_and_round(tournament: Tournament, key: str, number: int) -> Division:
    """The division by slug, if that round of it is paired (404 naming the paired rounds)."""
    division = division_by_slug(tournament, key)
    if not Game.objects.filter(round__division=division, round__number=number).exists():
        paired = _paired_rounds(division)
        listed = ", ".join(map(str, paired)) or _("none yet")
        raise Http404(
            _("division {division} round {round} is not paired (paired rounds: {listed})").format(
                division=division.name, round=number, listed=listed
            )
        )
    return division


def _no_such_game(division: Division, number: int) -> str:
    """The 404 of a correction or dispute naming a game the round does not hold."""
    return _("division {division} round {round} has no such played game").format(
        division=division.name, round=number
    )


def _paired_rounds(division: Division) -> list[int]:
    return sorted(
        set(Game.objects.filter(round__division=division).values_list("round__number", flat=True))
    )


def _games(division: Division, number: int, players: set[int] | None = None) -> list[Game]:
    """The round's games in the table's order (byes last); only those of ``players`` (their
    games and forfeit halves) when given, as an answer to one line needs."""
    games = Game.objects.filter(round__division=division, round__number=number)
    if players is not None:
        games = games.filter(Q(player1__number__in=players) | Q(player2__number__in=players))
    # the open cards' states ride along (``_groups``): one query for the rows and their cards
    cards = PendingResult.objects.filter(game=OuterRef("pk"), status__in=OPEN)
    return list(
        games.select_related("player1__player", "player2__player")
        .annotate(
            carded=Exists(cards),
            disputed=Exists(cards.filter(status=PendingResult.Status.DISPUTED)),
        )
        .order_by(F("board").asc(nulls_last=True), "id")
    )


def _groups(games: list[Game], just: list[int]) -> list[dict[str, Any]]:
    """The table's row groups (of ``_games``' games): each game between two players, with its
    rows (one, or the two single games of a forfeit) and what the page shows of it (its
    ``seen`` part).

    A group is keyed by its lowest game id, which every change of a game's state keeps (a
    forfeit keeps the game's row for the player who forfeits and adds one, a correction back
    keeps that first row), so an answer can replace a group by its id (htmx out-of-band).
    """
    cards: dict[int, list[str]] = {}
    for g in games:  # the open cards' states, read with the games (``_games``)
        if g.carded:
            cards[g.pk] = [PendingResult.Status.DISPUTED] if g.disputed else ["open"]
    singles = {g.player1.number: g for g in games if g.player2_id is None}
    placed: set[int] = set()
    groups = []
    for g in games:
        if g.pk in placed:
            continue
        members = [g]
        opponent = forfeit_opponent(g)
        other = singles.get(opponent) if opponent is not None else None
        if other is not None and other.pk != g.pk and forfeit_opponent(other) == g.player1.number:
            members.append(other)
        placed.update(m.pk for m in members)
        groups.append(
            {
                "key": min(m.pk for m in members),
                "rows": [_row(m, cards, just) for m in members],
                "seen": encode_seen(round_seen(members)),
            }
        )
    return groups


def _row(g: Game, cards: dict[int, list[str]], just: list[int]) -> dict[str, Any]:
    if g.player2_id is None:
        state = "forfeit" if (g.score1 or 0) < 0 else "bye"
    elif g.has_result:
        state = "done"
    elif PendingResult.Status.DISPUTED in cards.get(g.pk, []):
        state = "disputed"
    elif g.pk in cards:
        state = "card"
    else:
        state = "missing"
    return {"game": g, "state": state, "just": g.pk in just}


def _disputes(division: Division, number: int) -> list[dict[str, Any]]:
    disputed = (
        PendingResult.objects.filter(
            game__round__division=division,
            game__round__number=number,
            status=PendingResult.Status.DISPUTED,
        )
        .select_related("game__player1__player", "game__player2__player")
        .order_by("game__board", "game_id", "created", "id")
    )
    out: dict[int, dict[str, Any]] = {}
    for card in disputed:
        item = out.setdefault(
            card.game_id,
            {"game": card.game, "cards": [], "form": DisputeForm(initial={"game": card.game_id})},
        )
        item["cards"].append(card)
    return list(out.values())


def _progress(division: Division, number: int) -> tuple[int, int]:
    """(games entered, games to enter) of the round's games between two players."""
    counts = Game.objects.filter(
        round__division=division, round__number=number, player2__isnull=False
    ).aggregate(played=Count("id"), entered=Count("id", filter=Q(score1__isnull=False)))
    return counts["entered"], counts["played"]


def _base(
    request: HttpRequest, tournament: Tournament, division: Division, number: int, **extra: Any
) -> dict[str, Any]:
    """What the page and an answer share: the counter, the next step, the forms' addresses."""
    base = reverse("console:results", args=[tournament.slug, division.slug, number])
    entered, played = _progress(division, number)
    directs = can_direct(request.user, tournament)
    paired = extra.pop("paired", None)
    # every result of the last paired round in: the next step is pairing the next round
    complete = entered == played
    if complete and number < division.rounds and directs:
        last = max(paired) if paired is not None else last_round_number(division)
        complete = number == last
    pair_next = directs and complete and number < division.rounds
    ctx = {
        "tournament": tournament,
        "division": division,
        "round": number,
        "entered": entered,
        "played": played,
        "double_entry": double_entry(division),
        "directs": directs,
        "pair_next_url": reverse("console:pair", args=[tournament.slug, division.slug, number + 1])
        if pair_next
        else "",
        "help": HELP,
        "post_url": base,
        "correct_url": base + "correct/",
        "resolve_url": base + "resolve/",
        "double_entry_url": base + "double-entry/",
        "form": ResultLineForm(),
    }
    ctx.update(extra)
    return ctx


def _mark(tournament: Tournament) -> int:
    """The tournament's last audit event: what a page has seen of it (its ``since``)."""
    return AuditEvent.objects.filter(tournament=tournament).aggregate(m=Max("pk"))["m"] or 0


def _changed_elsewhere(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    number: int,
    known: set[int] = frozenset(),  # type: ignore[assignment]
) -> tuple[set[int], int | None]:
    """The players of this round's games written since the page's ``since`` mark (another
    desk's results, cards, corrections), and the new mark; (nothing, None) without a mark.

    Every write leaves one audit event naming its game (or card), so the rows another desk
    changed are found from the events after the mark, whatever the size of the field: the
    answer brings them too, and the table stays as current as when it was sent whole.
    ``known``: the games this answer sends anyway (the line's own), whose events need no
    look-up: a line typed while no other desk wrote costs no query here but the events'.
    """
    raw = request.POST.get("since", "")
    if not (raw.isascii() and raw.isdigit() and len(raw) < 19):
        return set(), None
    mark = int(raw)
    games: set[int] = set()
    cards: set[int] = set()
    for pk, kind, object_id in AuditEvent.objects.filter(
        tournament=tournament, pk__gt=mark, object_type__in=("Game", "PendingResult")
    ).values_list("pk", "object_type", "object_id"):
        mark = max(mark, pk)
        if object_id.isdigit():
            (games if kind == "Game" else cards).add(int(object_id))
    games -= known
    if not games and not cards:
        return set(), mark
    changed = Game.objects.filter(round__division=division, round__number=number).filter(
        Q(pk__in=games) | Q(pending_results__pk__in=cards)
    )
    players = set()
    for game in changed.select_related("player1", "player2"):
        players |= players_of([game])
        if (opponent := forfeit_opponent(game)) is not None:
            players.add(opponent)  # the forfeit's other row, in the same group
    return players, mark


def _just(extra: dict[str, Any]) -> list[int]:
    echo = extra.get("echo") or {}
    return list(echo.get("game_ids", []))


def _page(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    number: int,
    *,
    status: int = 200,
    **extra: Any,
) -> HttpResponse:
    """The whole page: the box, the answer, the round's table (a GET, or a line sent without
    JavaScript)."""
    paired = _paired_rounds(division)
    ctx = _base(request, tournament, division, number, paired=paired, **extra)
    ctx["rounds"] = paired
    ctx["groups"] = _groups(_games(division, number), _just(extra))
    ctx["disputes"] = _disputes(division, number)
    ctx["since"] = _mark(tournament)
    # htmx asking for the page (a refresh of the table) gets the round's block alone
    template = "console/results_live.html" if request.htmx else "console/results.html"
    return render(request, template, ctx, status=status)


def _answer(
    request: HttpRequest,
    tournament: Tournament,
    division: Division,
    number: int,
    *,
    status: int = 200,
    players: set[int] | None = None,
    **extra: Any,
) -> HttpResponse:
    """The answer to a line, a correction or a settled dispute.

    Without JavaScript: the whole page. For htmx, only what the line changed ("a
    light desk"): the answer (echo or refusal) swapped in place, and out of band the round's
    counter, the next step, the rows of ``players``' games (the game typed, or the one a
    refusal names), the rows written at another desk since the page's mark
    (``_changed_elsewhere``) and, when double entry is on, the disputed games; the rest of
    the table stays as it is. A few kilobytes and the same queries at any field size.
    """
    if not request.htmx:
        return _page(request, tournament, division, number, status=status, **extra)
    ctx = _base(request, tournament, division, number, **extra)
    known = set(_just(extra))  # the line's own games: their players are in ``players``
    changed, ctx["since"] = _changed_elsewhere(request, tournament, division, number, known)
    players = (players or set()) | changed
    ctx["groups"] = _groups(_games(division, number, players), _just(extra)) if players else []
    echo = extra.get("echo") or {}
    if ctx["double_entry"] or "dispute_error" in extra or echo.get("kind") == "settled":
        ctx["show_disputes"] = True
        ctx["disputes"] = _disputes(division, number)
    return render(request, "console/results_desk.html", ctx, status=status)


def _resolve(request: HttpRequest, tournament: Tournament, key: str, number: int):
    try:
        return _division_and_round(tournament, key, number)
    except DivisionMoved as moved_to:
        return moved(request, key, moved_to.division)


def _correction_for(
    division: Division, number: int, line: str, exc: ServiceError
) -> CorrectionForm | None:
    """A correction form for the game a refused line found recorded, with the line's scores."""
    game = (
        Game.objects.filter(pk=exc.params.get("game"))
        .select_related("round", "player1__player", "player2__player")
        .first()
    )
    if game is None or game.player2_id is None:
        return None
    score1, score2 = game.score1, game.score2
    try:
        target = resolve_line(division, number, line)
        if target.score1 is not None:
            score1, score2 = target.score1, target.score2
    except ServiceError:
        pass
    form = CorrectionForm(
        initial={
            "game": game.pk,
            "seen": seen_result([game], game.player1),
            "score1": score1,
            "score2": score2,
        }
    )
    form.label_for(game)
    form.stored = game
    return form


def _later_pairings(tournament: Tournament, division: Division, game: Game) -> list[dict]:
    """Rounds paired after a corrected game's round, each with its pairing page's link.

    Those rounds were paired from the old result; the director decides whether to re-pair
    their unscored games (the pairing page), so the console only warns and links.
    """
    return [
        {
            "round": later.round,
            "unscored": later.unscored,
            "url": reverse("console:pair", args=[tournament.slug, division.slug, later.round]),
        }
        for later in pairings_after(game)
    ]


def _later_rounds(later: list[dict]) -> str:
    """The later rounds' numbers as one list ("3, 4"), one placeholder of the translated warning."""
    return ", ".join(str(row["round"]) for row in later)


# --------------------------------------------------------------------------- views


@scorekeeper_required
@require_http_methods(["GET", "HEAD", "POST"])
def results(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """The result entry page (GET) and one typed line (POST)."""
    div = _resolve(request, tournament, division, round)
    if isinstance(div, HttpResponseBase):
        return div
    if request.method != "POST":
        return _page(request, tournament, div, round)
    form = ResultLineForm(_joined_seen(request))
    if not form.is_valid():
        return _answer(request, tournament, div, round, status=400, form=form, refused=True)
    line = form.cleaned_data["line"]
    try:
        with busy_refusal("line"):
            entered = enter_line(div, round, line, actor=request.user, seen=form.seen_map())
    except ServiceError as exc:
        form.add_error("line", exc.message)
        extra: dict[str, Any] = {"form": form, "refused": True, "refused_line": line}
        if exc.code == "already_recorded":
            extra["correction"] = _correction_for(div, round, line, exc)
            extra["focus_correction"] = form.cleaned_data.get("reopened", False)
        players = _named(exc)
        return _answer(request, tournament, div, round, status=400, players=players, **extra)
    echo = line_echo(div, entered)
    if entered.correction and entered.games:
        # the same warning as the correction form's: later rounds used the old result
        echo["later"] = _later_pairings(tournament, div, entered.games[0])
        echo["later_rounds"] = _later_rounds(echo["later"])
    players = players_of(entered.games)
    return _answer(request, tournament, div, round, echo=echo, players=players)


def _joined_seen(request: HttpRequest) -> QueryDict:
    """The posted line with its ``seen`` in one piece: the page sends one ``seen`` per game
    (each row keeps its own, so an answer that replaces a row replaces its part); a client
    of the older page sends the round's in one."""
    data = request.POST.copy()
    data["seen"] = "|".join(v for v in request.POST.getlist("seen") if v)
    return data


def _named(exc: ServiceError) -> set[int] | None:
    """The players whose game a refusal is about, when it read their game as stored: their
    rows are sent again, so the table shows what the refusal speaks of (another desk may have
    entered it meanwhile). Nothing for a refusal that found no game."""
    if exc.code == "already_recorded":
        keys = ("player1", "player2")
    elif exc.code == "result_changed_meanwhile":
        keys = ("number", "opponent")
    else:
        return None
    return {n for k in keys if isinstance(n := exc.params.get(k), int) and n > 0}


@scorekeeper_required
@require_POST
def correct(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """New scores for a recorded game of this round, with a reason for the audit trail."""
    div = _resolve(request, tournament, division, round)
    if isinstance(div, HttpResponseBase):
        return div
    form = CorrectionForm(request.POST)
    game = None
    raw_game = request.POST.get("game", "")
    if raw_game.isascii() and raw_game.isdigit():
        game = (
            Game.objects.filter(
                pk=int(raw_game), round__division=div, round__number=round, player2__isnull=False
            )
            .select_related("round__division__tournament", "player1__player", "player2__player")
            .first()
        )
    if game is None:
        raise Http404(_no_such_game(div, round))
    form.label_for(game)
    form.stored = game
    if form.is_valid() and not game.has_result:
        form.add_error(None, _("this game has no result yet: type it in the Result box"))
    if form.is_valid():
        data = form.cleaned_data
        before = (game.score1, game.score2)
        try:
            with busy_refusal():
                correct_result(
                    game,
                    data["score1"],
                    data["score2"],
                    reason=data["reason"],
                    actor=request.user,
                    seen=data.get("seen") or None,
                )
        except ServiceError as exc:
            if exc.code == "result_changed_meanwhile":
                # shown again with what the game holds now: sent again, it is meant
                changed = request.POST.copy()
                changed["seen"] = exc.params["stored"]
                form = CorrectionForm(changed)
                form.label_for(game)
                form.stored = game
                form.is_valid()
                form.add_error(None, exc.message)
            else:
                refuse(form, exc)
        else:
            players = players_of([game])
            rows = records_of(div, players)
            echo = {
                "kind": "corrected",
                "game_ids": [game.pk],
                "before": f"{before[0]}-{before[1]}",
                "reason": data["reason"],
                **game_echo(game, rows),
                "later": _later_pairings(tournament, div, game),
            }
            echo["later_rounds"] = _later_rounds(echo["later"])
            return _answer(request, tournament, div, round, echo=echo, players=players)
    return _answer(
        request,
        tournament,
        div,
        round,
        status=400,
        correction=form,
        focus_correction=True,
        players=players_of([game]),
    )


@scorekeeper_required
@require_POST
def resolve(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """A director records a disputed game with the scores they decide on."""
    if not can_direct(request.user, tournament):
        raise PermissionDenied(
            _("only the directors of {name} settle disputed cards").format(name=tournament.name)
        )
    div = _resolve(request, tournament, division, round)
    if isinstance(div, HttpResponseBase):
        return div
    form = DisputeForm(request.POST)
    if form.is_valid():
        game = (
            Game.objects.filter(
                pk=form.cleaned_data["game"],
                round__division=div,
                round__number=round,
                player2__isnull=False,
            )
            .select_related("round__division__tournament", "player1__player", "player2__player")
            .first()
        )
        if game is None:
            raise Http404(_no_such_game(div, round))
        try:
            with busy_refusal():
                game = resolve_dispute(
                    game,
                    form.cleaned_data["score1"],
                    form.cleaned_data["score2"],
                    actor=request.user,
                )
        except ServiceError as exc:
            form.add_error(None, exc.message)
        else:
            players = players_of([game])
            rows = records_of(div, players)
            echo = {"kind": "settled", "game_ids": [game.pk], **game_echo(game, rows)}
            return _answer(request, tournament, div, round, echo=echo, players=players)
    return _answer(request, tournament, div, round, status=400, dispute_error=form)


@scorekeeper_required
@require_POST
def toggle_double_entry(
    request: HttpRequest, tournament: Tournament, division: str, round: int
) -> HttpResponseBase:
    """A director turns double entry on or off for the division, then sees the round again."""
    if not can_direct(request.user, tournament):
        raise PermissionDenied(
            _("only the directors of {name} change double entry").format(name=tournament.name)
        )
    div = _resolve(request, tournament, division, round)
    if isinstance(div, HttpResponseBase):
        return div
    form = DoubleEntryForm(request.POST)
    form.is_valid()  # a BooleanField(required=False) is always valid
    set_double_entry(div, form.cleaned_data.get("on", False), actor=request.user)
    return redirect("console:results", tournament.slug, div.slug, round)


urlpatterns: list[URLPattern] = [
    path("<str:division>/round/<int:round>/results/", results, name="results"),
    path("<str:division>/round/<int:round>/results/correct/", correct, name="results_correct"),
    path("<str:division>/round/<int:round>/results/resolve/", resolve, name="results_resolve"),
    path(
        "<str:division>/round/<int:round>/results/double-entry/",
        toggle_double_entry,
        name="results_double_entry",
    ),
]
