"""The console's upload: the uploaded files checked in a temporary folder of their own
(``check_upload``), then imported as a draft tournament, the uploader its director
(``import_files``, what the background job runs); refusals name the uploaded files.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings as site

from tournament.errors import ServiceError
from tournament.formats import FormatError
from tournament.formats.config import parse_config
from tournament.formats.tsh import decode_bytes
from tournament.models import Tournament
from tournament.services import Actor

from .import_prepare import prepare_import
from .import_read import CONFIG, file_kind, max_upload_bytes, prescan_import
from .import_write import ImportProgress, write_import


def check_upload_size(size: int) -> None:
    """Refuse an upload whose files add up to more than the limit, naming it."""
    if size > max_upload_bytes():
        raise ServiceError("upload_too_large", field="file", size=size, limit_mb=site.MAX_UPLOAD_MB)


UPLOAD_FOLDER = "Uploaded tournament"  # names the tournament when a config has no event_name


def _upload_name(file_name: str) -> str:
    """The uploaded file's own name, reduced to a plain file name (no folders, no dot-files)."""
    base = re.split(r"[\\/]", str(file_name or ""))[-1]
    base = re.sub(r"[^A-Za-z0-9._ -]", "_", base).strip().lstrip(".")
    return base[:100] or "upload.t"


def upload_files(
    file_name: str, data: bytes, others: dict[str, bytes] | None = None
) -> tuple[str, dict[str, bytes]]:
    """The upload's files under plain names, the main one first: (main name, {name: bytes})."""
    files = {_upload_name(file_name): data}
    for other_name, other_data in (others or {}).items():
        files.setdefault(_upload_name(other_name), other_data)
    return _upload_name(file_name), files


class _UploadFolder:
    """The upload's files written in a temporary folder, removed afterwards: the import reads
    only these; refusals name the uploaded files, never the folder."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def __enter__(self) -> _UploadFolder:
        self._tmp = tempfile.TemporaryDirectory(prefix="gibson-upload-")
        self.folder = Path(self._tmp.name) / UPLOAD_FOLDER
        self.folder.mkdir()
        for fname, content in self.files.items():
            (self.folder / fname).write_bytes(content)
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    def clean(self, text: str) -> str:
        return text.replace(str(self.folder) + "/", "").replace(str(self.folder), UPLOAD_FOLDER)

    def reword(self, exc: ServiceError) -> ServiceError:
        # The import's own code and params stay (a client acts on them); only the name of the
        # temporary folder is taken out of the words.
        params = {k: self.clean(v) if isinstance(v, str) else v for k, v in exc.params.items()}
        return ServiceError(exc.code, self.clean(exc.message), field=exc.field or "file", **params)


def check_upload(main: str, files: dict[str, bytes]) -> None:
    """What a request checks of an upload before it keeps it for a background import: its size,
    that a config's division files are among the uploaded ones (so an upload never reads
    anything else on the server), and the pre-scan's limits. A refusal changes nothing."""
    check_upload_size(sum(len(content) for content in files.values()))
    with _UploadFolder(files) as upload:
        if not main.lower().endswith(".js"):
            text = decode_bytes(files[main])
            if file_kind(text) == CONFIG:
                try:
                    config = parse_config(text, source=main)
                except FormatError as exc:
                    raise ServiceError(
                        "setup_upload_refused", field="file", detail=upload.clean(str(exc))
                    ) from exc
                for dname, named in config.divisions:
                    if named not in files or _upload_name(named) != named:
                        raise ServiceError(
                            "setup_upload_refused",
                            field="file",
                            detail=f"{main}: division {dname} names {named}, which is not "
                            "among the uploaded files (upload it with the config)",
                        )
        try:
            prescan_import(upload.folder / main)
        except ServiceError as exc:
            raise upload.reword(exc) from exc


def import_files(
    main: str,
    files: dict[str, bytes],
    *,
    actor: Actor | str | None,
    director: Any = None,
    name: str | None = None,
    rounds: int | None = None,
    progress: ImportProgress | None = None,
) -> Tournament:
    """Import checked upload files (``check_upload``) as a new draft tournament, its uploader
    as director: parsed with no transaction open, written in short ones (``write_import``).
    What a background import job runs; refusals name the uploaded file and line."""
    with _UploadFolder(files) as upload:
        try:
            prepared = prepare_import(upload.folder / main, rounds=rounds, name=name or None)
            uploader = [director] if getattr(director, "pk", None) else []
            return write_import(
                prepared, actor=actor, directors=uploader, published=False, progress=progress
            )
        except ServiceError as exc:
            raise upload.reword(exc) from exc


def import_upload(
    file_name: str,
    data: bytes,
    *,
    actor: Actor | str | None,
    director: Any = None,
    name: str | None = None,
    rounds: int | None = None,
    others: dict[str, bytes] | None = None,
) -> Tournament:
    """Create a draft tournament from uploaded bytes (a .t, config.tsh, all.tsh or tourney.js;
    a config.tsh comes with its .t files in ``others``), its uploader as director, here and
    now: ``check_upload`` then ``import_files``. The console does the same in two steps, the
    second in a background job (tournament.interchange.jobs), never inside its request.
    """
    main, files = upload_files(file_name, data, others)
    check_upload(main, files)
    return import_files(main, files, actor=actor, director=director, name=name, rounds=rounds)
