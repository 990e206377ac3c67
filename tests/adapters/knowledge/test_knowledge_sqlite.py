"""The knowledge index on real files: the fixture PDF through pypdf, Markdown, text and the
notes of a real store; incremental runs, problem files, progress and cancel, a search from
another thread while indexing, and a damaged index file."""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from pathlib import Path

import pytest

from desktop_agent.adapters.knowledge import doc_text
from desktop_agent.adapters.knowledge.doc_text import extract
from desktop_agent.adapters.knowledge.knowledge_files import passage_id
from desktop_agent.adapters.knowledge.knowledge_sqlite import SqliteKnowledgeIndex
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.knowledge.index import IndexProgress
from desktop_agent.devtools.text_pdf import prose_page, text_pdf

CORPUS = Path(__file__).resolve().parents[2] / "data" / "knowledge" / "corpus"
PDF = CORPUS / "boiler_manual.pdf"
T0 = 1_700_000_000.0
ID = re.compile(r"^(?P<key>.+)@(?P<sha>[0-9a-f]{12})#(?P<start>\d+)-(?P<end>\d+)$")

CLUB = """# Club rules

## Meetings
The annual general meeting is held in March. Members vote on the budget and elect the
committee. Guests may attend but cannot vote.

## Fees
The yearly fee is 20 pounds for adults and 10 pounds for juniors. Fees are due in January;
a member who has not paid by the end of February cannot book the courts.
"""


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(PDF, folder / PDF.name)
    (folder / "club.md").write_text(CLUB, encoding="utf-8")
    (folder / "wifi.txt").write_text("The guest wifi password is on the router label.\n")
    return folder


@pytest.fixture
def index(tmp_path: Path) -> SqliteKnowledgeIndex:
    ix = SqliteKnowledgeIndex(tmp_path / "knowledge.sqlite3", clock=lambda: T0)
    yield ix
    ix.close()


def test_the_fixture_pdf_has_a_text_layer_with_the_table_on_page_2() -> None:
    doc = extract(PDF, PDF.read_bytes())
    assert doc.kind == "pdf" and len(doc.pages) == 2
    page_1 = doc.text[slice(*doc.pages[0])]
    page_2 = doc.text[slice(*doc.pages[1])]
    assert "between 1 and 1.5 bar when the boiler is cold" in page_1
    assert "Never top up while the boiler is hot" in page_1
    assert "E2 Low water pressure Top up to 1.5 bar (only when cold)." in page_2
    assert "E4 Flue blocked Do not use the boiler; call an engineer." in page_2


def test_what_does_e2_mean_retrieves_the_table_passage_on_page_2(index, docs) -> None:
    report = index.index([str(docs)])
    assert (report.added, report.updated, report.removed, report.unchanged) == (3, 0, 0, 0)
    assert report.problems == () and report.passages == index.passage_count() >= 4
    hits = index.search("what does E2 mean")
    top = hits[0]
    assert top.page == 2 and "E2 Low water pressure" in top.text
    assert top.file == str((docs / PDF.name).resolve()) and top.title == PDF.name
    scores = [h.score for h in hits]
    assert top.score > 0 and scores == sorted(scores, reverse=True)
    parts = ID.match(top.passage_id)
    assert parts and parts["key"] == top.file
    assert (int(parts["start"]), int(parts["end"])) == (top.start, top.end)
    doc = extract(PDF, PDF.read_bytes())
    assert doc.text[top.start:top.end] == top.text  # the offsets are into the extracted text
    assert index.passage(top.passage_id) == top.__class__(**{
        **{f: getattr(top, f) for f in top.__slots__}, "score": 0.0})
    assert index.passage("nope@000000000000#0-1") is None


@pytest.mark.parametrize(("question", "needle"), [
    ("what's the normal pressure when it's cold?", "between 1 and 1.5 bar"),
    ("can I top-up while the boiler is hot", "Never top up while the boiler is hot"),
    ("when is the annual meeting", "annual general meeting is held in March"),
    ("how much is the fee for juniors", "10 pounds for juniors"),
    ("who must do the annual service", "registered engineer"),
    ("what's the wifi password?", "guest wifi password"),
])
def test_spoken_questions_find_their_passage_first(index, docs, question, needle) -> None:
    index.index([str(docs)])
    assert needle in index.search(question, limit=3)[0].text.replace("\n", " ")


@pytest.mark.parametrize("query", ["", "   ", "what is it", '"', "C++ OR NEAR(", "e\u0301t\u00e9 *",
                                   "x" * 5000, "\U0001F600 \u202e"])
def test_any_query_is_safe(index, docs, query) -> None:
    index.index([str(docs)])
    assert isinstance(index.search(query), list)


def test_incremental_runs_keep_ids_replace_changed_files_and_drop_deleted(index, docs,
                                                                           tmp_path) -> None:
    index.index([str(docs)])
    club = docs / "club.md"
    old = {p.passage_id for p in index.passages_of(str(club))}
    again = index.index([str(docs)])
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 3)
    os.utime(club, ns=(club.stat().st_atime_ns, club.stat().st_mtime_ns + 5_000_000_000))
    touched = index.index([str(docs)])  # new mtime, same content: nothing re-indexed
    assert (touched.updated, touched.unchanged) == (0, 3)
    assert {p.passage_id for p in index.passages_of(str(club))} == old
    club.write_text(CLUB.replace("20 pounds", "25 pounds"), encoding="utf-8")
    changed = index.index([str(docs)])
    assert (changed.added, changed.updated, changed.unchanged) == (0, 1, 2)
    new = {p.passage_id for p in index.passages_of(str(club))}
    assert new and not new & old  # a new content version: new evidence ids
    assert all(index.passage(pid) is None for pid in old)
    assert "25 pounds" in index.search("yearly fee adults")[0].text
    (docs / "wifi.txt").unlink()
    deleted = index.index([str(docs)])
    assert deleted.removed == 1 and index.search("wifi password") == []
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.md").write_text("Bins go out on Tuesday evening.")
    moved = index.index([str(other)])  # docs/ removed from the list: its files leave
    assert (moved.added, moved.removed) == (1, 2)
    assert [f.title for f in index.list_files()] == ["a.md"]
    assert index.search("boiler pressure") == []


def test_problem_files_are_listed_with_reasons_and_never_stop_the_rest(
        index, docs, tmp_path, monkeypatch) -> None:
    (docs / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    (docs / "blob.txt").write_bytes(b"abc\x00\x01\x02" * 100)
    (docs / "empty.md").write_text("")
    (docs / "blank.txt").write_text("  \n\n \t\n")
    (docs / "scan.pdf").write_bytes(text_pdf([[], []]))  # pages without a text layer
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catal")
    (docs / "fake.pdf").write_text("just text with a pdf name")
    (docs / "huge.md").write_text("word " * 3000)
    (docs / ".hidden.md").write_text("secret hidden words")
    monkeypatch.setattr(doc_text, "MAX_FILE_BYTES", 10_000)
    report = index.index([str(docs), str(tmp_path / "missing")])
    reasons = {Path(p.file).name: p.reason for p in report.problems}
    assert set(reasons) == {"photo.jpg", "blob.txt", "empty.md", "blank.txt", "scan.pdf",
                            "broken.pdf", "fake.pdf", "huge.md", "missing"}
    assert "'.jpg' files are not supported" in reasons["photo.jpg"]
    assert "binary" in reasons["blob.txt"]
    assert "empty file" in reasons["empty.md"] and "no text" in reasons["blank.txt"]
    assert "no text layer" in reasons["scan.pdf"] and "OCR" in reasons["scan.pdf"]
    assert "damaged or unreadable PDF" in reasons["broken.pdf"]
    assert "not a PDF" in reasons["fake.pdf"]
    assert "too large" in reasons["huge.md"] and "split it" in reasons["huge.md"]
    assert "was not found" in reasons["missing"]
    assert report.added == 3  # the good files all went in
    assert index.search("secret hidden") == []
    assert {Path(p.file).name for p in index.problems()} == set(reasons) - {"missing"}
    again = index.index([str(docs)])  # remembered: not parsed again, still listed
    assert {Path(p.file).name for p in again.problems} == set(reasons) - {"missing"}
    (docs / "blob.txt").write_text("Now it is text about the blob.")
    fixed = index.index([str(docs)])
    assert fixed.added == 1 and "blob.txt" not in {Path(p.file).name for p in fixed.problems}


def test_a_pdf_over_the_page_cap_is_indexed_up_to_it_and_says_so(index, tmp_path,
                                                                  monkeypatch) -> None:
    folder = tmp_path / "pdfs"
    folder.mkdir()
    pages = [prose_page([f"Page {n} talks about topic{n}."]) for n in range(1, 6)]
    (folder / "long.pdf").write_bytes(text_pdf(pages))
    monkeypatch.setattr(doc_text, "MAX_PDF_PAGES", 3)
    report = index.index([str(folder)])
    assert report.added == 1
    assert [p.reason for p in report.problems] == [
        "only the first 3 of 5 pages were indexed: split the PDF to index the rest"]
    assert index.search("topic3")[0].page == 3 and index.search("topic4") == []


@pytest.mark.skip_ok  # root reads any file: no install makes it unreadable to root
@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root reads any file; needs POSIX permissions")
def test_an_unreadable_file_is_a_problem(index, docs) -> None:
    secret = docs / "secret.md"
    secret.write_text("locked away")
    secret.chmod(0)
    try:
        report = index.index([str(docs)])
    finally:
        secret.chmod(0o600)
    assert [p.reason for p in report.problems] == [
        "cannot be read (permission denied): check the file's permissions"]


def test_a_read_error_is_a_problem(index, docs, monkeypatch) -> None:
    real = Path.read_bytes

    def failing(self: Path) -> bytes:
        if self.name == "club.md":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", failing)
    report = index.index([str(docs)])
    assert report.added == 2
    assert [(Path(p.file).name, p.reason) for p in report.problems] == [
        ("club.md", "cannot be read (permission denied): check the file's permissions")]


def test_notes_from_the_store_are_indexed_and_follow_the_store(tmp_path, docs) -> None:
    store = Store(tmp_path / "assistant.sqlite3")
    note = store.add_note("The plumber's number is 0161 496 0000, call after 9am", T0)
    index = SqliteKnowledgeIndex(tmp_path / "k.sqlite3", notes=store.list_notes)
    report = index.index([str(docs)])
    assert report.added == 4
    hit = index.search("what's the plumber's number")[0]
    assert (hit.file, hit.title, hit.page) == (f"notes:{note.id}", "Note", None)
    assert hit.passage_id == passage_id(f"notes:{note.id}", hit.passage_id.split("@")[1],
                                        0, len(note.text))
    assert index.index([str(docs)]).unchanged == 4
    store.delete_notes("plumber", T0 + 1)
    gone = index.index([str(docs)])
    assert gone.removed == 1 and index.search("plumber number") == []
    index.close()
    store.close()


def test_progress_per_file_and_cancel_between_files(index, docs) -> None:
    seen: list[IndexProgress] = []
    token = CancelToken()

    def sink(p: IndexProgress) -> None:
        seen.append(p)
        if p.done == 1:
            token.cancel("settings changed")

    report = index.index([str(docs)], progress=sink, cancel=token)
    assert report.added == 1  # cancelled before the second file
    assert [(p.done, p.total) for p in seen] == [(0, 3), (1, 3), (1, 3)]
    assert seen[-1].current == "" and seen[0].current.endswith("boiler_manual.pdf")
    rest: list[IndexProgress] = []
    report = index.index([str(docs)], progress=rest.append)
    assert (report.added, report.unchanged) == (2, 1)
    assert [p.done for p in rest] == [0, 1, 2, 3] and rest[-1].current == ""


def test_search_on_another_thread_while_indexing(index, tmp_path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(150):
        (folder / f"doc{i:03}.md").write_text(
            f"# Document {i}\n\nThe boiler pressure note number {i} says top up to 1.5 bar. "
            + "filler words " * 40)
    (folder / "anchor.md").write_text("The anchor passage mentions zebra crossings.")
    index.index([str(folder)])
    errors: list[BaseException] = []
    counts: list[int] = []
    stop = threading.Event()

    def searcher() -> None:
        try:
            while not stop.is_set():
                counts.append(len(index.search("zebra crossings", limit=5)))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    thread = threading.Thread(target=searcher)
    thread.start()
    try:
        for i in range(150):  # every file changes: a long writing run
            (folder / f"doc{i:03}.md").write_text(f"# Document {i}\n\nchanged text {i} "
                                                  + "more words " * 40)
        report = index.index([str(folder)])
    finally:
        stop.set()
        thread.join(timeout=30)
    assert errors == [] and report.updated == 150
    assert counts and set(counts) == {1}  # the reader always saw the committed anchor


def test_a_damaged_index_is_moved_aside_and_rebuilt(tmp_path, docs) -> None:
    path = tmp_path / "knowledge.sqlite3"
    first = SqliteKnowledgeIndex(path)
    first.index([str(docs)])
    first.close()
    path.write_bytes(b"this is not a database at all" * 200)
    index = SqliteKnowledgeIndex(path, clock=lambda: T0)
    assert index.rebuilt_from == tmp_path / "knowledge.sqlite3.corrupt-20231114-221320"
    assert index.rebuilt_from.read_bytes().startswith(b"this is not a database")
    report = index.index([str(docs)])
    assert report.added == 3 and "moved aside" in report.problems[0].reason
    assert report.problems[0].file == str(path)
    assert index.search("what does E2 mean")[0].page == 2
    assert index.index([str(docs)]).problems == ()  # said once
    index.close()


def test_a_index_damaged_while_open_is_rebuilt_by_the_next_run(tmp_path, docs) -> None:
    path = tmp_path / "knowledge.sqlite3"
    index = SqliteKnowledgeIndex(path, clock=lambda: T0)
    index.index([str(docs)])
    index.close()
    data = bytearray(path.read_bytes())
    page = 4096
    for n in range(1, len(data) // page):  # every page after the header: garbage
        data[n * page:(n + 1) * page] = b"\xa5" * page
    path.write_bytes(bytes(data))
    for side in ("-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    assert index.search("boiler pressure") == []  # logged, no exception
    report = index.index([str(docs)])
    assert "moved aside" in report.problems[0].reason and report.added == 3
    assert index.search("what does E2 mean")[0].page == 2
    index.close()


def test_every_answerable_fixture_question_finds_its_source_in_the_top_3(tmp_path) -> None:
    """Recall@3 of the expected source file over tests/data/knowledge/questions.jsonl."""
    questions = [json.loads(line) for line in
                 (CORPUS.parent / "questions.jsonl").read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    answerable = [q for q in questions if q.get("source")]
    assert len(answerable) >= 30
    index = SqliteKnowledgeIndex(tmp_path / "k.sqlite3")
    index.index([str(CORPUS)])
    missed = [(q["id"], q["question"]) for q in answerable
              if q["source"] not in [p.title for p in index.search(q["question"], limit=3)]]
    index.close()
    assert missed == []
