"""Clubs: weekly club nights, season ladders and club ratings.

A club night is stored as a one-division Tournament owned by the club (``Night``), so the
pairing engine, results, standings, PDFs and TSH export are the ones tournaments use; a season
(``Season``) is a date range and a scoring rule whose ladder is computed from the games of the
club's closed nights (``ladder``, a pure core). Club and Membership live in tournament.models
(players belong to clubs whether or not a club uses Gibson for its nights).
"""
