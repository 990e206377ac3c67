"""Arguments found anywhere in a request: a duration, a moment, a quantity with its unit.

The shape rules of ``core.tools.words`` read a request said in a known order ("remind me to
X at Y"). People put the parts anywhere: "in ten minutes remind me to take the bins out",
"tomorrow morning I have to call the bank, remind me", "ping me on Monday about the
report", "give me a shout in ten minutes", "can you time 45 seconds for the plank", "I
weigh 70 kilos, what's that in pounds", "half a gallon is how many litres". When no shape
rule reads a request, these find the parts wherever they are, and only parts the
application itself can read: the longest run of words that ``core.tools.when`` parses as a
duration or a moment, a number followed by words ``core.tools.units`` knows as a unit. The
values stay the user's words. Moments are checked for their shape only (against a fixed
date; the app parses them again with the real clock). Pure: stdlib only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words
from desktop_agent.core.tools.units import parse_unit
from desktop_agent.core.tools.when import parse_duration, parse_when

Args = dict[str, Any]
_SHAPE_NOW: Final = dt.datetime(2001, 1, 1, tzinfo=dt.UTC)
"""Only the shape of a moment is checked: a Monday at midnight, so nothing said is past."""
_MAX_SPAN: Final = 9
"""Longest run of words tried as a duration or a moment."""
_WORD: Final = re.compile(r"\S+")
_END_PUNCT: Final = ",.;:!?"
_STARTS_MOMENT: Final = frozenset(
    "in at on by tomorrow tonight today this next noon midnight monday tuesday wednesday "
    "thursday friday saturday sunday january february march april may june july august "
    "september october november december half quarter".split())
_LOOSE_END: Final = re.compile(r"(?:\s+(?:the|a|an|for|on|about|to|of|and|my|at|in|with|"
                               r"me|it))+\s*$|\s+$", re.IGNORECASE)
_NUMBERISH: Final = re.compile(
    r"^(?:\d+(?:\.\d+)?|an?|half|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
    r"|twelve|fifteen|twenty|thirty|forty|fifty|sixty|ninety|couple|few)$")


def _spans(text: str, first: Callable[[str], bool], accept: Callable[[str], bool]
           ) -> tuple[int, int] | None:
    """The longest run of words that ``accept`` accepts: (start, end) offsets, or None.

    The run starts with a word ``first`` accepts and crosses no comma or colon; the little
    words the parsers skip ("for the") are trimmed from its end.
    """
    words = list(_WORD.finditer(text))
    best: tuple[int, int] | None = None
    for i, start in enumerate(words):
        if not first(start.group().strip(_END_PUNCT).lower()):
            continue
        for j in range(i, min(len(words), i + _MAX_SPAN)):
            span = text[start.start():words[j].end()].rstrip(_END_PUNCT)
            if accept(span) and (best is None or len(span) > best[1] - best[0]):
                best = (start.start(), start.start() + len(span))
            if words[j].group()[-1] in _END_PUNCT:
                break
    if best is None:
        return None
    span = _LOOSE_END.sub("", text[best[0]:best[1]])  # the parsers skip "the", "for"...
    return (best[0], best[0] + len(span))


def accepts(parse: Callable[[str], object]) -> Callable[[str], bool]:
    """Whether ``parse`` reads a text without an ``AgentError`` (a predicate)."""
    def accept(span: str) -> bool:
        try:
            parse(span)
        except AgentError:
            return False
        return True
    return accept


_is_duration: Final = accepts(parse_duration)
is_moment: Final = accepts(lambda s: parse_when(s, _SHAPE_NOW))
"""Whether words read as a moment ("tomorrow at 9"; the shape only, see ``_SHAPE_NOW``)."""
_REMIND_CUE: Final = re.compile(
    r"\b(?:remind (?:me|us)|nudge me|give me a nudge|ping me|don'?t let me forget"
    r"|do not let me forget|make sure i remember|(?:set|add|create|make) (?:me )?a reminder"
    r"|remind)\b", re.IGNORECASE)
_TIMER_CUE: Final = re.compile(r"\b(?:in|for|time|timing|need|want|give me|set|start|count"
                               r"(?: down)?|countdown)\s*$", re.IGNORECASE)
_REMINDER_AFTER: Final = re.compile(r"^\W*(?:to|that|about)\b", re.IGNORECASE)
_LABEL: Final = re.compile(r"\bfor\s+(?:the\s+|my\s+|a\s+|an\s+)?([a-z]+)", re.IGNORECASE)
_NOT_LABEL: Final = frozenset({"me", "us", "you", "it", "now", "then", "a", "an", "the"})
_GONE_IN: Final = re.compile(r"(?:^|,\s*|\b(?:the|my|our)\s+)([a-z]+)(?:'s|\s+has|\s+is|\s+have"
                             r"|\s+are)\s+(?:just\s+)?(?:(?:gone|going|been put)\s+)?in"
                             r"(?=\s*(?:[,.;!?]|$|the oven|the pan|the pot))", re.IGNORECASE)
"""What went in the oven or the pan names the timer ("time an hour and a half, the roast
has just gone in", "eggs are in, give me seven minutes")."""


def timer_anywhere(text: str) -> Args | None:
    """set_timer: a duration anywhere, after a cue ("in", "for", "time", "give me"...).

    The label is the word after "for" ("time 45 seconds for the plank"). None when the
    duration is followed by "to ..." or the request asks to be reminded (a reminder: "nudge
    me in an hour to stretch").
    """
    if _REMIND_CUE.search(text):
        return None  # "in an hour remind me to ...": the reminder's rule reads it
    span = _spans(text, lambda w: bool(_NUMBERISH.match(w)), _is_duration)
    if span is None or not _TIMER_CUE.search(text[:span[0]]):
        return None
    after = text[span[1]:]
    if _REMINDER_AFTER.search(after):
        return None
    args: Args = {"duration": text[span[0]:span[1]]}
    label = _LABEL.search(after)
    if label and label.group(1).lower() not in _NOT_LABEL:
        args["label"] = label.group(1)
    elif (went_in := _GONE_IN.search(text)) is not None:
        args["label"] = went_in.group(1)
    return args


_LEAD_WORDS: Final = re.compile(
    r"^(?:\W|\b(?:to|about|that|for|of|i (?:have|need|must|want) to|i've got to|i got to"
    r"|i should|i'm supposed to|could you|can you|would you|will you|please)\b)+",
    re.IGNORECASE)
_TAIL_WORDS: Final = re.compile(r"(?:\W|\b(?:please|then|ok|okay|will you|would you|can you"
                                r"|and|so)\b)+$", re.IGNORECASE)


def reminder_anywhere(text: str) -> Args | None:
    """set_reminder: a moment anywhere, and the rest as the text.

    Only when the request asks to be reminded ("tomorrow morning I have to call the bank,
    remind me"); None without a moment or without anything left to remind.
    """
    cue = _REMIND_CUE.search(text)
    if cue is None:
        return None
    masked = text[:cue.start()] + "," + " " * (cue.end() - cue.start() - 1) + text[cue.end():]
    span = _spans(masked, lambda w: w in _STARTS_MOMENT, is_moment)
    if span is None:
        return None
    rest = " ".join(f"{masked[:span[0]]} , {masked[span[1]:]}".split())
    rest = _TAIL_WORDS.sub("", _LEAD_WORDS.sub("", rest.replace(" , ", ", ").strip(" ,")))
    rest = _LEAD_WORDS.sub("", rest).strip(" ,")
    if not rest or rest.lower() in ("me", "it", "this", "that"):
        return None
    return {"text": rest, "when": text[span[0]:span[1]]}


_UNIT_WORDS: Final = 3
_NUMBER: Final = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s+(?=[a-z°])")
_TARGET_CUE: Final = re.compile(r"\b(?:in|to|into|as|many|much)\s+(?:a\s+|an\s+)?(?=[a-z°])")
_PER_HOUR: Final = re.compile(r"\s+an\s+hour$")


def _unit_at(text: str, at: int) -> tuple[str, int] | None:
    """The longest unit (1-3 words) starting at ``at``: (its words, its end)."""
    words = list(_WORD.finditer(text, at))[:_UNIT_WORDS + 1]
    best = None
    for j in range(len(words)):
        phrase = text[at:words[j].end()].rstrip(_END_PUNCT)
        said = _PER_HOUR.sub(" per hour", phrase)
        try:
            parse_unit(said)
        except AgentError:
            continue
        best = (said, at + len(phrase))
    return best


def conversion_anywhere(text: str) -> Args | None:
    """convert_units: one number with a unit, and the unit asked for.

    The unit asked for follows "in", "to", "into", "as" or "how many" ("I weigh 70 kilos,
    what's that in pounds"); None unless there is exactly one quantity and a target.
    """
    t = replace_quantity_words(clean_spoken(text))
    found = [(m, unit) for m in _NUMBER.finditer(t) if (unit := _unit_at(t, m.end()))]
    if len(found) != 1:
        return None
    number, (source, source_end) = found[0]
    targets = [unit for cue in _TARGET_CUE.finditer(t)
               if not number.start() <= cue.end() < source_end
               and (unit := _unit_at(t, cue.end())) and unit[0] != source]
    if not targets:
        return None
    value = float(number.group(1))
    if re.search(r"(?:\bminus|\bnegative)\s*$", t[:number.start()], re.IGNORECASE):
        value = -value  # "it's minus twelve Celsius in Oslo"
    return {"value": int(value) if value.is_integer() else value, "from_unit": source,
            "to_unit": targets[0][0]}


_TO_HOUR: Final = re.compile(r"^(?P<h>[\w:]+)\s+(?:to|that|about)\s+(?P<x>.+)$", re.IGNORECASE)
"""The hour of "five *to nine* to transfer ...": the words cut after "to" may end the time."""


def longer_moment(what: str, when: str) -> tuple[str, str]:
    """(what, when) with "to <hour>" moved from ``what`` to ``when`` when that is the time.

    "At five to nine to transfer the money": "at five to nine", not "at five".
    """
    more = _TO_HOUR.match(what)
    if more is not None and is_moment(longer := f"{when} to {more.group('h')}"):
        return more.group("x"), longer
    return what, when


def without_moment(which: str) -> str:
    """A reminder's words without the moment it was set for.

    "The garage first thing tomorrow": "garage".
    """
    words = which.split()
    for i in range(1, len(words)):
        if is_moment(" ".join(words[i:])):
            return " ".join(words[:i])
    return which


_CLOCK_AT: Final = re.compile(r"^(?:at|by|around|about)\s+\S", re.IGNORECASE)


def moment_at_end(what: str, when: str) -> tuple[str, str]:
    """A clock time said at the end of a reminder's task joins the day said first.

    "Tonight, remind me to call mum at 9": "tonight at 9", to "call mum".
    """
    task = without_moment(what)
    tail = what[len(task):].strip()
    if task != what and _CLOCK_AT.match(tail) and is_moment(joined := f"{when} {tail}"):
        return task, joined
    return what, when
