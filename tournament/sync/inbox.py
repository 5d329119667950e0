"""Down (issue 23): the players' reports queued on the hosted site, pulled and settled here.

Each report is entered through the venue's own self-entry service, as if the player had used
a link of this instance (a director's entry still wins: a game already recorded refuses it),
and its outcome is kept on the link in the same transaction, so a report pulled twice (the
answer was lost on the way back) is answered again, never entered twice.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from ..errors import ServiceError
from ..models import Entry, VenueTake
from ..services import venue
from ..services.selfentry import issue_token, report_own_result
from . import client

WORDS = {
    "pending": "entered; waiting for your opponent's report",
    "confirmed": "recorded",
    "disputed": "your opponent reported other scores: a director settles the game",
}


def _settle(link: VenueTake, item: dict[str, Any]) -> tuple[str, str]:
    with transaction.atomic():
        try:
            with transaction.atomic():
                entry = Entry.objects.get(
                    division__tournament_id=link.tournament_id,
                    division__slug=item["division"],
                    number=item["number"],
                )
                token = entry.entry_token or issue_token(entry, "venue inbox")
                outcome = report_own_result(
                    token, item["score"], item["opp_score"], round_number=item["round"]
                )
            status, words = "accepted", WORDS.get(outcome.status, outcome.status)
        except Entry.DoesNotExist:
            status, words = "refused", "no such player at the venue"
        except ServiceError as exc:
            status, words = "refused", exc.message
        venue.record_inbox_outcome(link, int(item["id"]), status, words)
    return status, words


def pull(link: VenueTake) -> int:
    """Pull the waiting reports, settle each once, send the answers; returns how many."""
    items = client.fetch_inbox(link.hosted_url, link.token)["items"]
    answers = []
    for item in items:
        done = link.inbox_done.get(str(item["id"]))
        status, words = done if done else _settle(link, item)
        answers.append({"id": item["id"], "status": status, "outcome": words})
    if answers:
        client.settle_inbox(link.hosted_url, link.token, {"settled": answers})
    return len(answers)
