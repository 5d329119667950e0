from tournament.clubs.services import close_night

from ..base import GibsonCommand
from ._clubs import night_arg


class Command(GibsonCommand):
    acts_as = True
    help = (
        "Close a club night once every game has its result: it then counts for the club's "
        "season and is rated on the club's rating list."
    )

    def add_arguments(self, parser):
        parser.add_argument("night", help="the night's slug, as club_night printed it")

    def handle(self, *args, **opts):
        night = close_night(night_arg(opts["night"]), actor=self.actor(opts, "club_night_close"))
        data = {
            "slug": night.tournament.slug,
            "club": night.club.slug,
            "date": night.date.isoformat(),
            "closed": night.closed,
            "rating_list": night.club.rating_list.slug if night.club.rating_list_id else None,
        }
        if opts["json"]:
            self.emit_json(data)
            return
        rated = f"; rated on {night.club.rating_list.name}" if night.club.rating_list_id else ""
        self.stdout.write(f"{night.club.name} night {data['date']} closed{rated}")
