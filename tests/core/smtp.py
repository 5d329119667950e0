"""A real SMTP server on loopback (aiosmtpd) that Django's SMTP backend talks to: the
``smtp`` and ``smtp_down`` fixtures, shared by tests/notices and the issue-22 day's browser
test (tests/entries/test_issue_day_browser.py), which import them from here.

Why a real server: the notices go through Django's mail framework from a Celery task after
the commit; a mock of ``send_mail`` would not show the SMTP conversation's failures (a refused
connection, a server gone), which the notices must survive without breaking a director's write.
"""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests.ports import free_port


@dataclass
class Received:
    """One mail the server took: its envelope's recipients and the parsed message."""

    to: list[str]
    message: Any

    @property
    def subject(self) -> str:
        return str(self.message["Subject"])

    @property
    def body(self) -> str:
        return self.message.get_body(("plain",)).get_content()


@dataclass
class Inbox:
    """What the loopback server received, in order."""

    mails: list[Received] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        self.mails.append(Received(list(envelope.rcpt_tos), parsed))
        return "250 OK"

    def to(self, address: str) -> list[Received]:
        return [m for m in self.mails if address in m.to]


def point_mail_at(settings: Any, port: int) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    settings.EMAIL_TIMEOUT = 5
    settings.DEFAULT_FROM_EMAIL = "notices@gibson.test"
    settings.SITE_URL = "http://testserver"


@pytest.fixture
def smtp(settings) -> Inbox:
    """aiosmtpd's Controller on a free loopback port, Django's SMTP backend pointed at it."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    point_mail_at(settings, controller.port)
    try:
        yield inbox
    finally:
        controller.stop()


@pytest.fixture
def smtp_down(settings) -> int:
    """Django's SMTP backend pointed at a loopback port nobody listens on."""
    port = free_port()
    point_mail_at(settings, port)
    return port
