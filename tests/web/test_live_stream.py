"""The live stream (tournament.stream): a write reaches a listening page at once, a page that
reconnects gets what it missed, and only published tournaments are streamed."""

from __future__ import annotations

import socket
import time

import pytest
from django.template import Context, Template
from django.test import override_settings

from pairings.services.store import PlannedGame, save_round_pairings
from tests.ports import free_port
from tournament import services
from tournament.models import AuditEvent
from tournament.services.clock import post_announcement
from tournament.stream import StreamThread

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stream():
    thread = StreamThread("127.0.0.1", free_port()).start()
    yield thread
    thread.stop()


class Listener:
    """A raw client of the stream: what an EventSource receives, as text."""

    def __init__(self, port: int, path: str, last_event_id: int | None = None) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        extra = f"Last-Event-ID: {last_event_id}\r\n" if last_event_id is not None else ""
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n{extra}\r\n".encode())
        self.text = ""

    def until(self, needle: str, seconds: float = 3.0) -> str:
        end = time.monotonic() + seconds
        while needle not in self.text and time.monotonic() < end:
            self.sock.settimeout(max(0.01, end - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            self.text += chunk.decode()
        return self.text

    def close(self) -> None:
        self.sock.close()


def last_id(t) -> int:
    return AuditEvent.objects.filter(tournament=t).order_by("-id").values_list("id", flat=True)[0]


def test_a_result_reaches_a_listening_page_within_a_second(event, stream):
    t, d = event
    page = Listener(stream.port, f"/t/{t.slug}/live/")
    assert "text/event-stream" in page.until("retry: 1000")
    assert "X-Accel-Buffering: no" in page.text  # nginx must not hold the events back
    time.sleep(0.1)
    started = time.monotonic()
    services.record_result(d, 2, 1, 400, 300)
    text = page.until('"kind":"result"', 1.0)
    assert '"kind":"result"' in text, text
    assert time.monotonic() - started < 1.0
    assert f"id: {last_id(t)}" in text
    post_announcement(t, "Lunch until 1 pm", actor="cmd")
    assert '"kind":"announcement"' in page.until('"kind":"announcement"', 1.0)
    page.close()


def test_a_page_that_reconnects_is_sent_what_it_missed(event, stream):
    t, d = event
    seen = last_id(t)
    services.record_result(d, 2, 1, 400, 300)  # while the page was away (a restart)
    save_round_pairings(d, 3, [PlannedGame(1, 3), PlannedGame(2, 4)])
    page = Listener(stream.port, f"/t/{t.slug}/live/?since=1", last_event_id=seen)
    text = page.until('"kind":"pairing"')
    assert '"kind":"result"' in text and '"kind":"pairing"' in text
    assert text.index('"kind":"result"') < text.index('"kind":"pairing"')
    page.close()
    # the id the page was built at (?since=) serves when there is no Last-Event-ID yet
    page = Listener(stream.port, f"/t/{t.slug}/live/?since={seen}")
    assert '"kind":"pairing"' in page.until('"kind":"pairing"')
    page.close()


def test_a_fresh_page_is_sent_only_new_writes(event, stream):
    t, d = event
    page = Listener(stream.port, f"/t/{t.slug}/live/")
    text = page.until('"kind"', 0.6)
    assert '"kind"' not in text  # the round-1 results before it opened are not news
    page.close()


def test_unpublished_unknown_and_other_paths_are_not_streamed(event, stream):
    t, d = event
    services.publish_tournament(t, False, "cmd")
    for path in (f"/t/{t.slug}/live/", "/t/nope/live/", "/t/x/live/../../etc/passwd", "/"):
        page = Listener(stream.port, path)
        assert page.until("\r\n\r\n").startswith("HTTP/1.1 404"), path
        page.close()


def test_a_self_report_is_not_streamed(event, stream):
    """A player's pending report shows on no public page: no news for them."""
    from tournament.selectors.live import kind_of

    t, d = event
    assert kind_of("record_result") == "result" and kind_of("correct_result") == "correction"
    assert kind_of("start_clock") == "clock" and kind_of("pair_round") == "pairing"
    from tournament.selectors.live import changes_since

    seen = last_id(t)
    AuditEvent.objects.create(tournament=t, actor="p", action="self_report")
    assert changes_since(t.pk, seen) == []


def test_the_page_names_the_stream_only_when_one_is_configured(event):
    t, d = event
    template = Template("{% load live %}{% live_stream t %}")
    assert template.render(Context({"t": t})) == ""
    with override_settings(GIBSON_STREAM_URL=":8001"):
        html = template.render(Context({"t": t}))
    assert 'data-live=":8001"' in html and f'data-path="/t/{t.slug}/live/"' in html
    assert f'data-since="{last_id(t)}"' in html
    t.published = False
    with override_settings(GIBSON_STREAM_URL="/"):
        assert template.render(Context({"t": t})) == ""


def test_serve_demo_starts_the_stream_on_the_next_port_and_tells_the_pages(event, settings):
    from tournament.management.commands.serve_demo import start_demo_stream

    t, d = event
    port = free_port()
    # it sets django.conf.settings itself; the fixture puts back what it is given here
    settings.GIBSON_STREAM_URL = settings.GIBSON_STREAM_URL
    settings.CONTENT_SECURITY_POLICY = settings.CONTENT_SECURITY_POLICY
    line, demo = start_demo_stream(f"127.0.0.1:{port - 1}")
    try:
        assert demo is not None and f"127.0.0.1:{port}/t/SLUG/live/" in line
        assert settings.GIBSON_STREAM_URL == f":{port}"
        assert settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["connect-src"][-1] == f"*:{port}"
        page = Listener(port, f"/t/{t.slug}/live/")
        assert "text/event-stream" in page.until("retry:")
        page.close()
        # the port taken (a second demo): no stream, the pages poll
        again, none = start_demo_stream(f"127.0.0.1:{port - 1}")
        assert none is None and "busy" in again
    finally:
        if demo is not None:
            demo.stop()


def test_beyond_its_limit_the_stream_says_503_and_the_page_polls(event):
    """A flood of connections cannot take every open file: the one too many is refused at
    once (EventSource then gives up and the page's htmx polling carries on)."""
    t, d = event
    small = StreamThread("127.0.0.1", free_port(), max_streams=2).start()
    try:
        pages = [Listener(small.port, f"/t/{t.slug}/live/") for _ in range(2)]
        for page in pages:
            assert "text/event-stream" in page.until("retry:")
        extra = Listener(small.port, f"/t/{t.slug}/live/")
        assert extra.until("\r\n\r\n").startswith("HTTP/1.1 503")
        extra.close()
        pages[0].close()
        time.sleep(0.2)  # its place is free again
        again = Listener(small.port, f"/t/{t.slug}/live/")
        assert "text/event-stream" in again.until("retry:")
        for page in (again, pages[1]):
            page.close()
    finally:
        small.stop()


def test_the_live_public_pages_load_the_stream_script_when_there_is_a_stream(
    event, client, settings
):
    t, d = event
    pages = [
        f"/t/{t.slug}/{d.slug}/standings/",
        f"/t/{t.slug}/{d.slug}/round/2/",
        f"/t/{t.slug}/{d.slug}/player/1/",
        f"/t/{t.slug}/{d.slug}/crosstable/",
        f"/t/{t.slug}/screen/",
        f"/t/{t.slug}/broadcast/",
    ]
    for path in pages:
        assert "live.js" not in client.get(path).content.decode(), path
    settings.GIBSON_STREAM_URL = "/"
    services.update_tournament(t, actor="cmd", venue="Hall")  # a new version: pages rebuilt
    for path in pages:
        html = client.get(path).content.decode()
        assert f'data-live="/" data-path="/t/{t.slug}/live/"' in html, path
        assert "live-change from:body" in html, path
