"""Spoken questions as safe SQLite FTS5 queries.

A transcript is not FTS5 syntax: "what's", "C++", a stray quote, "top-up" or a word such
as ``NEAR`` or ``OR`` would be a syntax error or an operator. Here every term is a quoted
string (a quoted string is never an operator; the terms hold no quote), stop words and
question words are dropped, and the terms are OR-combined so a passage that matches only
part of the question is still retrieved; BM25 ranks passages that match more (and rarer)
terms first.

Rules (each a constant below):

* Terms are runs of letters and digits, lower-cased, as FTS5's ``unicode61`` tokenizer
  splits them; a decimal such as "1.5" stays one term (a quoted phrase "1 5" in FTS5).
* "what's" -> "what" + "s": both dropped (a question word, a clitic).
* A number word up to twenty also searches its digits ("two" -> "two" OR "2"), and a
  single letter followed by a number ("e two", "E 2") also searches the code "e2": that is
  how speech recognition writes fault codes and part numbers.
* At most ``MAX_TERMS`` distinct terms, in the order spoken.

Stdlib only, pure.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

MAX_TERMS: Final = 24
"""More terms than this only slow the query down; the first ones spoken are kept."""

STOP_WORDS: Final = frozenset("""
a about above after again all also am an and any are as at be been before being below
between both but by can could did do does doing done during each else for from further had
has have having he her here hers him his how i if in into is it its itself just me might
more most much must my myself no nor of off on once only or other our ours out over own
please s same say shall she should so some such t tell than that the their them then there
these they this those through to too under until very was we were what whats when where
which while who whom whose why will with would you your yours d ll m re ve hey ok okay
hmm um uh er know let lets like need want wanna gonna could kind sort thing things really
""".split())
"""Words that carry no search meaning in a spoken question. "not", "never" and "up" stay out
of this list on purpose ("top up", "never when hot")."""

NUMBER_WORDS: Final = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11",
    "twelve": "12", "thirteen": "13", "fourteen": "14", "fifteen": "15", "sixteen": "16",
    "seventeen": "17", "eighteen": "18", "nineteen": "19", "twenty": "20",
}  # fmt: skip

_TOKEN: Final = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+")
"""A decimal number, or a run of letters and digits (``_`` separates, as in unicode61)."""


def fts_terms(text: str) -> tuple[str, ...]:
    """The search terms of a spoken query, in the order spoken, without duplicates.

    Args:
        text: Any text (a transcript, a typed question); never raises.

    Returns:
        Lower-case terms of letters and digits (a decimal keeps its point); () when the
        query has no word worth searching for.
    """
    words = _TOKEN.findall(unicodedata.normalize("NFKC", text).lower())
    terms: list[str] = []
    for i, word in enumerate(words):
        digits = NUMBER_WORDS.get(word)
        letter = words[i - 1] if i > 0 else ""
        if len(letter) == 1 and letter.isalpha() and letter not in STOP_WORDS:
            code = digits or (word if word.isdigit() else None)
            if code is not None:  # "e two" / "e 2" -> also the code "e2"
                terms.append(letter + code)
        if word in STOP_WORDS:
            continue
        terms.append(word)
        if digits is not None:
            terms.append(digits)
    unique = list(dict.fromkeys(terms))
    return tuple(unique[:MAX_TERMS])


def fts_match(text: str) -> str:
    """An FTS5 MATCH expression for a spoken query: quoted terms joined by OR.

    Returns:
        e.g. ``'"e2" OR "mean"'``; '' when the query has no term (match nothing then).
    """
    return " OR ".join(f'"{term}"' for term in fts_terms(text))
