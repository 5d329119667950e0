"""Every word a user sees is marked for translation (tests/i18n/unmarked.py says what is
scanned and what is ignored; docs/languages.md). The paths of pending.PENDING are the areas
still being marked elsewhere: they are skipped, and the list may only shrink."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.i18n.pending import PENDING
from tests.i18n.unmarked import scan_module, scan_path, scan_template, scanned_files

REPO = Path(__file__).resolve().parents[2]


def test_every_template_and_module_is_marked() -> None:
    pending = set(PENDING)
    unmarked = {}
    for path in scanned_files(REPO):
        name = path.relative_to(REPO).as_posix()
        if name in pending:
            continue
        found = scan_path(path, REPO)
        if found:
            unmarked[name] = found[:3]
    assert not unmarked, "unmarked text (mark it for translation, docs/languages.md): " + "; ".join(
        f"{name} {found}" for name, found in sorted(unmarked.items())
    )


def test_the_pending_list_names_only_files_still_to_mark() -> None:
    """Each pending path exists, is explicit (no folder, no wildcard), is listed once, and
    still has something to mark: a path marked since must leave the list."""
    assert len(set(PENDING)) == len(PENDING)
    done = []
    for name in PENDING:
        assert "*" not in name and not name.endswith("/"), name
        path = REPO / name
        assert path.is_file(), f"{name} is pending but no longer exists: remove it"
        if not scan_path(path, REPO):
            done.append(name)
    assert not done, f"marked now, remove from tests/i18n/pending.py: {done}"


SAMPLE_TEMPLATE = textwrap.dedent(
    """\
    {% extends "base.html" %}{% load i18n %}
    {# a comment with words is fine #}
    {% comment %}Also fine{% endcomment %}
    <h1>{% translate "Standings" %}</h1>
    <p>{% blocktranslate trimmed with n=round %}After round {{ n }}{% endblocktranslate %}</p>
    <button aria-label="{% translate 'Close' %}">×</button>
    <td>{{ player.name }}</td> <td>12 – 3 &nbsp; (+45)</td>
    <span>Gibson · TSH · NASPA · GCG</span>
    <script>const words = "not a user-visible string";</script>
    <style>.x::after { content: "nor this"; }</style>
    <input type="hidden" name="action" value="pair_round">
    <button name="action" value="pair">{% translate "Pair" %}</button>
    """
)


def test_a_marked_template_passes() -> None:
    assert scan_template(SAMPLE_TEMPLATE) == []


@pytest.mark.parametrize(
    ("unmarked", "said"),
    [
        ("<p>Round {{ round.number }} pairings</p>", "text"),
        ('<a href="/" title="Go home">⌂</a>', "<a title>"),
        ('<button aria-label="Close">×</button>', "<button aria-label>"),
        ('<input name="q" placeholder="Find a player">', "<input placeholder>"),
        ('<img src="x.png" alt="The club logo">', "<img alt>"),
        ('<input type="submit" value="Save">', "<input type=submit value>"),
        ("{% if late %}<em>late</em>{% endif %}", "text"),
    ],
)
def test_an_unmarked_template_is_caught(unmarked: str, said: str) -> None:
    found = scan_template(SAMPLE_TEMPLATE + unmarked)
    assert found, unmarked
    assert found[0][1].startswith(said), found


MARKED_MODULE = textwrap.dedent(
    """\
    from django import forms
    from django.contrib import messages
    from django.core.exceptions import ValidationError
    from django.utils.translation import gettext as _, gettext_lazy, ngettext

    CODES = {"bad_round": gettext_lazy("round {round} is not paired")}

    class EntryForm(forms.Form):
        name = forms.CharField(label=gettext_lazy("Name"), help_text=gettext_lazy("as printed"))
        kind = forms.ChoiceField(choices=[("a", gettext_lazy("Adult")), ("j", _("Junior"))])

    def view(request, n):
        messages.success(request, _("Round {round} is paired.").format(round=n))
        messages.info(request, ngettext("one game", "%(n)s games", n) % {"n": n})
        messages.error(request, f"{n}: {n}")  # no words of its own
        raise ValidationError(_("type the score with the digits"))

    def mail(notices, to, n):
        notices.queue_mail("entry_link", to, _("Confirm your entry"), _("Body {n}").format(n=n))
    """
)


def test_a_marked_module_passes() -> None:
    assert scan_module(MARKED_MODULE) == []


@pytest.mark.parametrize(
    ("unmarked", "said"),
    [
        ('messages.success(request, "Round paired.")', "messages.success"),
        ('messages.error(request, f"Round {n} is not paired")', "messages.error"),
        ('forms.CharField(label="Your name")', "label"),
        ('forms.CharField(help_text="as printed on the card")', "help_text"),
        ('forms.ModelChoiceField(queryset=q, empty_label="Any division")', "empty_label"),
        ('forms.ChoiceField(choices=[("a", "Adult")])', "choice label"),
        ('ValidationError("type the score with the digits")', "ValidationError"),
        ('ValidationError("round {n}".format(n=n))', "ValidationError"),
        ('notices.queue_mail("entry_link", to, "Confirm your entry", body)', "queue_mail"),
        ('EmailMessage(subject="Your entry", body=text, to=[to])', "EmailMessage subject"),
        ('send_mail("Hello", "The body", None, [to])', "send_mail"),
    ],
)
def test_an_unmarked_module_is_caught(unmarked: str, said: str) -> None:
    found = scan_module(
        MARKED_MODULE + f"\n\ndef more(request, q, n, to, body, text):\n    {unmarked}\n"
    )
    assert found, unmarked
    assert said in found[0][1], found


def test_an_unmarked_refusal_table_and_printed_word_are_caught() -> None:
    table = 'CODES: dict[str, str] = {"bad_round": "round {round} is not paired"}\n'
    assert scan_module(table)[0][1].startswith("refusal code message")
    sheet = 'def page(c, n):\n    c.drawRightString(10, 10, f"page {n} of 3")\n'
    assert scan_module(sheet, reports=True)[0][1].startswith("drawRightString")
    assert scan_module(sheet) == []  # reportlab's calls count in tournament/reports only
