"""The words that could ask for each built-in tool: the router's rules, one predicate a tool.

Each catalog entry's ``offered`` is one of these. The router (``core.tools.router``) calls
them only for a request (``is_request``), with the transcript's spaces collapsed and
apostrophes made plain; they are keyword patterns on Whisper-style text (any case,
punctuation or none) and err on the side of offering a tool: the model, constrained to the
candidates or "none", makes the final choice.

The notes and the timers are families: one request ("delete my notes", "how long is left
on my timer") picks among its family's tools, so each family is decided in one function and
each tool's predicate asks whether it was picked. Pure and stdlib-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.calc_verbs import word_problem

_NUMBER: Final = (r"(?:\d+(?:[.,]\d+)?|zero|one|two|three|four|five|six|seven|eight|nine|ten|"
                  r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|"
                  r"nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
                  r"thousand|half|a|an)")


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_OF_SOMETHING_ELSE: Final = (
    r"(?!\s+(?:do|does|did|was|were|will|would|should|can|could|has|have|had|are|of|for)\b"
    r"(?!\s+you\s+(?:have|got|make)\b|\s+you\s+got\b)"
    r"|(?:\s+is|'s)\s+(?!(?:it|today|now|tomorrow|yesterday)\b))")
"""After "what time", "which day": a question about something else's time, not now's ("what
time *does the shop close*", "what year *did the Titanic sink*", "what date *is Easter*",
"what day*'s that*");
"what time *is it*", "what time *do you have*" still ask the clock."""
_TIME_ASK: Final = _rx(
    rf"\b(?:what|which)(?:'s| is)?(?: the)?(?: current)? (?:time|date|day|year|month)\b"
    rf"{_OF_SOMETHING_ELSE}"
    r"|\btime is it\b|\bday (?:is it|is today)\b"
    r"|\btoday'?s date\b|\bdate today\b|\bthe date\b(?!\s+(?:of|when|that)\b)"
    r"|\bcurrent (?:time|date)\b"
    r"|\b(?:tell|give) me the time\b|\bday of the week\b|\bcheck the time\b"
    r"|\bi (?:need|want|would like|'d like) (?:to know )?the (?:time|date)\W*$"
    r"|\bhave the time\b|\bwhat o'?clock\b")
_OPERATOR_WORD: Final = _rx(
    r"\b(?:times|plus|minus|divided by|multiplied by|squared|cubed"
    r"|square root|sqrt|to the power|calculate|compute|sum of|product of)\b"
    r"|\bpercent\b|\bper cent\b|%"
    r"|\b(?:split|share|divide)\b[^.?!]{1,40}\b(?:between|among|amongst)\b"
    r"|\badd(?: up| together)?\s+[$£€]?\d"
    r"|\b(?:double|halve|triple)\s+[$£€]?(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten"
    r"|eleven|twelve|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred)\b)"
    r"|\bout of\b[^.?!]{1,40}\bas an? percent(?:age)?\b"
    r"|\b(?:times|multiply) (?:that|it) by\b"
    r"|(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand))\s+over"
    r"\s+(?:\d|(?:one|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand)\b)")
_OPERATOR_SIGN: Final = re.compile(r"\d\s*[-+*/x×^]\s*\d")
_HAS_NUMBER: Final = _rx(rf"\b{_NUMBER}\b|\d")
_HAS_DIGIT_OR_WORD_NUMBER: Final = _rx(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
    r"|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)\b")
_UNIT: Final = (
    r"(?:miles?|kilometers?|kilometres?|km|meters?|metres?|centimeters?|centimetres?|cm"
    r"|millimeters?|mm|inch(?:es)?|feet|foot|ft|yards?|pounds?|lbs?|kilograms?|kilos?|kg"
    r"|grams?|ounces?|oz|stones?|celsius|centigrade|fahrenheit|kelvin|degrees?"
    r"|liters?|litres?|milliliters?|millilitres?|ml|gallons?|quarts?|pints?|cups?"
    r"|tablespoons?|teaspoons?|mph|knots?|acres?|hectares?|calories|joules|kilojoules"
    r"|seconds|minutes|hours|days|weeks)")
_UNIT_ASK: Final = _rx(
    rf"\bconvert\b|\bhow many {_UNIT}\b.*\b(?:in|is|are)\b"
    rf"|\b{_UNIT}\b.*\b(?:in|to|into|as)\s+(?:a\s+|an\s+)?{_UNIT}\b")
_NOTE: Final = _rx(r"\bnotes?\b|\bjot\b|\bwrite (?:(?:this|that|it) )?down\b|\bnotepad\b"
                   r"|\bmemos?\b|\bnotebook\b")
_SAVED: Final = _rx(r"\b(?:everything|anything|all|what|thing|things|stuff) (?:i've|i have|i) "
                    r"(?:saved|noted"
                    r"|written down|wrote down|jotted down)\b|\b(?:save|saved|noted)\s+"
                    r"(?:anything|something)\b|\b(?:write|wrote|written|jot|jotted)\s+"
                    r"(?:anything|something)\s+down\b")
"""Notes named by what the user saved ("wipe everything I've saved", "did I save anything
about the plumber", "did I write anything down about the boiler")."""
_NOTE_DELETE: Final = _rx(r"\b(?:delete|remove|clear|erase|forget|get rid of|wipe|bin|scrap"
                          r"|ditch|trash|drop|throw (?:out|away))\b")
_NOTE_SEARCH: Final = _rx(r"\b(?:find|search|look for|look up|about|mention|mentions|with the"
                          r"|mentioning|regarding|concerning)\b"
                          r"|\b(?:look|go|search|check) (?:through|in)\b.*\bfor\b"
                          r"|\bany notes?\b|\bdo i have a note\b"
                          r"|\bdid i (?:write|jot|note|put|save)\b.*\b(?:somewhere|anywhere)\b"
                          r"|\b(?:have|did) i (?:got|put|saved?|written|write|jotted) (?:it|that"
                          r"|them) (?:down )?in my notes\b"
                          r"|\b(?:dig|fish|hunt|pull|track)\s+(?:it|that|them)\s+(?:out|up|down)\b")
_NOTE_LIST: Final = _rx(r"\b(?:read|list|show|what are|what's in|what is in|all my|my notes)\b")
_NOTE_ADD: Final = _rx(r"\b(?:add|make|take|save|jot|write|new note|note that|note down|memo"
                       r"|note to self|put)\b")
_TIME_UNIT: Final = r"(?:hours?|minutes?|mins?|seconds?|secs?)"
_TIMER: Final = _rx(r"\btimers?\b|\bcount(?:s|ing)? ?down\b|\balarm\b|\bstopwatch\b"
                    rf"|\bset (?:me )?(?:an? )?{_NUMBER}[ -]{_TIME_UNIT}\b"
                    rf"|\btime (?:me )?(?:an?|half|{_NUMBER})\b[^.?!,]{{0,24}}?\b{_TIME_UNIT}\b")
_REMIND: Final = _rx(r"\bremind(?:er|ers)?\b|\bdon't let me forget\b|\bgive me a nudge\b"
                     r"|\bto be reminded\b"
                     r"|\bnudge me\b")
_CANCEL: Final = _rx(r"\b(?:cancel|cancell?ing|stopping|deleting|removing|stop|delete|remove|clear"
                     r"|turn off|switch off|kill|abort"
                     r"|get rid of|never ?mind the|scrap|drop|ditch|bin|call off|wipe|erase"
                     r"|forget about)\b")
_LIST_PENDING: Final = _rx(r"\b(?:how (?:much|long)|left|remaining|running|list|what|which"
                           r"|rundown|got going"
                           r"|any|anything|do i have|show|read|is (?:there|something))\b")
_SET_TIMER_ASK: Final = _rx(rf"\b(?:set|start|make|put|begin|create|need|want|give me)\b"
                            rf"|\bfor {_NUMBER}\b|\d")

COURTESY: Final = r"(?:please to|please|kindly|abeg|do one thing|just)"
"""The words that make a request polite, in every English ("abeg", "do one thing, ...",
"just ..."): one list, read by the router's openings (``_LEAD``), the argument rules
(``args._PLEASE``) and the opening of an application (``launch._POLITE``)."""
_LEAD: Final = _rx(r"^(?:(?:hey|hi|ok(?:ay)?|so|um+|uh+|er+m*|ugh|well|oh|and|alright"
                   rf"|all right|right|{COURTESY}|nah|nope|yeah|yep|ooh|ah"
                   r"|assistant|computer|can you|could you|would you|will you"
                   r"|i want you to|i need you to|i'd like you to|i would like you to"
                   r"|go ahead and|quickly|quick(?: one)?)[,.!]?\s+)+")


def strip_lead(text: str) -> str:
    """``text`` without the greetings and politeness it opens with ("hey, could you ...")."""
    return _LEAD.sub("", text)


_ASKS_ABOUT: Final = _rx(
    r"^(?:what|what's|whats|how|how's|why|when|where|which|who|whose|is|isn't|are|aren't|was"
    r"|were|does|doesn't|do|don't|did|didn't|has|have|should|shall|must|might|may)\b"
    r"(?!\s+you\s+mind\b)")


def asks_about(t: str) -> bool:
    """True for a question about something, not a request to act on it.

    "is 80 percent volume safe?", "how do I skip a song in Spotify" ask about; "could you
    turn it down?" is a request. Tools that act at once (the volume, the media keys) are
    taken from the words only for a request; a question is answered, or left to the
    model's decision.
    """
    return bool(_ASKS_ABOUT.search(strip_lead(" ".join(t.replace("\u2019", "'").split()))))


_LAST_QUESTION: Final = _rx(r"(?:[,;:]|[.?!]|\s[-\u2013\u2014])\s+([^,;:.?!]+\?\s*)$")


def asks_about_it(t: str) -> bool:
    """``asks_about``, or a question about it after what was said.

    "she keeps turning the volume right up, is that bad for her ears?" asks about the
    volume, not to turn it.
    """
    last = _LAST_QUESTION.search(t)
    return asks_about(t) or (last is not None and asks_about(last.group(1)))


_ASKED_OF: Final = _rx(r"(?<!\bi )\bask(?:s|ed|ing)?\s+(?:you|me|him|her|them|us|people)\s+"
                      r"(?:what|which)\b")
"""Someone else's question reported ("people asking you what time it is"); "can I ask you
what time it is?" asks."""


_TO_CLIPBOARD: Final = _rx(r"\b(?:answer|reply|result|figure|total)\b.*\b(?:onto|on|to|in|into)"
                           r" (?:the |my )?clipboard\b")
"""Where a copy goes: "copy that last answer with the date onto the clipboard" asks for the
answer, not the date."""


def asks_time(t: str) -> bool:
    """get_current_time: "what time is it", "what's today's date".

    Not a question reported, and not an answer copied to the clipboard.
    """
    return bool(_TIME_ASK.search(t)) and not _ASKED_OF.search(t) and not _TO_CLIPBOARD.search(t)


_AMOUNT_SAID: Final = _rx(r"\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven"
                          r"|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen"
                          r"|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
                          r"|hundred|thousand|million|half|halves|quarters?|thirds?|fifths?"
                          r"|dozen|double|twice|triple|couple|few|several)\b")
_TIME_UNIT_SAID: Final = _rx(rf"\b{_TIME_UNIT}\b")


def says_amount(t: str) -> bool:
    """True when ``t`` holds a number, in digits or words ("a dozen", "half")."""
    return bool(_AMOUNT_SAID.search(t))


def says_duration(t: str) -> bool:
    """True when ``t`` could hold a duration: a number or a unit of time ("a minute")."""
    return says_amount(t) or bool(_TIME_UNIT_SAID.search(t))


_PERCENT_WORD: Final = _rx(r"\bper ?cent\b|%")
_NUMBER_SAID: Final = _rx(r"\d+(?:[.,:]\d+)*|\b(?:one|two|three|four|five|six|seven|eight|nine"
                          r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen"
                          r"|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty"
                          r"|ninety|half|a hundred|a thousand|a million|a grand|a billion)"
                          r"(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?\b")


def _percent_alone(t: str) -> bool:
    """A percentage with nothing to take it of: one number, "percent" the only operator.

    "Is twenty percent a normal tip?", "volume to forty percent": not a calculation.
    """
    rest = _PERCENT_WORD.sub(" ", t)
    return bool(_PERCENT_WORD.search(t)) and not _OPERATOR_SIGN.search(t) \
        and not _OPERATOR_WORD.search(rest) and len(_NUMBER_SAID.findall(t)) < 2


def asks_calculation(t: str) -> bool:
    """calculate: an operator (word or sign) and a number, or a word problem it reads whole.

    A word problem is offered only when the calculator reads it as said ("if I have 3 boxes
    of 24, how many is that"): one it cannot ("3 friends eat 2 slices each, how many are
    left?") is the model's to answer, and the verdicts' to check.
    """
    if (_OPERATOR_SIGN.search(t) or _OPERATOR_WORD.search(t)) \
            and _HAS_DIGIT_OR_WORD_NUMBER.search(t) and not _percent_alone(t):
        return True
    if not word_problem(t):
        return False
    try:
        evaluate(t)
    except AgentError:
        return False
    return True


def asks_conversion(t: str) -> bool:
    """convert_units: "convert ...", "how many X in ...", "N X in Y", with a number."""
    return bool(_UNIT_ASK.search(t) and _HAS_NUMBER.search(t))


_ADD_FIRST: Final = _rx(r"^(?:(?:take|make|add|create|save|write|jot)\b.{0,20}?\b(?:note|memo)\b"
                        r"|(?:write|jot|put|note)\s+(?:this |that |it )?down\b|note that\b"
                        r"|(?:a\s+)?note\s+(?:for|about|on)\b[^:?]{1,40}:)")
"""A request that opens by asking for a new note: what follows is the note's text, even
when it says "delete all notes" (its words have no authority). "(Quick) note for the new
song: capo on the 3rd fret" is one too."""


_REMEMBER_THAT: Final = _rx(r"^remember that\s+(?!(?:time|day|night|one|thing|place|guy|girl|"
                           r"song|film|movie|show|trip|bit|moment)\b)\w[^?]*$")
"""Something to keep, said as "remember that ..." ("remember that the spare key is under the
mat"): a new note. Not "remember that time we ...", and not a question."""
_SAVE_THIS: Final = _rx(r"^save this(?: for me)?[:,]\s+\w[^?]*$")
"""Something to keep, said after "save this": "save this for me, Dad's new number is ...";
not "save this file"."""


def note_tools(t: str) -> set[str]:
    """The note tools a request could need (none unless it mentions a note)."""
    if _REMEMBER_THAT.match(strip_lead(t)) or _SAVE_THIS.match(strip_lead(t)):
        return {"add_note"}
    if not (_NOTE.search(t) or _SAVED.search(t)):
        return set()
    if _ADD_FIRST.search(strip_lead(t)):
        return {"add_note"}
    if _NOTE_DELETE.search(t):
        return {"delete_notes"}
    picked: set[str] = set()
    if _NOTE_SEARCH.search(t):
        picked.add("search_notes")
    if _NOTE_LIST.search(t):
        picked.add("list_notes")
    if _NOTE_ADD.search(t):
        picked.add("add_note")
    return picked or {"add_note", "list_notes", "search_notes"}


_BARE_TIMER: Final = _rx(
    rf"^(?:(?:just\s+)?(?:give me|stick|put|pop|set)\s+(?:on\s+)?)?(?:another\s+)?"
    rf"(?:{_NUMBER}(?:[ -]{_NUMBER})?|a couple of|a few)[ -]{_TIME_UNIT}"
    rf"(?:\s+and\s+a\s+(?:half|quarter))?"
    rf"(?:\s+on\s+the\s+clock)?(?:\s+for\s+(?:the|my|our)\s+[a-z]+(?:\s+[a-z]+)?)?"
    rf"(?:,?\s+(?:please|yeah|ta|thanks|cheers|for me|would you|could you|will you|ok(?:ay)?"
    r"|go|now))*\W*$")
"""A timer asked for by its duration alone, the whole request ("seven minutes for the eggs,
yeah?", "just stick ninety seconds on the clock for me", "give me seven minutes")."""


_DURATION_ONLY: Final = _rx(rf"^(?:another\s+)?{_NUMBER}(?:[ -]{_NUMBER})?[ -]{_TIME_UNIT}\W*$")
"""A duration said alone ("five minutes") may answer something asked: no timer by itself."""


def bare_timer(t: str) -> bool:
    """True when ``t`` (one request) is a duration alone: a timer (``_BARE_TIMER``)."""
    said = strip_lead(" ".join(t.replace("\u2019", "'").split()))
    return bool(_BARE_TIMER.match(said)) and not _DURATION_ONLY.match(said)


_REMIND_WHICH: Final = _rx(r"\bremind me (?:what|which|of (?:my|the|all(?: my| the)?)) "
                          r"(?:reminders|timers|alarms)\b")
"""The pending ones asked for with "remind me" ("remind me what reminders I've got set")."""


def alarm_tools(t: str) -> set[str]:
    """The timer and reminder tools a request could need (none unless it mentions one)."""
    out: set[str] = set()
    if bare_timer(t):
        return {"set_timer"}
    if _REMIND_WHICH.search(t) and not _CANCEL.search(t):
        return {"list_timers"}
    timer, remind = bool(_TIMER.search(t)), bool(_REMIND.search(t))
    if timer or remind:
        cancels = _cancels(t)
        if cancels:
            out.add("cancel_timer")
        elif _LIST_PENDING.search(t) and not (remind and re.search(r"\bremind me\b", t, re.I)):
            out.add("list_timers")
            if timer and _SET_TIMER_ASK.search(t):
                out.add("set_timer")
        elif remind:
            out.add("set_reminder")
        else:
            out.add("set_timer")
        if remind and re.search(r"\bremind me\b", t, re.I) and not cancels:
            out.add("set_reminder")
    return out


_REMIND_TASK: Final = _rx(r"\bremind (?:me|us)\b[^,.?!]*?\b(?:to|that|about)\b")


def _cancels(t: str) -> bool:
    """Whether ``t`` asks to cancel: a cancelling word not inside what is to be reminded.

    "Remind me to drop the keys round": the keys, not a reminder, are dropped.
    """
    cancel = _CANCEL.search(t)
    task = _REMIND_TASK.search(t)
    return cancel is not None and (task is None or cancel.start() < task.end())


def picked_by(family: Callable[[str], set[str]], tool: str) -> Callable[[str], bool]:
    """The predicate of one tool of a family: did ``family`` pick ``tool`` for the request?"""
    def offered(t: str) -> bool:
        return tool in family(t)

    offered.__doc__ = f"{tool}: picked by {family.__name__}."
    return offered
