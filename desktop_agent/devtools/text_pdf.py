"""A minimal valid PDF with a text layer, written by hand (no dependency).

Used by the fixture script (tests/data/knowledge/make_pdf.py), the knowledge tests (a
scanned-like PDF with no text) and the indexing benchmark (a 100-page PDF). Each text run
is placed at its own (x, y) in the standard Helvetica font, so a table is columns of runs,
as a word processor's export lays it out.
"""

from __future__ import annotations

from collections.abc import Sequence

Run = tuple[float, float, float, str]
"""(x, y, font size, text) in PDF points, origin at the bottom left of an A4 page."""


def _escape(text: str) -> bytes:
    raw = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return raw.encode("cp1252", errors="replace")


def page_stream(runs: Sequence[Run]) -> bytes:
    """The content stream drawing ``runs``."""
    return b"\n".join(b"BT /F1 %g Tf %g %g Td (%s) Tj ET" % (size, x, y, _escape(text))
                      for x, y, size, text in runs)


def text_pdf(pages: Sequence[Sequence[Run]], title: str = "") -> bytes:
    """A PDF of A4 pages, each drawing its runs; an empty page has no text layer."""
    n = len(pages)
    font = 3 + n
    kids = b" ".join(b"%d 0 R" % (3 + i) for i in range(n))
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, n)]
    objects += [b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font "
                b"<< /F1 %d 0 R >> >> /Contents %d 0 R >>" % (font, font + 1 + i)
                for i in range(n)]
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
                   b"/Encoding /WinAnsiEncoding >>")
    for runs in pages:
        stream = page_stream(runs)
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Title (%s) >>" % _escape(title))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += (b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, len(objects), xref))
    return bytes(out)


def prose_page(lines: Sequence[str], size: float = 11, top: float = 780) -> list[Run]:
    """Runs for lines of text from the top of a page down ('' leaves a gap)."""
    runs: list[Run] = []
    y = top
    for line in lines:
        if line:
            runs.append((60, y, size, line))
        y -= size + 8
    return runs
