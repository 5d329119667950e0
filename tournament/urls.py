"""URL map: public read-only pages, the admin for directors."""

from django.contrib import admin
from django.urls import path

from . import desk, feeds, views

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.tournament_detail, name="tournament"),
    path("t/<slug:slug>/tourney.js", feeds.tourney_js, name="tourney_js"),
    # the director's desk: reports and exports (directors only)
    path("t/<slug:slug>/desk/", desk.desk, name="desk"),
    path("t/<slug:slug>/desk/export/<str:fmt>", desk.export_file, name="desk_export"),
    path("t/<slug:slug>/desk/jobs/<str:job>/", desk.job_status, name="desk_job"),
    path("t/<slug:slug>/desk/jobs/<str:job>/file", desk.job_file, name="desk_job_file"),
    path("t/<slug:slug>/desk/<path:division>/report.pdf", desk.report_pdf, name="desk_report"),
    path(
        "t/<slug:slug>/desk/<path:division>/scorecards/",
        desk.start_scorecards,
        name="desk_scorecards",
    ),
    path("t/<slug:slug>/<path:division>/standings/", views.standings, name="standings"),
    # path: a division name may hold a "/" (the QR code of reports.build.player_url quotes it)
    path("t/<slug:slug>/<path:division>/player/<str:number>/", views.player, name="player"),
    path("admin/", admin.site.urls),
]
