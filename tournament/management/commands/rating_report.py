from ratings.services import rating_list_by_slug, rating_report

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "How well rating systems predict a list's games: log-loss and Brier score per system."

    def add_arguments(self, parser):
        parser.add_argument("list", help="rating list slug")
        parser.add_argument("--systems", help="comma-separated systems (default: the list's)")

    def handle(self, *args, **opts):
        lst = rating_list_by_slug(opts["list"])
        systems = [s.strip() for s in opts["systems"].split(",")] if opts["systems"] else None
        report = rating_report(lst, systems)
        if opts["json"]:
            self.emit_json(report)
            return
        self.stdout.write(f"{lst.name}: predictions made with the ratings before each event")
        self.stdout.write(f"{'system':<12} {'games':>8} {'log-loss':>9} {'Brier':>7}")
        for name, r in report.items():
            if not r["games"]:
                self.stdout.write(f"{name:<12} {0:>8} {'-':>9} {'-':>7}")
                continue
            self.stdout.write(
                f"{name:<12} {r['games']:>8} {r['log_loss']:>9.4f} {r['brier']:>7.4f}"
            )
        self.stdout.write("(a coin flip scores log-loss 0.6931 and Brier 0.2500; lower is better)")
