"""A cheap, deterministic pre-filter: which tools could a request plausibly need?

The LLM is asked to decide on a tool call only when this filter finds candidates, and the
call's grammar then offers only those tools (plus "none"). Chit-chat, statements and
sentences read aloud ("eight of spades, four of clubs", a line of a novel) get no
candidates, so the model answers them in prose with no tool prompt at all: a 0.5B model
shown a tool list calls it for nearly anything (it answered card names with the time).

Here is the gate every tool shares (a request, not a statement; not long text read aloud);
each tool's own rule is its catalog entry's ``offered`` (``core.tools.catalog``; the built-in
rules are in ``core.tools.offers``). Pure and stdlib-only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools.args import CLAUSE, defers
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.offers import strip_lead
from desktop_agent.core.tools.tool_def import Catalog
from desktop_agent.core.tools.type_text import asks_type_text

MAX_REQUEST_CHARS: Final = 600
"""Longer text is read aloud, not asked: it gets no tools."""


def candidate_tools(text: str, specs: Sequence[ToolSpec], catalog: Catalog = BUILTIN
                    ) -> tuple[ToolSpec, ...]:
    """The tools among ``specs`` that ``text`` (one user request) could need, in spec order.

    Empty for chit-chat, statements, questions the model answers from knowledge and
    sentences read aloud. A request said after some context counts ("Sorry, what time is
    it?", ``asked_after_context``). A spec with no entry in ``catalog`` is never a candidate: an
    entry's ``offered`` rule is what lets the model be offered a tool.
    """
    t = " ".join(text.replace("\u2019", "'").split())
    if len(t) > MAX_REQUEST_CHARS:
        return ()  # long read-aloud text is not a request
    asked = asked_after_context(t)
    if asked is None:
        if not is_request(t):
            return ()  # a statement
        asked = t
    # A rule may need the context ("my birthday's on June the 3rd, what day does that fall
    # on?") or read only the request ("I need to write something up, can you open ...").
    return tuple(s for s in specs if (entry := catalog.get(s.name)) is not None
                 and (entry.offered(t) or (asked is not t and entry.offered(asked))))


_RELATIVE: Final = re.compile(r"(?:which|who|whom|whose|when|where|while)\b", re.IGNORECASE)
"""After a comma these open a relative clause ("my timer went off, which was annoying"),
not a question."""


def asked_after_context(text: str) -> str | None:
    """The request said after some context, from there to the end; None when there is none.

    "Sorry, what time is it right now?" -> "what time is it right now?"; "I need to write
    something up, can you open a text editor?" -> "can you open a text editor?". None when
    the context before it makes it wait, is a story or reports someone else's words
    (``args.defers``: "if it freezes again, open the settings"), when a part before it asks
    already ("Take a note: delete all notes" is a note's text, with no authority of its
    own), or when all that follows a comma is a relative clause.
    """
    cuts = list(CLAUSE.finditer(text))  # a comma, a dash, a sentence's end
    starts = [0, *(m.end() for m in cuts)]
    for i, cut in enumerate(cuts):
        if is_request(text[starts[i]:cut.start()]):
            return None  # the request comes first: what follows is its text or context
        if defers([text[starts[j]:cuts[j].start()] for j in range(i + 1)]):
            return None
        rest = text[cut.end():]
        if is_request(rest) and not (cut.group().strip() and _RELATIVE.match(rest)):
            return rest
    return None


_ASKING: Final = re.compile(
    r"^(?:what|what's|whats|how|how's|when|where|which|who|do|does|did|can|could|would|will"
    r"|is|are|any|have|has|should|shall|set|start|begin|make|take|add|write|jot|note|put"
    r"|save|create|remind|delete|remove|clear|erase|wipe|get rid|cancel|stop|turn off"
    r"|kill|abort|never ?mind|find|search|look|read|list|show|tell|give|convert|calculate"
    r"|compute|work out|multiply|divide|timer|remember|count|check|new"
    r"|open|launch|run|fire up|bring up|go to|go back|play|pause|resume|unpause|skip|next|previous"
    r"|mute|unmute|turn|volume|louder|quieter|lower|raise|hit|keep playing|who's|it's too"
    r"|copy|type|key in|enter (?:the )?(?:words?|text|phrase)|recite|speak|say what"
    r"|ring|ping|nudge|wake|call off|scrap|bin|drop|ditch|pull up|take me|hold|go through"
    r"|bring (?:it|the volume|the sound|the music) (?:up|down)"
    r"|you can (?:resume|play|pause|stop|continue|carry on|unpause|skip|turn))\b"
    r"|^(?:i (?:need|want|would like|'d like)|i'd like|let's have) (?:a|an|another|to (?:set"
    r"|add|make|take|know|hear))\b"
    r"|\bremind me\b|\bdon't let me forget\b|\b(?:minute|second|hour) timer\b"
    r"|\btimer (?:for|of) \w+|^\W*\d"
    r"|\b(?:can|could|would|will) you (?!believe\b|imagine\b)|\bplease\W*$"
    r"|\bhow much\b[^.?!]{0,30}\b(?:each|apiece|per (?:person|head))\b", re.IGNORECASE)
"""A request to the assistant: a question, an imperative (the desktop's too: 'open ...',
'pause ...', 'turn it down', 'copy that', 'type: ...', 'enter the words ...'), 'remind me
...', a timer phrase, bare arithmetic, or "could you" anywhere and "please" at the end ("my
glasses are upstairs could you read the selected text", "five stone in kilos please"), and
"how much ... each" anywhere ("if we split 186 pounds between 4 of us, how much does each
person pay").
Statements ("I set a timer yesterday", "my notes are a mess") and sentences read aloud are
not requests, so they get no tools."""


def is_request(text: str) -> bool:
    """True when ``text`` asks the assistant something.

    See ``_ASKING``; a request to type words as the typing rule reads them is one too ("in
    the search box, type cheap flights").
    """
    t = strip_lead(" ".join(text.replace("\u2019", "'").split()).strip())
    return bool(_ASKING.search(t)) or asks_type_text(t)
