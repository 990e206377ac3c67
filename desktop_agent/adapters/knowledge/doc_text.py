"""Text out of the user's documents: Markdown, plain text, and the text layer of a PDF.

``walk_folders`` lists the files under the knowledge folders (hidden ones skipped).

``extract(path, data)`` turns a file's bytes into one ``Document`` (the text, and for a
PDF each page's offsets in it) or raises ``Unreadable`` with a sentence the user can act
on: a binary file, a password-protected or damaged PDF, a scanned PDF with no text
layer. ``check_file`` refuses what should not even be read (unsupported type, empty,
too large). PDF text comes from pypdf (pure Python, maintained), imported lazily.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.index import IndexProblem

_LOGGER = logging.getLogger(__name__)

KINDS: Final = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text",
                ".pdf": "pdf"}
"""File suffix (lower case) -> how it is read. Anything else is listed as unsupported."""
MAX_FILE_BYTES: Final = 20 * 2**20
"""Bigger files are not indexed (said so in the report): split them into smaller files."""
MAX_PDF_PAGES: Final = 2000
"""Pages after this are not indexed (said so in the report)."""
_SNIFF_BYTES: Final = 8192


class Unreadable(Exception):
    """A file that cannot be indexed; ``reason`` is shown to the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Document:
    """One document's extracted text."""

    text: str
    kind: str
    """'markdown', 'text' or 'pdf'."""
    pages: tuple[tuple[int, int], ...] = ()
    """PDF: (start, end) of each page's text in ``text``; () otherwise."""
    note: str = ""
    """Something the user should know although the file was indexed ('' when nothing)."""


def kind_of(path: Path) -> str | None:
    """'markdown', 'text', 'pdf', or None for a type that is not indexed."""
    return KINDS.get(path.suffix.lower())


def check_file(path: Path, size: int) -> None:
    """Refuse a file by its name and size alone (before reading it).

    Raises:
        Unreadable: an unsupported type, an empty file, or one over ``MAX_FILE_BYTES``.
    """
    if kind_of(path) is None:
        what = f"'{path.suffix}' files" if path.suffix else "files without an extension"
        raise Unreadable(f"not indexed: {what} are not supported (only Markdown .md, "
                         "plain text .txt and PDF .pdf are); convert it to one of those")
    if size == 0:
        raise Unreadable("empty file: nothing to index")
    if size > MAX_FILE_BYTES:
        raise Unreadable(f"too large to index ({size / 2**20:.0f} MB; the limit is "
                         f"{MAX_FILE_BYTES // 2**20} MB): split it into smaller files")


def extract(path: Path, data: bytes) -> Document:
    """The text of a file whose bytes are ``data``.

    Raises:
        Unreadable: binary content in a text file, a PDF that cannot be read or has no
            text layer.
    """
    kind = kind_of(path) or "text"
    if kind == "pdf":
        return _pdf(data)
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise Unreadable("not a text file (binary content): save it as plain text, "
                         "Markdown or PDF")
    text = _decode(data).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise Unreadable("no text in this file (only spaces or blank lines)")
    return Document(text, kind)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:  # what older Windows editors write
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _pdf(data: bytes) -> Document:
    try:
        import pypdf
        from pypdf.errors import PdfReadError
    except ImportError as exc:  # pragma: no cover - pypdf is a pinned dependency
        raise Unreadable("PDF support is not installed: run scripts/setup.sh "
                         "(it installs pypdf)") from exc
    if not data.startswith(b"%PDF") and b"%PDF" not in data[:1024]:
        raise Unreadable("not a PDF (the file does not start like one): check the file or "
                         "rename it")
    # pypdf warns through logging about every oddity of a real-world PDF: keep them out
    # of the user's console unless they asked for a verbose log.
    logging.getLogger("pypdf").setLevel(max(logging.getLogger("pypdf").level, logging.ERROR))
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise Unreadable("password-protected PDF: save an unprotected copy to index it")
        total = len(reader.pages)
        texts: list[str] = []
        for page in reader.pages[:MAX_PDF_PAGES]:
            texts.append(_page_text(page))
    except Unreadable:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, IndexError, AttributeError,
            RecursionError, NotImplementedError, OSError) as exc:
        # pypdf raises the standard exceptions too for a damaged file.
        _LOGGER.info("turn=0 PDF unreadable: %s: %s", type(exc).__name__, exc)
        raise Unreadable(f"damaged or unreadable PDF ({type(exc).__name__}: {exc}): open "
                         "it in a PDF viewer and save a new copy") from exc
    text, pages = _join_pages(texts)
    if not text.strip():
        raise Unreadable("no text layer in this PDF (probably scanned images): run OCR on "
                         "it or save it with text")
    note = ""
    if total > MAX_PDF_PAGES:
        note = (f"only the first {MAX_PDF_PAGES} of {total} pages were indexed: split the "
                "PDF to index the rest")
    return Document(text, "pdf", pages, note)


def _page_text(page: object) -> str:
    text = page.extract_text()  # type: ignore[attr-defined]
    # Hyphenation and ligatures as PDFs store them: keep the text searchable.
    return str(text or "").replace("\ufb01", "fi").replace("\ufb02", "fl").replace("\x00", "")


def _join_pages(texts: list[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The pages' texts joined by a blank line, with each page's (start, end)."""
    parts: list[str] = []
    pages: list[tuple[int, int]] = []
    offset = 0
    for text in texts:
        pages.append((offset, offset + len(text)))
        parts.append(text)
        offset += len(text) + 2
    return "\n\n".join(parts), tuple(pages)


def walk_folders(folders: Sequence[str],
          cancel: CancelToken | None) -> tuple[list[Path], list[IndexProblem]]:
    """Every file under ``folders`` (hidden files and folders skipped), sorted, no duplicate.

    Returns:
        The files, and a problem for each folder that is missing or cannot be read.
    """
    seen: dict[str, Path] = {}
    problems: list[IndexProblem] = []
    for folder in folders:
        root = Path(folder).expanduser()
        if not root.is_dir():
            what = "is not a folder" if root.exists() else "was not found"
            problems.append(IndexProblem(str(root), f"this knowledge folder {what}: check the "
                                         "path in Settings, or remove it from the list"))
            continue
        root = root.resolve()

        def unreadable(exc: OSError) -> None:
            problems.append(IndexProblem(str(exc.filename), f"this folder {os_reason(exc)}"))

        for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable):
            if cancel is not None and cancel.cancelled:
                break
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in filenames:
                if name.startswith((".", "~$")):
                    continue
                path = Path(dirpath) / name
                if not path.is_file():  # a broken link, a socket
                    continue
                seen.setdefault(str(path), path)
    return sorted(seen.values(), key=lambda p: (str(p.parent), p.name)), problems


def os_reason(exc: OSError) -> str:
    """Why a file or folder cannot be read, and what to do, in words."""
    if isinstance(exc, PermissionError):
        return "cannot be read (permission denied): check the file's permissions"
    if isinstance(exc, FileNotFoundError):
        return "it disappeared while it was being indexed"
    return f"cannot be read ({exc.strerror or exc}): check the disk and the file"
