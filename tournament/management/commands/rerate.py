"""Re-rate a rating list from the shell.

Re-rating is a rating officer's act (ratings.division.rerate checks it for web users); this
command runs as the shell user, with no web user, and names itself ("rerate") as the actor:
a command actor is trusted, since whoever runs it already holds the database. It is audited.
"""

import datetime

from ratings.division import rerate
from ratings.services import rating_list_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    acts_as = True
    help = "Re-rate a rating list from a date (default: from the first event awaiting rating)."

    def add_arguments(self, parser):
        parser.add_argument("list", help="rating list slug")
        parser.add_argument("--from", dest="from_date", help="YYYY-MM-DD: re-rate events from here")
        parser.add_argument("--system", help="switch the list to this system (re-rates it all)")

    def handle(self, *args, **opts):
        lst = rating_list_by_slug(opts["list"])
        frm = None
        if opts["from_date"]:
            try:
                frm = datetime.date.fromisoformat(opts["from_date"])
            except ValueError:
                raise ValueError(f"--from {opts['from_date']!r}: expected YYYY-MM-DD") from None
        progress = self.progress_bar(opts, "events")

        summary = rerate(
            lst, frm, system=opts["system"], actor=self.actor(opts, "rerate"), progress=progress
        )
        if opts["json"]:
            self.emit_json(summary)
            return
        self.stdout.write(
            f"{lst.name}: re-rated {summary['events_rerated']} events with {summary['system']} "
            f"({summary['events_final']} earlier events kept), {summary['players']} players"
        )
