"""The typing tool's rules: "type: see you at nine" types the words into the focused app.

``type_text`` is a confirmed write: the read-back and the confirmation card show exactly the
text that will be typed, and nothing is typed before the user's "yes". The adapter
(``adapters/desktop/x11_typing.py``: XTest on X11; ``wtype`` or the clipboard under Wayland)
types it as key presses into the window that has the focus. Enter is never pressed: a line
break is typed as Shift+Enter, which adds a line without sending a chat message or running
a command line. Pure: stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final, Protocol

from desktop_agent.core.tools.offers import strip_lead
from desktop_agent.core.tools.write_actions import PreparedAction, WriteContext

TYPE_TEXT_HINT: Final = 'type_text needs "text": the exact words to type, as the user said them.'
OWN_WINDOW: Final = "own"
"""``Typist.focused`` when the focus is on the assistant's own window."""
FOCUS_IS_MINE: Final = ("My own window has the focus, so I typed nothing. Click into the "
                        "window you want to type into, then ask again with the talk key.")
FOCUS_MOVED: Final = ("The window that had the focus when you asked no longer has it, so I "
                      "typed nothing. Click back into it and ask again.")
MAX_TYPED_CHARS: Final = 200
"""The longest text typed in one request (the schema's limit too)."""

_PLACE: Final = (r"(?:the|this|that|my)\s+(?:focused\s+window|window|app|application|chat"
                 r"|(?:(?:text|search|message|comment|reply|chat|address|email|subject|name)\s+)?"
                 r"(?:box|field|bar)|message|document|editor|terminal|form)")
"""Where the words go: "the chat", "this box", "the search box", "the message box"."""
_PLACE_FIRST: Final = rf"(?:(?:in|into)\s+{_PLACE}\s*,?\s+)?"
"""Where to type, said first: "in the search box, type cheap flights"."""
_TYPE: Final = re.compile(
    rf"^{_PLACE_FIRST}"
    r"(?:type\s+out|type\s+in|key\s+in|type|enter(?=\s+(?:the\s+)?(?:words?|text|phrase)\b))"
    r"(?!\s+of\b)(?!\s+(?:faster|quicker|slower)\s+(?:on|than|with|or)\b)"
    r"(?:\s+(?:the\s+)?(?:words?|text|phrase|sentence|following|this|these\s+words))?"
    rf"(?:\s+(?:in|into|in\s+to)\s+(?:{_PLACE}(?=\s*[:,;-])|[\w.]+(?:\s+[\w.]+)?(?=\s*:)))?"
    r"(?:\s+for\s+me)?"
    rf"\s*[:,;-]?\s+(?P<text>.+?)(?:\s+(?:in|into|on|in\s+to)\s+{_PLACE}"
    r"(?:,?\s+(?:for\s+me|please))*[?.!]?|(?:,?\s+(?:for\s+me|please))*)\s*$", re.IGNORECASE)
"""The words to type; where, said last, may close the request's question ("can you type
'running late' into the chat?": the question mark is the request's, not the words'), or
come before a colon ("type this into the message box: I'll be there by two")."""
_TYPE_LATER: Final = re.compile(r"[,.;]\s+(?=(?:(?:please|just|now|so)\s+)?type\b)"
                                r"|\s(?=(?:please|just)\s+type\b)", re.IGNORECASE)
"""Where a clause that asks to type starts after some context ("my hands are all floury,
type no problem, see you Sunday", "my hands are covered in flour just type two cups of
sugar")."""
_WRITE_INTO: Final = re.compile(
    rf"^write\s+(?P<text>.+?)\s+(?:in|into|in\s+to)\s+{_PLACE}"
    r"(?:,?\s+(?:for\s+me|please))*\s*$"
    rf"|^write\s+(?:in|into|in\s+to)\s+{_PLACE}\s*[:,;-]\s*(?P<first>.+?)\s*$",
    re.IGNORECASE)
""""Write thanks for your help in this box", "write in this box, kind regards, Margaret":
"write" asks to type only with where to."""
_QUOTES: Final = "\"'“”‘’«»"
_HESITATION: Final = re.compile(r"^(?:(?:uh+|um+|erm|er)\b[,.]?\s*)+", re.IGNORECASE)
"""A hesitation before the words ("type, uh, thanks so much"): not part of them."""


class Typist(Protocol):
    """Types text into the focused window (an adapter: ``adapters/desktop/x11_typing.py``)."""

    def focused(self) -> str:
        """Which window has the focus now.

        '' when that cannot be told (under Wayland); ``OWN_WINDOW`` for one of the
        assistant's own windows.
        """
        ...

    def type(self, text: str) -> str:
        """Type ``text`` into the focused window; how it went ('' when it was typed).

        A non-empty answer says what happened instead (under Wayland without wtype: the
        text was put on the clipboard for the user to paste).
        """
        ...


def clean_text(text: str) -> str:
    """The words to type: quotes around them and one closing full stop dropped.

    Whisper ends every sentence with a full stop; "type: see you at nine" means the four
    words. A question or exclamation mark is kept, as are the capitals Whisper wrote.
    """
    out = text.strip()
    if len(out) >= 2 and out[0] in _QUOTES and out[-1] in _QUOTES + ".":
        out = out[1:].rstrip(".").rstrip(_QUOTES)
    if out.endswith(".") and not out.endswith(".."):
        out = out[:-1]
    return out.strip().strip(_QUOTES).strip()


def type_text_args(text: str) -> dict[str, Any] | None:
    """Words rule of ``type_text``: ``{'text': <the words after 'type'>}``, or None.

    "type ...", "type in ...", "key in ...", "enter the words ...", "in the search box, type
    ...", and "write ... in(to) this box" (a place to type into is what makes "write" ask
    for typing); a clause that asks to type after some context ("can't touch the laptop,
    type see you Sunday").
    """
    asked = strip_lead(text.strip())
    match = _TYPE.match(asked) or _WRITE_INTO.match(asked)
    if match is None and (later := _TYPE_LATER.search(asked)) is not None:
        match = _TYPE.match(strip_lead(asked[later.end():]))  # the first "type" clause
    if match is None:
        return None
    words = clean_text(_HESITATION.sub("", match.group("text") or match.group("first")))
    return {"text": words} if words else None


def asks_type_text(text: str) -> bool:
    """Router rule: does ``text`` ask to type words into the focused app?"""
    return type_text_args(text) is not None


def type_text_action(args: Mapping[str, Any], _ctx: WriteContext) -> PreparedAction:
    """The read-back: exactly the text, quoted ('Type "see you at nine"?')."""
    text = clean_text(str(args["text"])) or str(args["text"]).strip()
    return PreparedAction("type_text", {"text": text}, f'Type "{text}" into the focused window?')
