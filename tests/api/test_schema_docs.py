"""The OpenAPI schema and the Swagger UI page, served from this site under its CSP."""

from __future__ import annotations

from django.test import Client


def test_schema_lists_every_operation(db):
    r = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200
    schema = r.json()
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    for p in (
        "/api/v1/tournaments/",
        "/api/v1/tournaments/{slug}/divisions/{division}/results/",
        "/api/v1/tournaments/{slug}/divisions/{division}/standings/",
        "/api/v1/players/{id}/",
        "/api/v1/rating-lists/{slug}/ratings/",
    ):
        assert p in paths, p
    assert "tokenAuth" in schema["components"]["securitySchemes"]


def test_docs_page_needs_no_inline_script_and_no_cdn(db):
    client = Client()
    r = client.get("/api/docs/")
    assert r.status_code == 200
    html = r.content.decode()
    csp = r["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "cdn" not in html.lower()
    scripts = html.split("<script")[1:]
    assert scripts and all(" src=" in s.split(">")[0] for s in scripts)  # no inline code
    for src in [s.split('src="')[1].split('"')[0] for s in scripts]:
        assert src.startswith("/"), src
        js = client.get(src.replace("&amp;", "&"))
        assert js.status_code == 200, src
