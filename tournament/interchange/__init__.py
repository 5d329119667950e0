"""Files in and out, between the pure formats (``tournament.formats``) and the database.

``imports`` reads TSH files (``.t``, ``config.tsh``, ``all.tsh``, ``tourney.js``) into a new
tournament in one transaction; ``exports`` writes a tournament back out in every format other
programs read (TSH's files, ``tourney.js``, ``.TOU``, CSV), from the same division snapshot the
pages use. The pure readers and writers know nothing of the database; these two modules are
the only place a file meets a model.
"""
