"""Issue 17 item 8: the home page links the rating lists and clubs and pages its tournaments."""

from __future__ import annotations

import datetime
import re

import pytest

from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def names(page: str) -> list[str]:
    return re.findall(r'<a href="/t/[^"]+/">([^<]+)</a>', page)


def test_home_links_ratings_and_clubs(client):
    page = client.get("/").content.decode()
    assert 'href="/ratings/"' in page and 'href="/clubs/"' in page
    assert client.get("/ratings/").status_code == 200
    assert client.get("/clubs/").status_code == 200


def test_tournaments_are_paged_50_a_page_newest_first(client):
    day = datetime.date(2020, 1, 1)
    Tournament.objects.bulk_create(
        Tournament(
            name=f"Event {i:03d}",
            slug=f"event-{i:03d}",
            published=True,
            start_date=day + datetime.timedelta(days=i),
        )
        for i in range(120)
    )
    Tournament.objects.create(name="Draft", slug="draft", published=False, start_date=day)
    first = client.get("/").content.decode()
    assert names(first) == [f"Event {i:03d}" for i in range(119, 69, -1)]
    assert "page 1 of 3 (120 tournaments)" in first and 'href="?page=2"' in first
    third = client.get("/", {"page": 3}).content.decode()
    assert names(third) == [f"Event {i:03d}" for i in range(19, -1, -1)]
    assert 'href="?page=2"' in third and "?page=4" not in third
    # a page number out of range or not a number shows a real page, never an error
    assert client.get("/", {"page": 99}).status_code == 200
    assert names(client.get("/", {"page": "x"}).content.decode())[0] == "Event 119"
    assert all("Draft" not in client.get("/", {"page": n}).content.decode() for n in (1, 2, 3))


def test_a_short_list_has_no_page_links(client):
    Tournament.objects.create(name="Only", slug="only", published=True)
    page = client.get("/").content.decode()
    assert names(page) == ["Only"] and "?page=" not in page
