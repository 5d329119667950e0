"""The division's "hide prize chances" settings on the console's setup page: saved through
services.set_chances_visibility (audited), shown back on the form, a bad number refused."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.console.test_setup import division_form, event, td  # noqa: F401 (fixtures)
from tournament.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_hide_chances_for_the_last_rounds(td, event):  # noqa: F811
    t, a, _b = event
    url = reverse("console:setup_division", args=[t.slug, a.slug])
    response = td.post(url, division_form(a, chances_hidden="on", chances_hide_last="2"))
    assert response.status_code == 302
    a.refresh_from_db()
    assert a.config["chances"] == {"hide": True, "hide_last": 2}
    [row] = AuditEvent.objects.filter(action="division_chances")
    assert row.after == {"hide": True, "hide_last": 2}
    page = td.get(reverse("console:setup", args=[t.slug])).content.decode()
    assert f'name="div-{a.pk}-chances_hide_last"' in page and 'value="2"' in page
    # unticked: shown again, one more audit event; the division's other settings untouched
    assert td.post(url, division_form(a)).status_code == 302
    a.refresh_from_db()
    assert a.config["chances"] == {"hide": False, "hide_last": 0}
    assert AuditEvent.objects.filter(action="division_chances").count() == 2


def test_a_negative_count_is_refused_at_its_field(td, event):  # noqa: F811
    t, a, _b = event
    url = reverse("console:setup_division", args=[t.slug, a.slug])
    response = td.post(url, division_form(a, chances_hide_last="-1"))
    assert response.status_code == 400
    assert not AuditEvent.objects.filter(action="division_chances").exists()


def test_the_new_division_form_has_no_chances_fields(td, event):  # noqa: F811
    t, _a, _b = event
    page = td.get(reverse("console:setup", args=[t.slug])).content.decode()
    assert 'name="newdiv-chances_hidden"' not in page
