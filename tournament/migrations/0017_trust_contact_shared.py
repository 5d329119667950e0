"""Online entries record whether the entrant shared the registry player's contact details
(issue 31): the directors of a tournament see a player's e-mail and phone only then."""

from django.db import migrations, models


def mark_confirmed_addresses(apps, schema_editor):
    """An entry confirmed from the mailbox the registry holds for the player shared it."""
    OnlineEntry = apps.get_model("tournament", "OnlineEntry")
    rows = OnlineEntry.objects.filter(confirm_hash__isnull=False).exclude(email="")
    shared = [
        pk
        for pk, typed, held in rows.values_list("pk", "email", "player__email")
        if held and typed.lower() == held.lower()
    ]
    OnlineEntry.objects.filter(pk__in=shared).update(contact_shared=True)


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0016_h23b_venue_online_state"),
    ]

    operations = [
        migrations.AddField(
            model_name="onlineentry",
            name="contact_shared",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(mark_confirmed_addresses, migrations.RunPython.noop),
    ]
