"""Spoken queries become safe FTS5 MATCH expressions (core/text/fts_query.py)."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop_agent.core.text.fts_query import MAX_TERMS, fts_match, fts_terms


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, "
                 "tokenize='porter unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO t (text) VALUES (?)", [
        ("E2 | Low water pressure | Top up to 1.5 bar (only when cold).",),
        ("Never top up while the boiler is hot.",),
        ("Club rules: the AGM is held in March. C++ evening on Tuesdays.",),
        ("NEAR the OR gate, AND the NOT gate",),
    ])
    return conn


def _hits(conn: sqlite3.Connection, query: str) -> list[str]:
    match = fts_match(query)
    if not match:
        return []
    return [r[0] for r in conn.execute(
        "SELECT text FROM t WHERE t MATCH ? ORDER BY bm25(t)", (match,))]


@pytest.mark.parametrize(("query", "terms"), [
    ("what does E2 mean", ("e2", "mean")),
    ("What's the pressure?", ("pressure",)),
    ("C++ evening", ("c", "evening")),
    ('he said "top-up"', ("said", "top", "up")),
    ("is it 1.5 bar", ("1.5", "bar")),
    ("what does e two mean", ("e", "e2", "two", "2", "mean")),
    ("fault E 4", ("fault", "e", "e4", "4")),
    ("the of what is it", ()),
    ("", ()),
    ("NEAR OR AND NOT", ("near", "not")),
    ("Café déjà-vu", ("café", "déjà", "vu")),
    ("pressure pressure PRESSURE", ("pressure",)),
])
def test_terms(query: str, terms: tuple[str, ...]) -> None:
    assert fts_terms(query) == terms


def test_match_quotes_every_term_and_or_combines() -> None:
    assert fts_match("what does E2 mean") == '"e2" OR "mean"'
    assert fts_match("what is it") == ""
    assert len(fts_terms(" ".join(f"word{i}" for i in range(100)))) == MAX_TERMS


def test_partial_match_still_retrieves_and_more_terms_rank_first(fts) -> None:
    hits = _hits(fts, "what does E2 mean for the water pressure")
    assert hits[0].startswith("E2 |")  # e2, water, pressure: all in the table row
    hits = _hits(fts, "can I top up while it is hot")
    assert hits[0].startswith("Never top up")  # top, up, hot beats top, up
    assert len(hits) == 2  # partial match (top, up) still retrieved
    assert _hits(fts, "C++ evening")[0].startswith("Club rules")
    assert _hits(fts, "near or and not")[0].startswith("NEAR")  # operators are plain words
    assert _hits(fts, "1.5 bar")[0].startswith("E2 |")
    assert _hits(fts, "what is it") == []


@settings(max_examples=400, deadline=None)
@given(st.text())
def test_any_text_never_raises_and_is_a_valid_match(text: str) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, "
                 "tokenize='porter unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t (text) VALUES (?)", (text,))
    match = fts_match(text)
    for term in fts_terms(text):
        assert '"' not in term and term == term.lower() and term.strip() == term and term
    if match:
        conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(
    ['"', "'", "-", "+", "*", "^", ":", "(", ")", "NEAR", "OR", "AND", "NOT", "{", "}",
     "what's", "C++", "e2", "1.5", "\u00e9", "\u0130", "\u2460", "_", " ", "\n"]), max_size=12))
def test_fts_syntax_characters_are_harmless(parts: list[str]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text)")
    match = fts_match("".join(parts))
    if match:
        conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", (match,)).fetchone()
