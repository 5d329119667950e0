"""TSH's rule 1: ranks and estimates printed before a later change are kept, and named.

TSH stores each round's ``rrank`` and ``newr`` when first computed and, after a score is
entered, clears them from the latest score's round on only (docs/tsh.md cites the routines).
A forfeit replaced by the played game in round 1, then round 2's scores, leaves the ranks and
estimates printed after round 1 as the forfeit gave them. These tests build such a file from
two states Gibson computes itself (the earlier one with the forfeit, the final one played) and
check that an import names exactly the rounds printed before the change and keeps them.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from ratings.division import division_estimates
from tournament.formats.tsh import parse_t
from tournament.interchange.exports import _round_ranks, division_players, export_files
from tournament.interchange.imports import import_tsh
from tournament.models import ImportJob

pytestmark = pytest.mark.django_db

# Round 1 first entered as forfeits (Able's bye +50, Baker's forfeit -50), Cole beating Dunn
EARLY = (
    "Able, Ann               1500 0; 50\n"
    "Baker, Bob              1400 0; -50\n"
    "Cole, Cy                1300 4; 420\n"
    "Dunn, Di                1200 3; 360\n"
)
# ...then corrected to the game Able and Baker played, and round 2 entered
FINAL = (
    "Able, Ann               1500 2 3; 400 380\n"
    "Baker, Bob              1400 1 4; 300 410\n"
    "Cole, Cy                1300 4 1; 420 390\n"
    "Dunn, Di                1200 3 2; 360 350\n"
)


def computed(tmp_path: Path, name: str, text: str) -> dict[str, dict[str, list[str]]]:
    """The rrank and newr Gibson computes for ``text`` (a state TSH could have printed): the
    values its live feed and the ``.t`` files of rounds it scored carry."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    division = import_tsh(path, rounds=2).divisions.get()
    ranks, _capped = _round_ranks(division.tournament, division, division_players(division))
    newr = {row["number"]: row["by_round"] for row in division_estimates(division)}
    return {
        p.name: {
            "rrank": [str(v) for v in ranks[p.number]],
            "newr": [str(v) for v in newr[p.number]],
        }
        for p in parse_t(text)
    }


def as_tsh_printed(tmp_path: Path) -> tuple[str, dict]:
    """FINAL with the values TSH would hold: rounds 0-1 of rrank and round 1 of newr from the
    earlier state (not cleared: the latest score was round 2's), the rest from the final."""
    early = computed(tmp_path, "early.t", EARLY)
    final = computed(tmp_path, "final.t", FINAL)
    lines = []
    printed = {}
    for line, p in zip(FINAL.splitlines(), parse_t(FINAL), strict=True):
        rrank = early[p.name]["rrank"][:2] + final[p.name]["rrank"][2:]
        newr = early[p.name]["newr"][:1] + final[p.name]["newr"][1:]
        printed[p.name] = {"rrank": rrank, "newr": newr}
        lines.append(f"{line}; newr {' '.join(newr)}; rrank {' '.join(rrank)}")
    # the two states really differ where TSH kept the earlier one, and only there
    assert any(early[n]["rrank"][1] != final[n]["rrank"][1] for n in printed)
    assert any(early[n]["newr"][0] != final[n]["newr"][0] for n in printed)
    return "\n".join(lines) + "\n", printed


def test_import_names_the_rounds_tsh_printed_before_the_forfeit_was_replaced(tmp_path):
    text, printed = as_tsh_printed(tmp_path)
    path = tmp_path / "event.t"
    path.write_text(text, encoding="utf-8")
    out = StringIO()
    call_command("import_tsh", str(path), "--rounds", "2", "--json", stdout=out)
    result = json.loads(out.getvalue())
    rows = {(r["division"], r["field"]): r["rounds"] for r in result["printed_before_change"]}
    assert rows == {("event", "rrank"): [1], ("event", "newr"): [1]}
    messages = [w for w in result["warnings"] if "before a later change" in w]
    assert len(messages) == 2
    assert "ranks (rrank) TSH printed after round 1 differ" in messages[0]
    assert "rating estimates (newr) TSH printed after round 1 differ" in messages[1]
    # a warning, not a refusal: the tournament is there, its .t keeps what TSH printed
    from tournament.models import Tournament

    tournament = Tournament.objects.get(slug=result["tournament"])
    [t_text] = [v for k, v in export_files(tournament).items() if k.endswith(".t")]
    for p in parse_t(t_text):
        assert p.fields["rrank"] == printed[p.name]["rrank"]
        assert p.fields["newr"] == printed[p.name]["newr"]


def test_a_file_whose_printed_values_all_recompute_warns_of_nothing(tmp_path):
    final = computed(tmp_path, "final.t", FINAL)
    lines = [
        f"{line}; newr {' '.join(final[p.name]['newr'])}; rrank {' '.join(final[p.name]['rrank'])}"
        for line, p in zip(FINAL.splitlines(), parse_t(FINAL), strict=True)
    ]
    path = tmp_path / "event.t"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tournament = import_tsh(path, rounds=2)
    assert tournament.import_printed_before_change == []
    assert not [w for w in tournament.import_warnings if "before a later change" in w]


def test_the_console_import_job_page_lists_the_warning(tmp_path):
    text, _printed = as_tsh_printed(tmp_path)
    user = get_user_model().objects.create_user("td", "td@example.org", "pw-long-enough-1")
    user.user_permissions.add(Permission.objects.get(codename="create_tournament"))
    client = Client()
    client.force_login(user)
    response = client.post(
        "/console/new/upload/",
        {
            "upload-file": SimpleUploadedFile("event.t", text.encode()),
            "upload-rounds": "2",
        },
    )
    assert response.status_code == 302
    job = ImportJob.objects.get(created_by=user)
    assert job.state == "done", job.error
    assert len(job.warnings) == 2
    page = client.get(response["Location"]).content.decode()
    assert 'id="job-warnings"' in page
    assert "ranks (rrank) TSH printed after round 1 differ" in page
