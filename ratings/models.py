"""Rating lists: pools of ratings (e.g. NASPA NWL, NASPA CSW, a club's own list)."""

from django.db import models


class RatingList(models.Model):
    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    system = models.CharField(max_length=20, default="nsa2008")
    start_date = models.DateField(null=True, blank=True)
    description = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
