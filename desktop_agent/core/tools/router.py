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
from desktop_agent.core.tools.args import CLAUSE, INTERJECTION, defers
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.offers import bare_timer, strip_lead
from desktop_agent.core.tools.slips import as_meant, unaddressed
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
    t = unaddressed(as_meant(" ".join(text.replace("\u2019", "'").split())))
    if len(t) > MAX_REQUEST_CHARS:
        return ()  # long read-aloud text is not a request
    asked = asked_after_context(t)
    if asks_no_tool(asked or t):
        return ()  # a story, a memory shared, how the world works: no tool's to answer
    if asked is None:
        if not is_request(t):
            return ()  # a statement
        first = asked_before_context(t)
        if first is not None:  # "remind me at six to ring mum? She'll kill me if I forget"
            read = tuple(s for s in specs if (entry := catalog.get(s.name)) is not None
                         and entry.offered(first))
            if read:
                return read
        asked = t
    # A rule may need the context ("my birthday's on June the 3rd, what day does that fall
    # on?") or read only the request ("I need to write something up, can you open ...").
    return tuple(s for s in specs if (entry := catalog.get(s.name)) is not None
                 and (entry.offered(t) or (asked is not t and entry.offered(asked))))


_NO_TOOL_ASKED: Final = re.compile(
    r"(?:tell|give|write|make up|sing|read|invent)(?: me| us| my \w+)? (?:a|an|another)"
    r"(?: \w+){0,2}? (?:story|joke|poem|song|limerick|riddle|haiku|fairy ?tale|bedtime story)\b"
    r"|(?:do you |you )?remember (?:that|the|when|how) \w+(?: \w+)? (?:i|we|you|they)\b"
    r"|(?:how|why) (?:does|do|did|is|are|was|were|would) (?!i\b|you\b|my\b|our\b|it\b)"
    r"|what does (?:\w+ ){1,3}mean\b|what(?:'s| is) the difference between\b"
    r"|i (?:really )?(?:hate|love|like|can't stand) (?:it )?(?:that|when|how)\b"
    r"|(?:which|what)(?: one)?(?:'s| is) better\b|explain (?:to me )?(?:what|how|why)\b"
    r"|how (?:do|would) (?:you|i|we) say\b|(?:would|wouldn't|is|isn't) (?:that|it|this)"
    r" (?:be )?(?:a |an )?(?:\w+ )?(?:idea|safe|wise|sensible|smart|stupid|silly|dangerous"
    r"|risky)\b"
    r"|is (?:that|this|it) (?:actually |really |even )?true\b"
    r"|what(?:'s| is| was) the (?:date|year) (?:of|when)\b"
    r"|who (?:sang|wrote|composed|recorded) (?!this\b|it\b)"
    r"|how long (?:should|would) (?:i|you|we)\b"
    r"|how (?:do|can|would|should) (?:i|you|we|people) (?:[\w']+ ){1,6}?on "
    r"(?:a|an|my|your|their) (?!computer\b|laptop\b|pc\b|desktop\b|machine\b|screen\b)"
    r"|is (?:[\w%']+ ){1,8}?(?:safe|bad|healthy|dangerous|harmful) (?:for|to)\b",
    re.IGNORECASE)
"""Asked of the assistant itself, whatever it mentions: a story or a joke ("tell me a short
story about a cat who sets timers"), a memory shared ("remember that timer I set for the
cake last week?"; not "remember that the spare key is under the mat"), how the world works
("how does a microwave know when to stop?"; "how do I ...", "how does my ..." may still
ask), what a word means ("what does mute mean in music?"), an opinion ("I hate that
reminder apps always nag me", "which is better for taking notes, a notebook or a
laptop?"), an explanation ("explain what a clipboard is"), a translation ("how do you say
good morning in Hindi?"), an opinion on an idea ("suppose I saved my passwords in a note,
would that be a silly idea?"), a date in history ("what's the date of the Battle of
Hastings?": the clock knows only today's), who made a song ("who sang that song that goes
..."; not "who sang this?"), advice ("how long should I rest a steak?", "is 60 percent
volume on airpods safe for your ears?"), and a claim to be checked ("my mate says the
volume on max drains the battery, is that true?": the question after its context is what
is asked), and how to do it oneself on another device ("how do I turn the volume up on my
hearing aid?", "how do I copy and paste on a Mac?"; not "... on my laptop")."""


_PAST: Final = re.compile(r"\b(?:yesterday|earlier|last (?:night|week|month|year|time)|lately"
                         r"|the other day|ago|already)\b", re.IGNORECASE)
"""A time gone by: a statement that tells of it ("I wrote a note to my landlord yesterday")
tells a story, and so does what is done already ("I set an alarm for six already, don't
worry"); nothing is asked to be done now."""


def asks_no_tool(text: str) -> bool:
    """True when ``text`` asks what no tool answers, or tells of the past and asks nothing.

    ``_NO_TOOL_ASKED``, or a statement of a time gone by (``_PAST``): whatever tools its
    words mention, neither the rules nor the meaning match offer one.
    """
    t = " ".join(text.replace("\u2019", "'").split())
    return bool(_NO_TOOL_ASKED.match(strip_lead(t))) or (
        "?" not in t and _PAST.search(t) is not None and not is_request(t))
_RELATIVE: Final = re.compile(r"(?:which|who|whom|whose|when|where|while)\b"
                              r"(?!(?:'s|\s+(?:even\s+)?is)\s+(?:this|that|it)\W*$)", re.IGNORECASE)
"""After a comma these open a relative clause ("my timer went off, which was annoying"),
not a question; "..., who even is this" is one."""


_AMOUNT_ASK: Final = re.compile(r"(?:how (?:much|many)|what(?:'s| is| does) (?:that|it|the total)"
                                r")\b", re.IGNORECASE)
"""A question of an amount, which a condition before it sets up rather than puts off."""


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
    # "if I've got 23 quid and I spend 7.49, how much have I got left?": the condition is
    # the question's premise, not a reason to wait
    premised = bool(_AMOUNT_ASK.match(strip_lead(text[starts[-1]:])))
    for i, cut in enumerate(cuts):
        if is_request(text[starts[i]:cut.start()]):
            return None  # the request comes first: what follows is its text or context
        if not premised and defers([text[starts[j]:cuts[j].start()] for j in range(i + 1)]):
            return None
        rest = text[cut.end():]
        if i + 1 < len(cuts) and INTERJECTION.match(text[cut.end():cuts[i + 1].start()]):
            continue  # "..., erm, open Word": the request begins after the filler
        if is_request(rest) and not (cut.group().strip() and _RELATIVE.match(rest)):
            return _own_start(text, cuts[i + 1:], rest)
    return None


def _own_start(text: str, later: Sequence[re.Match[str]], rest: str) -> str:
    """``rest`` from the clause where its asking starts.

    "so I've got the dentist on Thursday, could you remind me Wednesday evening to ..." is a
    request by its "remind me", but its first clause is more context: the request starts
    at "could you". ``rest`` as it is when its first clause asks, or no later part does.
    """
    start = len(text) - len(rest)
    for cut in later:
        if is_request(text[start:cut.start()]):
            return text[start:]
        if _SENTENCE_END.search(cut.group()) is None and is_request(text[cut.end():]) \
                and not _RELATIVE.match(text[cut.end():]):
            start = cut.end()
        else:
            break
    return text[start:]


_SENTENCE_END: Final = re.compile(r"(?<=[.?!])\s+")


def asked_before_context(text: str) -> str | None:
    """The request's own sentence when the sentences after it only tell why; else None.

    "Can you remind me to ring my mum at half six tonight? She'll kill me if I forget
    again." -> the first sentence: the tools are the request's, not those its reasons
    mention ("kill" is no timer to cancel). None for one sentence, when the first does
    not ask, or when a later one asks too ("Set a timer. Make it ten minutes.").
    """
    first, *rest = _SENTENCE_END.split(text.strip())
    if not rest or not is_request(first) or any(is_request(s) for s in rest):
        return None
    return first


_WORD_NUMBER: Final = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
                      r"|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty"
                      r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred|a thousand")
"""A number said in words, as bare arithmetic opens ("three hundred and twelve divided by
eight?")."""
_ASKING: Final = re.compile(
    r"^(?:what|what's|whats|how|how's|when|where|which|who|do|does|did|can|could|would|will"
    r"|is|are|any|have|has|should|shall|set|start|begin|make|take|add|write|jot|note|put"
    r"|save|create|remind|delete|remove|clear|erase|wipe|get rid|cancel|stop|turn off"
    r"|kill|abort|never ?mind|find|search|look|read|list|show|tell|give|convert|calculate"
    r"|compute|work out|multiply|divide|timer|time (?=me\b|an?\b|half\b|\d)|remember|count|check"
    r"|new"
    r"|open|launch|run|fire up|bring up|go to|go back|play|pause|resume|unpause|skip|next|previous"
    r"|mute|unmute|turn|volume|louder|quieter|lower|raise|reduce|increase|decrease|hit"
    r"|keep playing|who's|it's too"
    r"|copy|type|key in|enter (?:the )?(?:words?|text|phrase)|recite|speak|say what"
    r"|ring|ping|nudge|wake|call off|scrap|bin|drop|ditch|pull up|take me|hold|go through"
    r"|bring (?:it|the volume|the sound|the music) (?:up|down)|bump|crank|carry on|keep going"
    r"|get (?=\S+(?: \S+){0,3} (?:going|open|on|onto|up|back on|started)\b)"
    r"|(?:stick|pop|whack|chuck|bung) (?=(?:a|an|the|that|this|it|on|some|my|\d)\b)"
    r"|move on|back it up"
    r"|(?:double|halve|triple) (?=[$£€]?(?:\d|(?:a |one |two |three |four |five |six |seven |eight"
    r"|nine |ten |twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)))"
    r"|you can (?:resume|play|pause|stop|continue|carry on|unpause|skip|turn|tell me|cancel"
    r"|delete|remove|open|type|copy|mute|unmute))\b"
    r"|(?:\b(?:so|and|now)|,) you can (?:cancel|delete|remove|get rid of|stop|turn|open|type|copy"
    r"|kill|scrap|ditch|bin"
    r"|mute|unmute"
    r"|resume|play|pause|carry on)\b"
    r"|\bwondering (?:if|whether) you (?:could|can|would|might)\b"
    r"|^(?:it'd|it would|that'd|that would) be (?:great|grand|lovely|nice|good|brilliant|ace"
    r"|handy|helpful) if (?:you (?:could|would)\b|(?:the|my) (?:computer|sound|volume|music"
    r"|laptop) (?:was|were) (?:a (?:bit|little|wee bit) )?(?:quieter|louder|softer|lower)\b)"
    r"|^(?:i (?:need|want|would (?:like|love))|i'd (?:like|love)|let's have)"
    r" (?:a|an|another|the (?:time|date)|to (?:set|add|make|take|know|hear))\b"
    r"|^(?:any |my |the )?notes? (?:mentioning|about|with|on|that mention|containing)\b"
    r"|^let'?s (?:get|put|have|hear|play|listen)\b|^back (?:a|one) "
    r"|^(?:a )?(?:quick )?note (?:for|about|on)\b[^:?]{1,40}:"
    r"|^(?:i (?:want|need|would like)|i'd like|can i have|let me have|lemme have)"
    r" (?:that|it|this|the|my)"
    r" (?:[\w']+ ){0,3}?(?:copied|open|opened)\b"
    r"|\bremind me\b|\bdon't let me forget\b|\bgive me a nudge\b|\bnudge me\b"
    r"|\b(?:times|multiply) (?:that|it) by\b"
    r"|\b(?:jot|write|note) (?:this|that|it) down(?: for me)?:"
    r"|\bi (?:want|need|would like) to be reminded\b|\bwhich day of (?:the )?week\b"
    r"|\b(?:falls?|lands?) on what day\b"
    r"|\b(?:minute|second|hour) timer\b|\b(?:minutes?|seconds?|hours?|mins?),? (?:the |a |my )?"
    r"[a-z]+ timer\W*$"
    r"|\btimer (?:for|of) \w+|^\W*\d|^[a-z]+ timer, "
    r"|\b(?:can|could|would|will) you(?:\s+(?!believe\b|imagine\b)|\W*$|,)|\bplease\W*$"
    rf"|^(?:{_WORD_NUMBER})\b[^.?!]{{0,40}}?\b(?:times|plus|minus|divided by|multiplied by)"
    rf"\s+(?:{_WORD_NUMBER}|\d)(?![^?]*\b(?:is|equals|makes|was)\s+\S)"
    r"|\bhow much\b[^.?!]{0,30}\b(?:each|apiece|per (?:person|head))\b"
    r"|\b(?:each|apiece)\b,?\s+(?:and\s+)?(?:(?:uh+|um+),?\s+)?(?:how much|what(?:'s| is| does))\b",
    re.IGNORECASE)
"""A request to the assistant: a question, an imperative (the desktop's too: 'open ...',
'pause ...', 'turn it down', 'copy that', 'type: ...', 'enter the words ...'), 'remind me
...', a timer phrase, bare arithmetic (in words too), or "could you" anywhere (at the end too:
"bump the volume up would you?") and "please" at the end ("my
glasses are upstairs could you read the selected text", "five stone in kilos please"), and
"how much ... each" anywhere ("if we split 186 pounds between 4 of us, how much does each
person pay"), "I was wondering if you could ...", "... so you can cancel that pizza timer",
and "time" before a duration ("can you time 45 seconds for the plank").
Statements ("I set a timer yesterday", "my notes are a mess") and sentences read aloud are
not requests, so they get no tools."""


def is_request(text: str) -> bool:
    """True when ``text`` asks the assistant something.

    See ``_ASKING``; a request to type words as the typing rule reads them is one too ("in
    the search box, type cheap flights").
    """
    t = strip_lead(" ".join(text.replace("\u2019", "'").split()).strip())
    return bool(_ASKING.search(t)) or asks_type_text(t) or bare_timer(t)
