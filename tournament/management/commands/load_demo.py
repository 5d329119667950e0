from ...demo import load_demo
from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Load the demo tournament (two clubs, 40 players, two divisions, 4 rounds played)."

    def handle(self, *args, **opts):
        tournament, created = load_demo()
        if opts["json"]:
            self.emit_json({"tournament": tournament.slug, "created": created})
        else:
            self.stdout.write(f"{'Loaded' if created else 'Already loaded'}: {tournament.slug}")
