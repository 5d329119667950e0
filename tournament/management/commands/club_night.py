from tournament.clubs.models import Night
from tournament.clubs.services import create_night
from tournament.models import Membership

from ..base import GibsonCommand
from ._clubs import club_arg, split_names


def night_data(night: Night) -> dict:
    """A night as the club commands print it: its slug (for pair / record_result) and the
    numbers its players got."""
    division = night.tournament.divisions.get()
    guests = set(
        Membership.objects.filter(club=night.club, guest=True).values_list("player_id", flat=True)
    )
    return {
        "slug": night.tournament.slug,
        "club": night.club.slug,
        "date": night.date.isoformat(),
        "games": night.games,
        "draw": night.draws()[: night.games],
        "closed": night.closed,
        "players": [
            {
                "number": e.number,
                "name": e.player.name,
                "rating": e.seed_rating,
                "guest": e.player_id in guests,
            }
            for e in division.entries.select_related("player").order_by("number")
        ],
    }


class Command(GibsonCommand):
    acts_as = True
    help = (
        "Create a club night: the players present get numbers by club rating. Then draw each "
        "game with `pair NIGHT-SLUG --round R` (the night's draw is scheduled), record results "
        "with `record_result NIGHT-SLUG --round R NUMBER SCORE OPP-SCORE`, and close the night "
        "with `club_night_close NIGHT-SLUG` so it counts for the season and the club ratings."
    )

    def add_arguments(self, parser):
        parser.add_argument("club", help="the club's slug or name")
        parser.add_argument("--date", required=True, help="the night's date, YYYY-MM-DD")
        parser.add_argument(
            "--players",
            default="",
            help='who is here: "Ann Lee,Bob Ray" (use ";" between surname-first names: '
            '"Lee, Ann; Ray, Bob"); a number is a registry player id',
        )
        parser.add_argument("--guests", default="", help="guests by name, as --players")
        parser.add_argument("--games", default="3", help="games planned tonight (default 3)")
        parser.add_argument(
            "--draw",
            default="random,koth",
            help="the draw of each game, comma-separated, the last repeating: random, koth, "
            "swiss, rr (default random,koth)",
        )

    def handle(self, *args, **opts):
        club = club_arg(opts["club"])
        players = [int(p) if p.isdigit() else p for p in split_names(opts["players"])]
        night = create_night(
            club,
            date=opts["date"],
            players=players,
            guests=split_names(opts["guests"]),
            games=opts["games"],
            draw=opts["draw"],
            actor=self.actor(opts, "club_night"),
        )
        data = night_data(night)
        if opts["json"]:
            self.emit_json(data)
            return
        slug = data["slug"]
        self.stdout.write(
            f"{club.name} night {data['date']}: {slug} "
            f"({data['games']} games: {', '.join(data['draw'])})"
        )
        self.stdout.write(f"{'#':>4}  {'name':<30} {'rating':>6}")
        for p in data["players"]:
            name = p["name"] + (" (guest)" if p["guest"] else "")
            self.stdout.write(f"{p['number']:>4}  {name:<30} {p['rating']:>6}")
        self.stdout.write(f"draw game 1:  manage.py pair {slug} --round 1")
        self.stdout.write(
            f"results:      manage.py record_result {slug} --round 1 NUMBER SCORE OPP-SCORE"
        )
        self.stdout.write(f"at the end:   manage.py club_night_close {slug}")
