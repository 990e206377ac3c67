"""Arguments taken from the user's own words, for the tool the model chose.

A 0.5B model picks the right tool far more often than it fills the arguments right: asked
for "15 percent of 80" it copied an example expression, and for "at 7 pm" it wrote a
time from another request. So the model decides only WHICH tool (under a grammar, names
as constants, or "none"); when the request says its arguments in a form these rules know
("remind me to X at Y", "a 10 minute timer for the pasta", "notes about X"), they are
cut from the transcript itself. When no rule matches, the model's grammar-constrained
arguments are used. Every call is validated again before anything runs.

Pure and stdlib-only. Values keep the user's words ("tomorrow at 9 am", "5 minutes"); the
application parses them (``core.tools.when``, ``core.tools.calc``, ``core.tools.units``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc import evaluate
from desktop_agent.core.tools.calc_words import replace_number_words
from desktop_agent.core.tools.units import parse_unit

Args = dict[str, Any]
MAX_REQUEST_CHARS: Final = 300
"""Longer text is never parsed for arguments (and the patterns stay fast)."""


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _clean(text: str) -> str:
    """Trim spaces, quotes and closing punctuation."""
    return text.strip().strip("\"'").strip().rstrip(".!?,;:").strip()


def _drop_article(text: str) -> str:
    return re.sub(r"^(?:the|my|a|an|all of the|all of my|any)\s+", "", text, flags=re.I)


_PLEASE: Final = _rx(r"^(?:(?:hey|ok(?:ay)?|so|um+|uh+|please|can you|could you|would you|"
                     r"will you|i want you to|i'd like you to|i need you to)[, ]+)+")
_TRAILING_PLEASE: Final = _rx(r"[, ]+(?:please|thanks|thank you)\s*[.!?]*$")


def _request(text: str) -> str:
    """The request without politeness around it."""
    text = _PLEASE.sub("", text.strip())
    return _TRAILING_PLEASE.sub("", text).strip()


# --- notes -----------------------------------------------------------------------------------

_ADD_NOTE: Final = (
    _rx(r"^(?:make|take|add|create|save|write|jot(?: down)?)\s+(?:a |another )?note"
        r"(?:\s+(?:that says|that reads|which says|saying|to say|that|of|about|:))?[:,]?\s+"
        r"(?P<x>.+)$"),
    _rx(r"^(?:write|jot|put|note)\s+(?:this |that |it )?down[:,]?\s+(?P<x>.+)$"),
    _rx(r"^note(?: that)?[:,]?\s+(?P<x>.+)$"),
    _rx(r"^(?:add|put|save)\s+(?P<x>.+?)\s+(?:to|in|on)\s+(?:my |the )?notes?$"),
    _rx(r"^remember that\s+(?P<x>.+)$"),
)
_NOTE_TOPIC: Final = r"(?:about|on|for|mentioning|that mention|which mention|with|regarding)"
_SEARCH_NOTES: Final = (
    _rx(rf"\bnotes?\s+{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    _rx(r"\bsearch\s+(?:through\s+)?(?:my |the )?notes\s+for\s+(?P<x>.+)$"),
    _rx(r"\b(?:find|look for|look up)\s+(?:the |my )?notes?\s+(?P<x>.+)$"),
)
_DELETE_ALL: Final = _rx(r"\b(?:delete|remove|erase|clear|wipe|get rid of|forget)\s+"
                         r"(?:out\s+)?(?:all|every|everything)\b.*\bnotes?\b"
                         r"|\b(?:delete|remove|erase|clear|wipe)\s+(?:my |the )?notes\s*$")
_DELETE_SOME: Final = (
    _rx(rf"\b(?:delete|remove|erase|clear|wipe|get rid of|forget)\s+(?:my |the )?notes?\s+"
        rf"{_NOTE_TOPIC}\s+(?P<x>.+)$"),
    _rx(r"\b(?:delete|remove|erase|get rid of)\s+(?:my |the )?(?P<x>.+?)\s+notes?$"),
)

# --- timers and reminders --------------------------------------------------------------------

_ONES: Final = r"(?:one|two|three|four|five|six|seven|eight|nine)"
_NUM: Final = (rf"(?:\d+(?:\.\d+)?|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
               rf"(?:[- ]{_ONES})?|{_ONES}|a|an|ten|eleven|twelve|thirteen|fourteen|fifteen"
               r"|sixteen|seventeen|eighteen|nineteen|a hundred|half an?|a half|a quarter"
               r"|quarter of an|couple of|few)")
_UNIT_T: Final = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)"
_DURATION: Final = (rf"(?:{_NUM}[ -]{_UNIT_T}(?:\s+(?:and\s+)?(?:a half|{_NUM}[ -]{_UNIT_T}))?"
                    rf"|an? hour and a half|half an hour)")
_TIMER: Final = (
    _rx(rf"^(?:(?:set|start|make)\s+(?:an?|the|my)\s+)?(?P<l>[a-z]+)\s+timer\s+(?:for|of)\s+"
        rf"(?P<d>{_DURATION})$"),
    _rx(rf"\b(?P<d>{_DURATION})\s+timer(?:\s+(?:for|called|named)\s+(?:the\s+)?(?P<l>.+))?$"),
    _rx(rf"\btimer\s+(?:for\s+)?(?:the\s+)?(?P<l>[a-z]+(?: [a-z]+)?)\s+for\s+(?P<d>{_DURATION})"),
    _rx(rf"\btimer[,:]?\s+(?:for\s+|of\s+)?(?P<d>{_DURATION})"
        r"(?:\s+(?:for|called|named)\s+(?:the\s+)?(?P<l>.+))?"),
    _rx(rf"\b(?:count down|countdown)\s+(?:from\s+)?(?P<d>{_DURATION})"),
)
_WHEN: Final = (r"(?:at|on|in|by|tomorrow|tonight|today|this|next|noon|midnight|"
                r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
                r"january|february|march|april|may|june|july|august|september|october|"
                r"november|december)\b")
_REMIND: Final = (
    _rx(rf"^remind me\s+(?P<w>{_WHEN}.*?)\s+(?:to|that|about)\s+(?P<x>.+)$"),
    _rx(rf"^remind me\s+(?:to|that|about)\s+(?P<x>.+?)\s+(?P<w>{_WHEN}.*)$"),
    _rx(rf"^(?:set|add|create|make)\s+a\s+reminder\s+(?:to|for|about)\s+(?P<x>.+?)\s+"
        rf"(?P<w>{_WHEN}.*)$"),
    _rx(rf"^(?:set|add|create|make)\s+a\s+reminder\s+(?P<w>{_WHEN}.*?)\s+(?:to|for|about)\s+"
        r"(?P<x>.+)$"),
)
_CANCEL_ALL: Final = _rx(r"\b(?:cancel|stop|clear|delete|remove|turn off)\s+(?:all|every|"
                         r"everything)\b(?:\s+(?:of\s+)?(?:my\s+|the\s+)?(?:timers?|reminders?|"
                         r"alarms?)(?:\s+and\s+(?:timers?|reminders?|alarms?))?)?\s*$")
_CANCEL_ONE: Final = (
    _rx(r"\b(?:cancel|stop|clear|delete|remove|turn off)\s+(?:the\s+|my\s+)?(?:reminder|alarm)s?"
        r"\s+(?:to|about|for)\s+(?P<x>.+)$"),
    _rx(r"\b(?:cancel|stop|clear|delete|remove|turn off)\s+(?:the\s+|my\s+)?(?P<x>[\w ]+?)\s+"
        r"(?:timer|reminder|alarm)$"),
    _rx(r"\b(?:cancel|stop|clear|delete|remove|turn off)\s+(?:the\s+|my\s+)?(?P<x>timer|"
        r"reminder|alarm)$"),
)

# --- numbers ---------------------------------------------------------------------------------

_CALC_PREFIX: Final = _rx(r"^(?:what(?:'s| is)|how much is|calculate|compute|work out|"
                          r"what do you get (?:for|if you)|tell me)\s+")
_CONVERT: Final = (
    _rx(r"how many (?P<to>[a-z ]+?) (?:is|are|in|make|makes|make up)\s+(?:a |an )?"
        r"(?P<v>[\d.]+|[a-z-]+(?: [a-z-]+)?)\s+(?P<from>[a-z ]+?)$"),
    _rx(r"(?:convert\s+|what(?:'s| is)\s+)?(?P<v>[\d.]+|[a-z-]+(?: [a-z-]+)?)\s+"
        r"(?P<from>[a-z° ]+?)\s+(?:to|in|into|as)\s+(?P<to>[a-z° ]+?)$"),
)


def _value(text: str) -> float | None:
    digits = replace_number_words(text.strip()).strip()
    try:
        return float(digits) if digits not in ("a", "an") else 1.0
    except ValueError:
        return 1.0 if text.strip().lower() in ("a", "an", "one") else None


def _unit_ok(text: str) -> bool:
    try:
        parse_unit(text)
    except AgentError:
        return False
    return True


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> re.Match[str] | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return found
    return None


def _get_current_time(_text: str) -> Args | None:
    return {}


def _calculate(text: str) -> Args | None:
    expression = _clean(_CALC_PREFIX.sub("", text))
    try:
        evaluate(expression)  # only words the calculator can read are an expression
    except AgentError:
        return None
    return {"expression": expression}


def _convert_units(text: str) -> Args | None:
    found = _first(_CONVERT, _clean(text).lower())
    if found is None:
        return None
    value = _value(found.group("v"))
    source, target = _clean(found.group("from")), _clean(found.group("to"))
    if value is None or not _unit_ok(source) or not _unit_ok(target):
        return None
    number: int | float = int(value) if value.is_integer() else value
    return {"value": number, "from_unit": source, "to_unit": target}


def _search_notes(text: str) -> Args | None:
    found = _first(_SEARCH_NOTES, _clean(text))
    query = _drop_article(_clean(found.group("x"))) if found else ""
    return {"query": query} if query else None


def _add_note(text: str) -> Args | None:
    found = _first(_ADD_NOTE, _clean(text))
    note = _clean(found.group("x")) if found else ""
    return {"text": note} if note else None


def _delete_notes(text: str) -> Args | None:
    clean = _clean(text)
    if _DELETE_ALL.search(clean):
        return {"query": "all"}
    found = _first(_DELETE_SOME, clean)
    query = _drop_article(_clean(found.group("x"))) if found else ""
    return {"query": query} if query and query.lower() not in ("all", "my", "the") else None


def _set_timer(text: str) -> Args | None:
    found = _first(_TIMER, _clean(text))
    if found is None:
        return None
    args: Args = {"duration": found.group("d").strip()}
    label = found.groupdict().get("l")
    if label and not re.fullmatch(_DURATION, label.strip(), re.IGNORECASE):
        args["label"] = _drop_article(_clean(label))
    return args


def _set_reminder(text: str) -> Args | None:
    found = _first(_REMIND, _clean(text))
    if found is None:
        return None
    what, when = _clean(found.group("x")), _clean(found.group("w"))
    return {"text": what, "when": when} if what and when else None


def _cancel_timer(text: str) -> Args | None:
    clean = _clean(text)
    if _CANCEL_ALL.search(clean):
        return {"which": "all"}
    found = _first(_CANCEL_ONE, clean)
    which = _drop_article(_clean(found.group("x"))) if found else ""
    return {"which": which} if which else None


_RULES: Final[Mapping[str, Callable[[str], Args | None]]] = {
    "get_current_time": _get_current_time, "list_notes": lambda _t: {},
    "list_timers": lambda _t: {}, "calculate": _calculate, "convert_units": _convert_units,
    "search_notes": _search_notes, "add_note": _add_note, "delete_notes": _delete_notes,
    "set_timer": _set_timer, "set_reminder": _set_reminder, "cancel_timer": _cancel_timer,
}


def arguments_from_words(tool: str, text: str) -> Args | None:
    """The arguments of ``tool`` as the user said them in ``text``, or None (no rule fits).

    Args:
        tool: A built-in tool name (``core.tools.specs``); others get None.
        text: The user's request (a transcript).
    """
    rule = _RULES.get(tool)
    if rule is None or len(text) > MAX_REQUEST_CHARS:
        return None  # a spoken request is short; long text is read aloud, not asked
    return rule(_request(text))


_STOP: Final = frozenset("a an the my me to of for in on at and or is are be it this that "
                         "please i you".split())


def _words(text: str) -> set[str]:
    text = replace_number_words(text.lower())
    return {w for w in re.findall(r"[\w']+|[%+*/-]", text) if w not in _STOP}


def is_grounded(args: Mapping[str, Any], text: str) -> bool:
    """True when every word of every string argument was said in ``text``.

    A model that invents an argument ("20 minutes" for "I set a timer yesterday") has
    not understood a request; such a call is dropped and the turn answered in prose.
    Numbers count in digits or words; little words (a, the, to...) are not checked.
    """
    said = _words(text)
    for value in args.values():
        if isinstance(value, str) and not _words(value) <= said:
            return False
        if isinstance(value, int | float) and not isinstance(value, bool):
            number = f"{value:g}"
            if number not in said and not (number == "1" and {"a", "an"} & set(
                    text.lower().split())):
                return False
    return True
