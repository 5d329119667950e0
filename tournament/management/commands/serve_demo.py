import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from ...catalogues import compile_catalogues
from ...demo import ensure_director, load_demo
from ...stream import StreamThread
from ..base import GibsonCommand
from ..serving import announce_site_url, check_free, ensure_manual, split_addr


class Command(GibsonCommand):
    help = "Migrate, load the demo, create a director login and serve the site."
    json_flag = False

    def add_arguments(self, parser):
        parser.add_argument("--addr", default=os.environ.get("GIBSON_ADDR", "127.0.0.1:8000"))
        parser.add_argument("--no-serve", action="store_true", help="set up only, do not serve")
        parser.add_argument(
            "--no-stream",
            action="store_true",
            help="no live stream beside the site (pages then poll every few seconds)",
        )
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
        compile_catalogues()  # the languages' .mo files (never in git; docs/languages.md)
        tournament, _ = load_demo()
        user, password = ensure_director(
            password=os.environ.get("GIBSON_DEMO_PASSWORD") or None,
            new_password=opts["new_password"],
        )
        manual = ensure_manual(f"http://{addr}")  # rebuilt only when docs/ changed
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
                    f"here every {settings.VENUE_PUSH_SECONDS:g} s.\n"
                )
            )
        )
        if not opts["no_serve"]:
            if not opts["no_stream"]:
                self.stdout.write(start_demo_stream(addr)[0])
            if not opts["no_sync"]:
                # venue mode: a tournament taken here is pushed every few seconds by this
                # process (GIBSON_VENUE_PUSH_SECONDS)
                from ...sync.push import sync_in_background

                sync_in_background(settings.VENUE_PUSH_SECONDS)
            # --insecure: serve the admin's static files with DEBUG off, as a venue laptop needs.
            call_command("runserver", addr, use_reloader=False, insecure_serving=True)


def start_demo_stream(addr: str) -> tuple[str, StreamThread | None]:
    """The live stream in a thread of this process, on the port after the site's, and the
    pages told of it (as ``serve --stream`` does): the demo's pages update themselves.
    Returns the line to print and the stream; a busy port leaves the pages polling."""
    host, port = split_addr(addr)
    stream_addr = f"{host}:{port + 1}" if ":" not in host else f"[{host}]:{port + 1}"
    try:
        check_free(stream_addr)
    except CommandError:
        return f"No live stream: port {port + 1} is busy (the pages poll instead)", None
    stream = StreamThread(host, port + 1).start()
    settings.GIBSON_STREAM_URL = f":{port + 1}"
    policy = dict(settings.CONTENT_SECURITY_POLICY)
    directives = dict(policy["DIRECTIVES"])
    directives["connect-src"] = ["'self'", f"*:{port + 1}"]
    policy["DIRECTIVES"] = directives
    settings.CONTENT_SECURITY_POLICY = policy
    return f"Live updates: the pages listen to http://{stream_addr}/t/SLUG/live/", stream
