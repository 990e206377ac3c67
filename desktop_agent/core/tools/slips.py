"""What a recogniser writes for speech, read as it was meant: false starts and slips.

Whisper writes a word cut off by a dash ("can you- could you set a timer", "the- the
locker code", "I can't- I can't hear"), a stammer ("S-s-set a timer for, for 8
minutes"), keeps a hesitation that splits a repeated word ("open the, uh, the gov.uk
website") and now and then writes a word that sounds the same
("a timer four 12 minutes", "remind me too ring nan", "right that down"). A listener
hears the request; so do the rules once ``as_meant`` has taken the false starts out and
put the word meant in the few places where the slip cannot be anything else (a duration
written in digits after "four", a verb after "remind me too", "down" after "right
that"). Then a repair said aloud is put in place (``repair.self_corrected``). Pure:
stdlib only.
"""

from __future__ import annotations

import re
from typing import Final

from desktop_agent.core.tools.repair import self_corrected

_HESITATION: Final = r"(?:um+|uh+|er+m*|erm)"
_RESTART: Final = re.compile(r"\b((?:[\w']+\s+){0,2}[\w']+)-\s+(?=\1\b)", re.IGNORECASE)
"""Words cut off and said again: "the- the", "I- I", "I can't- I can't"."""
_ASK_AGAIN: Final = re.compile(r"\b(?:can|could|would|will)\s+you-\s+"
                               r"(?=(?:can|could|would|will)\s+you\b)", re.IGNORECASE)
"""A request begun again with another modal: "can you- could you"."""
_STAMMER: Final = re.compile(r"\b([a-z])-(?:\1-)*(?=\1[a-z])|\bpa-(?=[a-z])"
                             r"|\b(for|to|the|a|an|my|i|you|set|can)(?:,?\s+\2)+\b(?=\s)",
                             re.IGNORECASE)
"""A stammer as written ("S-s-set", "f-for", "P-please"), the Filipino "pa-" that asks
("can you pa-remind me"), a little word said twice ("for, for 8 minutes", "the the
music"): said once."""
_CUT_FILLER: Final = re.compile(rf"\b([\w']+),?\s+{_HESITATION}[-,]\s+(?=\1\b)"
                                rf"|,?\s*\b{_HESITATION}-(?=\s)", re.IGNORECASE)
"""A hesitation that cuts a word said again ("type, um- type thanks", "the, uh, the
gov.uk") or is itself cut off ("um- type")."""
_SLIPS: Final = (
    (re.compile(r"\bfour\s+(?=\d+\s*(?:minutes?|mins?|seconds?|secs?|hours?|hrs?)\b)",
                re.IGNORECASE), "for "),  # "a timer four 12 minutes"
    (re.compile(r"\b(remind (?:me|us)) too\s+(?=[a-z])", re.IGNORECASE), r"\1 to "),
    (re.compile(r"^right\s+(?=(?:that|this|it)\s+down\b)", re.IGNORECASE), "write "),
    (re.compile(r"\b(to|at|on|for|about|around)\s+like\s+(?=\d)", re.IGNORECASE), r"\1 "),
)
"""Words written for others that sound the same, where only the meant one makes sense; and
"like" before a number ("down to like 25%")."""
_NAME: Final = (r"(?:pet|hen|love|luv|dear|darling|sweetie|sweetheart|hun|honey|mate|bro|boet"
                r"|buddy|pal|dude|chief|boss|cuz)")
"""What people call whoever they talk to ("thanks, love", "Mate, what's ...")."""
_ADDRESSED: Final = re.compile(
    rf"^(?:(?:{_NAME}|och|howzit|oi|chur(?: bro)?|ngl|tbh|lowkey|honestly)\s*[,!]\s+"
    r"|(?:yo|bruh|ngl|lowkey|och)\s+(?=[a-z]))+"
    rf"|,\s*{_NAME}(?=\s*:)",
    re.IGNORECASE)
"""The words that address the listener before the request: a name ("Mate, ...", "yo get
discord open"), or one before the colon that opens what to keep ("jot this down for me,
hen: ..."). Dropped, so that what is asked is read without them."""
_TAGGED_NAME: Final = re.compile(rf",\s*{_NAME}(?=\s*(?:[.!?:;]|$))"
                                 r"|,\s*(?:lol|ngl)(?=\s*(?:[.!?,:;]|$))|\s+lol(?=\s*(?:[.!?,]|$))",
                                 re.IGNORECASE)
"""A name after what is asked ("any notes about the caravan, pet?"), and "lol"."""
_TAGGED: Final = re.compile(
    r",\s*(?:eh|sweet as|hard out|cheers|rn|real quick)(?=\s*(?:[.!?,:;]|$))"
    r"|\s+(?:rn|real quick)(?=\s*(?:[.!?,]|$))",
    re.IGNORECASE)
"""A tag after what is asked ("open up the calendar app, eh, ...", "mute it rn")."""
_SPOKEN_ASK: Final = (
    (re.compile(r"\bgonnae\s+", re.IGNORECASE), "will you "),
    (re.compile(r"\bwould (?:ye|ya)\b", re.IGNORECASE), "would you"),
    (re.compile(r"^would you ever\s+", re.IGNORECASE), "would you "),
    (re.compile(r"^would you be so kind as to\s+", re.IGNORECASE), "would you "),
)
"""Ways of asking said in some places: the Scots "gonnae" (will you), the Irish "would you
ever" (please), "would ye", and the very polite "would you be so kind as to"."""


def as_meant(text: str) -> str:
    """``text`` without its false starts, its few sure slips mended, then self-corrected.

    "can you- could you set a timer four 12 minutes for the rice" -> "could you set a timer
    for 12 minutes for the rice"; "right that down, I lent Priya £40" -> "write that down,
    I lent Priya £40". Text with none of these is returned as it was (then
    ``self_corrected``).
    """
    text = _STAMMER.sub(lambda m: m.group(2) or "", text)
    for pattern in (_RESTART, _ASK_AGAIN, _CUT_FILLER):
        text = pattern.sub("", text)
    for slip, meant in _SLIPS:
        text = slip.sub(meant, text)
    for ask, meant in _SPOKEN_ASK:
        text = ask.sub(meant, text)
    return self_corrected(_ADDRESSED.sub("", text))


def unaddressed(text: str, *, names: bool = True) -> str:
    """``text`` without a tag for the listener (and a name, with ``names``) after what is asked.

    For what a request asks and the names it gives (a search, what to open, which timer):
    "any notes about the caravan, pet?" -> "any notes about the caravan?". Words to keep as
    said (a note, a reminder) lose only the tags ("..., sweet as"), not a name ("buy butter,
    honey"); text to type loses nothing ("type: see you soon, love").
    """
    text = _TAGGED.sub("", text)
    return _TAGGED_NAME.sub("", text) if names else text
