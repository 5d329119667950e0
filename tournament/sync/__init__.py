"""Venue mode's transport: the venue instance talks to its hosted site over HTTP.

An app above the services (docs/architecture.md, "Venue sync"): it reads batches and records
what the hosted site confirmed through tournament.services.venue, and never writes rows
itself. ``client`` is the HTTP side, ``push`` the loop the commands and the console run.
"""
