"""A tournament's e-mail notices from the shell: who subscribed and what was sent or failed,
and the final results e-mailed (the console's Notices page, for a director at the server)."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from tournament.models import Notice
from tournament.selectors import (
    notice_log,
    notice_subscribers,
    shown_notice_addresses,
    tournament_by_slug,
)
from tournament.services.notices import retry_failed, send_final_results

from ..base import CommandFailure, GibsonCommand


class Command(GibsonCommand):
    help = (
        "Show a tournament's notice subscribers and the notices sent or failed; with "
        "--final-results e-mail each subscriber their final place, record and spread "
        "(refused a second time unless --again). With --retry (and no tournament), send "
        "once more the mail that failed in the last two days for a reason a retry may mend "
        "(the mail server down): entries' and sign-ups' links, notices."
    )
    acts_as = True

    def add_arguments(self, parser):
        parser.add_argument("slug", nargs="?")
        parser.add_argument(
            "--retry", action="store_true", help="send the mail that failed once more, now"
        )
        parser.add_argument(
            "--final-results", action="store_true", help="e-mail the final results now"
        )
        parser.add_argument(
            "--again", action="store_true", help="send the final results a second time"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        # --retry: the operator's shell does the worker's periodic task now
        retried = retry_failed() if opts["retry"] else None
        if retried is not None and not opts["slug"]:
            if opts["json"]:
                self.emit_json({"ok": True, "retried": retried})
            else:
                self.stdout.write(f"retried: {retried['sent']} sent, {retried['failed']} failed")
            return
        if not opts["slug"]:
            raise CommandFailure("name the tournament (its slug), or ask for --retry", field="slug")
        tournament = tournament_by_slug(opts["slug"])
        sent = None
        if opts["final_results"]:
            sent = send_final_results(
                tournament, actor=self.actor(opts, "notices"), again=opts["again"]
            )
        subscribers = notice_subscribers(tournament)
        shown = {s.pk for s in subscribers}  # the operator's shell holds the database anyway
        if opts.get("as_user") is not None:
            # an account sees the addresses its roles show it on the Notices page, no more
            shown, _ = shown_notice_addresses(
                self.actor(opts, "notices"), tournament, subscribers, []
            )
        log = notice_log(tournament, limit=10_000)
        counts = {state: sum(1 for n in log if n.state == state) for state in Notice.State}
        if opts["json"]:
            self.emit_json(
                {
                    "ok": True,
                    "tournament": tournament.slug,
                    "final_results_queued": sent,
                    "retried": retried,
                    "subscribers": [
                        {
                            "player": s.player.name,
                            "email": s.email if s.pk in shown else None,  # None: not shown
                            "active": s.active,
                        }
                        for s in subscribers
                    ],
                    "notices": {str(k): v for k, v in counts.items()},
                    "failed": [
                        {
                            "player": n.subscription.player.name,
                            "subject": n.subject,
                            "error": n.error,
                            "at": n.created.isoformat(),
                        }
                        for n in log
                        if n.state == Notice.State.FAILED
                    ],
                }
            )
            return
        if retried is not None:
            self.stdout.write(f"retried: {retried['sent']} sent, {retried['failed']} failed")
        if sent is not None:
            self.stdout.write(f"final results queued for {sent} subscribers")
        active = sum(1 for s in subscribers if s.active)
        self.stdout.write(
            f"{tournament.name}: {active} subscribed ({len(subscribers) - active} "
            f"unsubscribed); notices: {counts['sent']} sent, {counts['failed']} failed, "
            f"{counts['queued']} queued"
        )
        for n in log:
            if n.state == Notice.State.FAILED:
                when = timezone.localtime(n.created).strftime("%Y-%m-%d %H:%M")
                self.stdout.write(
                    f"  failed {when} {n.subscription.player.name}: {n.subject} ({n.error})"
                )
