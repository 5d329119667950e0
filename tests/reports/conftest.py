"""Fixtures for the report tests: the real division files read as report inputs."""

from __future__ import annotations

import io

import pypdf
import pytest

from tournament.reports import ReportEvent

from . import realdata


@pytest.fixture(scope="session")
def players_2023(real_data):
    return realdata.read_t(real_data / "naspa-2023-a.t")


@pytest.fixture(scope="session")
def players_2006(real_data):
    return realdata.read_t(real_data / "naspa-2006-b.t")


@pytest.fixture
def event() -> ReportEvent:
    return ReportEvent(
        "Albany Open 2023", venue="Albany, NY", dates="17-20 February 2023", paper="letter"
    )


def pdf_pages(data: bytes) -> list[list[str]]:
    """The text lines of each page (reportlab writes one text object per drawn string)."""
    assert data.startswith(b"%PDF-"), "not a PDF"
    reader = pypdf.PdfReader(io.BytesIO(data))
    pages = []
    for page in reader.pages:
        pages.append([ln.strip() for ln in page.extract_text().splitlines() if ln.strip()])
    return pages


def pdf_reader(data: bytes) -> pypdf.PdfReader:
    return pypdf.PdfReader(io.BytesIO(data))


def joined(lines: list[str]) -> str:
    """All text of a page as one space-separated string (wrapped names join back up)."""
    return " ".join(" ".join(lines).split())


def find_sequence(lines: list[str], seq: list[str], start: int = 0) -> int:
    """Index where ``seq`` occurs as consecutive lines at or after ``start``, else -1."""
    n = len(seq)
    for i in range(start, len(lines) - n + 1):
        if lines[i : i + n] == seq:
            return i
    return -1
