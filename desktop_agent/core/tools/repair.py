"""A request corrected while it was said: "a timer for ten, no, fifteen minutes".

People mend what they say as they say it: "put the volume on fifty, actually no, make it
thirty percent", "what's seventeen and a half percent of two forty, no wait, of two
sixty?". Read as written, the first value wins (a ten-minute timer, fifty percent). Here
the repair after the marker replaces the words it mends, so the rules read "a timer for
fifteen minutes" and "the volume on thirty percent". Only a repair whose place is clear
is made: it opens with a word said before the marker (the mended words run from that
word's last occurrence: "of two forty" -> "of two sixty"), or it holds a number that
takes the place of the last number before the marker. Anything else is left as it was
said ("set a timer, sorry, for ten minutes" has nothing to mend). Pure: stdlib only.
"""

from __future__ import annotations

import re
from typing import Final

_MARKER: Final = re.compile(
    r",\s*(?:no|nope|sorry)(?:\s*,\s*|\s+(?=wait|hang on|sorry|i mean|make (?:that|it)))"
    r"(?:wait|hang on|sorry|i mean|make (?:that|it))?\s*,?\s*"
    r"|,\s*(?:actually|oh)\s*,?\s*no\s*,?\s*"
    r"|,\s*(?:i mean|or rather|make that)\s*,?\s*",
    re.IGNORECASE)
"""Where a repair starts: ", no, ", ", no wait, ", ", actually no, ", ", sorry, ",
", I mean, ", ", or rather ", ", make that ". Always after a comma, so that "no" in a
sentence ("no more than ten minutes") is never one."""

_UNITS: Final = ("zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
                 "|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty"
                 "|fifty|sixty|seventy|eighty|ninety|hundred|thousand|half|quarter")
_NUMBER: Final = re.compile(
    rf"(?:\d+(?:[.,:]\d+)*|(?:{_UNITS})\b)(?:[\s-]+(?:and\s+)?(?:a\s+)?"
    rf"(?:\d+(?:[.,:]\d+)*|(?:{_UNITS}|point)\b))*",
    re.IGNORECASE)
"""A number said in digits or words, with the words that join it ("two hundred and forty",
"seventeen and a half", "2.5")."""
_WORD: Final = re.compile(r"[\w']+")


def self_corrected(text: str) -> str:
    """``text`` with a repair said in it put in place of the words it mends.

    "Put a timer on for ten, no, fifteen minutes." -> "Put a timer on for fifteen
    minutes."; "what's 17.5 percent of two forty, no wait, of two sixty?" -> "what's 17.5
    percent of two sixty?". Unchanged when there is no repair marker, or when where the
    repair goes is not clear.
    """
    markers = list(_MARKER.finditer(text))
    if not markers:
        return text
    marker = markers[-1]
    before, after = text[:marker.start()], text[marker.end():]
    first = _WORD.match(after)
    if not before.strip() or first is None:
        return text
    opening = first.group().lower()
    starts = [m.start() for m in _WORD.finditer(before) if m.group().lower() == opening]
    if starts:
        return before[:starts[-1]] + after
    said = _NUMBER.search(after)
    numbers = list(_NUMBER.finditer(before))
    if said is None or not numbers:
        return text
    return before[:numbers[-1].start()] + after[said.start():]
