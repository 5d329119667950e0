"""The participants' state before an event on each history row, so a federation re-rate can
leave the explanation empty and have it built when a player reads it."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0006_h22w_event_sequence"),
    ]

    operations = [
        migrations.AddField(
            model_name="ratinghistory",
            name="games_before",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="ratinghistory",
            name="deviation_before",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="ratinghistory",
            name="volatility_before",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="ratinghistory",
            name="last_played_before",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="ratinghistory",
            name="history_before",
            field=models.TextField(blank=True, default=""),
        ),
    ]
