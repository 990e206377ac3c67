"""Benchmark the knowledge index: index N pages, then search; print the figures.

    desktop-agent knowledge bench [--pages 1000] [--json]

The corpus is synthetic and made in a temporary folder: 90% of the pages as one-page
Markdown and text files (about 350 words each, headings and paragraphs), the rest as one
PDF of that many pages (written by devtools/text_pdf.py, text layer through pypdf). Figures:
the cold indexing time and pages per second, passages, index size on disk, a second run
over the unchanged folder, and search latency (p50, p95) over spoken-style questions.
Timing is printed, never asserted.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from desktop_agent.devtools.text_pdf import prose_page, text_pdf

SEED = 11
WORDS_PER_PAGE = 350
PDF_SHARE = 0.1
QUERIES = 300
_TOPICS = ("boiler", "pressure", "valve", "engineer", "warranty", "filter", "radiator",
           "thermostat", "fuse", "battery", "charger", "router", "password", "meeting",
           "budget", "invoice", "garden", "recipe", "oven", "bicycle", "tyre", "brake",
           "insurance", "pension", "tax", "school", "holiday", "passport", "visa", "flight")
_FILLER = ("the", "a", "is", "with", "when", "after", "before", "check", "open", "close",
           "turn", "keep", "every", "year", "month", "daily", "water", "power", "light",
           "switch", "label", "manual", "section", "note", "reset", "service", "safe",
           "never", "always", "only", "cold", "hot", "bar", "minutes", "hours", "pounds")


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_FILLER) for _ in range(rng.randint(8, 16))]
    for _ in range(2):
        words[rng.randrange(len(words))] = rng.choice(_TOPICS) + str(rng.randint(1, 400))
    return " ".join(words).capitalize() + "."


def _page_lines(rng: random.Random, words: int) -> list[str]:
    """About ``words`` words of prose as lines of about 11 words, paragraphs split by ''."""
    lines: list[str] = []
    count = 0
    while count < words:
        line = _sentence(rng)
        lines.append(line)
        count += len(line.split())
        if rng.random() < 0.15:
            lines.append("")
    return lines


def make_corpus(folder: Path, pages: int, seed: int = SEED) -> dict[str, int]:
    """Write the synthetic corpus; returns how many pages went to files and to the PDF."""
    rng = random.Random(seed)
    pdf_pages = max(1, int(pages * PDF_SHARE)) if pages >= 10 else 0
    file_pages = pages - pdf_pages
    for n in range(file_pages):
        lines = _page_lines(rng, WORDS_PER_PAGE)
        if n % 2 == 0:
            text = f"# {rng.choice(_TOPICS).title()} notes {n}\n\n" + "\n".join(
                "\n## Details\n" if not line else line for line in lines)
            (folder / f"page{n:05}.md").write_text(text, encoding="utf-8")
        else:
            (folder / f"page{n:05}.txt").write_text("\n".join(lines), encoding="utf-8")
    if pdf_pages:
        pdf = [prose_page(_page_lines(rng, WORDS_PER_PAGE)[:38], size=9, top=800)
               for _ in range(pdf_pages)]
        (folder / "handbook.pdf").write_bytes(text_pdf(pdf, "Synthetic handbook"))
    return {"file_pages": file_pages, "pdf_pages": pdf_pages}


def _queries(rng: random.Random, n: int) -> list[str]:
    forms = ("what does the manual say about {a}", "how do I reset the {a} {b}",
             "when is the {a} due", "what's the {a} for {b}", "is it safe to {c} the {a}")
    return [rng.choice(forms).format(a=rng.choice(_TOPICS) + str(rng.randint(1, 400)),
                                     b=rng.choice(_TOPICS), c=rng.choice(_FILLER))
            for _ in range(n)]


def measure(pages: int = 1000) -> dict[str, Any]:
    """Make the corpus, index it twice, search it; the figures."""
    from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex

    with tempfile.TemporaryDirectory(prefix="da-bench-index-") as tmp:
        root = Path(tmp)
        docs = root / "docs"
        docs.mkdir()
        split = make_corpus(docs, pages)
        index = SqliteKnowledgeIndex(root / "knowledge.sqlite3")
        started = time.perf_counter()
        report = index.index([str(docs)])
        cold_s = time.perf_counter() - started
        started = time.perf_counter()
        again = index.index([str(docs)])
        warm_s = time.perf_counter() - started
        latencies: list[float] = []
        hits = 0
        for query in _queries(random.Random(SEED + 1), QUERIES):
            t0 = time.perf_counter()
            found = index.search(query, limit=5)
            latencies.append((time.perf_counter() - t0) * 1000)
            hits += bool(found)
        index.close()
        size = sum(p.stat().st_size for p in root.glob("knowledge.sqlite3*"))
    ordered = sorted(latencies)
    return {
        "pages": pages, **split, "files": report.added, "problems": len(report.problems),
        "index_s": round(cold_s, 2), "pages_per_s": round(pages / cold_s, 1),
        "passages": report.passages, "index_mb": round(size / 2**20, 2),
        "reindex_unchanged_s": round(warm_s, 3), "reindex_unchanged": again.unchanged,
        "search_ms": {"n": len(ordered), "p50": round(statistics.median(ordered), 2),
                      "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
                      "max": round(ordered[-1], 2)},
        "queries_with_hits": hits,
    }


def run_bench(pages: int = 1000, as_json: bool = False) -> int:
    """Print the figures (one JSON object with ``--json``); the exit status."""
    if pages < 1:
        print("error: --pages must be at least 1", file=sys.stderr)
        return 2
    figures = measure(pages)
    if as_json:
        print(json.dumps(figures))
        return 0
    s = figures["search_ms"]
    print(f"Indexed {figures['pages']} pages ({figures['file_pages']} in files, "
          f"{figures['pdf_pages']} in one PDF) in {figures['index_s']} s "
          f"({figures['pages_per_s']} pages/s): {figures['passages']} passages, "
          f"{figures['index_mb']} MB on disk.")
    print(f"Second run over the unchanged folder: {figures['reindex_unchanged_s']} s.")
    print(f"Search over {s['n']} spoken questions: p50 {s['p50']} ms, p95 {s['p95']} ms, "
          f"max {s['max']} ms.")
    return 0
