import os

from django.conf import settings
from django.core.management import call_command

from ...demo import ensure_director, load_demo
from ...manual import ManualError, publish_manual
from ..base import GibsonCommand
from ..serving import announce_site_url, check_free


class Command(GibsonCommand):
    help = "Migrate, load the demo, create a director login and serve the site."
    json_flag = False

    def add_arguments(self, parser):
        parser.add_argument("--addr", default=os.environ.get("GIBSON_ADDR", "127.0.0.1:8000"))
        parser.add_argument("--no-serve", action="store_true", help="set up only, do not serve")
        parser.add_argument(
            "--no-sync",
            action="store_true",
            help="do not push the tournaments taken from a hosted site (venue mode) from here",
        )
        parser.add_argument(
            "--new-password",
            action="store_true",
            help="give the director a new random password (a restart keeps the old one, so "
            "nobody is signed out)",
        )

    def handle(self, *args, **opts):
        addr = opts["addr"]
        if not opts["no_serve"]:
            check_free(addr)  # before anything is printed: no "ready" line for a dead server
        site_url = announce_site_url(addr, self.stderr)
        call_command("migrate", interactive=False, verbosity=0)
        tournament, _ = load_demo()
        user, password = ensure_director(
            password=os.environ.get("GIBSON_DEMO_PASSWORD") or None,
            new_password=opts["new_password"],
        )
        manual = self._build_manual(addr)
        login = (
            f"as {user} / {password}"
            if password
            else f"as {user} (password unchanged since it was printed; "
            f"serve_demo --new-password prints a new one)"
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"\nGibson is ready: http://{addr}/  (demo: http://{addr}/t/{tournament.slug}/)\n"
                f"Directors sign in at http://{addr}/accounts/login/ {login}\n"
                f"and run the event from the console: http://{addr}/t/{tournament.slug}/console/\n"
                f"The same login organises the demo club: http://{addr}/clubs/riverside/\n"
                f"Scorecard QR codes open {site_url}\n"
                f"{manual}\n"
                + (
                    ""
                    if opts["no_sync"]
                    else "Tournaments taken from a hosted site (venue mode) are pushed from "
                    "here every 2 s.\n"
                )
            )
        )
        if not opts["no_serve"]:
            if not opts["no_sync"]:
                # venue mode: a tournament taken here is pushed every 2 s by this process
                from ...sync.push import sync_in_background

                sync_in_background(2.0)
            # --insecure: serve the admin's static files with DEBUG off, as a venue laptop needs.
            call_command("runserver", addr, use_reloader=False, insecure_serving=True)

    def _build_manual(self, addr: str) -> str:
        """Build the manual (docs/) into the data folder, served at /docs/: a director reads it
        from the laptop that runs the event (rebuilt only when docs/ changed). A failed build
        is said, and the demo runs on."""
        try:
            publish_manual(settings.MANUAL_DIR, force=False)
        except ManualError as exc:
            return f"The manual could not be built ({exc}); read docs/ in the repository"
        return f"The manual: http://{addr}/docs/"
