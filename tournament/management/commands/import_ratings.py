from django.db import transaction

from ratings.services import import_ratings_file, open_rating_list, rating_list_by_slug

from ..base import GibsonCommand


class Command(GibsonCommand):
    acts_as = True
    help = "Load starting ratings into a rating list (TSH tab-separated list or name,rating,games)."

    def add_arguments(self, parser):
        parser.add_argument("list", help="rating list slug")
        parser.add_argument("path", help="ratings file")
        parser.add_argument("--create", metavar="NAME", help="create the list with this name")
        parser.add_argument("--system", default="nsa2008", help="system of a new list")

    def handle(self, *args, **opts):
        actor = self.actor(opts, "import_ratings")
        with transaction.atomic():  # a refused --as account leaves no new list behind
            if opts["create"]:
                lst = open_rating_list(
                    opts["create"], slug=opts["list"], system=opts["system"], actor=actor
                )
            else:
                lst = rating_list_by_slug(opts["list"])
            summary = import_ratings_file(lst, opts["path"], actor=actor)
        if opts["json"]:
            self.emit_json(summary)
            return
        self.stdout.write(
            f"{lst.name}: {summary['rows']} ratings loaded, "
            f"{summary['players_created']} new players"
        )
