"""Write corpus/boiler_manual.pdf: a two-page PDF with a text layer, built by hand.

Page 1 is prose; page 2 is a table laid out as columns (each cell placed at its own x), as
a word processor's PDF export would. No dependency: standard Type 1 font (Helvetica), one
uncompressed content stream a page, a cross-reference table with exact byte offsets.

    python tests/data/knowledge/make_pdf.py      # rewrites the committed file
"""

from __future__ import annotations

from pathlib import Path

OUT = Path(__file__).resolve().parent / "corpus" / "boiler_manual.pdf"

PAGE_1 = [
    (16, "Aquaheat 24 combi boiler - user manual"),
    (11, ""),
    (11, "Water pressure"),
    (11, "The normal operating pressure is between 1 and 1.5 bar when the boiler is cold."),
    (11, "The pressure rises a little while the boiler heats; that is expected."),
    (11, ""),
    (11, "Topping up the pressure"),
    (11, "To top up, open the filling loop valve under the boiler until the gauge reads"),
    (11, "1.5 bar, then close it. Never top up while the boiler is hot: wait until it has"),
    (11, "cooled down first."),
    (11, ""),
    (11, "Servicing"),
    (11, "The annual service must be done by a registered engineer. Keep the service"),
    (11, "record with this manual."),
]

TABLE_X = (60, 150, 290)
TABLE = [
    ("Fault code", "Meaning", "What to do"),
    ("E1", "Ignition failure", "Press reset once; if it returns, call an engineer."),
    ("E2", "Low water pressure", "Top up to 1.5 bar (only when cold)."),
    ("E3", "Overheating", "Switch off and call an engineer."),
    ("E4", "Flue blocked", "Do not use the boiler; call an engineer."),
    ("E9", "Sensor fault", "Call an engineer."),
]


def _text(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def page_1_stream() -> str:
    ops, y = [], 780
    for size, line in PAGE_1:
        if line:
            ops.append(f"BT /F1 {size} Tf 60 {y} Td ({_text(line)}) Tj ET")
        y -= size + 8
    return "\n".join(ops)


def page_2_stream() -> str:
    ops = ["BT /F1 14 Tf 60 780 Td (Fault codes) Tj ET"]
    y = 750
    for row in TABLE:
        for x, cell in zip(TABLE_X, row, strict=True):
            ops.append(f"BT /F1 10 Tf {x} {y} Td ({_text(cell)}) Tj ET")
        y -= 20
    return "\n".join(ops)


def build() -> bytes:
    streams = [page_1_stream().encode("latin-1"), page_2_stream().encode("latin-1")]
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 7 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        *[b"<< /Length %d >>\nstream\n%s\nendstream" % (len(s), s) for s in streams],
        b"<< /Title (Aquaheat 24 combi boiler - user manual) >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += (b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, len(objects), xref))
    return bytes(out)


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(build())
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
