"""Console home and round status: where a director lands, and what is still to do.

``/t/SLUG/console/`` is the first page a director opens at the venue. With one division and a
round in play it goes straight to that round's result entry (focus in the box: scores are what
a director does most); otherwise it lists the divisions, each one keystroke away (1-9). The
division page is the round status: games still missing, Gibsonized players, the last actions
from the audit trail, undo of the last pairing while it has no results, standings, and the
desk's reports one click away.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from pairings.selectors import gibsonized_players
from ratings.division import rating_estimates
from ratings.selectors import list_summaries
from tournament.selectors import (
    division_actions,
    division_standings,
    division_team_standings,
    last_round_number,
    last_scored_round,
    missing_games,
    round_has_results,
    round_in_play,
)

from ...models import AuditEvent, Division, Tournament
from ...services.selfentry import open_self_reports
from ...services.venue import venue_panel
from ..permissions import DivisionMoved, can_direct, division_by_slug, moved, scorekeeper_required
from .broadcast import featured_panel
from .clock import announcement_panel, clock_panel

RECENT_ACTIONS = 12


def _url(name: str, *args: object) -> str | None:
    """A console link if that page exists (topic modules add their pages independently)."""
    try:
        return reverse(name, args=args)
    except NoReverseMatch:
        return None


def _division_summary(division: Division) -> dict:
    paired = last_round_number(division)
    playing = round_in_play(division)
    missing = missing_games(division, playing) if playing else []
    return {
        "division": division,
        "players": division.entries.count(),
        "paired": paired,
        "scored": last_scored_round(division),
        "in_play": playing,
        "missing": len(missing),
        "missing_games": missing,
    }


@scorekeeper_required
@require_safe
def console_home(request: HttpRequest, tournament: Tournament) -> HttpResponseBase:
    divisions = list(tournament.divisions.all())
    if len(divisions) == 1 and "stay" not in request.GET:
        playing = round_in_play(divisions[0])
        target = playing and _url("console:results", tournament.slug, divisions[0].slug, playing)
        if target:
            return redirect(target)
    rows = [_division_summary(d) for d in divisions]
    for key, row in enumerate(rows, start=1):
        div_slug = row["division"].slug
        row["key"] = str(key) if key <= 9 else ""
        row["status_url"] = reverse("console:division", args=(tournament.slug, div_slug))
        row["results_url"] = row["in_play"] and _url(
            "console:results", tournament.slug, div_slug, row["in_play"]
        )
    directs = can_direct(request.user, tournament)
    return render(
        request,
        "console/home.html",
        {
            "tournament": tournament,
            "rows": rows,
            "directs": directs,
            "links": _tournament_links(tournament, directs),
            "actions": _recent_actions(tournament),
            **announcement_panel(tournament),
            **featured_panel(tournament),
            **venue_panel(tournament),
        },
    )


def _tournament_links(tournament: Tournament, directs: bool) -> list[tuple[str, str]]:
    links = [(_("Public page"), reverse("public:tournament", args=(tournament.slug,)))]
    if directs:
        for label, name in (
            (_("Setup"), "console:setup"),
            (_("Staff"), "console:staff"),
            (_("Notices"), "console:notices"),
            (_("Weekend"), "console:weekend"),
            (_("Federation files"), "console:federation"),
            (_("Entries"), "console:entries"),
            (_("Check-in"), "console:checkin"),
            (_("Venue mode"), "console:venue_mode"),
            (_("Photos"), "console:photos"),
        ):
            url = _url(name, tournament.slug)
            if url:
                links.append((label, url))
        links.append((_("Print & export"), reverse("desk:desk", args=(tournament.slug,))))
    # the day's steps in order, served by this site: a venue without internet has them too
    links.append((_("Manual"), reverse("manual", args=("run-an-event/",))))
    return links


def rating_list_choices(division: Division) -> list[tuple[str, str]]:
    """(slug, name) of every rating list, the division's own first."""
    lists = [(lst.slug, lst.name, lst.pk == division.rating_list_id) for lst in list_summaries()]
    return [(slug, name) for slug, name, _own in sorted(lists, key=lambda x: not x[2])]


def _recent_actions(tournament: Tournament) -> list[AuditEvent]:
    """The tournament's last actions, newest first: what a co-director just did is visible."""
    events = AuditEvent.objects.filter(tournament=tournament)
    return list(events.order_by("-at", "-id")[:RECENT_ACTIONS])


@scorekeeper_required
@require_safe
def division_home(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponseBase:
    try:
        div = division_by_slug(tournament, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    summary = _division_summary(div)
    paired = summary["paired"]
    playing = summary["in_play"]
    directs = can_direct(request.user, tournament)
    slug = tournament.slug
    context = {
        "tournament": tournament,
        "division": div,
        "summary": summary,
        "directs": directs,
        "missing": summary["missing_games"],
        "gibsonized": gibsonized_players(div),
        "self_reports": open_self_reports(div),  # players' own reports (self-entry)
        "actions": division_actions(div, RECENT_ACTIONS),
        # submit to a rating list (directors): every list, the division's own first
        "rating_lists": directs and rating_list_choices(div),
        "submit_url": directs and _url("console:submit_ratings", slug, div.slug),
        "results_url": playing and _url("console:results", slug, div.slug, playing),
        "last_results_url": paired and _url("console:results", slug, div.slug, paired),
        # no round beyond the division's rounds (pairing refuses it) unless they are raised
        "next_pair_url": directs
        and paired < div.rounds
        and _url("console:pair", slug, div.slug, paired + 1),
        "players_url": directs and _url("console:players", slug, div.slug),
        "standings_url": reverse("console:standings", args=(slug, div.slug)),
        "undo_url": (
            directs
            and paired
            and not round_has_results(div, paired)
            and _url("console:unpair", slug, div.slug, paired)
        ),
        "desk_url": directs and reverse("desk:desk", args=(slug,)),
        "report_url": directs and reverse("desk:report", args=(slug, div.slug)),
        "scored": summary["scored"],
        "rounds": range(1, paired + 1),
        **clock_panel(request, tournament, div),  # the round clock
    }
    return render(request, "console/division.html", context)


@scorekeeper_required
@require_safe
def standings(request: HttpRequest, tournament: Tournament, division: str) -> HttpResponse:
    """The standings as the director sees them: every player, withdrawn ones after the ranked,
    after any paired round (``?after=R``), with rating estimates; the same rows as
    ``manage.py standings --json``."""
    try:
        div = division_by_slug(tournament, division)
    except DivisionMoved as moved_to:
        return moved(request, division, moved_to.division)
    last = last_round_number(div)
    raw = request.GET.get("after", "")
    if raw:
        if not (raw.isascii() and raw.isdigit()) or int(raw) > last:
            return render(
                request,
                "tournament/error.html",
                {
                    "message": _("after={value}: give a round number from 0 to {last}").format(
                        value=repr(raw), last=last
                    )
                },
                status=400,
            )
        after = int(raw)
    else:
        after = last
    rows = division_standings(div, after)
    estimates = rating_estimates(div, after)
    for row in rows:
        row.estimate = estimates.get(row.number)
    return render(
        request,
        "console/standings.html",
        {
            "tournament": tournament,
            "division": div,
            "rows": rows,
            "team_rows": division_team_standings(div, after),
            "after_round": after,
            "rounds": range(0, last + 1),
            "directs": can_direct(request.user, tournament),
        },
    )
