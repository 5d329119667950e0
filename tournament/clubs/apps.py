from django.apps import AppConfig


class ClubsConfig(AppConfig):
    name = "tournament.clubs"
    label = "clubs"
    verbose_name = "Clubs"
