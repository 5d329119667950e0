"""The director's console: setup, staff, registration, pairing and result entry pages."""
