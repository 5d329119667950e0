"""Player.search_key for the forgiving search (tournament.namesearch), filled for every
player; on PostgreSQL, pg_trgm and a trigram index on it (nothing on SQLite)."""

from django.contrib.postgres.operations import TrigramExtension
from django.db import migrations, models

from tournament.namesearch import stored_key

INDEX = "tournament_player_search_key_trgm"


def fill(apps, schema_editor) -> None:
    player = apps.get_model("tournament", "Player")
    rows = list(player.objects.only("pk", "name"))
    for p in rows:
        p.search_key = stored_key(p.name)
    player.objects.bulk_update(rows, ["search_key"], batch_size=1000)


def add_index(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {INDEX} ON tournament_player "
            "USING gin (search_key gin_trgm_ops)"
        )


def drop_index(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0023_broadcast_featured"),
    ]

    operations = [
        TrigramExtension(),  # CREATE EXTENSION on PostgreSQL only; SQLite skips it
        migrations.AddField(
            model_name="player",
            name="search_key",
            field=models.CharField(blank=True, editable=False, max_length=400),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.RunPython(add_index, drop_index),
    ]
