"""The admin of a tournament its venue runs (issue 31, item 5h).

While a venue holds a tournament (venue mode), the hosted site's copy follows the venue's, and
the services refuse every other writer (``venue_holds_authority``), the admin included: its
audit hook meets the same check. That refusal must come back as the admin's own error message
on the page, with nothing changed, not as a server error.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.venue_mode.test_link import taken
from tournament.models import AuditEvent

from .conftest import admin_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def root() -> Client:
    user = get_user_model().objects.create_superuser("root", "root@example.org", None)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def test_changing_staff_of_a_venue_run_tournament_is_refused_with_a_message(root):
    t, _d, _token, _state = taken(Client())
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", None)
    url = f"/admin/tournament/tournament/{t.pk}/change/"
    data = admin_form(root.get(url))
    data["scorekeepers"] = [str(keeper.pk)]
    audits = AuditEvent.objects.count()
    answer = root.post(url, data, follow=True)
    assert answer.status_code == 200, answer.status_code
    shown = [str(m) for m in answer.context["messages"]]
    assert any("Hall B" in m and "Nothing was changed" in m for m in shown), shown
    assert not t.scorekeepers.exists()
    assert AuditEvent.objects.count() == audits


def test_repairing_a_division_of_a_venue_run_tournament_is_refused_with_a_message(root):
    t, d, _token, _state = taken(Client())
    url = f"/admin/tournament/division/{d.pk}/change/"
    data = admin_form(root.get(url))
    data["rounds"] = "5"
    answer = root.post(url, data, follow=True)
    assert answer.status_code == 200, answer.status_code
    shown = [str(m) for m in answer.context["messages"]]
    assert any("Hall B" in m and "Nothing was changed" in m for m in shown), shown
    d.refresh_from_db()
    assert d.rounds == 3
