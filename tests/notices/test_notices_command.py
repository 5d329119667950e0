"""``manage.py notices``: the subscribers and the log from the shell, the final results sent
from it, refusals with their code and nothing written."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tournament.models import AuditEvent, Notice
from tournament.services import notices

from .test_notices import _results


def _run(*args: str) -> str:
    out = StringIO()
    call_command("notices", *args, stdout=out)
    return out.getvalue()


def test_the_command_lists_and_sends_the_final_results(
    event, smtp, django_capture_on_commit_callbacks
):
    for e in event.entries[:2]:
        notices.subscribe(event.tournament, e.player, e.player.email, actor=event.director)
    _results(event, django_capture_on_commit_callbacks)
    data = json.loads(_run("notice-open", "--json"))
    assert data["ok"] and data["notices"] == {"queued": 0, "sent": 4, "failed": 0}
    assert [s["player"] for s in data["subscribers"]] == ["Able, Ann", "Baker, Bo"]
    with django_capture_on_commit_callbacks(execute=True):
        text = _run("notice-open", "--final-results", "--as", "dora")
    assert "final results queued for 2 subscribers" in text
    assert AuditEvent.objects.get(action="send_final_results").actor == "dora"
    assert len([m for m in smtp.mails if m.subject.startswith("Final results")]) == 2
    with pytest.raises(CommandError) as refused:
        _run("notice-open", "--final-results")
    assert refused.value.code == "final_results_already_sent"
    assert refused.value.field == "again"


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["notice-open", "--final-results"], "notices_no_subscribers"),
        (["notice-open", "--final-results", "--as", "kim"], "not_allowed"),
        (["notice-open", "--final-results", "--as", "stan"], "not_allowed"),
        (["no-such-open"], "unknown_tournament"),
        ([], "invalid_argument"),  # neither a tournament nor --retry (issue 33)
    ],
)
def test_the_command_refuses_with_a_code_and_writes_nothing(event, args, code):
    events = AuditEvent.objects.count()
    with pytest.raises(CommandError) as refused:
        _run(*args)
    assert refused.value.code == code
    assert AuditEvent.objects.count() == events and not Notice.objects.exists()


def test_the_command_retries_failed_mail_without_a_tournament(event, smtp_down):
    """``--retry`` alone: the worker's periodic retry, from the shell (issue 33)."""
    notices.deliver([notices.queue_mail("entry_page", "able@players.test", "S", "B").pk])
    assert Notice.objects.get().state == "failed"
    assert "retried: 0 sent, 1 failed" in _run("--retry")
