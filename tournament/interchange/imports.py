"""TSH files in and out of the database: the shell around the pure readers in tournament.formats.

An import is all or nothing: the files are parsed and cross-checked first, then written in
short transactions, and a failure deletes what was written; any error names the file and line
(or player and round) and leaves the database as it was. Export writes back every field the
import kept, so a round trip is lossless.

The steps live in modules of their own: reading and the formats' registry
(``import_read``), the tournament's settings and games made ready (``import_prepare``),
writing (``import_write``) and the console's upload (``uploads``). Their names are kept here
too, so callers import every step from this one module.
"""

from __future__ import annotations

from pathlib import Path

from tournament.models import Tournament
from tournament.services import Actor

from .import_prepare import (
    REALMS,
    SETTING_LIMIT,
    PreparedDivision,
    PreparedGame,
    PreparedImport,
    prepare_import,
)
from .import_read import (
    ARCHIVE,
    CONFIG,
    DIVISION,
    IMPORT_FORMATS,
    ImportFormat,
    ImportPlan,
    ImportRead,
    ImportReader,
    ParsedDivision,
    check_counts,
    check_import_size,
    check_rounds,
    detect_import_format,
    file_kind,
    max_upload_bytes,
    plan_import,
    prescan_import,
    read_text,
    register_import_format,
)
from .import_write import (
    BATCH_ROWS,
    BREATHER,
    BREATHER_AFTER,
    MODELLED_FIELDS,
    BatchWriter,
    ImportProgress,
    discard_import,
    import_units,
    write_import,
)
from .uploads import (
    UPLOAD_FOLDER,
    check_upload,
    check_upload_size,
    import_files,
    import_upload,
    upload_files,
)

__all__ = [
    "ARCHIVE",
    "BATCH_ROWS",
    "BREATHER",
    "BREATHER_AFTER",
    "CONFIG",
    "DIVISION",
    "IMPORT_FORMATS",
    "MODELLED_FIELDS",
    "REALMS",
    "SETTING_LIMIT",
    "UPLOAD_FOLDER",
    "BatchWriter",
    "ImportFormat",
    "ImportPlan",
    "ImportProgress",
    "ImportRead",
    "ImportReader",
    "ParsedDivision",
    "PreparedDivision",
    "PreparedGame",
    "PreparedImport",
    "check_counts",
    "check_import_size",
    "check_rounds",
    "check_upload",
    "check_upload_size",
    "detect_import_format",
    "discard_import",
    "file_kind",
    "import_files",
    "import_tsh",
    "import_units",
    "import_upload",
    "max_upload_bytes",
    "plan_import",
    "prepare_import",
    "prescan_import",
    "read_text",
    "register_import_format",
    "upload_files",
    "write_import",
]


def import_tsh(
    path: str | Path,
    *,
    config_path: str | Path | None = None,
    rounds: int | None = None,
    name: str | None = None,
    actor: Actor | str | None = "import_tsh",
    progress: ImportProgress | None = None,
) -> Tournament:
    """Create a tournament (always a new one) from a .t, config.tsh, all.tsh, tourney.js or .TOU.

    The files are read and checked first with no transaction open (``prepare_import``), then
    written in short transactions of a few hundred rows (``write_import``), so the database's
    write lock is never held for long and results entered meanwhile go in between.
    """
    prepared = prepare_import(path, config_path=config_path, rounds=rounds, name=name)
    return write_import(prepared, actor=actor, progress=progress)
