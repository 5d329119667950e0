"""Federation files (issue 22 item 6): each file built, checked as its federation reads it,
refused with its problems named unless downloaded anyway, and every download recorded."""

from __future__ import annotations

import csv
import datetime
import hashlib
import io

import pytest

from tournament.errors import ServiceError
from tournament.formats import read_t
from tournament.formats.tou import parse_tou
from tournament.formats.tsh import TshPlayer
from tournament.interchange.downloads import download_federation_file
from tournament.interchange.federation import (
    ABSP_HEADER,
    build_federation_file,
    check_absp,
    check_naspa_division,
    check_tou,
    check_tou_division,
)
from tournament.interchange.imports import import_tsh
from tournament.models import AuditEvent, FederationDownload, Player

pytestmark = pytest.mark.django_db(transaction=False)


def player(n, name, rating, opponents, scores, member_id=""):
    return TshPlayer(n, name, member_id, rating, list(opponents), list(scores))


def four(**changes):
    """Four players, two rounds, all well formed; ``changes`` replace one player by number."""
    players = [
        player(1, "Able, Ann", 1800, [2, 3], [400, 380]),
        player(2, "Baker, Bo", 1700, [1, 4], [350, 410]),
        player(3, "Cole, Cy", 0, [4, 1], [390, 360]),
        player(4, "Dunn, Di", 1500, [3, 2], [300, 420]),
    ]
    for key, p in changes.items():
        players[int(key[1:]) - 1] = p
    return players


# --- the real fixture events pass --------------------------------------------------------------


@pytest.mark.parametrize("name", ["naspa-2023-a.t", "naspa-2006-b.t"])
def test_real_naspa_divisions_pass(real_data, name):
    assert check_naspa_division("A", read_t(real_data / name)) == []


@pytest.mark.parametrize("name", ["hoodriver.tou", "isropn20.tou"])
def test_real_tou_files_pass(real_data, name):
    data = (real_data.parent / "tou" / name).read_bytes()
    assert check_tou(data) == []


def imported(real_data):
    t = import_tsh(real_data / "naspa-2023-a.t", rounds=23)
    t.start_date = datetime.date(2023, 2, 18)  # a .TOU needs the event's date
    t.save(update_fields=["start_date"])
    return t


def test_an_imported_real_event_builds_every_federation_file_clean(real_data):
    t = imported(real_data)
    for key in ("naspa", "wespa", "absp"):
        built = build_federation_file(t, key)
        assert built.data and built.problems == [], (key, built.problems[:3])


def test_a_division_with_no_players_yet_builds_every_file(real_data):
    # an empty division (opened for late entries) once hung the .TOU writer for good
    from tournament.services import create_division

    t = imported(real_data)
    create_division(t, name="Late", rounds=3, actor="test")
    for key in ("naspa", "wespa", "absp"):
        build_federation_file(t, key)  # answers, whatever it finds


# --- broken files are caught -------------------------------------------------------------------


def test_an_unpaired_player_in_a_round_is_named():
    broken = four(p2=player(2, "Baker, Bo", 1700, [1, 1], [350, 410]))
    problems = check_naspa_division("A", broken)
    assert any(
        p.player == "#2 Baker, Bo" and p.round == 2 and "unpaired" in p.what for p in problems
    )
    assert any(p.player == "#4 Dunn, Di" and p.round == 2 for p in problems)


def test_a_missing_pairing_or_score_is_named():
    problems = check_naspa_division("A", four(p3=player(3, "Cole, Cy", 0, [4], [390])))
    assert any(
        p.player == "#3 Cole, Cy" and p.round == 2 and "no pairing" in p.what for p in problems
    )
    problems = check_naspa_division("A", four(p3=player(3, "Cole, Cy", 0, [4, 1], [390])))
    assert any(
        p.player == "#3 Cole, Cy" and p.round == 2 and p.what == "no score" for p in problems
    )


def test_a_missing_naspa_id_when_required_and_a_bad_id():
    assert check_naspa_division("A", four()) == []
    problems = check_naspa_division("A", four(), require_ids=True)
    assert len(problems) == 4 and all("no NASPA id" in p.what for p in problems)
    ids = four(p1=player(1, "Able, Ann", 1800, [2, 3], [400, 380], member_id="XY12"))
    problems = check_naspa_division("A", ids)
    assert [(p.player, "AA... or CM..." in p.what) for p in problems] == [("#1 Able, Ann", True)]


def test_a_score_out_of_range_is_named():
    problems = check_naspa_division("A", four(p4=player(4, "Dunn, Di", 1500, [3, 2], [300, 1601])))
    assert [(p.player, p.round) for p in problems] == [("#4 Dunn, Di", 2)]
    assert "out of range" in problems[0].what
    tou = check_tou_division("A", four(p4=player(4, "Dunn, Di", 1500, [3, 2], [300, 1000])))
    assert [(p.player, p.round) for p in tou] == [("#4 Dunn, Di", 2)]


def test_naspa_division_size_rated_players_and_name_form():
    problems = check_naspa_division("A", four()[:3])
    assert any("at least 4" in p.what for p in problems)
    unrated = [player(p.number, p.name, 0, p.opponents, p.scores) for p in four()]
    assert any("rated player" in p.what for p in check_naspa_division("A", unrated))
    named = four(p1=player(1, "Ann Able", 1800, [2, 3], [400, 380]))
    assert any("'Last, First'" in p.what for p in check_naspa_division("A", named))


def test_tou_names_must_be_unique_and_the_file_ascii():
    twins = four(p2=player(2, "able, ann", 1700, [1, 4], [350, 410]))
    assert any("same name as #1" in p.what for p in check_tou_division("A", twins))
    assert check_tou("*M01.01.2026 Caf\u00e9".encode()) != []


def test_absp_rows_are_checked():
    def csv_bytes(rows):
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([ABSP_HEADER, *rows])
        return out.getvalue().encode()

    assert check_absp(csv_bytes([["A", "1", "Ann", "400", "Bo", "350"]])) == []
    problems = check_absp(
        csv_bytes(
            [
                ["A", "1", "Ann", "400", "Bo", "1800"],
                ["A", "1", "Ann", "300", "Cy", "350"],
                ["A", "x", "", "300", "Cy", "350"],
            ]
        )
    )
    whats = [p.what for p in problems]
    assert any("out of range" in w for w in whats)
    assert any("plays twice" in w for w in whats)
    assert any("not a number" in w for w in whats) and any("without a player" in w for w in whats)
    assert check_absp(b"Player,Score\n")[0].what.startswith("the header")


# --- downloads: refused with problems, recorded when made ---------------------------------------


@pytest.fixture
def event(real_data):
    from tests.core.conftest import make_director

    t = imported(real_data)
    return t, make_director(t, "td-files")


def test_a_clean_download_is_recorded_with_its_checksum(event):
    t, td = event
    record, built = download_federation_file(t, "wespa", td)
    assert record.sha256 == hashlib.sha256(built.data).hexdigest() and record.size == len(
        built.data
    )
    assert (record.federation, record.file_name, record.forced) == ("WESPA", f"{t.slug}.tou", False)
    assert record.downloaded_by == td
    assert AuditEvent.objects.filter(action="download_federation_file", tournament=t).count() == 1


def test_a_file_with_problems_is_refused_unless_downloaded_anyway(event):
    t, td = event
    with pytest.raises(ServiceError) as err:
        download_federation_file(t, "naspa", td, require_ids=True)
    assert err.value.code == "federation_file_invalid" and err.value.field == "federation"
    assert not FederationDownload.objects.exists()
    record, built = download_federation_file(t, "naspa", td, require_ids=True, anyway=True)
    assert record.forced and len(record.problems) == t.divisions.get().entries.count()
    assert record.problems[0]["what"].startswith("no NASPA id")
    assert record.problems[0]["division"] == t.divisions.get().name  # named as in config.tsh


def test_unknown_file_and_strangers_are_refused_with_nothing_recorded(event):
    from django.contrib.auth import get_user_model

    t, td = event
    with pytest.raises(ServiceError) as err:
        download_federation_file(t, "fide", td)
    assert err.value.code == "unknown_federation_file"
    other = get_user_model().objects.create_user("stranger", "s@example.org", "pw-long-enough-1")
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    t.scorekeepers.add(keeper)
    for who in (other, keeper):
        with pytest.raises(ServiceError) as err:
            download_federation_file(t, "wespa", who)
        assert err.value.code == "not_allowed"
    assert not FederationDownload.objects.exists()
    assert Player.objects.exists()


def test_real_tou_round_trips_through_the_reader(real_data):
    _name, date, divisions = parse_tou((real_data.parent / "tou" / "isropn20.tou").read_text())
    assert date is not None and divisions
