"""Pages of a list: ?limit=&offset= (its own module: DRF's settings import it early)."""

from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    default_limit = 100
    max_limit = 1000
