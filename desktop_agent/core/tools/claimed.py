"""The claimed-action rule: a reply that says it acted, with no tool behind it, is not spoken.

A small model asked "Set the volume to thirty percent." happily answers "I'm setting the
volume to thirty percent." without calling anything, or parrots the request back ("Open
example dot org in the browser."). Either way the user believes something happened. The
turn machine (``core.turns.reply_output``) passes every clause of the model's own text
through ``claims_action`` before it is synthesised, when the request could ask for an action
(``asks_action``); when the turn has no executed tool result behind it, the clause is
replaced by ``unbacked_reply``, which says what the app
cannot do (or, when a tool exists for the request, that it did not run it). It covers every
tool alike (built-in, desktop, MCP), because it looks only at the words and at whether a
tool ran, never at which tool.

Pure: stdlib only. The words are English, as the prompts are.
"""

from __future__ import annotations

import re
from typing import Final

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.tool_def import Catalog

_BASE: Final = (
    "set", "turn", "open", "launch", "start", "play", "pause", "stop", "mute", "unmute",
    "adjust", "change", "lower", "raise", "increase", "decrease", "reduce", "skip", "resume",
    "close", "switch", "send", "call", "book", "type", "copy", "save", "delete", "create",
    "add", "navigate", "search", "browse", "load", "execute", "install", "order",
    "remove", "cancel", "schedule", "dial", "text", "message", "email", "lock", "unlock",
    "restart", "shut", "enable", "disable", "bring", "pull", "crank", "dim", "brighten",
    "boost", "silence", "put", "remind", "record",
)
"""Verbs of acting on something, in their base form (the imperative)."""
_ING: Final = (
    "setting", "turning", "opening", "launching", "starting", "playing", "pausing",
    "stopping", "muting", "unmuting", "adjusting", "changing", "lowering", "raising",
    "increasing", "decreasing", "reducing", "skipping", "resuming", "closing", "switching",
    "sending", "calling", "booking", "typing", "copying", "saving", "deleting", "creating",
    "adding", "navigating", "searching", "browsing", "loading", "executing",
    "installing", "ordering", "removing", "cancelling", "canceling", "scheduling", "dialing",
    "dialling", "texting", "messaging", "emailing", "locking", "unlocking", "restarting",
    "shutting", "enabling", "disabling", "bringing", "pulling", "cranking", "dimming",
    "brightening", "boosting", "silencing", "putting", "reminding", "recording", "going ahead",
)
_PAST: Final = (
    "set", "turned", "opened", "launched", "started", "played", "paused", "stopped", "muted",
    "unmuted", "adjusted", "changed", "lowered", "raised", "increased", "decreased",
    "reduced", "skipped", "resumed", "closed", "switched", "sent", "called", "booked",
    "typed", "copied", "saved", "deleted", "created", "added", "navigated", "searched",
    "loaded", "executed", "installed", "ordered", "removed", "cancelled", "canceled",
    "scheduled", "dialed", "dialled", "texted", "messaged", "emailed", "locked", "unlocked",
    "restarted", "shut", "enabled", "disabled", "brought", "pulled", "cranked", "dimmed",
    "brightened", "boosted", "silenced", "put", "reminded", "recorded", "done",
    "gone ahead", "went ahead",
)


def _alt(words: tuple[str, ...]) -> str:
    return "|".join(sorted({re.escape(w) for w in words}, key=len, reverse=True))


_FILLER: Final = r"(?:(?:now|just|also|already|quickly|gone\s+ahead\s+and|go\s+ahead\s+and)\s+)*"
_END: Final = (r"\b(?!\s+(?:with|by|over|again|from|thinking|to\s+think|off\s+with|to\s+that"
                r"|that\s+(?:the|a|an|it|this|these|those|there|you|we|they|he|she|i)"
                r"|it\s+(?:simply|plainly|differently|another\s+way|this\s+way|like\s+this)"
                r"|the\s+(?:scene|record|stage|tone))\b)")
"""A verb's end, unless it starts an explanation ('let me start with', 'let me put it
simply', 'let me add that the tower ...', 'let me set the scene')."""
_FIRST_PERSON: Final = re.compile(
    rf"\b(?:i'm|i\s+am|we're|we\s+are)\s+{_FILLER}(?:going\s+to\s+{_FILLER}(?:{_alt(_BASE)})"
    rf"|(?:{_alt(_ING)})){_END}"
    rf"|\b(?:i'll|i\s+will|we'll|let\s+me|i'm\s+about\s+to)\s+{_FILLER}(?:{_alt(_BASE)}){_END}"
    rf"|\b(?:i've|i\s+have|we've|i\s+just|i)\s+{_FILLER}(?:{_alt(_PAST)}){_END}",
    re.IGNORECASE)
"""'I'm setting', "I'll open", "I've paused", 'let me turn', 'I just muted'."""
_OPENER: Final = r"^(?:(?:sure|okay|ok|alright|all\s+right|right|certainly|of\s+course|got\s+it" \
                 r"|no\s+problem|absolutely|great|yes|yep|there\s+you\s+go)[,.!]?\s+)*"
_GERUND_START: Final = re.compile(rf"{_OPENER}(?:now\s+)?(?:{_alt(_ING)})\b", re.IGNORECASE)
"""'Opening example.org', 'Sure, setting the volume to 30 percent.'"""
_GERUND_SUBJECT: Final = re.compile(
    r"\b(?:is|are|was|were|can|could|takes?|requires?|helps?|means?|needs?|makes?|should"
    r"|will|would|may|might|must|has|does|goes|starts|begins|works|depends|involves|gives"
    r"|lets|keeps|comes|uses|seems|costs|allows|remains|becomes|saves|reduces|causes)\b",
    re.IGNORECASE)
"""A gerund as the subject of a sentence ('Setting up a garden is easy') claims nothing."""
_DONE: Final = re.compile(
    rf"{_OPENER}(?:all\s+)?done\b|\b(?:has|have)\s+been\s+(?:{_alt(_PAST)})\b"
    r"|\b(?:is|are)\s+now\s+(?:set|muted|unmuted|paused|playing|open|opened|on|off|at|"
    r"running|started|stopped|closed|turned)\b",
    re.IGNORECASE)
"""'Done.', 'The volume has been set', 'the music is now paused'."""
_NOT: Final = re.compile(r"\b(?:not|never|can't|cannot|can\s+not|couldn't|unable|won't|don't"
                         r"|didn't|haven't|no\s+way|if\s+you|would\s+you|shall\s+i|should\s+i"
                         r"|do\s+you\s+want|want\s+me\s+to|could\s+you|you\s+can)\b",
                         re.IGNORECASE)
"""Refusals, questions and instructions to the user: they claim nothing."""
_POLITE: Final = re.compile(r"^(?:(?:please|hey|ok|okay|so|now|um|uh|sure|alright|all right|right"
                            r"|of course|certainly|absolutely|no problem|yes|yeah)[,.! ]+)*"
                            r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
                            r"|i(?:'d|\s+would)\s+like\s+you\s+to\s+|i\s+(?:want|need)\s+you\s+to\s+"
                            r"|go\s+ahead\s+and\s+)?(?:please\s+)?",
                            re.IGNORECASE)
_IMPERATIVE: Final = re.compile(rf"^(?:{_alt(_BASE)})\b", re.IGNORECASE)
_WORD: Final = re.compile(r"[a-z0-9']+")
ECHO_SHARE: Final = 0.7
"""A reply that repeats at least this share of an imperative request's words parrots it."""
CLAUSE_SHARE: Final = 0.8
"""A clause, starting with the request's verb, made of at least this share of its words."""


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def request_verb_phrase(request: str) -> str:
    """The imperative part of a request ('set the volume to thirty percent'), or ''."""
    text = _POLITE.sub("", request.strip()).strip().rstrip(".!?")
    return text[0].lower() + text[1:] if text and _IMPERATIVE.match(text) else ""


def echoes_request(clause: str, request: str) -> bool:
    """True when ``clause`` parrots an imperative ``request`` back as its own words.

    The clause starts with the request's own verb and its words are nearly all the
    request's (a first chunk, "Open the example dot", is cut before the sentence ends), or
    mostly the request's while it repeats most of the request. An instruction in other words
    ("Open your browser and type example dot org") is not a parrot.
    """
    phrase = request_verb_phrase(request)
    said = _words(_POLITE.sub("", clause.strip()))
    if not phrase or not said or said[0] != _words(phrase)[0]:
        return False
    asked = _words(request)
    from_request = sum(w in asked for w in said) / len(said)
    repeated = sum(w in said for w in asked) / len(asked)
    return from_request >= CLAUSE_SHARE or (repeated >= ECHO_SHARE
                                            and from_request >= ECHO_SHARE)


def claims_action(clause: str, request: str = "") -> bool:
    """True when ``clause`` says the assistant did, is doing or will now do an action.

    Args:
        clause: A clause of the model's reply, as it is about to be spoken.
        request: The user's request of the turn (a parroted imperative is a claim too).
    """
    text = clause.replace("’", "'").strip()
    if not text:
        return False
    if echoes_request(text, request):
        return True
    if _NOT.search(text):
        return False
    gerund = _GERUND_START.search(text) is not None and not _GERUND_SUBJECT.search(text)
    return bool(gerund or _FIRST_PERSON.search(text) or _DONE.search(text))


def asks_action(request: str, catalog: Catalog = BUILTIN) -> bool:
    """True when ``request`` could ask for an action (an action's verb first, or a tool).

    It opens with an action's verb ("open ...", "could you turn it down"), or a tool's rule
    offers a tool for it. Only then is a reply checked for claimed actions. An action's verb
    elsewhere asks for none: "What is a good way to save money?" may be answered "Saving
    money starts with a budget", "Write a poem about turning off the lights" with "I turned
    off the lights".
    """
    text = " ".join(request.replace("’", "'").split())
    return bool(text) and (bool(request_verb_phrase(text))
                           or any(tool.offered(text) for tool in catalog))


def tool_for(request: str, catalog: Catalog = BUILTIN,
             available: frozenset[str] | None = None) -> str:
    """The catalog's tool that ``request`` plainly asks for, or ''.

    Plainly: its router rule offers it and its words rule reads the arguments (or it takes
    none and its rule is sure), so "set the volume" is not a timer because of "set". With
    ``available``, only those tools count (the ones this run of the app has).
    """
    for tool in catalog:
        if available is not None and tool.name not in available:
            continue
        if tool.offered(request) and (arguments_from_words(tool.name, request, catalog)
                                      or tool.alone_is_sure):
            return tool.name
    return ""


def unbacked_reply(request: str, catalog: Catalog = BUILTIN,
                   available: frozenset[str] | None = None) -> str:
    """What is said instead of an action claimed with no tool run behind it.

    When a tool exists for the request (in ``available`` when given), that it did not run;
    otherwise what the app cannot do, in the request's own words when it is an imperative.
    """
    tool = tool_for(request, catalog, available)
    if tool:
        return (f"Sorry, I didn't do that: the {tool.replace('_', ' ')} tool did not run, "
                "so nothing has changed.")
    phrase = request_verb_phrase(request)
    if phrase:
        return f"Sorry, I can't {phrase} from here, so nothing has changed."
    return "Sorry, I can't do that from here, so nothing has changed."
