"""The selection tools' rules: "read this to me" and "copy that".

``read_selection`` (a read) reads the text the user selected aloud: the PRIMARY selection on
X11 (what is highlighted), else the clipboard. What it returns is spoken as it is, cut into
clause chunks by the reply's chunker and interruptible like any reply; it never goes to the
model as a request. The text read is data: it never triggers an action (the router looks at
the user's own words only, and a write still needs the user's spoken "yes").

``copy_last_answer`` (runs at once, like a read: the clipboard is the user's scratch space,
and the answer says what went there) puts the last answer the user heard on the clipboard.

Both reach the desktop through ``Clipboard`` (``adapters/desktop/clipboard_xclip.py``:
xclip on X11, wl-paste / wl-copy on Wayland). Pure: stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

from desktop_agent.core.tools.offers import strip_lead

MAX_READ_CHARS: Final = 20_000
"""The most of a selection read aloud (about twenty minutes of speech); the rest is said
to be left out."""
NOTHING_SELECTED: Final = ("Nothing is selected and the clipboard is empty, so there is "
                           "nothing to read. Select some text, or copy it, and ask again.")
NOTHING_TO_COPY: Final = "I haven't said anything yet that I could copy."

_READ: Final = r"(?:read|say|speak|recite|tell\s+me|what(?:'s|\s+is|\s+does|\s+do)?)"
_SELECTED: Final = (r"\b(?:(?:selected|highlighted|marked)\s+(?:text|words?|bit|part|"
                    r"passage|paragraph|sentences?|lines?)|selection|highlighted|clipboard|"
                    r"copied|pasted|i(?:'ve| have)?\s+(?:just\s+)?(?:got\s+)?selected"
                    r"|(?:text|words?|part|bit)\s+i\s+(?:select|highlight|mark)(?:ed)?)\b")
_READ_THIS: Final = re.compile(
    r"^(?:read|speak|recite)\s+(?:me\s+)?(?:this|that|it)(?:\s+(?:bit|part|text|passage|"
    r"paragraph|one))?(?:\s+(?:out\s+)?(?:to|for)\s+me|\s+out(?:\s+loud)?|\s+aloud)*[.!?]*$",
    re.IGNORECASE)
_READ_SELECTED: Final = re.compile(rf"\b{_READ}\b.*{_SELECTED}|{_SELECTED}.*\b(?:say|read)\b"
                                   r"|\bwhat\s+did\s+i\s+(?:just\s+)?copy\b", re.IGNORECASE)
_NOT_SELECTION: Final = re.compile(
    r"\b(?:notes?|news|e-?mails?|messages?|timers?|reminders?|book|story|poem|files?|"
    r"folders?|volume|song|music)\b", re.IGNORECASE)
_ANSWER: Final = (r"(?:(?:your|the|that|this)\s+(?:last\s+)?(?:answer|reply|response|sentence"
                  r"|result|total|figure|number|conversion|sum|calculation)|that|this|it"
                  r"|what\s+you\s+(?:just\s+)?said"
                  r"|the\s+last\s+thing\s+you\s+said)")
_CLIPBOARD: Final = r"(?:the\s+|my\s+)?clipboard"
_COPY: Final = re.compile(
    rf"^(?:copy|copy\s+down)\s+{_ANSWER}(?:\s+with\s+the\s+\w+)?"
    rf"(?:\s+(?:to|into|onto|on)\s+{_CLIPBOARD})?"
    r"(?:\s+(?:please|for\s+me|now)|,?\s+so\s+(?:that\s+)?i\s+can\s+paste\b.*)*[.!?]*$"
    rf"|^(?:put|save|send|place|stick|pop|whack|chuck|bung|get)\s+{_ANSWER}\s+"
    r"(?:on|in|to|into|onto)"
    rf"\s+{_CLIPBOARD}(?:\s+(?:please|for\s+me|now)|,?\s+so\s+(?:that\s+)?i\s+can\s+paste\b.*"
    r"|,?\s+i(?:'ll|\s+will|\s+want\s+to|\s+need\s+to)\s+paste\b.*)*[.!?]*$"
    rf"|^copy\s+(?:it\s+|that\s+)?to\s+{_CLIPBOARD}[.!?]*$"
    rf"|^copy\s+{_ANSWER},?\s+i(?:'ll|\s+will|\s+want\s+to|\s+need\s+to)\s+paste\b.*$"
    r"|^(?:what\s+you\s+(?:just\s+)?(?:told\s+me|said)|your\s+(?:last\s+)?answer),?\s+(?:put|copy"
    rf"|save)\s+(?:it|that)\s+(?:on|in|to|into|onto)\s+{_CLIPBOARD}"
    r"(?:\s+(?:please|for\s+me|now))*[.!?]*$"
    rf"|^(?:i\s+(?:want|need|would\s+like)|i'd\s+like|can\s+i\s+have|get|let\s+me\s+have"
    rf"|lemme\s+have)\s+{_ANSWER}\s+copied"
    rf"(?:\s+(?:to|into|onto|on)\s+{_CLIPBOARD})?"
    r"(?:\s+(?:please|for\s+me|now)|,?\s+so\s+(?:that\s+)?i\s+can\s+paste\b.*)*[.!?]*$",
    re.IGNORECASE)


class Clipboard(Protocol):
    """The desktop's selections (an adapter: ``adapters/desktop/clipboard_xclip.py``).

    Each method raises ``AgentError`` with a spoken message when there is no display or no
    program to reach the selections.
    """

    def selected_text(self) -> str:
        """The selected text (PRIMARY on X11), else the clipboard's; '' when both are empty."""
        ...

    def copy(self, text: str) -> None:
        """Put ``text`` on the clipboard (it stays there after the call returns)."""
        ...


def asks_read_selection(text: str) -> bool:
    """Router rule: does ``text`` ask to read the selected (or copied) text aloud?"""
    request = strip_lead(text.strip())
    if _NOT_SELECTION.search(request) or _COPY.search(request):
        return False
    return bool(_READ_THIS.search(request) or _READ_SELECTED.search(request))


def asks_copy_answer(text: str) -> bool:
    """Router rule: does ``text`` ask to put the last answer on the clipboard?"""
    return bool(_COPY.search(strip_lead(text.strip())))


def read_selection(clipboard: Clipboard) -> str:
    """The selected text, as it will be spoken (or why there is nothing to read)."""
    text = " ".join(clipboard.selected_text().split())
    if not text:
        return NOTHING_SELECTED
    if len(text) <= MAX_READ_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_READ_CHARS)
    shown = text[:cut if cut > 0 else MAX_READ_CHARS]
    left = len(text.split()) - len(shown.split())
    return f"{shown} ... That is as much as I read at once; {left} more words are selected."


def _words(count: int) -> str:
    return "one word" if count == 1 else f"{count} words"


@dataclass(slots=True)
class AnswerCopier:
    """Copies the last answer; asked twice, it copies the same answer, not its own reply.

    ``last_answer`` gives the newest reply the user heard (``History.last_reply``). After a
    copy that reply is this tool's own sentence ("Copied ..."), so the copied text is kept
    and copied again when that sentence is all there is.

    Runs on: the tool thread (one at a time).
    """

    clipboard: Clipboard
    last_answer: Callable[[], str]
    _copied: str = ""
    _said: str = ""

    def copy(self) -> str:
        """Copy the last answer to the clipboard; the sentence that says so."""
        last = self.last_answer().strip()
        text = self._copied if last and last == self._said else last
        if not text:
            return NOTHING_TO_COPY
        self.clipboard.copy(text)
        self._copied = text
        self._said = f"I copied my last answer to the clipboard ({_words(len(text.split()))})."
        return self._said
