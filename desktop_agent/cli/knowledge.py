"""``desktop-agent knowledge index|list|search|bench``: the knowledge index from a terminal.

    desktop-agent knowledge index [--knowledge DIR ...]   index new and changed files
    desktop-agent knowledge list                          indexed files and problem files
    desktop-agent knowledge search "what does E2 mean"    passages with ids and scores
    desktop-agent knowledge bench [--pages 1000]          indexing and search figures

Folders: each ``--knowledge DIR`` (repeatable), else the folders in Settings. The index is
``<user data dir>/knowledge.sqlite3`` unless ``--index PATH``. The user's notes from the
assistant's store (``--data-dir``, default the user data dir) are indexed too when the
store exists. Exit status: 0 done, 2 bad input (a missing folder, no folder at all, an
empty query, no index yet), 1 a failure (printed as ``[code] message Fix: ...``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_USAGE = 2
SNIPPET_CHARS = 160


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``knowledge`` subcommand to the main parser's subparsers."""
    parser = subparsers.add_parser(
        "knowledge", help="index your documents, list them, search them",
        description="The knowledge index: your Markdown, text and PDF files and your notes.")
    parser.add_argument("action", choices=["index", "list", "search", "bench"])
    parser.add_argument("query", nargs="*", help="(search) the question, spoken or typed")
    parser.add_argument("--knowledge", action="append", type=Path, metavar="DIR",
                        help="a folder of documents (repeatable; default: the folders in "
                             "Settings)")
    parser.add_argument("--index", type=Path, metavar="PATH",
                        help="the index file (default: knowledge.sqlite3 in the user data dir)")
    parser.add_argument("--data-dir", type=Path, default=None,
                        help="where the assistant's store with your notes is (default: the "
                             "user data dir)")
    parser.add_argument("--limit", type=int, default=5, help="(search) passages to show")
    parser.add_argument("--pages", type=int, default=1000,
                        help="(bench) pages in the synthetic corpus")
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def run(args: argparse.Namespace) -> int:
    """Run one ``knowledge`` action; the exit status."""
    if args.action == "bench":
        from desktop_agent.devtools.bench_index import run_bench

        return run_bench(pages=args.pages, as_json=args.json)
    if args.action == "search":
        return _search(args)
    if args.action == "list":
        return _list(args)
    return _index(args)


def _usage(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _index_path(args: argparse.Namespace) -> Path:
    from desktop_agent.adapters.knowledge.knowledge_sqlite import default_index_path

    return args.index if args.index is not None else default_index_path()


def _folders(args: argparse.Namespace) -> tuple[list[str], str]:
    """The folders to index and a usage error ('' when fine)."""
    if args.knowledge:
        for folder in args.knowledge:
            if not folder.expanduser().is_dir():
                what = "is not a folder" if folder.exists() else "does not exist"
                return [], (f"the knowledge folder {folder} {what}: check the path (give "
                            "an existing folder of documents with --knowledge DIR)")
        return [str(f.expanduser().resolve()) for f in args.knowledge], ""
    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.settings_store import load_settings

    loaded = load_settings(paths.config_dir() / "settings.toml")
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    folders = list(loaded.settings.knowledge_folders)
    if not folders:
        return [], ("no knowledge folder: pass --knowledge DIR, or add folders in the app "
                    "(Settings > Your documents)")
    return folders, ""


def _open(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The index, with the notes of the assistant's store when that store exists."""
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME, Store, default_store_path
    from desktop_agent.compose.knowledge import new_index

    store_path = args.data_dir / FILE_NAME if args.data_dir else default_store_path()
    store = Store(store_path) if store_path.exists() else None
    notes = None
    if store is not None:
        def notes():  # type: ignore[no-untyped-def]
            return store.list_notes()
    return new_index(_index_path(args), notes=notes), store


def _progress(current: Any) -> None:
    if current.current:
        line = f"[{current.done + 1}/{current.total}] {current.current}"
        if sys.stderr.isatty():
            print(f"\r\033[K{line[-120:]}", end="", file=sys.stderr, flush=True)
        else:
            print(line, file=sys.stderr)
    elif sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)


def _index(args: argparse.Namespace, quiet: bool = False) -> int:
    folders, error = _folders(args)
    if error:
        return _usage(error)
    index, store = _open(args)
    try:
        report = index.index(folders, progress=None if quiet else _progress)
    finally:
        index.close()
        if store is not None:
            store.close()
    if quiet:
        return EXIT_OK
    if args.json:
        print(json.dumps({**asdict(report), "folders": folders,
                          "index": str(_index_path(args))}))
        return EXIT_OK
    print(f"Indexed {len(folders)} folder(s) in {report.seconds:.1f} s: {report.added} added, "
          f"{report.updated} updated, {report.removed} removed, {report.unchanged} unchanged; "
          f"{report.passages} passages in {_index_path(args)}")
    _print_problems(report.problems)
    return EXIT_OK


def _print_problems(problems: Any) -> None:
    if problems:
        print(f"Not indexed ({len(problems)}):")
        for problem in problems:
            print(f"  {problem.file}: {problem.reason}")


def _list(args: argparse.Namespace) -> int:
    path = _index_path(args)
    if not path.exists():
        if args.json:
            print(json.dumps({"index": str(path), "files": [], "problems": []}))
        else:
            print(f"No knowledge index at {path} yet: run 'desktop-agent knowledge index "
                  "--knowledge DIR' to make one.")
        return EXIT_OK
    from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex

    index = SqliteKnowledgeIndex(path)
    try:
        files, problems = index.list_files(), index.problems()
    finally:
        index.close()
    if args.json:
        print(json.dumps({"index": str(path), "files": [asdict(f) for f in files],
                          "problems": [asdict(p) for p in problems]}))
        return EXIT_OK
    for f in files:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(f.indexed_at))
        pages = f", {f.pages} pages" if f.pages else ""
        print(f"{f.passages:5} passages  {f.version}  {when}  {f.file}{pages}")
    print(f"{len(files)} file(s) and note(s), {sum(f.passages for f in files)} passages "
          f"in {path}")
    _print_problems(problems)
    return EXIT_OK


def _search(args: argparse.Namespace) -> int:
    query = " ".join(args.query).strip()
    if not query:
        return _usage("the query is empty: say what to search for, e.g. "
                      "desktop-agent knowledge search \"what does E2 mean\"")
    if args.limit < 1:
        return _usage("--limit must be at least 1")
    if args.knowledge:  # index the given folders first (quietly), then search them
        status = _index(args, quiet=True)
        if status != EXIT_OK:
            return status
    path = _index_path(args)
    if not path.exists():
        return _usage(f"no knowledge index at {path} yet: run 'desktop-agent knowledge index "
                      "--knowledge DIR' first (or search with --knowledge DIR)")
    from desktop_agent.compose.knowledge import new_index
    from desktop_agent.core.text.fts_query import fts_terms

    index = new_index(path)
    try:
        started = time.perf_counter()
        hits = index.search(query, limit=args.limit)
        ms = (time.perf_counter() - started) * 1000
    finally:
        index.close()
    if args.json:
        print(json.dumps({"query": query, "terms": list(fts_terms(query)), "ms": round(ms, 2),
                          "passages": [asdict(p) for p in hits]}))
        return EXIT_OK
    if not hits:
        print(f"Nothing in your documents matches {query!r}.")
        return EXIT_OK
    for rank, p in enumerate(hits, start=1):
        page = f" p.{p.page}" if p.page else ""
        snippet = " ".join(p.text.split())
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[:SNIPPET_CHARS - 1] + "\u2026"
        print(f"{rank}. {p.title}{page}  score {p.score:.2f}  {p.passage_id}\n   {snippet}")
    return EXIT_OK
