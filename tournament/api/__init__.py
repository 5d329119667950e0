"""The machine interface at /api/v1/ (Django REST framework): reads as the public pages show
them, and result writes through the same services as the console."""
