"""Root URL map: the web pages (tournament.web.urls) and the admin for repairs by a superuser."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("tournament.web.urls")),
    path("admin/", admin.site.urls),
    path("clubs/", include("tournament.clubs.urls")),  # clubs, nights, seasons
    path("api/", include("tournament.api.urls")),  # the machine interface (tournament.api)
]

# an error no view answered: a busy database or a full disk is a clear page, not a bare 500
handler500 = "tournament.web.errors.server_error"
