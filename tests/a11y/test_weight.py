"""Static files go out compressed (issue 17 item 9): the htmx script was 94% of a page's bytes."""

from __future__ import annotations

import gzip

from django.contrib.staticfiles import finders

HTMX = "django_htmx/htmx-2.min.js"


def test_the_htmx_script_is_sent_gzipped_to_a_browser_that_asks(client):
    with open(finders.find(HTMX), "rb") as f:
        plain = f.read()
    response = client.get(f"/static/{HTMX}", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert gzip.decompress(body) == plain
    assert len(body) < len(plain) * 0.4, (len(body), len(plain))  # ~51 KB -> well under 20 KB
    print(f"htmx: {len(plain)} bytes plain, {len(body)} gzipped")


def test_a_client_without_gzip_gets_the_plain_file(client):
    response = client.get(f"/static/{HTMX}")
    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    with open(finders.find(HTMX), "rb") as f:
        plain = f.read()
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert body == plain
