"""The built-in tools' arguments, cut from the user's own words: one rule a tool.

Each catalog entry's ``words`` is one of these (``core.tools.args.arguments_from_words``
calls it on the request without the politeness around it). A rule returns the arguments as
the user said them ("tomorrow at 9 am", "5 minutes"), or None when the request does not
spell them out in a form it knows; the model's grammar-constrained arguments are used then.
Pure and stdlib-only.
"""

from __future__ import annotations

import re
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.calc_verbs import verbs_as_operators
from desktop_agent.core.tools.calc_words import clean_spoken, replace_number_words
from desktop_agent.core.tools.units import parse_unit
from desktop_agent.core.tools.words_spans import (
    accepts,
    conversion_anywhere,
    is_moment,
    longer_moment,
    moment_at_end,
    reminder_anywhere,
    timer_anywhere,
    without_moment,
)

Args = dict[str, Any]


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _clean(text: str) -> str:
    """Trim spaces, quotes and closing punctuation."""
    return text.strip().strip("\"'").strip().rstrip(".!?,;:").strip()


def _drop_article(text: str) -> str:
    """``text`` without the article or pointing word it opens with ("that pizza" -> "pizza")."""
    return re.sub(r"^(?:the|my|a|an|all of the|all of my|any|that|this|those|these)\s+", "",
                  text, flags=re.I)



# --- notes -----------------------------------------------------------------------------------

_ADD_NOTE: Final = (
    _rx(r"^(?:make|take|add|create|save|write|jot(?: down)?)\s+(?:a |another |one )?(?:note|memo)"
        r"(?:\s+for me)?"
        r"(?:\s+(?:to (?:self|myself)|that says|that reads|which says|saying|to say|that|of|about"
        r"|:))?[:,]?\s+"
        r"(?P<x>.+)$"),
    _rx(r"^(?:write|jot|put|note)\s+(?:this |that |it )?down(?:\s+for me)?"
        r"(?:\s+in\s+(?:my|the)\s+notes?)?[:,]?\s+(?:(?:that|say)\s+)?(?P<x>.+)$"),
    _rx(r"^(?:[^:]{0,60}?\s)?(?:write|jot|note)\s+(?:this|that|it)\s+down(?:\s+for me)?:\s+"
        r"(?P<x>.+)$"),
    _rx(r"^save\s+this(?:\s+for me)?[:,]\s+(?P<x>.+)$"),
    _rx(r"^note(?:\s+to\s+(?:self|myself))?(?: that)?[:,]?\s+(?P<x>.+)$"),
    _rx(r"^(?:a\s+)?(?:quick\s+)?note\s+(?P<x>(?:for|about|on)\b[^:?]{1,40}:\s*.+)$"),
    _rx(r"^(?:add|put|save)\s+(?P<x>.+?)\s+(?:to|in|on)\s+(?:my |the )?notes?$"),
    _rx(r"^remember that\s+(?P<x>.+)$"),
)
_NOTE_TOPIC: Final = (r"(?:about|on|for|mentioning|that mentions?|which mentions?|mentions?|with"
                      r"|regarding)")
_SEARCH_NOTES: Final = (
    _rx(rf"\bnotes?\s+{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    _rx(r"\b(?:search|look|go|check)\s+(?:through\s+|in\s+)?(?:my |the )?notes\s+for\s+"
        r"(?P<x>.+)$"),
    _rx(r"\b(?:find|look for|look up)\s+(?:the |my )?notes?\s+(?P<x>.+)$"),
    _rx(rf"\b(?:save|saved|noted|write|wrote|written|jot|jotted)\s+(?:down\s+)?(?:anything"
        rf"|something)\s+(?:down\s+)?{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    _rx(rf"\b(?:thing|things|stuff)\s+i(?:'ve| have)?\s+(?:saved|noted|wrote down|jotted down)"
        rf"\s+{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    # "the supplier's number, have I got it in my notes anywhere?"
    _rx(r"^(?P<x>[^,]+),\s+(?:have|did)\s+i\s+(?:got|put|saved?|written|write|jotted)\s+"
        r"(?:it|that|them)\s+(?:down\s+)?in\s+my\s+notes\b"),
    _rx(r"^(?:did|have)\s+i\s+(?:write|written|jot|jotted|note|noted|put|save|saved)\s+"
        r"(?:down\s+)?(?P<x>(?!anything\b|something\b).+?)\s+(?:down\s+)?(?:somewhere"
        r"|anywhere|in\s+my\s+notes)\b"),
    _rx(rf"^what\s+(?:did|have)\s+i\s+(?:save|saved|note|noted|write|written|jot|jotted)"
        rf"\s+(?:down\s+)?{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    # "I saved a recipe for banana bread somewhere in my notes, can you dig it out?"
    # "there's a note somewhere with that Thai restaurant Mark recommended, can you find it?"
    _rx(r"^there(?:'s| is)\s+a\s+note\s+(?:somewhere\s+)?(?:with|about|on)\s+(?:that\s+)?"
        r"(?P<x>[^,?]+)"),
    _rx(r"^i(?:'ve| have)?\s+(?:saved|put|wrote|written|jotted|noted)\s+(?:down\s+)?"
        r"(?:a|an|the|some|that)\s+(?P<x>.+?)\s+(?:down\s+)?(?:somewhere\s+)?"
        r"(?:in|into|to)\s+(?:my|the)\s+notes\b"),
)
_ANYTHING_ON: Final = _rx(r"^(?:anything|something|stuff|everything)\s+(?:on|about|to do with"
                         r"|regarding|mentioning|with|(?:that|which)\s+mentions?)\s+")
"""What a search asks for before its words: "my notes for *anything on* passwords"."""
_SENTENCE_END: Final = re.compile(r"[.?!](?:\s|$)")
_ASKED_AFTER: Final = _rx(r"(?:\s+(?:somewhere|in there|in here|in (?:my|the) notes?))?"
                         r"(?:,\s+(?:can|could|would|will)"
                         r"\s+you\b.*)?$")
"""What follows the words searched for: "the wifi password *somewhere, can you find it*", "the
boiler *in my notes*"."""
_WHY_AFTER: Final = _rx(r",\s+(?:the|my|i|i'm|i've|we|we're|they|they're|it|it's|he|she"
                       r"|because|since|as|so)\b.*$")
"""Why, after the words of the notes: "the Christmas presents, the kids keep snooping"."""
_VAGUE_TAIL: Final = _rx(r"(?<=\w)\s+(?:thing|things|stuff)$")
"""What a search asks for after its words: "my notes for the dentist *thing*"."""
_DELETE_ALL: Final = _rx(r"\b(?:delete|remove|erase|clear|wipe|get rid of|forget|bin|scrap)\s+"
                         r"(?:out\s+)?(?:all|every|everything)\b.*\bnotes?\b"
                         r"|\b(?:delete|remove|erase|clear|wipe|get rid of|forget|bin|scrap)\s+"
                         r"(?:out\s+)?(?:all|everything)\s+(?:that\s+)?(?:i've|i have)\s+"
                         r"(?:saved|noted)\W*$"
                         r"|\b(?:delete|remove|erase|clear|wipe)\s+(?:my |the )?notes\s*$")
_DELETE_SOME: Final = (
    _rx(rf"\b(?:delete|remove|erase|clear|wipe|get rid of|forget|bin|scrap)\s+"
        rf"(?:my |the |any |all (?:the |my )?)?notes?\s+"
        rf"{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    _rx(r"\b(?:delete|remove|erase|get rid of|bin|scrap)\s+(?:my |the )?(?P<x>.+?)\s+notes?$"),
    _rx(r"\bnotes?\s+(?:about|on|for)\s+(?:the\s+)?(?P<x>[^,]+?),\s+(?:please\s+)?(?:delete"
        r"|remove|erase|bin|scrap|ditch|get rid of)(?:\s+(?:it|them|that))?\W*$"),
    # "dentist note, ditch it": the note named first
    _rx(r"^(?:the |my |that )?(?P<x>[^,]+?)\s+notes?,?\s+(?:please\s+)?(?:delete|remove|erase"
        r"|get rid of|bin|scrap|ditch|trash|drop)\s+(?:it|them|that)\b"),
)

# --- timers and reminders --------------------------------------------------------------------

_ONES: Final = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_NUM: Final = (rf"(?:\d+(?:\.\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
               rf"(?:[- ]{_ONES})?|{_ONES}|a|an|ten|eleven|twelve|thirteen|fourteen|fifteen"
               r"|sixteen|seventeen|eighteen|nineteen|a hundred|half an?|a half|a quarter"
               r"|quarter of an|couple of|few)")
_UNIT_T: Final = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)"
_DURATION: Final = (rf"(?:{_NUM}[ -]{_UNIT_T}(?:\s+(?:and\s+)?(?:a half|a quarter|three quarters"
                    rf"|{_NUM}[ -]{_UNIT_T}|\d{{1,2}}\b(?![ -]?{_UNIT_T})"
                    rf"|(?:twenty|thirty|forty|fifty)(?:[- ]{_ONES})?\b"
                    rf"(?![ -]?{_UNIT_T})))?"
                    rf"|{_NUM}\s+and\s+a\s+(?:half|quarter)[ -]{_UNIT_T}"
                    r"|an? hour and a (?:half|quarter)|half an hour)")
_TIMER: Final = (
    _rx(rf"^(?:(?:set|start|make)\s+(?:an?|the|my)\s+)?(?P<l>(?!(?:an?|the|my|another)\b)[a-z]+)"
        rf"\s+timer\s+(?:for|of)\s+"
        rf"(?P<d>{_DURATION})$"),
    _rx(rf"\b(?P<d>{_DURATION})\s+timer(?:,?\s+(?:for|called|named)\s+(?:the\s+)?(?P<l>.+))?$"),
    _rx(rf"\btimer\s+(?:for\s+)?(?:the\s+)?(?!(?:on|off|going|running)\b)"
        rf"(?P<l>[a-z]+(?: [a-z]+)?)\s+for\s+(?P<d>{_DURATION})"),
    # "a timer for the kids' screen time, an hour and a quarter"; "... for my tooth brushing?
    # Two minutes."
    _rx(rf"\btimer\s+for\s+(?:the\s+|my\s+)?(?!(?:next|another|about|around|roughly|exactly"
        rf"|just|over|under|an?|the|my)\b)(?!{_NUM}\b)(?P<l>[a-z][a-z' ]{{0,30}}?)[,?.]?\s+"
        rf"(?P<d>{_DURATION})\W*$"),
    # "two and a half hours on a timer for the pork shoulder"
    _rx(rf"^(?:(?:stick|put|pop|set)\s+)?(?P<d>{_DURATION})\s+on\s+(?:a|the)\s+timer"
        r"(?:\s+for\s+(?:the\s+|my\s+)?(?P<l>[a-z]+(?: [a-z]+)?))?"
        r"(?:,?\s+(?:please|thanks|cheers))*\W*$"),
    # "stick a timer on, eight and a half minutes, for the salmon"
    _rx(rf"\btimer\s+on,?\s+(?P<d>{_DURATION}),?\s+for\s+(?:the\s+|my\s+)?"
        r"(?P<l>[a-z]+(?: [a-z]+)?)\W*$"),
    # "ninety seconds, microwave popcorn, timer please"; "parking timer, one hour fifty"
    _rx(rf"^(?P<d>{_DURATION}),\s+(?P<l>[a-z]+(?: [a-z]+)?),\s+(?:a\s+)?timer\b"
        r"(?:,?\s+(?:please|thanks|cheers))*\W*$"),
    _rx(rf"^(?P<l>(?!(?:a|an|the|my|another|set|start)\b)[a-z]+)\s+timer,\s+(?:for\s+)?"
        rf"(?P<d>{_DURATION})\b"),
    # "timer for twenty-five minutes, and label it sourdough"
    _rx(rf"\btimer\s+for\s+(?P<d>{_DURATION}),?\s+and\s+(?:label|call|name)\s+it\s+"
        r"(?P<l>[a-z]+(?: [a-z]+)?)\W*$"),
    # "timer for ninety secs, noodles"
    _rx(rf"\btimer[,:]?\s+(?:for\s+|of\s+)?(?P<d>{_DURATION}),\s+(?:the\s+|my\s+)?"
        r"(?P<l>(?!(?:please|thanks|cheers|yeah|ta|ok|okay|now|quick|quickly|mate|love|then"
        r"|right|so|and|but|i|it|it's|that|this|we|you|no|perfect|great|lovely|cool|starting"
        r"|start|go|usual|again|done|sorted|brilliant|ready|yes|asap|as usual|same|the|my)\b)"
        r"[a-z]+(?: [a-z]+)?)\W*$"),
    _rx(rf"\btimer[,:]?\s+(?:for\s+|of\s+)?(?P<d>{_DURATION})"
        r"(?:,?\s+(?:it's\s+|its\s+|that's\s+)?(?:for|called|named)\s+(?:the\s+)?(?P<l>.+))?"),
    # "a twenty minute countdown for the boerewors"
    _rx(rf"\b(?P<d>{_DURATION})\s+(?:count ?down)(?:\s+(?:for|called|named)\s+(?:the\s+|my\s+)?"
        r"(?P<l>[a-z]+(?: [a-z]+)?))?\W*$"),
    _rx(rf"\b(?:count down|countdown)\s+(?:from\s+)?(?P<d>{_DURATION})"),
    # "ten minutes, pasta timer"
    _rx(rf"^(?P<d>{_DURATION}),?\s+(?:the\s+|a\s+|my\s+)?(?P<l>(?!an?\b|the\b)[a-z]+)"
        r"\s+timer$"),
    # a duration alone ("seven minutes for the eggs, yeah", "stick ninety seconds on the clock")
    _rx(rf"^(?!(?:another\s+)?{_DURATION}$)"
        rf"(?:(?:just\s+)?(?:give me|stick|put|pop|set)\s+(?:on\s+)?)?(?:another\s+)?"
        rf"(?P<d>{_DURATION})(?:\s+on\s+the\s+clock)?(?:\s+for\s+(?:the\s+|my\s+|our\s+)?"
        rf"(?P<l>(?!me\b|us\b)[a-z]+(?: [a-z]+)?))?(?:,?\s+(?:please|yeah|ta|thanks|cheers"
        rf"|for me|would you|could you|will you|ok(?:ay)?|go|now))*$"),
)
_WHEN: Final = (r"(?:at|on|in|by|tomorrow|tonight|today|this|next|noon|midnight|a week on|"
                r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                r"january|february|march|april|may|june|july|august|september|october|"
                r"november|december)\b")
_REMIND: Final = (
    # "First thing tomorrow, remind me to phone the garage": the moment first, before a comma
    _rx(r"^(?P<w>[^,]{3,60}),\s+(?:(?:can|could|would|will)\s+you\s+)?remind\s+me\s+"
        r"(?:to|that|about)\s+(?P<x>.+)$"),
    _rx(rf"^remind me\s+(?P<w>{_WHEN}.*?)\s+(?:to|that|about)\s+(?P<x>.+)$"),
    _rx(rf"^remind me\s+(?:to|that|about)\s+(?P<x>.+?)\s+(?P<w>{_WHEN}.*)$"),
    _rx(rf"^(?:set|add|create|make)\s+a\s+reminder\s+(?:to|for|about)\s+(?P<x>.+?)\s+"
        rf"(?P<w>{_WHEN}.*)$"),
    _rx(rf"^(?:set|add|create|make)\s+a\s+reminder\s+(?P<w>{_WHEN}.*?)\s+(?:to|for|about)\s+"
        r"(?P<x>.+)$"),
    _rx(rf"^(?:i\s+(?:want|need|would\s+like)|i'd\s+like|give\s+me)\s+a\s+reminder\s+"
        rf"(?P<w>{_WHEN}.*?)\s+(?:to|for|about)\s+(?P<x>.+)$"),
    _rx(rf"^i\s+(?:want|need|would\s+like)\s+to\s+be\s+reminded\s+(?:to|that|about)\s+"
        rf"(?P<x>.+?)\s+(?P<w>{_WHEN}.*)$"),
    _rx(rf"^(?:i\s+(?:want|need|would\s+like)|i'd\s+like|give\s+me)\s+a\s+reminder\s+"
        rf"(?:to|for|about)\s+(?P<x>.+?)\s+(?P<w>{_WHEN}.*)$"),
    # "I keep forgetting to ring the chemist, could you remind me at half ten tomorrow?"
    _rx(rf"^i\s+(?:keep|always)\s+forget(?:ting)?\s+to\s+(?P<x>[^,]+?),?\s+(?:(?:so|and)\s+)?"
        rf"(?:(?:can|could|would|will)\s+you\s+)?remind\s+me\s+(?P<w>{_WHEN}[^,?]*?)\W*$"),
    # "Tomorrow at 7:45 am, take the blue folder to school, remind me of that would you."
    _rx(rf"^(?P<w>{_WHEN}[^,]*),\s+(?P<x>[^,]+),\s+remind\s+me(?:\s+(?:of|about)\s+(?:that|it))?"
        r"(?:,?\s+(?:would|could|will|can)\s+you)?\W*$"),
)
_STOP_VERB: Final = (r"(?:cancel|stop|clear|delete|remove|turn off|scrap|drop|call off|kill"
                    r"|ditch|bin|get rid of|forget about|abort|wipe|erase"
                    r"|never mind|cancell?ing|stopping|deleting|removing|scrapping|dropping)")
_CANCEL_ALL: Final = _rx(r"\b(?:cancel|stop|clear|delete|remove|turn off|scrap|call off|ditch|bin"
                         r"|kill|wipe|erase)\s+(?:all|every|everything|them all|all of them"
                         r"|the (?:whole )?lot)\b(?:\s+(?:of\s+)?(?:my\s+|the\s+)?"
                         r"(?:timers?|reminders?|alarms?)"
                         r"(?:\s+and\s+(?:timers?|reminders?|alarms?))?)?"
                         r"(?:\s+(?:i've got|i have|i've set|i set|going|running|on))?"
                         r"(?:,\s*(?:every|all (?:the|my))\s+(?:timers?|reminders?|alarms?)"
                         r"(?:\s+and\s+(?:timers?|reminders?|alarms?))?)?"
                         r"(?:,\s+(?:i|i'm|i've|we|we're|we've|because|'?cause|since|so)\b.*)?\s*$")
_CANCEL_ONE: Final = (
    _rx(rf"^(?:the\s+|my\s+)?(?:timer|reminder|alarm)\s+(?:for|about)\s+(?:the\s+)?(?P<x>[^,]+?),?"
        rf"\s+(?:please\s+)?{_STOP_VERB}\s+(?:it|that)\b"),
    _rx(rf"\b{_STOP_VERB}\s+(?:the\s+|my\s+)?(?:reminder|alarm)s?"
        r"\s+(?:to|about|for)\s+(?P<x>.+)$"),
    _rx(rf"\b{_STOP_VERB}\s+(?:the\s+|my\s+|that\s+|this\s+)?(?P<x>[\w ]+?)\s+"
        r"(?:timer|reminder|alarm)$"),
    _rx(rf"\b{_STOP_VERB}\s+(?:the\s+|my\s+)?(?P<x>timer|"
        r"reminder|alarm)$"),
)

# --- numbers ---------------------------------------------------------------------------------

_CALC_PREFIX: Final = _rx(r"^(?:tell me\s+)?(?:what(?:'s| is)|whats|how much is|calculate|compute"
                          r"|work out|what do you get (?:for|if you)|tell me)\s+")
_CONVERT: Final = (
    _rx(r"how many (?P<to>[a-z ]+?) (?:is|are|in|make|makes|make up)\s+(?:a |an )?"
        r"(?P<v>[\d.]+|[a-z-]+(?: [a-z-]+)?)\s+(?P<from>[a-z ]+?)$"),
    _rx(r"(?:convert\s+|what(?:'s| is)\s+)?(?P<v>(?:minus |negative |-)?[\d.]+"
        r"|[a-z-]+(?: [a-z-]+)?)\s+"
        r"(?P<from>[a-z° ]+?)\s+(?:to|in|into|as)\s+(?P<to>[a-z° ]+?)$"),
)


_HUNDREDS_SAID: Final = re.compile(r"^([1-9]) ([2-9]0|[1-9][1-9])$")
"""A quantity said as hundreds and the rest ("three fifty Fahrenheit", "two forty-five
miles"), once the words are digits: "3 50"."""


_BELOW_ZERO: Final = _rx(r"^(?:minus|negative)\s+|^-(?=\d)")
"""A value below zero, said ("minus 40 Celsius") or written."""


def _value(text: str) -> float | None:
    if (below := _BELOW_ZERO.match(text.strip())) is not None:
        value = _value(text.strip()[below.end():])
        return -value if value is not None else None
    digits = replace_number_words(clean_spoken(text.strip())).strip()
    if (hundreds := _HUNDREDS_SAID.match(digits)) is not None:
        return float(int(hundreds.group(1)) * 100 + int(hundreds.group(2)))
    try:
        return float(digits) if digits not in ("a", "an") else 1.0
    except ValueError:
        return 1.0 if text.strip().lower() in ("a", "an", "one") else None


_unit_ok: Final = accepts(parse_unit)


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return found
    return None


_CALC_ASKED_AFTER: Final = _rx(r",?\s+(?:what(?:'s| is| does) (?:that|it)(?: come to| make)?"
                              r"|how much is that)\W*$")
"""The question after a sum said first: "twelve cubed, *what's that?*"."""


def calculate_args(text: str) -> Args | None:
    """calculate: the expression as said, when the calculator can read it ("12 squared").

    A verb is said as its operator ("multiply 36 by 7" -> "36 times 7",
    ``core.tools.calc_verbs``): the numbers stay the user's words.
    """
    said = _clean(_CALC_PREFIX.sub("", text))
    for expression in dict.fromkeys((said, _clean(_CALC_ASKED_AFTER.sub("", said)))):
        try:
            evaluate(expression)  # only words the calculator can read are an expression
        except AgentError:
            continue
        return {"expression": verbs_as_operators(expression)}
    return None


def convert_units_args(text: str) -> Args | None:
    """convert_units: value and units ("how many ounces in a pound", "5 miles to km")."""
    found = _first(_CONVERT, _clean(text).lower())
    if found is None:
        return conversion_anywhere(text)
    value = _value(found.group("v"))
    source, target = _clean(found.group("from")), _clean(found.group("to"))
    if value is None or not _unit_ok(source) or not _unit_ok(target):
        return conversion_anywhere(text)
    number: int | float = int(value) if value.is_integer() else value
    return {"value": number, "from_unit": source, "to_unit": target}


def search_notes_args(text: str) -> Args | None:
    """search_notes: the words after "notes about", "search my notes for"..."""
    found = _first(_SEARCH_NOTES, _clean(text))
    query = _drop_article(_ANYTHING_ON.sub("", _clean(found.group("x")))) if found else ""
    query = _SENTENCE_END.split(query, maxsplit=1)[0]  # "the plumber? Have a look in ..."
    query = _VAGUE_TAIL.sub("", _ASKED_AFTER.sub("", query))  # "the dentist thing": "dentist"
    query = _WHY_AFTER.sub("", query)
    return {"query": query} if query else None


def add_note_args(text: str) -> Args | None:
    """add_note: the note's words ("make a note that ...", "add eggs to my notes")."""
    found = _first(_ADD_NOTE, _clean(text))
    note = _clean(found.group("x")) if found else ""
    return {"text": note} if note else None


_NOT_A_QUERY: Final = frozenset({"all", "my", "the", "him", "her", "it", "them", "that", "this"})
"""Not the words of a note: "the note about *him*" points back at what was said before."""


def delete_notes_args(text: str) -> Args | None:
    """delete_notes: the words of the notes to delete, or "all"."""
    clean = _clean(text)
    if _DELETE_ALL.search(clean):
        return {"query": "all"}
    found = _first(_DELETE_SOME, clean)
    query = _WHY_AFTER.sub("", _drop_article(_clean(found.group("x")))) if found else ""
    return {"query": query} if query and query.lower() not in _NOT_A_QUERY else None


def set_timer_args(text: str) -> Args | None:
    """set_timer: the duration as said, and a label when one is given."""
    found = _first(_TIMER, _clean(text))
    if found is None:
        return timer_anywhere(_clean(text))
    args: Args = {"duration": found.group("d").strip()}
    label = found.groupdict().get("l")
    if label and not re.fullmatch(_DURATION, label.strip(), re.IGNORECASE):
        args["label"] = _drop_article(_clean(label.split(",")[0]))  # "the eggs, mate"
    return args


_REMIND_RUN_ON: Final = _rx(r"^.*\s(?:so|and|but)\s+(?=remind me\b)")
"""Context joined to the request without a comma: the request starts at its "remind me"."""


def set_reminder_args(text: str) -> Args | None:
    """set_reminder: what to remind ("to ...") and when, in either order.

    Else wherever they are (``words_spans.reminder_anywhere``); the time must read as one.
    """
    if (run_on := _REMIND_RUN_ON.search(text)) is not None:
        text = text[run_on.end():]  # "... and I keep forgetting so remind me Thursday ..."
    clean = _clean(text)
    for pattern in _REMIND:
        found = pattern.search(clean)
        if found is None:
            continue
        what, when = _clean(found.group("x")), _clean(found.group("w"))
        if what and when and is_moment(when):
            if _REMIND_TO.search(text):
                what, when = moment_at_end(what, when)
            what, when = longer_moment(what, when)
            return {"text": _clean(what), "when": when}
    return reminder_anywhere(clean)


_REMIND_TO: Final = _rx(r"\bremind (?:me|us) to\b")


def cancel_timer_args(text: str) -> Args | None:
    """cancel_timer: the timer's label, the reminder's words, or "all"."""
    clean = _clean(text)
    if _CANCEL_ALL.search(clean):
        return {"which": "all"}
    found = _first(_CANCEL_ONE, clean)
    which = _drop_article(_clean(found.group("x"))) if found else ""
    return {"which": without_moment(_WHY_AFTER.sub("", which))} if which else None
