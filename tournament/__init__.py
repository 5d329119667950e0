"""Gibson: the Django project and the core tournament app.

The Celery app is imported lazily by tournament.tasks so that pure modules in this package
(formats, standings, reports) stay importable without Django.
"""
