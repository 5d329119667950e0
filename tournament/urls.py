"""URL map: public read-only pages, the admin for directors."""

from django.contrib import admin
from django.urls import path

from . import feeds, views

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.tournament_detail, name="tournament"),
    path("t/<slug:slug>/tourney.js", feeds.tourney_js, name="tourney_js"),
    path("t/<slug:slug>/<path:division>/standings/", views.standings, name="standings"),
    # path: a division name may hold a "/" (the QR code of reports.build.player_url quotes it)
    path("t/<slug:slug>/<path:division>/player/<str:number>/", views.player, name="player"),
    path("admin/", admin.site.urls),
]
