"""Club organisers' pages: permissions, founding a club, settings, members, seasons."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.test import RequestFactory

from tournament.clubs import services as club_services
from tournament.clubs.web.permissions import organiser_required

PW = "pw-long-enough-1"

pytestmark = pytest.mark.django_db


@organiser_required
def _probe(request, club):
    return HttpResponse(club.slug)


def test_organiser_required_answers_each_case():
    ann = User.objects.create_user("ann", password=PW)
    bob = User.objects.create_user("bob", password=PW)
    club = club_services.create_club(name="Riverside", actor=ann)
    rf = RequestFactory()
    request = rf.get("/clubs/riverside/manage/")
    request.user = AnonymousUser()
    response = _probe(request, slug=club.slug)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/clubs/riverside/manage/")
    request.user = bob
    with pytest.raises(PermissionDenied):
        _probe(request, slug=club.slug)
    request.user = ann
    assert _probe(request, slug=club.slug).content == b"riverside"
    with pytest.raises(Http404):
        _probe(request, slug="nowhere")
