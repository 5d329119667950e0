"""A draft tournament's name is its staff's business (issue 31, item 5a).

A signed-in account that holds no role in a draft is refused its pages; the refusal must not
tell it what the draft is called (a draft's name can be news: "Nationals 2026 - Reno"). Every
URL that takes a tournament's slug is walked, by GET and by POST, and no answer may carry the
name: the refusal says "this tournament" instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tournament import services

SECRET = "Zanzibar Invitational"
SLUG = "zi-draft"
# what each URL argument is filled with: the draft's slug, its division "A", its first round
VALUES = {"slug": SLUG, "division": "a", "round": "1", "number": "1"}


def _paths(patterns: list, prefix: str = "") -> Iterator[str]:
    """Every URL the site routes, its arguments filled in for the draft's first round."""
    for p in patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            yield from _paths(p.url_patterns, route)
        elif isinstance(p, URLPattern) and "<slug:slug>" in route:
            path = re.sub(
                r"<(?:\w+:)?(\w+)>", lambda m: VALUES.get(m.group(1), "1"), route.lstrip("^")
            )
            yield "/" + path.replace("$", "")


@pytest.fixture
def draft(db):
    t = services.create_tournament(name=SECRET, slug=SLUG, published=False, actor="test")
    division = services.create_division(t, name="A", rounds=3, actor="test")
    for n in range(1, 5):
        services.register_player(division, name=f"Able {n}", rating=1800 - n, actor="test")
    return t


def test_a_refused_account_never_reads_a_drafts_name(draft):
    stranger = get_user_model().objects.create_user("stranger", "s@example.org", None)
    client = Client(raise_request_exception=False)
    client.force_login(stranger)
    paths = sorted(set(_paths(get_resolver().url_patterns)))
    assert len(paths) > 30, paths  # the walk found the console, the desk and the public pages
    leaks = []
    refused = 0
    for path in paths:
        for method in (client.get, client.post):
            response = method(path)
            refused += response.status_code in (403, 404)
            body = b"".join(response) if response.streaming else response.content
            if SECRET.encode() in body or SECRET in response.get("Location", ""):
                leaks.append(f"{method.__name__.upper()} {path} -> {response.status_code}")
    assert not leaks, leaks
    assert refused > 30


def test_the_refusal_still_says_what_was_refused(draft):
    stranger = get_user_model().objects.create_user("stranger", "s@example.org", None)
    client = Client()
    client.force_login(stranger)
    response = client.get(f"/t/{SLUG}/console/")
    assert response.status_code == 403
    assert b"of this tournament may do this" in response.content


def test_the_services_refusal_hides_the_drafts_name_too(draft):
    """The services' own check (the API, commands and admin word it) says "this tournament"
    to an account that may not see the draft, and the name to one that may."""
    from tournament.access import require
    from tournament.errors import ServiceError

    model = get_user_model()
    stranger = model.objects.create_user("stranger", "s@example.org", None)
    with pytest.raises(ServiceError) as refused:
        require(stranger, "direct", draft, what="pair rounds")
    assert SECRET not in refused.value.message
    assert "this tournament" in refused.value.message
    keeper = model.objects.create_user("keeper", "k@example.org", None)
    draft.scorekeepers.add(keeper)
    with pytest.raises(ServiceError) as refused:
        require(keeper, "direct", draft, what="pair rounds")
    assert SECRET in refused.value.message
