"""The Celery application: inline by default, Redis-backed workers when REDIS_URL is set."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournament.settings")

app = Celery("gibson")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# the prize chances' refresh (tournament.chances) lives beside the cache it fills
app.autodiscover_tasks(["tournament"], related_name="chances")
