"""Pages of a list: ?limit=&offset= (its own module: DRF's settings import it early)."""

from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    """At most MAX_PAGE items a page: a list of 1,000 games costs a worker long enough that a
    script asking for it a few times a second slowed every cached page to seconds.
    A larger ``limit`` is answered with MAX_PAGE and the ``next`` link to the rest."""

    default_limit = 100
    max_limit = 200
