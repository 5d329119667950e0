"""Submit a tournament's divisions to a rating list from the shell.

On the web only a list's officers submit (a director requests, an officer approves; see
ratings.division). This command runs as the shell user, with no web user, and names itself
("submit_ratings") as the actor: a command actor is trusted, since whoever runs it already
holds the database. Every submission is audited under that name.
"""

from __future__ import annotations

import datetime

from django.db import transaction

from ratings.division import division_rating_input, submit_divisions
from ratings.engine import RatingError
from ratings.models import PlayerRating, RatingList
from ratings.services import open_rating_list
from tournament.models import Division, Tournament
from tournament.selectors import tournament_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    acts_as = True
    help = "Submit a tournament's divisions to a rating list and re-rate the list from their date."

    def add_arguments(self, parser):
        parser.add_argument("slug", help="tournament slug")
        parser.add_argument("--list", dest="list", required=True, help="rating list slug")
        parser.add_argument("--division", help="only this division (default: every division)")
        parser.add_argument("--date", help="YYYY-MM-DD event date (default: tournament start)")
        parser.add_argument("--create", metavar="NAME", help="create the list with this name")

    def handle(self, *args, **opts):
        t = tournament_by_slug(opts["slug"])
        divisions = _divisions(t, opts["division"])
        date = _event_date(t, opts["date"])
        show = not opts["json"]
        progress = self.progress_bar(opts, "events")

        with transaction.atomic():
            lst = RatingList.objects.filter(slug=opts["list"]).first()
            if lst is None:
                if not opts["create"]:
                    raise RatingError(
                        f'no rating list {opts["list"]!r}: create it with --create "Name"'
                    )
                lst = open_rating_list(
                    opts["create"], slug=opts["list"], actor=self.actor(opts, "submit_ratings")
                )
            before = dict(
                PlayerRating.objects.filter(rating_list=lst).values_list("player_id", "rating")
            )
            submit_divisions(
                divisions,
                lst,
                date=date,
                actor=self.actor(opts, "submit_ratings"),
                progress=progress,
            )
            events = [(d, *division_rating_input(d)[::2]) for d in divisions]
            lst.refresh_from_db()
        summary = {"list": lst.slug, "events": [], "rerated": 0}
        after = dict(
            PlayerRating.objects.filter(rating_list=lst).values_list("player_id", "rating")
        )
        summary["rerated"] = lst.events.filter(date__gte=date).count()
        for d, entries, games in events:
            summary["events"].append(
                {
                    "division": d.name,
                    "date": date.isoformat(),
                    "players": len(entries),
                    "games": len(games),
                }
            )
            if show:
                self.stdout.write(
                    f"{t.name} {d.name} -> {lst.name} ({date}): {len(entries)} players, "
                    f"{len(games)} rated games"
                )
                changes = sorted(
                    (
                        (
                            after.get(e.player_id, 0)
                            - (before.get(e.player_id) or e.seed_rating or 0),
                            e,
                        )
                        for e in entries
                    ),
                    key=lambda c: -abs(c[0]),
                )[:5]
                for delta, e in changes:
                    self.stdout.write(
                        f"  {e.player.name:30} {after.get(e.player_id, 0):5} ({delta:+d})"
                    )
        if opts["json"]:
            self.emit_json(summary)


def _divisions(t: Tournament, name: str | None) -> list[Division]:
    """The tournament's divisions, or the one named (refused, listing them, when it lacks it)."""
    divisions = list(t.divisions.order_by("name"))
    if name:
        divisions = [d for d in divisions if d.name == name]
        if not divisions:
            names = ", ".join(t.divisions.order_by("name").values_list("name", flat=True))
            raise RatingError(
                f"tournament {t.slug!r} has no division {name!r} (divisions: {names})"
            )
    return divisions


def _event_date(t: Tournament, raw: str | None) -> datetime.date:
    """The date the events are rated on: --date, else the tournament's start date."""
    date = None
    if raw:
        try:
            date = datetime.date.fromisoformat(raw)
        except ValueError:
            raise ValueError(f"--date {raw!r}: expected YYYY-MM-DD") from None
    date = date or t.start_date
    if date is None:
        raise RatingError(f"tournament {t.slug!r} has no start date: pass --date YYYY-MM-DD")
    return date
