"""Players' photos: sent by the player (their link or their account), refused when not a JPEG
or PNG, too big or not theirs; decided by the event's directors only; public once approved."""

from __future__ import annotations

import datetime
import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from tests.core.conftest import make_director
from tournament import services
from tournament.errors import ServiceError
from tournament.models import AuditEvent, Entry, PlayerPhoto
from tournament.services import photos
from tournament.services.selfentry import ensure_tokens

pytestmark = pytest.mark.django_db


def image_bytes(kind: str = "JPEG", size=(120, 160), exif: bool = False) -> bytes:
    out = io.BytesIO()
    picture = Image.new("RGB", size, (200, 30, 30))
    if exif:
        data = Image.Exif()
        data[0x010F] = "SecretCam"  # Make
        picture.save(out, kind, exif=data.tobytes())
    else:
        picture.save(out, kind)
    return out.getvalue()


def event(name: str = "Photo Open", players=("Able, Ann", "Baker, Bo")):
    t = services.create_tournament(name=name, start_date=datetime.date(2026, 5, 3))
    d = services.create_division(t, name="A", rounds=3)
    for player in players:
        services.register_player(d, name=player, rating=1500)
    services.publish_tournament(t, True, actor="test")
    ensure_tokens(d, "test")
    entries = {e.number: e for e in Entry.objects.filter(division=d).select_related("player")}
    return t, d, entries


def send(client, token, data, name="me.jpg"):
    return client.post(f"/e/{token}/photo/", {"photo": SimpleUploadedFile(name, data)})


def test_a_player_sends_a_photo_that_stays_private_until_a_director_approves_it(client):
    t, d, entries = event()
    ann = entries[1]
    response = send(client, ann.entry_token, image_bytes(exif=True, size=(1200, 1600)))
    assert response.status_code == 302
    photo = PlayerPhoto.objects.get(player=ann.player)
    assert photo.status == "pending" and (photo.width, photo.height) == (450, 600)
    stored = Image.open(io.BytesIO(bytes(photo.image)))
    assert stored.format == "JPEG" and 0x010F not in stored.getexif()  # the camera's data gone
    assert AuditEvent.objects.filter(action="submit_photo").count() == 1
    assert "waits for a director" in client.get(f"/e/{ann.entry_token}/").content.decode()
    # nothing public: not the profile, not the event's player card, not the address itself
    public = f"/players/photos/{photo.pk}.jpg"
    assert client.get(public).status_code == 404
    assert 'id="player-photo"' not in client.get(f"/players/{ann.player_id}/").content.decode()
    assert public not in client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    assert '"photo":undefined' in client.get(f"/t/{t.slug}/tourney.js").content.decode()
    # the director sees it on the console and approves it
    boss = make_director(t, "boss")
    client.force_login(boss)
    page = client.get(f"/t/{t.slug}/console/photos/").content.decode()
    assert f'data-photo="{photo.pk}"' in page
    assert client.get(f"/t/{t.slug}/console/photos/{photo.pk}.jpg").status_code == 200
    response = client.post(
        f"/t/{t.slug}/console/photos/decide/", {"photo": photo.pk, "decision": "approve"}
    )
    assert response.status_code == 302
    assert AuditEvent.objects.get(action="approve_photo").actor == "boss"
    client.logout()
    served = client.get(public)
    assert served.status_code == 200 and served["Content-Type"] == "image/jpeg"
    assert f'src="{public}"' in client.get(f"/players/{ann.player_id}/").content.decode()
    assert f'src="{public}"' in client.get(f"/t/{t.slug}/{d.slug}/player/1/").content.decode()
    feed = client.get(f"/t/{t.slug}/tourney.js").content.decode()
    assert f'"photo":"{public}"' in feed and feed.count('"photo":undefined') == 1  # Bo's


def test_wrong_type_too_big_too_many_pixels_and_junk_are_refused_and_change_nothing(client):
    t, d, entries = event()
    token = entries[1].entry_token
    gif = io.BytesIO()
    Image.new("RGB", (10, 10)).save(gif, "GIF")
    cases = [
        (gif.getvalue(), "me.gif", "me.gif: a photo must be a JPEG or PNG image"),
        (b"%PDF-1.4 not a photo", "me.jpg", "me.jpg: a photo must be a JPEG or PNG image"),
        (b"\xff\xd8\xff" + b"x" * (photos.MAX_PHOTO_BYTES), "big.jpg", "big.jpg is over"),
        (image_bytes("PNG", (photos.MAX_PHOTO_SIDE + 1, 2)), "wide.png", "at most 6000 pixels"),
        (b"\x89PNG\r\n\x1a\n" + b"garbage", "bad.png", "bad.png: the image cannot be read"),
    ]
    for data, name, message in cases:
        response = send(client, token, data, name)
        assert response.status_code == 400, name
        body = response.content.decode()
        assert 'id="photo-refused"' in body and message in body, name
    assert not PlayerPhoto.objects.exists()
    assert not AuditEvent.objects.filter(action="submit_photo").exists()
    assert send(client, "x" * 40, image_bytes()).status_code in (403, 404)


def test_without_pillow_every_photo_is_refused_cleanly(monkeypatch):
    monkeypatch.setattr(photos, "Image", None)
    with pytest.raises(ServiceError) as refused:
        photos.read_photo(image_bytes(), "me.jpg")
    assert refused.value.code == "photo_unavailable"


def test_a_png_stays_a_png_and_a_new_photo_replaces_the_waiting_one():
    t, d, entries = event()
    first = photos.submit_photo_by_token(entries[1].entry_token, image_bytes("PNG"))
    second = photos.submit_photo_by_token(entries[1].entry_token, image_bytes("PNG"))
    assert second.content_type == "image/png"
    assert list(PlayerPhoto.objects.values_list("pk", flat=True)) == [second.pk]
    assert not PlayerPhoto.objects.filter(pk=first.pk).exists()


def test_an_account_sends_only_its_own_players_photo(client):
    t, d, entries = event()
    ann = entries[1].player
    ann.email = "ann@example.org"
    ann.save()
    user = get_user_model().objects.create_user("ann", "ann@example.org", "pw-long-enough-1")
    other = get_user_model().objects.create_user("eve", "eve@example.org", "pw-long-enough-1")
    client.force_login(user)
    assert 'id="photo-form"' in client.get(f"/players/{ann.pk}/").content.decode()
    url = f"/players/{ann.pk}/photo/"
    response = client.post(url, {"photo": SimpleUploadedFile("me.jpg", image_bytes())})
    assert response.status_code == 302
    assert PlayerPhoto.objects.get().player == ann
    # another account: no form, and its post is refused in words
    client.force_login(other)
    assert 'id="photo-form"' not in client.get(f"/players/{ann.pk}/").content.decode()
    response = client.post(url, {"photo": SimpleUploadedFile("me.jpg", image_bytes())})
    assert response.status_code == 403
    assert "eve may send only their own photo, not Able, Ann" in response.content.decode()
    bo = entries[2].player_id
    response = client.post(
        f"/players/{bo}/photo/", {"photo": SimpleUploadedFile("me.jpg", image_bytes())}
    )
    assert response.status_code == 403
    client.logout()
    response = client.post(url, {"photo": SimpleUploadedFile("me.jpg", image_bytes())})
    assert response.status_code == 403
    assert PlayerPhoto.objects.count() == 1


def test_only_the_events_directors_decide_and_never_across_tournaments(client):
    t, d, entries = event()
    t2, d2, entries2 = event("Other Open", ("Cole, Cy",))
    photo = photos.submit_photo_by_token(entries[1].entry_token, image_bytes())
    boss, rival = make_director(t, "boss"), make_director(t2, "rival")
    stranger = get_user_model().objects.create_user("nobody", "n@example.org", "pw-long-enough-1")
    # the other tournament's director: not on their console, not through the service
    client.force_login(rival)
    assert (
        f'data-photo="{photo.pk}"'
        not in client.get(f"/t/{t2.slug}/console/photos/").content.decode()
    )
    assert client.get(f"/t/{t2.slug}/console/photos/{photo.pk}.jpg").status_code == 404
    response = client.post(
        f"/t/{t2.slug}/console/photos/decide/", {"photo": photo.pk, "decision": "approve"}
    )
    assert response.status_code == 400
    assert "Able, Ann has not entered Other Open" in response.content.decode()
    assert client.get(f"/t/{t.slug}/console/photos/").status_code in (302, 403, 404)
    response = client.post(
        f"/t/{t.slug}/console/photos/decide/", {"photo": photo.pk, "decision": "approve"}
    )
    assert response.status_code in (302, 403, 404) and "/console/photos/" not in response.get(
        "Location", ""
    )
    for who, where in ((rival, t), (stranger, t), (rival, None), (boss, None)):
        with pytest.raises(ServiceError) as refused:
            photos.decide_photo(photo.pk, True, actor=who, tournament=where)
        assert refused.value.code == "not_allowed"
    assert PlayerPhoto.objects.get().status == "pending"
    assert not AuditEvent.objects.filter(action__in=["approve_photo", "refuse_photo"]).exists()
    # a keeper of the registry may decide from no event
    keeper = get_user_model().objects.create_user("keeper", "k@example.org", "pw-long-enough-1")
    keeper.user_permissions.add(Permission.objects.get(codename="manage_registry"))
    keeper = get_user_model().objects.get(pk=keeper.pk)
    photos.decide_photo(photo.pk, False, actor=keeper, reason="not a face")
    assert PlayerPhoto.objects.get().status == "refused"
    with pytest.raises(ServiceError) as refused:
        photos.decide_photo(photo.pk, True, actor=boss, tournament=t)
    assert refused.value.code == "photo_not_pending"


def test_a_refused_photo_is_never_public_and_the_player_is_told(client):
    t, d, entries = event()
    boss = make_director(t, "boss")
    photo = photos.submit_photo_by_token(entries[1].entry_token, image_bytes())
    client.force_login(boss)
    client.post(
        f"/t/{t.slug}/console/photos/decide/",
        {"photo": photo.pk, "decision": "refuse", "reason": "a group photo"},
    )
    client.logout()
    assert PlayerPhoto.objects.get().status == "refused"
    assert client.get(f"/players/photos/{photo.pk}.jpg").status_code == 404
    assert (
        'id="player-photo"' not in client.get(f"/players/{entries[1].player_id}/").content.decode()
    )
    page = client.get(f"/e/{entries[1].entry_token}/").content.decode()
    assert "did not approve your last photo: a group photo" in page


def test_approving_a_newer_photo_retires_the_old_address(client):
    t, d, entries = event()
    boss = make_director(t, "boss")
    old = photos.submit_photo_by_token(entries[1].entry_token, image_bytes())
    photos.decide_photo(old.pk, True, actor=boss, tournament=t)
    new = photos.submit_photo_by_token(entries[1].entry_token, image_bytes("PNG"))
    # the approved one stays public while the new one waits
    assert client.get(f"/players/photos/{old.pk}.jpg").status_code == 200
    photos.decide_photo(new.pk, True, actor=boss, tournament=t)
    assert client.get(f"/players/photos/{old.pk}.jpg").status_code == 404
    assert client.get(f"/players/photos/{new.pk}.png").status_code == 200
    assert PlayerPhoto.objects.get(pk=old.pk).status == "replaced"


def test_the_featured_board_and_prize_race_overlays_show_approved_photos_only(client):
    from pairings.services.store import PlannedGame, save_round_pairings
    from tournament.services.broadcast import feature_boards

    t, d, entries = event(players=("Able, Ann", "Baker, Bo"))
    save_round_pairings(d, 1, [PlannedGame(1, 2)])
    feature_boards(t, [("A", "1")], actor="cmd")
    boss = make_director(t, "boss")
    ann = photos.submit_photo_by_token(entries[1].entry_token, image_bytes())
    bo = photos.submit_photo_by_token(entries[2].entry_token, image_bytes())
    photos.decide_photo(ann.pk, True, actor=boss, tournament=t)
    html = client.get(f"/t/{t.slug}/broadcast/board/1/").content.decode()
    assert f'id="first-photo" src="/players/photos/{ann.pk}.jpg"' in html
    assert "second-photo" not in html and f"/players/photos/{bo.pk}." not in html
    # the prize race names the leaders with their approved photos
    services.record_result(d, 1, 1, 400, 300)
    html = client.get(f"/t/{t.slug}/broadcast/{d.slug}/prizes/").content.decode()
    assert f'<img class="photo" src="/players/photos/{ann.pk}.jpg"' in html
    assert "Baker, Bo" in html and f"/players/photos/{bo.pk}." not in html


def test_refused_photos_spend_the_links_budget(client):
    t, d, entries = event()
    token = entries[1].entry_token
    answers = [send(client, token, b"not a photo", "x.jpg").status_code for _ in range(7)]
    assert answers[:6] == [400] * 6 and answers[6] == 429
    assert not PlayerPhoto.objects.exists()
