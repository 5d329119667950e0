"""submit_ratings: putting a finished tournament's divisions on a rating list, end to end."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from ratings.models import PlayerRating, RatedEvent, RatingList
from tournament.models import Division, Game, Tournament

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def run_json(*args: str):
    return json.loads(run(*args, "--json")[0])


@pytest.fixture
def seeded(real_data, tmp_path):
    """The README workflow's first two steps: import the event, seed the list from its ratings."""
    slug = run_json("import_tsh", str(real_data / "naspa-2023-a.t"), "--rounds", "23")["tournament"]
    t = Tournament.objects.get(slug=slug)
    lines = ["name,rating,games"]
    for d in t.divisions.all():
        for e in d.entries.select_related("player"):
            lines.append(f'"{e.player.name}",{e.seed_rating or 0},{e.career_games or ""}')
    seeds = tmp_path / "seeds.csv"
    seeds.write_text("\n".join(lines) + "\n")
    run("import_ratings", "naspa", str(seeds), "--create", "NASPA")
    return t


def ratings(slug: str) -> dict[int, int]:
    return dict(
        PlayerRating.objects.filter(rating_list__slug=slug).values_list("player_id", "rating")
    )


def test_workflow_submit_rerate_report_and_values_match_rate(seeded):
    t = seeded
    out = run_json("submit_ratings", t.slug, "--list", "naspa", "--date", "2023-07-01")
    div = t.divisions.get()
    games = Game.objects.filter(
        round__division=div, player2__isnull=False, score1__isnull=False, score2__isnull=False
    ).count()
    assert games > 0
    assert out["list"] == "naspa" and out["rerated"] == 1
    assert out["events"] == [
        {"division": div.name, "date": "2023-07-01", "players": div.entries.count(), "games": games}
    ]
    div.refresh_from_db()
    assert div.rating_list.slug == "naspa"
    run("rerate", "naspa", "--from", "2023-01-01")
    report = run_json("rating_report", "naspa")
    assert sum(v["games"] for v in report.values()) > 0
    got = ratings("naspa")
    rows = run_json("rate", t.slug)
    by_number = {e.number: e.player_id for e in div.entries.all()}
    mismatched = [r["name"] for r in rows if got[by_number[r["number"]]] != r["new"]]
    assert not mismatched, mismatched
    assert sum(r["new"] != r["old"] for r in rows) > len(rows) // 2  # the event moved ratings


def test_resubmit_is_idempotent_and_text_output(seeded):
    t = seeded
    text, _ = run("submit_ratings", t.slug, "--list", "naspa", "--date", "2023-07-01")
    assert "rated games" in text and ("(+" in text or "(-" in text)
    first = ratings("naspa")
    run("submit_ratings", t.slug, "--list", "naspa", "--date", "2023-07-01")
    assert ratings("naspa") == first
    assert RatedEvent.objects.filter(rating_list__slug="naspa").count() == 1


def test_create_a_new_list(seeded):
    t = seeded
    out = run_json(
        "submit_ratings", t.slug, "--list", "fresh", "--create", "Fresh", "--date", "2023-07-01"
    )
    assert out["events"][0]["players"] > 0
    assert RatingList.objects.filter(slug="fresh", name="Fresh").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["nosuch", "--list", "naspa", "--date", "2023-07-01"], "nosuch"),
        (["{slug}", "--list", "naspa", "--division", "Z", "--date", "2023-07-01"], "'Z'"),
        (["{slug}", "--list", "missing", "--date", "2023-07-01"], "--create"),
        (["{slug}", "--list", "naspa", "--date", "July"], "YYYY-MM-DD"),
    ],
)
def test_bad_input_changes_nothing(seeded, args, message):
    args = [a.format(slug=seeded.slug) for a in args]
    with pytest.raises(CommandError, match=message):
        run("submit_ratings", *args)
    assert not RatedEvent.objects.exists()
    assert not RatingList.objects.filter(slug="missing").exists()


def test_no_date_names_the_fix(seeded):
    Tournament.objects.filter(pk=seeded.pk).update(start_date=None)
    with pytest.raises(CommandError, match="--date"):
        run("submit_ratings", seeded.slug, "--list", "naspa")
    assert not RatedEvent.objects.exists()


def test_event_before_list_start_is_refused(seeded):
    RatingList.objects.filter(slug="naspa").update(start_date="2024-01-01")
    before = ratings("naspa")
    with pytest.raises(CommandError, match="before the start"):
        run("submit_ratings", seeded.slug, "--list", "naspa", "--date", "2023-07-01")
    assert not RatedEvent.objects.exists() and ratings("naspa") == before
    assert Division.objects.get(tournament=seeded).rating_list_id is None


def test_division_without_scored_games_is_refused(seeded):
    Game.objects.filter(round__division__tournament=seeded).update(score1=None, score2=None)
    with pytest.raises(CommandError, match="no scored games"):
        run("submit_ratings", seeded.slug, "--list", "naspa", "--date", "2023-07-01")
    assert not RatedEvent.objects.exists()


# --- the audit trail and the admin action -----------------------------------------------------


def test_submitting_records_who_and_which_list_in_the_audit_trail(seeded):
    from tournament.models import AuditEvent

    run("submit_ratings", seeded.slug, "--list", "naspa", "--date", "2023-07-01")
    event = AuditEvent.objects.filter(action="submit_ratings").get()
    div = seeded.divisions.get()
    assert event.tournament == seeded and event.actor == "submit_ratings"
    assert event.before == {"rating_list": None}
    assert event.after["rating_list"] == "naspa" and event.after["date"] == "2023-07-01"
    assert event.after["event"] == RatedEvent.objects.get(division=div).pk


def _admin_submit(client, divisions):
    return client.post(
        "/admin/tournament/division/",
        {"action": "submit_to_rating_list", "_selected_action": [d.pk for d in divisions]},
        follow=True,
    )


@pytest.fixture
def td(client, seeded):
    from django.contrib.auth import get_user_model

    from tests.core.conftest import name_admin_officer

    user = get_user_model().objects.create_user("rating-td", password="pw-long-enough-1")
    name_admin_officer(user)  # the admin is for named officers (issue 19)
    seeded.directors.add(user)
    client.force_login(user)
    return client


def test_admin_action_submits_the_division_to_its_list(td, seeded):
    from django.contrib.auth import get_user_model

    from tournament.models import AuditEvent

    div = seeded.divisions.get()
    div.rating_list = RatingList.objects.get(slug="naspa")
    div.save()
    # The list's officers submit; a director who is not one requests (tests/admin).
    div.rating_list.officers.add(get_user_model().objects.get(username="rating-td"))
    seeded.start_date = __import__("datetime").date(2023, 7, 1)
    seeded.save()
    before = ratings("naspa")
    page = _admin_submit(td, [div])
    assert "Submitted and re-rated: " in page.content.decode()
    assert RatedEvent.objects.filter(division=div).count() == 1
    assert ratings("naspa") != before
    assert AuditEvent.objects.filter(action="submit_ratings").get().actor == "rating-td"
    rows = run_json("rate", seeded.slug)  # the list now holds exactly what `rate` computes
    got = ratings("naspa")
    by_number = {e.number: e.player_id for e in div.entries.all()}
    assert all(got[by_number[r["number"]]] == r["new"] for r in rows)


def test_admin_action_without_a_list_or_date_changes_nothing(td, seeded):
    div = seeded.divisions.get()
    before = ratings("naspa")
    page = _admin_submit(td, [div])
    assert "has no rating list: choose one on the division&#x27;s page first" in (
        page.content.decode()
    )
    div.rating_list = RatingList.objects.get(slug="naspa")
    div.save()
    seeded.start_date = None
    seeded.save()
    page = _admin_submit(td, [div])
    assert "has no start date" in page.content.decode()
    assert "Nothing was submitted" in page.content.decode()
    assert not RatedEvent.objects.exists() and ratings("naspa") == before


def test_admin_action_is_refused_to_another_tournaments_director(client, seeded):
    from django.contrib.auth import get_user_model

    from tournament import services

    stranger = get_user_model().objects.create_user("stranger", password="pw-long-enough-1")
    stranger.is_staff = True
    stranger.save()
    services.create_tournament(name="Elsewhere").directors.add(stranger)
    client.force_login(stranger)
    div = seeded.divisions.get()
    div.rating_list = RatingList.objects.get(slug="naspa")
    div.save()
    _admin_submit(client, [div])
    assert not RatedEvent.objects.exists()
