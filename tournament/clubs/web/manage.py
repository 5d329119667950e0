"""Club pages: manage (see tournament/clubs/web/__init__.py)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
