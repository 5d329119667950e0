"""Hole 1: a division's file name never becomes a path, and exports write only inside --out.

Probed: a director set a division's file name to ``/tmp/x.t`` or ``../../x.t`` and
``export_tsh`` wrote the division's player lines there; the Celery export and the all.tsh
archive carried the same path; ``export_tsh --out /etc`` wrote into /etc without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from tournament.errors import ServiceError
from tournament.models import AuditEvent, Division, Tournament
from tournament.services import create_division, update_division

BAD_NAMES = [
    "/tmp/x.t",
    "../../x.t",
    "..",
    ".hidden.t",
    "a/b.t",
    "a\\b.t",
    "x.tsh",
    "x.t\0",
    "con fig.t",
    "x" * 99 + ".t",
]


@pytest.mark.parametrize("bad", BAD_NAMES)
def test_create_division_refuses_a_file_name_that_is_not_a_plain_t_name(event, bad):
    divisions, events = Division.objects.count(), AuditEvent.objects.count()
    with pytest.raises(ServiceError) as caught:
        create_division(event, name="B", file_name=bad, actor="test")
    assert caught.value.code == "bad_file_name"
    assert caught.value.field == "file_name"
    assert "plain name" in caught.value.message and "ending in .t" in caught.value.message
    assert (Division.objects.count(), AuditEvent.objects.count()) == (divisions, events)


@pytest.mark.parametrize("bad", ["/tmp/x.t", "../../x.t"])
def test_update_division_refuses_a_path_and_keeps_the_name(event, bad):
    division = event.divisions.get()
    events = AuditEvent.objects.count()
    with pytest.raises(ServiceError) as caught:
        update_division(division, file_name=bad, actor="test")
    assert caught.value.code == "bad_file_name" and caught.value.field == "file_name"
    division.refresh_from_db()
    assert division.file_name == "a.t"
    assert AuditEvent.objects.count() == events


def test_update_division_takes_a_plain_name(event):
    division = update_division(event.divisions.get(), file_name="open-a.t", actor="test")
    assert Division.objects.get(pk=division.pk).file_name == "open-a.t"


def test_a_division_without_a_file_name_gets_one_from_its_slug_not_its_name(event):
    for name in ("../../admin", "A/B"):
        division = create_division(event, name=name, actor="test")
        assert division.file_name == f"{division.slug}.t"
        assert "/" not in division.file_name and not division.file_name.startswith(".")


@pytest.mark.parametrize("bad", ["/tmp/x.t", "../../x.t"])
def test_the_admin_division_form_refuses_a_path(event, bad):
    from django.forms import modelform_factory

    from tournament.admin import DivisionForm

    division = event.divisions.get()
    form_class = modelform_factory(Division, form=DivisionForm, fields=["file_name"])
    form = form_class(data={"file_name": bad}, instance=division)
    assert not form.is_valid()
    assert "plain name" in form.errors["file_name"][0]
    division.refresh_from_db()
    assert division.file_name == "a.t"


def _planted(event, name: str) -> Division:
    """A stored file name that is a path, as saved before names were checked (bypassing the
    services on purpose: the export must be safe whatever the database holds)."""
    Division.objects.filter(tournament=event).update(file_name=name)
    return event.divisions.get()


@pytest.mark.parametrize("kind", ["absolute", "relative"])
def test_export_tsh_writes_only_inside_out_whatever_the_stored_name(event, tmp_path, kind):
    out = tmp_path / "deep" / "er" / "out"
    outside = tmp_path / "outside.t"
    name = str(outside) if kind == "absolute" else "../../../outside.t"
    _planted(event, name)
    call_command("export_tsh", event.slug, "--out", str(out), stdout=open("/dev/null", "w"))
    assert not outside.exists()
    written = sorted(p.name for p in out.iterdir())
    assert written == ["a.t", "config.tsh"]
    assert all(p.resolve().parent == out.resolve() for p in out.iterdir())
    assert "division A a.t" in (out / "config.tsh").read_text()
    assert list(tmp_path.rglob("*.t")) == [out / "a.t"]


def test_the_celery_export_and_the_archive_carry_no_path(event, tmp_path):
    from tournament.interchange.exports import export_archive
    from tournament.tasks import export_tournament

    _planted(event, "/tmp/gibson-security-probe.t")
    probe = Path("/tmp/gibson-security-probe.t")
    probe.unlink(missing_ok=True)
    paths = export_tournament.delay(event.slug, str(tmp_path / "out")).get()
    assert sorted(Path(p).name for p in paths) == ["a.t", "config.tsh"]
    assert all(Path(p).parent == (tmp_path / "out").resolve() for p in paths)
    archive = export_archive(event)
    assert "#begin_file name=a.t" in archive and "/tmp" not in archive
    assert not probe.exists()


def test_two_divisions_sharing_a_stored_name_get_two_files(event, tmp_path):
    create_division(event, name="B", file_name="b.t", actor="test")
    Division.objects.filter(tournament=event).update(file_name="same.t")
    from tournament.interchange.exports import export_tsh

    names = sorted(p.name for p in export_tsh(event, tmp_path))
    assert len(names) == 3 and "config.tsh" in names and "same.t" in names


@pytest.mark.parametrize("folder", ["/etc", "/", "/usr/share", "/proc/self"])
def test_export_tsh_refuses_a_system_folder_and_writes_nothing(event, folder):
    before = set(Path(folder).iterdir()) if Path(folder).is_dir() else set()
    try:
        with pytest.raises(CommandError, match="is a system folder"):
            call_command("export_tsh", event.slug, "--out", folder)
    finally:
        for stray in ("config.tsh", "a.t"):  # only if the refusal ever broke
            path = Path(folder) / stray
            if path not in before and path.exists():
                path.unlink()
    assert set(Path(folder).iterdir()) == before


def test_export_tsh_refuses_a_link_into_a_system_folder(event, tmp_path):
    link = tmp_path / "innocent"
    link.symlink_to("/etc")
    with pytest.raises(CommandError, match="is a system folder"):
        call_command("export_tsh", event.slug, "--out", str(link))
    assert not Path("/etc/a.t").exists()


def test_export_tsh_refuses_an_out_that_is_a_file_or_cannot_be_a_folder(event, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep me")
    with pytest.raises(CommandError, match="it is a file, not a folder"):
        call_command("export_tsh", event.slug, "--out", str(afile))
    with pytest.raises(CommandError, match="cannot create the folder"):
        call_command("export_tsh", event.slug, "--out", str(afile / "sub"))
    assert afile.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_export_tsh_replaces_a_planted_link_instead_of_writing_through_it(event, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.t").symlink_to(victim)
    from tournament.interchange.exports import export_tsh

    export_tsh(event, out)
    assert victim.read_text() == "untouched"
    assert not (out / "a.t").is_symlink() and "Able, Ann" in (out / "a.t").read_text()


def test_the_export_command_refuses_a_file_in_a_system_folder(event):
    assert not Path("/etc/gibson-security.tsh").exists()
    with pytest.raises(CommandError, match="is a system folder"):
        call_command(
            "export", event.slug, "--format", "all.tsh", "--out", "/etc/gibson-security.tsh"
        )
    assert not Path("/etc/gibson-security.tsh").exists()


# --------------------------------------------------------------------------- imports


def _count() -> tuple[int, int]:
    return Tournament.objects.count(), AuditEvent.objects.count()


@pytest.mark.parametrize("bad", ["/tmp/x.t", "../../x.t", "../secret.t"])
def test_a_config_naming_a_path_is_refused_before_anything_is_read(db, tmp_path, bad):
    from tournament.interchange.imports import import_tsh

    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    (tmp_path / "secret.t").write_text("Able, Ann 1800 2; 400\nBaker, Bo 1700 1; 350\n")
    (tmp_path / "a" / "x.t").write_text("Able, Ann 1800 2; 400\nBaker, Bo 1700 1; 350\n")
    (folder / "config.tsh").write_text(f"division A {bad}\nconfig event_name = 'Probe'\n")
    before = _count()
    with pytest.raises(ServiceError) as caught:
        import_tsh(folder / "config.tsh")
    assert caught.value.code == "bad_file_name"
    assert "config.tsh: division A: file name" in caught.value.message
    assert _count() == before


def test_an_archive_naming_a_path_is_refused_with_its_line(db, tmp_path):
    from tournament.interchange.imports import import_tsh

    archive = tmp_path / "all.tsh"
    archive.write_text(
        "division A /tmp/x.t\n#begin_file name=/tmp/x.t\nAble, Ann 1800 2; 400\n"
        "Baker, Bo 1700 1; 350\n#end_file name=/tmp/x.t\n"
    )
    before = _count()
    with pytest.raises(ServiceError) as caught:
        import_tsh(archive)
    assert "all.tsh line 2" in caught.value.message and "plain name" in caught.value.message
    assert _count() == before


def test_a_tourney_js_division_name_never_becomes_a_path(db, tmp_path):
    from tournament.interchange.imports import import_tsh

    js = tmp_path / "tourney.js"
    js.write_text(
        'newt={"config":{},"divisions":[{"name":"../../x","players":[null,'
        '{"name":"Able, Ann","rating":1800,"pairings":[2],"scores":[400]},'
        '{"name":"Baker, Bo","rating":1700,"pairings":[1],"scores":[350]}]}]};'
    )
    tournament = import_tsh(js)
    division = tournament.divisions.get()
    assert division.name == "../../x" and division.file_name == "x.t"
