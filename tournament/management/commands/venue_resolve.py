"""On the venue: choose between this laptop's state and the hosted copy's after they parted."""

from __future__ import annotations

from typing import Any

from tournament.sync.push import resolve, take

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = (
        "After this laptop was restored from an older backup the hosted copy holds changes it "
        "never had (venue_status lists what each side would lose): keep this laptop's state "
        "(the copy loses what only it held) or bring the copy's state down (this laptop loses "
        "what only it held)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug")
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument(
            "--keep-venue", action="store_true", help="send this laptop's state up whole"
        )
        which.add_argument(
            "--take-hosted", action="store_true", help="bring the hosted copy's state down"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        link = take(opts["slug"])
        choice = "venue" if opts["keep_venue"] else "hosted"
        lost = resolve(link, choice, actor="venue_resolve")
        if opts["json"]:
            self.emit_json({"ok": True, "tournament": opts["slug"], "kept": choice, "lost": lost})
            return
        side = "the hosted copy" if choice == "venue" else "this laptop"
        self.stdout.write(
            f"kept the {'venue' if choice == 'venue' else 'hosted copy'}'s state; {side} lost: "
            + ("; ".join(lost) or "nothing")
        )
