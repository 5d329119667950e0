"""On the venue: the state of each link (last push, changes waiting, last error)."""

from __future__ import annotations

from typing import Any

from tournament.models import VenueTake
from tournament.services.venue import link_state

from ..base import GibsonCommand


class Command(GibsonCommand):
    help = "Show the venue links of the tournaments taken here."

    def handle(self, *args: Any, **opts: Any) -> None:
        states = [link_state(t) for t in VenueTake.objects.select_related("tournament")]
        if opts["json"]:
            self.emit_json({"ok": True, "links": states})
            return
        if not states:
            self.stdout.write("no tournament was taken from a hosted site here")
        for s in states:
            self.stdout.write(
                f"{s['tournament']} -> {s['hosted_url']}: {s['changes_waiting']} changes waiting, "
                f"last push {s['last_push'] or 'never'}"
                + (f", handed back {s['released']}" if s["released"] else "")
                + (f"; last error: {s['last_error']}" if s["last_error"] else "")
            )
            if s["notice"]:
                self.stdout.write(f"  {s['notice']}")
            parted = s["diverged"]
            if parted:
                self.stdout.write(
                    f"  The hosted copy holds changes up to {parted['hosted_seq']} that this "
                    "laptop never had: nothing is pushed until you choose."
                )
                for title, key in (
                    (
                        "Keeping this laptop's state (--keep-venue) removes from the hosted copy:",
                        "hosted_only",
                    ),
                    ("Bringing the hosted copy down (--take-hosted) removes here:", "venue_only"),
                ):
                    self.stdout.write(f"  {title}")
                    for line in parted[key] or ["nothing"]:
                        self.stdout.write(f"    - {line}")
