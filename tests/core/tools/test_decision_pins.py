"""The tool decision, pinned to its output before the catalog: behaviour unchanged, proven.

``tests/data/tools/decision_pins.json`` was captured from the code as it stood before the
tools became catalog entries: for every utterance of the tool sets (dev, held-out, the router
and argument tests), the tools the router offered and the arguments cut from the words; for
every set of tools offered, the decision note. Prompt-prefix caching and the model's choices
depend on these bytes, so they must not move. The routing and arguments were re-pinned
once since, for issue 24, when the rules were widened on purpose (arithmetic asked with a
verb, durations, moments and quantities anywhere in a request, more verbs); the notes were
not. (The grammars are pinned in
``tests/adapters/llm/test_call_grammar.py``: converting them needs llama.cpp.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from desktop_agent.core.tools.args import arguments_from_words
from desktop_agent.core.tools.decision import decision_note
from desktop_agent.core.tools.offers import strip_lead
from desktop_agent.core.tools.router import candidate_tools, is_request
from desktop_agent.core.tools.specs import BUILTIN_SPECS

PINS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "data" / "tools" / "decision_pins.json").read_text("utf-8"))
_BY_NAME = {s.name: s for s in BUILTIN_SPECS}
_OLD = set(PINS["utterances"][0]["words"])
"""The tools that existed when the pins were captured."""
NEW_OFFERS: dict[str, list[str]] = {
    "what day is the 14th": ["day_of_week"],
    "what day of the week was the 3rd of March 2021": ["day_of_week"],
    "is Christmas a Sunday this year?": ["day_of_week"],  # a day by name (issue 24)
    "does the first of May fall on a weekend this year": ["day_of_week"],  # "a weekend"
    "July fourth next year, what day does that land on?": ["day_of_week"],  # after context
    "erm, which weekday is New Year's Day 2030": ["day_of_week"],  # "erm" opens it (SAID_IN_WORDS)
}
"""Pinned utterances that a tool added since is offered for too (on purpose: these ask
for a weekday). The desktop's tools (``DESKTOP_TOOLS``) are offered for requests that ask
for them, which were no requests to a tool before. Every other utterance is offered exactly
what it was."""


CLOCK_CHANGED: dict[str, list[str]] = {
    "which time zone are you set to?": ["get_current_time"],  # the clock's zone
    "what day is the 14th": [],  # a date's weekday: day_of_week alone
    "what time does Tesco close on Sundays": [],  # another thing's time, not now's
}
"""Pinned utterances whose clock offer changed on purpose (issue 24, tenth session): "what
time", "which day" followed by another subject ("does Tesco close", "is the 14th") no longer
asks the clock (before, "what year did the Titanic sink" was answered with today's date),
and "which time" asks it as "what time" does."""


AFTER_CONTEXT: dict[str, list[str]] = {
    "sorry, what day is it today?": ["get_current_time"],
    "quick one, 15 percent of 80?": ["calculate"],
    "three hundred and twelve minus eighty-seven, what's that": ["calculate"],
    "I'm six feet tall, what's that in metres?": ["convert_units"],
}
"""Pinned utterances offered their tool on purpose since a request said after some context
counts (issue 24, eleventh session: ``router.asked_after_context``); they got none before."""


POLITE: dict[str, list[str]] = {
    "stick that on the clipboard please": [],
    "current time in Berlin please": ["get_current_time"],
    "twelve ounces to grams please": ["convert_units"],
}
"""Pinned utterances that are requests on purpose since "please" at the end or "could you"
inside makes one (issue 24, eleventh session), with the tools now offered."""


REMEMBER_THAT: dict[str, list[str]] = {
    "remember that the wifi password is blue giraffe 42": ["add_note"],
    # notes named by what was saved ("did I save anything about the plumber"; the tuning
    # sets' "wipe everything I've saved", "have I saved anything about insurance")
    "did I write anything down about the plumber": ["search_notes", "add_note"],
    "did I write anything down about the car": ["search_notes", "add_note"],
}
"""Pinned utterances offered note tools on purpose (issue 24, twelfth session): "remember that
..." asks for a new note (the issue's own example and two lines of the tuning sets), and notes
are named by what was saved or written down (lines of the tuning sets). These pinned lines,
which got no tool before, were seen only here, when the pins failed."""


SAID_IN_WORDS: dict[str, list[str]] = {
    "three hundred and twelve minus eighty-seven, what's that": ["calculate"],
    "seven squared plus three?": ["calculate"],
    "Seven times eight?": ["calculate"],
    "erm, which weekday is New Year's Day 2030": [],
}
"""Pinned utterances that are requests on purpose since bare arithmetic in words asks, as in
digits did ("Quick one, uh, three hundred and twelve divided by eight?" of the fifth tuning
set), and "erm" opens a request as "um" did (issue 24, thirteenth session). These pinned
lines were seen only here, when the pins failed."""


ASKS_NO_TOOL: dict[str, list[str]] = {
    "What's the difference between a timer and a stopwatch?": [],
}
"""A pinned utterance offered no tool on purpose since "what's the difference between ..."
asks about the world, whatever tools it names (``router.asks_no_tool``, issue 24, thirteenth
session, for the tuning set's "what's the difference between a mile and a kilometre"); seen
only here, when the pins failed."""


TIME_AND_LEAD: dict[str, list[str]] = {
    "quick one, 15 percent of 80?": ["calculate"],
    "can you time 4 minutes for the tea": ["set_timer"],
}
"""Pinned utterances that are requests on purpose since "quick one" opens a request as
"quick" did and "time" followed by a duration asks for a timer ("can you time 45 seconds for
the plank" of the second tuning set; issue 24, fourteenth session). These pinned lines were
seen only here, when the pins failed."""


NUDGE: dict[str, list[str]] = {"could you nudge me at 3:15 to pick the kids up": ["set_reminder"],
                               "add up 12.50, 8.99 and 23": ["calculate"]}
"""A pinned utterance offered a reminder on purpose since "nudge me" and "give me a nudge" ask
for one as "remind me" does (issue 24, fifteenth session, for "at five o'clock give me a
nudge to fill in the passport form" of the seventh tuning set), and one offered the
calculator since "add" followed by a number asks for a sum ("just add 1,450 and 2,380 and
975" of the tenth); seen here when the pins failed."""


PERCENT_ALONE: dict[str, list[str]] = {"set the volume to 40 percent": []}
"""A pinned utterance no longer offered the calculator since a percentage with nothing to take
it of (one number, "percent" the only operator) is no calculation (issue 24, sixteenth
session, for "is twenty percent a normal tip in America?" of the eleventh tuning set, which
the calculator answered "20%"); seen here when the pins failed."""


LABEL_FIRST: dict[str, list[str]] = {"pasta timer, eleven minutes": ["set_timer"]}
"""A pinned utterance offered a timer on purpose since a timer named first and then its
duration asks for it ("parking timer, one hour fifty, ..." of the thirteenth tuning set;
issue 24, sixteenth session); seen here when the pins failed."""


GET_ASKED: frozenset[str] = frozenset({"could you get the file manager up for me",
                                       "pasta timer, eleven minutes"})
"""Pinned utterances that are requests on purpose since "get", "stick", "pop" open one ("get
the music going again", "stick the music back on" of the eleventh and twelfth tuning sets),
and so does a timer named first ("pasta timer, eleven minutes"; issue 24, sixteenth
session)."""


EACH_ASKED: frozenset[str] = frozenset({"if we split 96 quid six ways how much is that each"})
"""A pinned utterance that is a request on purpose since "how much ... each" anywhere asks
(issue 24, twelfth session, for a bill split "between" some people); no tool offered."""


ARGS_CHANGED: dict[tuple[str, str], dict[str, str]] = {
    ("add_note", "write this down, um, mum wants the blue scarf not the green one"):
        {"text": "mum wants the blue scarf not the green one"},
    ("add_note", "note to self, never buy that brand of coffee again"):
        {"text": "never buy that brand of coffee again"},
    ("search_notes", "did I write anything down about the plumber"): {"query": "plumber"},
    ("search_notes", "did I write anything down about the car"): {"query": "car"},
    ("set_timer", "um, set a timer for an hour and a half, it's for the roast"):
        {"duration": "an hour and a half", "label": "roast"},
    ("set_timer", "give me a 90 second countdown"): {"duration": "90 second"},
    ("set_timer", "pasta timer, eleven minutes"): {"duration": "eleven minutes", "label": "pasta"},
    ("calculate", "three hundred and twelve minus eighty-seven, what's that"):
        {"expression": "three hundred and twelve minus eighty-seven"},
}
"""Arguments changed on purpose: a hesitation ("um", "uh") inside a request is dropped before
the rules read it, so it is not saved in a note either (issue 24, tenth session); "note to
self" opens a note and is not in it (twelfth session, found on the tuning set's "Note to
self, buy more printer ink."); a timer's label after "it's for" (fifteenth session, found on
the tenth tuning set's "S-s-set a timer for, for 8 minutes, it's f-for the eggs"); a
duration before "countdown" (sixteenth session, the twelfth set's "start a twenty minute
countdown for the boerewors"), the timer named first (the thirteenth's "parking timer, one
hour fifty"), and a sum said before "what's that" (the fourteenth's "twelve cubed, what's
that?")."""


DESKTOP_VERBS = re.compile(
    r"^(?:open|launch|run|fire up|bring up|go to|go back|play|pause|resume|unpause|skip|next"
    r"|previous|mute|unmute|turn|volume|louder|quieter|lower|raise|hit|keep playing|who's"
    r"|it's too|copy|type|key in|recite|speak|bump|crank|carry on|keep going)\b",
    re.IGNORECASE)
"""The desktop's imperatives ('copy that', 'type: ...' since the selection and typing tools),
requests since the desktop tools (issue 21): a pinned
utterance that starts with one was no request then and is one now, on purpose."""


DESKTOP_TOOLS = frozenset({"set_volume", "media_control", "now_playing", "open_app",
                           "open_location", "read_selection", "copy_last_answer", "type_text"})


def _first(diffs: list[str]) -> str:
    return f"{len(diffs)} differ, e.g.:\n" + "\n".join(diffs[:8])


def test_the_pins_cover_every_old_tool_and_many_utterances() -> None:
    assert len(PINS["utterances"]) > 300
    offered = {n for u in PINS["utterances"] for n in u["candidates"]}
    assert offered == _OLD and _OLD <= set(_BY_NAME)


def test_the_router_offers_the_same_tools() -> None:
    diffs, added = [], {}
    for u in PINS["utterances"]:
        got = [s.name for s in candidate_tools(u["text"], BUILTIN_SPECS)]
        old = [name for name in got if name in _OLD]
        request = is_request(u["text"])
        newly = request and not u["is_request"] and (
            DESKTOP_VERBS.match(strip_lead(u["text"])) or u["text"] in POLITE
            or u["text"] in EACH_ASKED or u["text"] in SAID_IN_WORDS
            or u["text"] in TIME_AND_LEAD or u["text"] in GET_ASKED)
        pinned = CLOCK_CHANGED.get(u["text"], AFTER_CONTEXT.get(u["text"], POLITE.get(
            u["text"], REMEMBER_THAT.get(u["text"], SAID_IN_WORDS.get(u["text"], ASKS_NO_TOOL.get(
                u["text"], TIME_AND_LEAD.get(u["text"], NUDGE.get(u["text"], PERCENT_ALONE.get(
                    u["text"], LABEL_FIRST.get(u["text"], u["candidates"]))))))))))
        if old != pinned or (request != u["is_request"] and not newly):
            diffs.append(f"{u['text']!r}: {old} != {u['candidates']}")
        new = [name for name in got if name not in _OLD and name not in DESKTOP_TOOLS]
        if new:
            added[u["text"]] = new
    assert not diffs, _first(diffs)
    assert added == NEW_OFFERS


def test_the_same_arguments_are_cut_from_the_words() -> None:
    diffs = []
    for u in PINS["utterances"]:
        for tool, args in u["words"].items():
            got = arguments_from_words(tool, u["text"])
            args = ARGS_CHANGED.get((tool, u["text"]), args)
            if got != args:
                diffs.append(f"{tool} {u['text']!r}: {got} != {args}")
    assert not diffs, _first(diffs)


def test_the_decision_note_is_byte_identical() -> None:
    for pin in PINS["decisions"]:
        specs = [_BY_NAME[name] for name in pin["tools"]]
        assert decision_note(specs) == pin["note"], pin["tools"]
