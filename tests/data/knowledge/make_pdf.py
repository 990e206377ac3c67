"""Write corpus/boiler_manual.pdf: a two-page PDF with a text layer, built by hand.

Page 1 is prose; page 2 is a table laid out as columns (each cell placed at its own x), as
a word processor's PDF export would. No dependency: desktop_agent/devtools/text_pdf.py writes
standard Type 1 text (Helvetica), one uncompressed content stream a page, and a
cross-reference table with exact byte offsets.

    .venv/bin/python tests/data/knowledge/make_pdf.py      # rewrites the committed file
"""

from __future__ import annotations

from pathlib import Path

from desktop_agent.devtools.text_pdf import Run, prose_page, text_pdf

OUT = Path(__file__).resolve().parent / "corpus" / "boiler_manual.pdf"
TITLE = "Aquaheat 24 combi boiler - user manual"

PAGE_1 = [
    "Water pressure",
    "The normal operating pressure is between 1 and 1.5 bar when the boiler is cold.",
    "The pressure rises a little while the boiler heats; that is expected.",
    "",
    "Topping up the pressure",
    "To top up, open the filling loop valve under the boiler until the gauge reads",
    "1.5 bar, then close it. Never top up while the boiler is hot: wait until it has",
    "cooled down first.",
    "",
    "Servicing",
    "The annual service must be done by a registered engineer. Keep the service",
    "record with this manual.",
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


def pages() -> list[list[Run]]:
    """The two pages as text runs."""
    page_1: list[Run] = [(60, 780, 16, TITLE), *prose_page(PAGE_1, top=750)]
    page_2: list[Run] = [(60, 780, 14, "Fault codes")]
    for i, row in enumerate(TABLE):
        page_2 += [(x, 750 - 20 * i, 10, cell) for x, cell in zip(TABLE_X, row, strict=True)]
    return [page_1, page_2]


if __name__ == "__main__":
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(text_pdf(pages(), TITLE))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
