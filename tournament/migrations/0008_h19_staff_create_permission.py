"""Tournament creation becomes a permission a site administrator grants (issue 19).

Directors used to get ``is_staff`` (the admin) and, with it, the right to create tournaments.
So existing sites keep working, every account that directs a tournament gets the new
``tournament.create_tournament`` permission, and loses ``is_staff`` unless it is a superuser
or a named officer (keeps the player registry, or an officer of a rating list that is not a
club's own): the admin is theirs only now.
"""

from django.conf import settings
from django.db import migrations
from django.db.models import Q


def grant_directors(apps, schema_editor):
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    RatingList = apps.get_model("ratings", "RatingList")
    directors = User.objects.filter(directed_tournaments__isnull=False).distinct()
    if not directors.exists():
        return  # a new site: the permission row comes with post_migrate as usual
    ct, _ = ContentType.objects.get_or_create(app_label="tournament", model="tournament")
    create, _ = Permission.objects.get_or_create(
        content_type=ct,
        codename="create_tournament",
        defaults={"name": "Can create tournaments (typed in or uploaded)"},
    )
    registry = Q(user_permissions__codename="manage_registry") | Q(
        groups__permissions__codename="manage_registry"
    )
    keepers = set(User.objects.filter(registry).values_list("pk", flat=True))
    officers = set(
        RatingList.objects.filter(club__isnull=True).values_list("officers", flat=True)
    )
    for user in directors:
        user.user_permissions.add(create)
        if user.is_staff and not user.is_superuser and user.pk not in keepers | officers:
            user.is_staff = False
            user.save(update_fields=["is_staff"])


class Migration(migrations.Migration):
    dependencies = [
        ("tournament", "0007_tournament_spread_caps"),
        ("ratings", "0005_profile_indexes"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="tournament",
            options={
                "ordering": ["-start_date", "name"],
                "permissions": [
                    ("create_tournament", "Can create tournaments (typed in or uploaded)")
                ],
            },
        ),
        migrations.RunPython(grant_directors, migrations.RunPython.noop),
    ]
