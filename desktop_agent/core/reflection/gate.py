"""The confession gate, and the words a deterministic continuation is made of.

A repair confesses ("No, that's not right.") only when the flagged claim is in the words
the user actually heard: the written words whose audio the device played (heard-so-far,
from played samples and word timings), never the generated text. When the error lived
only in the unspoken tail, the continuation goes on cleanly with the right substance: the
user only hears "that's not right" when something wrong was audible.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from desktop_agent.core.conversation.heard import HeardReport

CONFESSION: Final = "No, that's not right."
"""What a repair says first when the flagged error was heard."""
CONFESSION_MARKERS: Final = (
    "not right", "that's wrong", "that is wrong", "i was wrong", "my mistake", "i made a mistake",
    "correction", "i misspoke", "sorry, i", "let me correct", "actually no", "wait, no",
)
"""Phrases that confess a mistake (lower case): the bench counts a false confession when
one is heard although nothing wrong was."""
_ENDS_SENTENCE: Final = re.compile(r"[.!?][\"')\]]*\s*$")
_WHOLE_SENTENCE: Final = re.compile(r"[A-Z].*[.!?]$")
GIVE_UP: Final = "Sorry, I can't get that one right."
"""What a sentence task ends with when the model's new attempt broke the constraint again
(greedy, it would only say the same sentence once more)."""
RESTART: Final = "let me start again."
"""What comes between an unfinished sentence and a new attempt at it (no confession: the
fragment claimed nothing wrong)."""


def confess(flagged_word: int | None, heard_words: int, said_words: int) -> bool:
    """True when a repair may say that something was wrong.

    Args:
        flagged_word: Index of the first written word of the flagged claim in the
            utterance, or None when the reflector did not locate it.
        heard_words: How many written words of the utterance the user heard (a prefix).
        said_words: How many written words the utterance has (heard or not).

    Returns:
        True when the flagged word was heard; for an unlocated claim, only when the whole
        utterance was heard (then the error, wherever it is, was audible).
    """
    if flagged_word is None:
        return said_words > 0 and heard_words >= said_words
    return 0 <= flagged_word < heard_words


def has_confession(text: str) -> bool:
    """True when ``text`` confesses a mistake (see ``CONFESSION_MARKERS``)."""
    lower = text.lower().replace("’", "'")
    return any(marker in lower for marker in CONFESSION_MARKERS)


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if _ENDS_SENTENCE.search(text) else text + "."


def repair_text(correction: str, heard: str, *, confessing: bool) -> str:
    """What a repair says after the cut, from the correct substance.

    Args:
        correction: The correct answer as a clause ('23 times 47 is 1081').
        heard: The written words heard so far (the utterance up to the cut).
        confessing: The gate's answer (``confess``).

    Returns:
        'No, that's not right. 23 times 47 is 1081.' when confessing ('— no, that's not
        right. ...' after a cut mid-sentence); otherwise the substance alone, joined to a
        dangling fragment with 'well,' ('23 times 47 is — well, 23 times 47 is 1081.'), or,
        when the correction is a whole sentence (a sentence task), after 'let me start
        again.' ('A dense forest — let me start again. The forest is deep and green.').
    """
    body = _sentence(correction)
    dangling = bool(heard.strip()) and not _ENDS_SENTENCE.search(heard)
    if confessing:
        return f"— no, {CONFESSION[4:]} {body}" if dangling else f"{CONFESSION} {body}"
    if dangling and _WHOLE_SENTENCE.match(correction.strip()):
        # A new attempt at a sentence task after an unfinished one: a sentence of its own.
        return f"— {RESTART} {body}"
    return f"— well, {_clause(correction)}" if dangling else body


def refine_text(correction: str) -> str:
    """What a refinement says: connective words, then the substance ('So, ... is 1081.')."""
    return f"So, {_clause(correction)}" if correction.strip() else ""


def _clause(text: str) -> str:
    """``text`` as the rest of a sentence: its case kept ('March ...', 'the letter ...')."""
    text = text.strip()
    return text if _ENDS_SENTENCE.search(text) else text + "."


def join_heard(before: HeardReport, after: HeardReport) -> HeardReport:
    """One report for a reply whose earlier stream a repair cut: ``before`` then ``after``.

    ``before`` is what was heard of the cut streams (all of it counts as said); ``after`` is
    the stream playing since. The history keeps the whole heard utterance, repairs included.
    """

    def both(a: str, b: str) -> str:
        return " ".join(part for part in (a.strip(), b.strip()) if part)

    return replace(
        after,
        full_text=both(before.heard_text, after.full_text),
        heard_text=both(before.heard_text, after.heard_text),
        heard_written=both(before.heard_written or before.heard_text,
                           after.heard_written or after.heard_text),
        cut_at_s=before.cut_at_s + after.cut_at_s,
    )
