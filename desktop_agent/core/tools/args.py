"""Arguments taken from the user's own words, for the tool the model chose.

A 0.5B model picks the right tool far more often than it fills the arguments right: asked
for "15 percent of 80" it copied an example expression, and for "at 7 pm" it wrote a
time from another request. So the model decides only WHICH tool (under a grammar, names
as constants, or "none"); when the request says its arguments in a form these rules know
("remind me to X at Y", "a 10 minute timer for the pasta", "notes about X"), they are
cut from the transcript itself. When no rule matches, the model's grammar-constrained
arguments are used. Every call is validated again before anything runs.

Each tool's rule is its catalog entry's ``words`` (``core.tools.catalog``; the built-in rules
are in ``core.tools.words``); here is what every rule shares: a short request, without the
politeness around it. Pure and stdlib-only. Values keep the user's words ("tomorrow at 9 am",
"5 minutes"); the application parses them (``core.tools.when``, ``core.tools.calc``,
``core.tools.units``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from desktop_agent.core.tools.calc_words import (
    clean_spoken,
    replace_number_words,
    replace_quantity_words,
)
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.offers import COURTESY, asks_about
from desktop_agent.core.tools.tool_def import Catalog

Args = dict[str, Any]
MAX_REQUEST_CHARS: Final = 300
"""Longer text is never parsed for arguments (and the patterns stay fast)."""

_PLEASE: Final = re.compile(rf"^(?:(?:hey|ok(?:ay)?|so|um+|uh+|{COURTESY}|can you|"
                            r"you can|could you|would you|will you|i want you to|i'd like you to"
                            r"|i need you to)[, ]+)+",
                            re.IGNORECASE)
_TRAILING_PLEASE: Final = re.compile(r"[, ]+(?:for me|please|thanks|thank you|quick|quickly|cheers"
                                     r"|yeah|if you can|if you could|if possible|would you"
                                     r"|will you)"
                                     r"(?:[, ]+please)?"
                                     r"\s*[.!?]*$",
                                     re.IGNORECASE)


_FILLER: Final = re.compile(r"[,\s]*\b(?:uh+|um+|er+|erm)\b[,\s]*", re.IGNORECASE)
"""A hesitation inside a request, with the commas Whisper puts around it: a space."""


def _request(text: str) -> str:
    """The request without politeness around it."""
    text = _PLEASE.sub("", text.strip())
    return _TRAILING_PLEASE.sub("", text).strip()


def adds_to(whole: Args | None, part: Args) -> bool:
    """True when ``whole`` reads ``part``'s arguments the same and adds one to them.

    The rest of a request can name what its first clause or its asking part leaves out:
    "time an hour and a half for me, the roast has just gone in" names the timer.
    """
    return whole is not None and len(whole) > len(part) and all(
        whole.get(k) == v for k, v in part.items())


def arguments_from_words(tool: str, text: str, catalog: Catalog = BUILTIN) -> Args | None:
    """The arguments of ``tool`` as the user said them in ``text``, or None (no rule fits).

    Args:
        tool: A tool's name; one that is not in ``catalog`` gets None.
        text: The user's request (a transcript).
        catalog: Where the tool's rule (its entry's ``words``) is looked up.

    Returns:
        What the entry's rule cuts from the request (or, when it cuts nothing, from its
        last clause that it reads: the request after some context); {} for a tool without
        arguments and without a rule; None when the request does not spell the arguments
        out.
    """
    entry = catalog.get(tool)
    if entry is None or len(text) > MAX_REQUEST_CHARS:
        return None  # a spoken request is short; long text is read aloud, not asked
    if entry.words is None:
        return None if entry.takes_arguments else {}
    if entry.verbatim:
        return entry.words(_PLEASE.sub("", text.strip()))
    text = _FILLER.sub(" ", text).strip()  # "start a countdown, uh, an hour and a half"
    clauses = CLAUSE.split(text)
    if len(clauses) > 1 and _TAKEN_BACK.match(clauses[-1]):
        return None  # "open the terminal, actually no, don't": taken back
    args = entry.words(_request(text))
    if args is not None:
        first = None if entry.keeps_later_clauses else first_clause(text)
        if first is not None and (own := entry.words(_request(first))) and not adds_to(
                args, own):
            return own  # "open the tax folder, I need last year's return": "tax folder"
        return args
    for clause in (last_clause(text), first_clause(text)):
        if clause is not None and (args := entry.words(_request(clause))) is not None:
            return args
    return None


def _clauses(text: str) -> list[str] | None:
    """The clauses of a request said in more than one; None for one clause or a question."""
    text = _FILLER.sub(" ", text).strip()  # as arguments_from_words reads it
    clauses = CLAUSE.split(text)
    if len(clauses) < 2 or asks_about(text) or text.rstrip().endswith("?"):
        return None
    return clauses


def first_clause(text: str) -> str | None:
    """The request in the first clause of ``text``, before context; None when it is not one.

    "cancel the tea timer, I've already made it" -> "cancel the tea timer". None for one
    clause, a question, or when a later clause makes it wait ("open spotify, if it's
    installed"), takes it back, or the first clause reports someone else's words.
    """
    clauses = _clauses(text)
    if clauses is None:
        return None
    while len(clauses) > 2 and INTERJECTION.match(clauses[0]):
        clauses = clauses[1:]  # "Actually, scrap the reminder about mum, I've called her"
    first, *context = clauses
    if any(not _AFTER_REQUEST.match(c) or _NOT_AFTER_REQUEST.search(c)
           or _REPORTED_IN.search(c) or _NOT_NOW.search(c) for c in context) \
            or _REPORTED_IN.search(first) or _NOT_NOW.search(first) or asks_about(first):
        return None
    return first


def last_clause(text: str) -> str | None:
    """The request in the last clause of ``text``, after context; None when it is not one.

    "ugh, I hate this one, skip it" -> "skip it". None for one clause, a question, or when
    the context makes it wait ("if it freezes again, open ..."), reports someone else's
    words ("the error message says, open ..."), or the request takes itself back.
    """
    clauses = _clauses(text)
    if clauses is None:
        return None
    *context, last = [_JOINER.sub("", c) for c in clauses]
    if defers(context) or _CONDITION_FIRST.match(last) or _RETRACTED.search(last) \
            or asks_about(last):
        return None
    return last


def defers(context: Sequence[str]) -> bool:
    """True when the clauses said before a request make it none for now.

    A condition ("if it freezes again, open ..."), a story or a dream ("in my dream, cancel
    the timer"), or someone else's words just before it ("the error message says, open ...").
    """
    return any(_CONDITION_FIRST.match(c) or _NOT_NOW.search(c) for c in context) \
        or bool(context and _REPORTED.search(context[-1]))


CLAUSE: Final = re.compile(r"\s*[,;:]\s+|\s+[-\u2013\u2014]\s+|(?<=[.?!])\s+")
"""Where a request's clauses part: context first, then the request ("I need to write an
email, open my mail program"), or the other way round, in one sentence or two ("Could you
bring up the calculator? I want to do a few sums myself")."""
INTERJECTION: Final = re.compile(r"^\W*(?:actually|sorry|okay|ok|oh|right|alright|well|great"
                                  r"|cool|hey|hi|so|please|um+|uh+|er+m*)\W*$", re.IGNORECASE)
"""A clause that only opens the request ("Actually, ...", "Sorry, ...", "erm, ...")."""
_JOINER: Final = re.compile(r"^(?:or|and|but|so|then)\s+", re.IGNORECASE)
_CONDITION_FIRST: Final = re.compile(r"^\s*(?:(?:so\s+)?(?:yeah\s+)?)?(?:if|when|whenever|once|"
                                     r"in case|after|before|unless|until|till|as soon as|"
                                     r"provided|assuming)\b", re.IGNORECASE)
"""A clause that makes the request wait ("when I get home, open spotify") is not for now."""
_SPEECH_VERBS: Final = (r"says|said|say|told (?:me|us|him|her|them)|tells (?:me|us)|wrote|writes|"
                        r"reads|asked|asks|yell(?:s|ed)?|shout(?:s|ed)?|whisper(?:s|ed)?|"
                        r"scream(?:s|ed)?|mutter(?:s|ed)?|cr(?:y|ies|ied)|repl(?:y|ies|ied)|"
                        r"answer(?:s|ed)|goes|(?<!already )(?<!just )went|(?:was|is|were|are) like"
                        r"|keeps? saying")
_REPORTED: Final = re.compile(rf"\b(?:{_SPEECH_VERBS})\s*$", re.IGNORECASE)
"""Context that reports someone else's words ("the error message says, open the settings")."""
_TAKEN_BACK: Final = re.compile(r"^\s*(?:never\s*mind|just kidding|kidding|forget it|forget that|"
                                r"actually no|scratch that|don't|do not|no|nope|cancel that|"
                                r"wait no)\W*$", re.IGNORECASE)
"""A last clause that is nothing but taking the request back ("open the terminal, never
mind"); "remind me to call, don't let me forget" is no such clause."""
_REPORTED_IN: Final = re.compile(rf"\b(?:{_SPEECH_VERBS})\b", re.IGNORECASE)
"""A clause that reports someone else's words ("he told me cancel the timer")."""
_NOT_NOW: Final = re.compile(
    r"\b(?:dream|dreamt|dreamed|story|novel|movie|film|book|play|game|joke|imagine|"
    r"pretend|hypothetically)\b", re.IGNORECASE)
"""Context that makes the request no request to the assistant: a story, a dream ("in my
dream, cancel the timer"). (A name called, "Tom, cancel the timer", is not told apart from
the assistant called by a name.)"""
_AFTER_REQUEST: Final = re.compile(
    r"^\s*(?:because|since|as|cause|'cause|i|i'm|i've|i'd|i am|i have|it|it's|its|this|"
    r"this is|that|that's|they|they're|we|we're|the|my)\b", re.IGNORECASE)
"""A later clause that may follow a request for now: a reason or a statement ("..., I've
already made it", "..., it's too loud", "..., because I'm done")."""
_NOT_AFTER_REQUEST: Final = re.compile(
    r"\b(?:mean|meant|sorry|wait|not yet|nah|later|tomorrow|tonight|next|in a (?:minute|sec|"
    r"second|bit|while)|maybe|perhaps|not sure|unsure|keep|leave|changed my mind|ignore|"
    r"joking|kidding|hold on|or not|provided|assuming|what|who|why|how|should|could|would|"
    r"can|did|does|is that|name|(?<!i )(?<!i've )(?<!already )(?<!just )called|no|not|don't|never|"
    r"instead|also|too|and|or)\b|\?",
    re.IGNORECASE)
"""What a later clause must not say for the first clause to be acted on now: a correction
("I mean the egg timer"), a delay, a hedge, a question, more requests ("and the pasta")."""
_RETRACTED: Final = re.compile(r"\b(?:never\s*mind|just kidding|kidding|forget it|actually no|"
                               r"scratch that|don't|do not)\b", re.IGNORECASE)


_STOP: Final = frozenset("a an the my me to of for in on at and or is are be it this that "
                         "please i you".split())


_SAID_AS: Final = {
    "*": {"times", "multiply", "multiplied", "x", "percent", "%"},
    "/": {"divided", "divide", "over", "split", "share", "per"},
    "+": {"plus", "add", "added", "sum", "total"},
    "-": {"minus", "subtract", "take", "away", "less", "off"},
    "%": {"percent", "percentage"},
}
"""The words a calculator symbol stands for: "36 * 7" copies "multiply 36 by 7", "15% * 80"
copies "15 percent of 80"."""


_THOUSANDS: Final = re.compile(r"(?<=\d),(?=\d{3}\b)")
"""The comma of "2,450": one number, as the model writes it ("2450")."""


_HUNDREDS_SAID: Final = re.compile(r"\b([1-9]) ([1-9]\d)\b")
"""Hundreds and the rest said as two numbers ("two sixty", once in digits "2 60"): 260."""


def _words(text: str) -> set[str]:
    text = replace_number_words(_THOUSANDS.sub("", text.lower()))
    said = {w for w in re.findall(r"[\w']+|[%+*/-]", text) if w not in _STOP}
    return said | {str(int(a) * 100 + int(b)) for a, b in _HUNDREDS_SAID.findall(text)}


def is_grounded(args: Mapping[str, Any], text: str) -> bool:
    """True when every word of every string argument was said in ``text``.

    A model that invents an argument ("20 minutes" for "I set a timer yesterday") has
    not understood a request; such a call is dropped and the turn answered in prose.
    Numbers count in digits or words ("17.5" for "seventeen and a half", "12" for "a
    dozen", "260" for "two sixty"), a calculator symbol as one of its words ("*" for
    "times" or "multiply"); little words (a, the, to...) are not checked.
    """
    said = _words(text) | _words(replace_quantity_words(clean_spoken(text)))  # "a half": ".5"
    for value in args.values():
        if isinstance(value, str) and any(
                w not in said and not (_SAID_AS.get(w, set()) & said) for w in _words(value)):
            return False
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = f"{abs(value):g}"
            if value < 0 and not {"minus", "negative", "-"} & said:
                return False  # "-40" needs its "minus"
            if number not in said and not (number == "1" and {"a", "an"} & set(
                    text.lower().split())):
                return False
    return True
