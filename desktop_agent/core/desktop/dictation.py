"""Dictation's words: what the recogniser heard, made into the text that is typed.

While dictation is on (``[shortcuts] global_dictate`` held, or ``desktop-agent dictate
start`` ... ``stop``) the words are transcribed and typed into the window that had the focus
when it started; no model sees them. Whisper already writes capitals and punctuation, and
they are kept as it gives them. The spoken forms people use when dictating are mapped:
"new line" and "new paragraph" become line breaks (typed as Shift+Enter: Enter itself is
never pressed), "full stop", "comma", "question mark", "exclamation mark", "colon" and
"semicolon" their marks, with the punctuation Whisper put around the spoken word dropped
(a sentence's own full stop before "new line" is kept).
Pure: stdlib only.
"""

from __future__ import annotations

import re
from typing import Final

_AROUND: Final = r"[\s,.;:!?]*"
_BEFORE: Final = r"[\s,]*"
"""Before a spoken line break: the spaces and a comma go; a sentence's end stays."""
_BREAKS: Final = (
    (re.compile(rf"{_BEFORE}\bnew\s+paragraph\b{_AROUND}", re.IGNORECASE), "\n\n"),
    (re.compile(rf"{_BEFORE}\b(?:new\s+line|next\s+line|line\s+break)\b{_AROUND}",
                re.IGNORECASE), "\n"),
)
_MARKS: Final = (
    ("full stop", "."), ("question mark", "?"), ("exclamation mark", "!"),
    ("exclamation point", "!"), ("comma", ","), ("semicolon", ";"), ("colon", ":"),
)
_MARK_RULES: Final = tuple(
    (re.compile(_AROUND + r"\b" + words.replace(" ", r"\s+") + r"\b[,.;:!?]*", re.IGNORECASE),
     mark) for words, mark in _MARKS)


def dictated_text(heard: str) -> str:
    """The text to type for what was heard (Whisper's words, capitals and punctuation).

    "First line. New line. Second line full stop" -> "First line.", a line break, "Second
    line."
    """
    text = " ".join(heard.split())
    for rule, mark in _MARK_RULES:
        text = rule.sub(mark, text)
    for rule, brk in _BREAKS:
        text = rule.sub(brk, text)
    return text.strip(" ")


def joined(before: str, more: str) -> str:
    """``more`` to type after ``before`` in the same window (a space first, unless a break).

    A later dictation continues the text of the one before: a space between the two, none
    where either has a line break.
    """
    if not before or not more or before.endswith("\n") or more.startswith("\n"):
        return more
    return " " + more
