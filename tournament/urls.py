"""Root URL map: the web pages (tournament.web.urls), the admin for repairs by a superuser, the
API and the manual (/docs/)."""

from django.contrib import admin
from django.urls import include, path, re_path

from .web.manual import manual

urlpatterns = [
    path("", include("tournament.web.urls")),
    path("admin/", admin.site.urls),
    path("clubs/", include("tournament.clubs.urls")),  # clubs, nights, seasons
    path("api/", include("tournament.api.urls")),  # the machine interface (tournament.api)
    # the manual, docs/ built by `manage.py build_manual` (tournament.web.manual)
    re_path(r"^docs/(?P<path>.*)$", manual, name="manual"),
]

# an error no view answered: a busy database or a full disk is a clear page, not a bare 500
handler500 = "tournament.web.errors.server_error"
