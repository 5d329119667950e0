"""The audit trail as the console's acceptance tests count it: every action a director takes
in the browser must leave exactly its audit events (a fix is one event, a refusal none)."""

from __future__ import annotations

from tournament.models import AuditEvent


class Trail:
    """Counts audit events around each action: every action leaves exactly its events."""

    def __init__(self) -> None:
        self.seen = AuditEvent.objects.count()
        self.expected = 0

    def after(self, what: str, events: int, action: str | None = None) -> None:
        """Assert ``what`` left ``events`` audit events, the last one ``action`` if given."""
        now = AuditEvent.objects.count()
        assert now - self.seen == events, (what, now - self.seen, events)
        if action is not None:
            assert AuditEvent.objects.latest("pk").action == action, what
        self.seen = now
        self.expected += events
