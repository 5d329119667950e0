"""URL map of the club pages under /clubs/ (namespace "clubs"): each page module keeps its
own ``urlpatterns``, so public pages, management and nights grow apart."""

from .web import manage, nights, public

app_name = "clubs"
urlpatterns = [*manage.urlpatterns, *nights.urlpatterns, *public.urlpatterns]
