"""Root URL map: the web pages (tournament.web.urls), the admin for repairs by a superuser, the
API and the manual (/docs/)."""

from django.contrib import admin
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import set_language

from .web.manual import manual

urlpatterns = [
    path("", include("tournament.web.urls")),
    path("admin/", admin.site.urls),
    path("clubs/", include("tournament.clubs.urls")),  # clubs, nights, seasons
    path("api/", include("tournament.api.urls")),  # the machine interface (tournament.api)
    # The language switcher on every page (base.html) posts here; Django's own view remembers
    # the choice in its language cookie and goes back to the page. Without a CSRF token: the
    # switcher sits on public pages cached for everyone, which can carry no one's token, and
    # the worst a forged post can do is change a visitor's language (no data, no privilege).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    # the manual, docs/ built by `manage.py build_manual` (tournament.web.manual)
    re_path(r"^docs/(?P<path>.*)$", manual, name="manual"),
]

# an error no view answered: a busy database or a full disk is a clear page, not a bare 500
handler500 = "tournament.web.errors.server_error"
