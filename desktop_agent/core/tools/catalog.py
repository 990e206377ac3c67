"""The tool catalog: one ``ToolDef`` entry per tool, the one list every part reads.

An entry says everything about a tool: its name and argument schema (what the model sees),
its risk (a read answers at once; a write changes the user's things and runs only after a
confirmed read-back), the rule that offers it for a request, the rule that cuts its arguments
from the user's words, how a write is read back, and how it runs. The router
(``core.tools.router``), the argument step (``core.tools.args``), the decision note and call
grammar (``core.tools.decision``), the confirmation path (``core.tools.confirm``), the tool
executors (``adapters/store/tools_builtin.py``, ``adapters/store/write_desk.py``) and
``desktop-agent bench tools`` all read ``BUILTIN``; none keeps a list of its own.

How to add a tool
-----------------
1. Write what it does. A read that needs only its arguments and the time is a pure function
   in core, ``answer(args, now) -> str`` (one spoken sentence, never JSON), and nothing else
   has to change. Anything that needs the outside world runs in an adapter: name it in
   ``executor`` (``"builtin"``: ``adapters/store/tools_builtin.py``; ``"desktop"``:
   ``adapters/desktop/desktop_tools.py``, its writes in ``desktop_desk.py``; by tool name; the
   desktop's entries are in ``core.tools.catalog_desktop``, joined in here). A new
   module also goes in ``core/tools/__init__.py``'s ``__all__`` and in
   ``tests/arch/test_public_names.py``, as every module does.
2. Write its router rule, ``offered(text) -> bool``: keyword patterns that say a request
   could need it (the text is a request already, spaces collapsed). Err on the side of
   offering: the model, constrained to the candidates or "none", makes the final choice.
   Then write its ``examples``: 10-30 everyday requests for it in your own words, the ones
   the rule does not read too ("in twenty minutes, ping me"). A request no rule reads is
   matched by meaning against every tool's examples and ``NO_TOOL_EXAMPLES`` below
   (``core.tools.semantic``), so examples that sound like another tool, or like a question
   the model answers itself, cost precision: ``desktop-agent bench tools`` shows it.
3. If its arguments are usually spelled out ("on the 14th"), write ``words(text)``: the
   arguments in the user's own words, or None when the request does not say them. Keep
   values as said ("tomorrow at 9"): the application parses them, the model only copies.
4. Add the entry to ``BUILTIN`` below: reads before writes, a new one at the end of its
   group. A write also needs ``read_back`` (validated arguments -> the question the user
   confirms), ``hint`` (what the model is told when its arguments are missing),
   ``confirm_verb`` and ``revised``.
5. Test the rules and the answer in ``tests/core/tools/``, and add a few everyday phrasings
   to ``devtools/data/tool_utterances.jsonl`` (its test wants every tool there). Measure on
   held-out phrasings written without reading the rules, and never tune a rule to a
   held-out miss: ``desktop-agent bench tools`` reports both sets.

``day_of_week`` (``core/tools/weekday.py``) is a complete small example of steps 1-4.
Keep the names, descriptions and schemas stable: the decision note and call grammar are
rendered from them, and byte-identical prompts let llama.cpp reuse its cache.
"""

from __future__ import annotations

from typing import Final

from desktop_agent.core.tools import offers, weekday, words
from desktop_agent.core.tools import write_actions as wa
from desktop_agent.core.tools.catalog_desktop import DESKTOP_READS, DESKTOP_WRITES
from desktop_agent.core.tools.offers import alarm_tools, note_tools, picked_by
from desktop_agent.core.tools.tool_def import SHORT as _SHORT
from desktop_agent.core.tools.tool_def import TEXT as _TEXT
from desktop_agent.core.tools.tool_def import Catalog, Risk, ToolDef
from desktop_agent.core.tools.tool_def import schema as _obj

_BUILTIN: Final = "builtin"

BUILTIN: Final = Catalog([
    # --- reads ----------------------------------------------------------------------------
    ToolDef(
        name="get_current_time",
        description="The current local date, time of day, weekday and time zone.",
        parameters=_obj({}), risk=Risk.READ, offered=offers.asks_time,
        executor=_BUILTIN, alone_is_sure=True,
        examples=(
            "what's the time", "what time is it now", "tell me the time please",
            "what's the date", "which day is it", "what's the date today", "do you have the time",
            "what year is it", "is it the weekend yet", "how late is it getting", "time check",
            "what's the current time where I am", "is it past midnight", "what month is it",
            "have I missed lunch, what time is it now", "is it Friday today",
            "are we in March or April", "what hour is it", "what does the clock say",
            "which month are we in now",
            "have I got the time, mate", "is it past noon yet",
            "remind me what today's date is", "I've lost track, what hour is it",
            "which time zone am I in at the moment", "got the time on you",
            "is it still morning or already afternoon",
        )),
    ToolDef(
        name="calculate",
        description="Exact arithmetic on numbers the user gives (the expression in their words).",
        parameters=_obj({"expression": {"type": "string", "minLength": 1, "maxLength": 120}}),
        risk=Risk.READ, offered=offers.asks_calculation, words=words.calculate_args,
        executor=_BUILTIN, by_meaning_needs=offers.says_amount,
        examples=(
            "what's 38 times 41", "what is 12 percent of 300", "calculate 640 divided by 16",
            "how much is 1,200 minus 375", "what's nine squared", "work out 3.5 times 14",
            "divide 900 by 12", "multiply 48 by 6", "add 125 and 349", "subtract 18 from 250",
            "what's ten percent of 65 pounds", "how much is 30 percent off 80 euros",
            "what's the square root of 225", "if a ticket costs 12 dollars how much are 7",
            "what's a fifth of 340", "what do 4 and 9 and 13 add up to",
            "what's one third of ninety", "take 15 off 120",
            "share 250 pounds between five of us", "what's the total of 19.99 and 4.50",
            "if I have 3 packs of 12, how many is that", "split 90 between 4",
            "add 245 and 389 for me", "how much is 1200 minus 475",
            "what do you get when you divide 84 by 7", "work out 15 percent of 260",
            "quick sum: 48 plus 96 plus 12", "six boxes at 7.50 each, what's the total",
        )),
    ToolDef(
        name="convert_units",
        description="Convert a quantity the user gives from one unit to another.",
        parameters=_obj({"value": {"type": "number"}, "from_unit": _SHORT, "to_unit": _SHORT}),
        risk=Risk.READ, offered=offers.asks_conversion, words=words.convert_units_args,
        executor=_BUILTIN,
        examples=(
            "how many kilometres are 3 miles", "convert 50 fahrenheit into celsius",
            "what's 8 pounds in kilos", "10 inches in centimeters", "how many feet is 3 meters",
            "what's 30 degrees celsius in fahrenheit", "how far is 8 kilometers in miles",
            "how heavy is 12 stone in kilos", "change 500 milliliters to cups",
            "how many grams are in 4 ounces", "what's 60 miles per hour in kilometers per hour",
            "how tall is 180 centimeters in feet", "I ran 15 kilometres, how many miles is that",
            "turn 2 tablespoons into teaspoons", "how many litres is 3 pints",
            "the oven says 200 degrees, what's that in fahrenheit",
            "a 5 k race is how long in miles", "my suitcase weighs 23 kilos, how many pounds",
            "5 miles in kilometres", "turn 3 cups into millilitres",
            "how many feet are in 2 metres", "I need 180 pounds in kilos",
            "change 4 litres to gallons for me", "how tall is 6 foot 2 in centimetres",
            "90 minutes in hours please", "how many inches is 30 centimetres",
        )),
    ToolDef(
        name="list_notes",
        description="Read the user's saved notes aloud.",
        parameters=_obj({}), risk=Risk.READ, offered=picked_by(note_tools, "list_notes"),
        executor=_BUILTIN, alone_is_sure=True,
        examples=(
            "read my notes out", "what notes have I got", "list my notes", "show me my notes",
            "what's on my notepad", "what did I save in my notes", "go over my notes with me",
            "read back everything I told you to write down", "what's on my list",
            "do I have any notes", "tell me what I noted down", "what have I jotted down lately",
            "recite my notes", "what did I ask you to keep for me", "run through my saved notes",
            "read me back everything I saved", "go through my notes please",
            "let's hear my memos", "can you recite my saved list",
            "tell me all the things I wrote down", "run through what's in my notes",
            "play back my notes from this week",
        )),
    ToolDef(
        name="search_notes",
        description="Find the user's saved notes that mention some words.",
        parameters=_obj({"query": _TEXT}), risk=Risk.READ,
        offered=picked_by(note_tools, "search_notes"), words=words.search_notes_args,
        executor=_BUILTIN,
        examples=(
            "find my note about the vet", "do I have a note about the school trip",
            "search my notes for the alarm code", "what did I write about the holiday",
            "look up my note on the car insurance", "is there anything in my notes about Tom",
            "find the note with the door code", "what did I note about the plumber",
            "check my notes for the recipe", "any notes that mention the budget",
            "where's the note I made about my mum's birthday",
            "did I save anything about the train times", "what did I jot down about the garden",
            "have I got anything saved on the passport",
            "find the note with Sarah's phone number", "which of my notes mention groceries",
            "is there a note about the dentist", "dig up what I saved about the wifi code",
            "check my notes for the word birthday",
            "anything in my notes regarding the car insurance",
            "pull up the note that says garage door",
            "have I noted anything about Tom's address",
        )),
    ToolDef(
        # Not alone_is_sure: its rule is loose ("what's the difference between a timer and
        # a stopwatch?" would list the timers), so the model decides.
        name="list_timers",
        description="The running timers and the coming reminders, with the time left.",
        parameters=_obj({}), risk=Risk.READ, offered=picked_by(alarm_tools, "list_timers"),
        executor=_BUILTIN,
        examples=(
            "which timers are on", "how long is left on the timer", "what reminders have I set",
            "how long is left on the oven timer", "is my timer still going",
            "what reminders are coming up today", "how many minutes until my timer rings",
            "show me my alarms", "which timers have I set", "when's my next reminder",
            "how long till the eggs are done", "what have you got set for me",
            "how much time have the potatoes got left", "is there a countdown running",
            "when will the rice be ready", "how much longer for the cake",
            "how long until the oven timer goes off", "anything counting down",
            "how long till the oven's done", "is anything counting down",
            "how long's left on the pasta", "what reminders have I got coming up",
            "how many minutes remain on my timer", "are any timers still going",
            "when's my next reminder due", "check how much time is left on the eggs",
            "have I got any alarms or countdowns running",
            "how close is the laundry timer to finishing",
        )),
    ToolDef(
        name="day_of_week",
        description="The weekday of a date the user gives (date: their words, e.g. "
                    "'the 14th' or 'March 3rd').",
        parameters=_obj({"date": {"type": "string", "minLength": 1, "maxLength": 60}}),
        risk=Risk.READ, offered=weekday.asks_weekday, words=weekday.weekday_args,
        answer=weekday.say_weekday,
        examples=(
            "what day of the week is the 19th", "what weekday is April 9th",
            "which day is the 2nd of June", "what day does the 28th fall on",
            "is the 12th a Monday", "what day of the week is my birthday on the 8th of May",
            "is Christmas Day on a weekend this year", "which weekday will the first of April be",
            "what day is the 25th", "does the 4th of July fall on a Friday",
            "on what day is the 31st of October", "what day was the 1st of this month",
            "will the 3rd be a Saturday", "is November the 5th a weekday",
            "was the 4th of July 1976 a Monday", "which weekday is the 15th of March 2026",
            "what day of the week was I born, 3 June 1990",
            "is the 21st of next month a weekend", "the 1st of January 2030, what day is that",
            "tell me what day August 9th lands on",
            "will my birthday on 12 October be a Friday", "what weekday was 11 November 1918",
            "is the 30th a Tuesday or a Wednesday",
        )),
    *DESKTOP_READS,
    # --- writes ---------------------------------------------------------------------------
    ToolDef(
        name="add_note",
        description="Save a note with the user's words.",
        parameters=_obj({"text": _TEXT}), risk=Risk.WRITE,
        offered=picked_by(note_tools, "add_note"), words=words.add_note_args,
        executor=_BUILTIN, read_back=wa.add_note_action, hint=wa.ADD_NOTE_HINT,
        confirm_verb="add it", revised="text", keeps_later_clauses=True,
        examples=(
            "make a note that the boiler man comes Wednesday", "take a note pick up stamps",
            "write down ring the school about the trip", "note that the car needs an MOT",
            "remember that my passport expires in June",
            "save a note saying pick up the dry cleaning", "add tomatoes to my notes",
            "jot down the parking spot is level 3 row F",
            "please remember my bike lock code is 2846",
            "put it in my notes that Anna likes tulips",
            "keep in mind that the meeting moved to Thursday",
            "write this down the wifi key is blue42", "add coffee to the shopping list",
            "make a memo to renew the library books",
            "don't forget that the recycling goes out on Tuesdays",
            "remember the neighbour's cat is called Biscuit", "store this: the flight is BA 117",
            "keep a record that I paid the window cleaner",
            "jot down buy milk and bread", "don't let me forget Jenny's gift is a scarf",
            "save this: parking spot is level 3, bay 12",
            "put down that the boiler code is 4471",
            "write down the wifi password is sunflower88",
            "can you jot down call the vet on Thursday",
            "keep a memo: book tickets for the Coldplay gig",
            "note that the meeting moved to room B",
        )),
    ToolDef(
        name="delete_notes",
        description="Delete the saved notes that mention some words ('all' deletes every note).",
        parameters=_obj({"query": _TEXT}), risk=Risk.WRITE,
        offered=picked_by(note_tools, "delete_notes"), words=words.delete_notes_args,
        executor=_BUILTIN, read_back=wa.delete_notes_action, hint=wa.DELETE_NOTES_HINT,
        confirm_verb="delete them", revised="query",
        examples=(
            "delete my notes about the vet", "clear out my notes",
            "remove the note about the car", "erase my notes",
            "get rid of the shopping list note", "delete everything in my notes",
            "forget the note about the party", "bin the note with the door code",
            "scrub all my notes", "throw out the note I made about Tom",
            "bin my notes about the holiday", "ditch the memo about the gas bill",
            "delete the note that says buy milk", "remove every note",
            "you can forget what I told you about the wifi", "wipe my notepad clean",
            "wipe all my notes", "erase anything I saved about groceries",
            "remove the memo with the wifi password", "clear out my notes completely",
            "bin the note about Jenny's present", "throw away the parking spot note",
            "delete everything mentioning Dave", "scrap my notes about the meeting",
            "I don't need the boiler note anymore, remove it",
        )),
    ToolDef(
        name="set_timer",
        description="Start a countdown timer for a duration the user gives (optional label).",
        parameters=_obj({"duration": _SHORT}, {"label": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "set_timer"), words=words.set_timer_args,
        executor=_BUILTIN, read_back=wa.set_timer_action, hint=wa.SET_TIMER_HINT,
        confirm_verb="start it", revised="duration", by_meaning_needs=offers.says_duration,
        examples=(
            "set a timer for 7 minutes", "start a 12 minute timer for the rice",
            "timer 45 seconds", "set a timer for two hours", "count down from two minutes",
            "give me a ten minute countdown", "time 4 minutes for the eggs",
            "set an alarm to go off in 40 minutes", "tell me when 12 minutes have passed",
            "wake me up in an hour", "alert me in 90 seconds", "put a twenty minute timer on",
            "let me know in five minutes", "start a countdown of three minutes for my tea",
            "beep in 15 minutes", "shout when half an hour is up", "ping me in 20 seconds",
            "I want to nap for forty minutes, wake me then",
            "set a timer for 10 minutes", "count down 25 minutes for me",
            "give me 3 minutes for the tea", "start a 45 second countdown",
            "time 20 minutes for the roast", "an hour and a half timer please",
            "put on a 12 minute timer for the pasta", "start counting down from 5 minutes",
            "I need a 90 second timer",
        )),
    ToolDef(
        name="set_reminder",
        description="Remind the user of something (text) at a time they give (when).",
        parameters=_obj({"text": _TEXT, "when": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "set_reminder"), words=words.set_reminder_args,
        executor=_BUILTIN, read_back=wa.set_reminder_action, hint=wa.SET_REMINDER_HINT,
        confirm_verb="set it", revised="when", keeps_later_clauses=True,
        examples=(
            "remind me to ring grandma on Sunday at 11", "remind me to lock the shed at 9 pm",
            "remind me in 30 minutes to turn the oven off",
            "at 5 o'clock remind me to pick up Jack",
            "tomorrow at noon remind me to book the vet", "on Saturday remind me to mow the lawn",
            "set a reminder for 8 pm to call Dad", "don't let me forget to buy flowers on Friday",
            "in an hour remind me to move the car",
            "remind me at half past three about the meeting",
            "can you remind me to take my medicine tonight at 10",
            "next Monday remind me to pay the gas bill", "make sure I remember to ring Sam at 4",
            "I need a reminder on Thursday to send the invoice",
            "tell me at 7 tomorrow morning to leave for the airport",
            "at lunchtime tomorrow give me a nudge about the parcel",
            "this evening I have to email Priya, remind me at 6",
            "Wednesday at 2, tell me to join the call",
            "nudge me at four to take the washing in", "ping me tomorrow about the invoice",
            "in ten minutes tell me to check the oven", "remind me at 6 to call Mum",
            "at half past three nudge me about the bins",
            "tomorrow at 9 remind me to pay the rent", "ping me in an hour to take my pills",
            "don't let me miss the 4pm meeting, remind me at 3:50",
            "give me a shout at noon to move the car", "in 20 minutes remind me to pick up Sam",
            "at 7 tonight remind me to water the plants",
            "could you remind me on Friday morning to email Karen",
        )),
    ToolDef(
        name="cancel_timer",
        description="Cancel a running timer or a coming reminder (which: its label or words, "
                    "or 'all').",
        parameters=_obj({"which": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "cancel_timer"), words=words.cancel_timer_args,
        executor=_BUILTIN, read_back=wa.cancel_timer_action, hint=wa.CANCEL_TIMER_HINT,
        confirm_verb="cancel it", revised="which",
        examples=(
            "cancel the rice timer", "stop every timer", "cancel my reminder to ring grandma",
            "turn off the timer", "delete the reminder about the meeting", "stop the countdown",
            "I don't need that timer anymore", "kill the egg timer", "cancel all my reminders",
            "never mind the reminder to buy milk", "switch off the alarm",
            "remove the reminder for the dentist", "scrap the tea timer",
            "call off the reminder about the parcel", "forget about the 10 minute timer",
            "scrap every reminder I've got", "drop the timer for the eggs",
            "kill the timer", "scrap the 4pm reminder", "I don't need the oven timer anymore",
            "call off my reminder to call Mum", "turn off the egg timer",
            "forget the reminder for tomorrow", "get rid of the 10 minute countdown",
        )),
    *DESKTOP_WRITES,
])
"""Every built-in tool, reads first."""

NO_TOOL_EXAMPLES: Final[tuple[str, ...]] = (
    # questions the model answers itself, in a tool's words (times, distances, numbers)
    "what time does the bakery open", "how far is Paris from London",
    "how long does it take to boil an egg", "how many minutes are in a day",
    "what's the speed of light", "how tall is Mount Everest", "what's the capital of Italy",
    "who painted the Mona Lisa", "why is the sea salty", "how many legs does an insect have",
    "what day is Thanksgiving usually on", "when is the next full moon",
    "what's the time in Tokyo", "how much does a new car cost", "what's pi to five places",
    "how do you scale a recipe for more people", "what's a good way to remember names",
    "how do I set a timer on my oven", "what's the history of the calendar",
    "how much water should I drink a day", "what does a kilogram weigh on the moon",
    "how long is a marathon", "what year did the war end", "when does the post office close",
    "what's the latest news", "how do I convert a PDF to Word",
    "the train leaves at 8:15 and gets in at 10:40, how long is the journey",
    "how many minutes is it from 9:30 to 11:05",
    "the meeting runs from two until half past four, how many hours is that",
    # requests for tools that do not exist
    "what's the weather tomorrow", "check my bank balance", "lock the front door",
    "call my mother", "send a text to Sarah", "book a flight to Rome", "turn on the lights",
    "start the dishwasher", "put the radio on", "put on some classical music",
    "put on a podcast about history",
    "search the web for pasta recipes", "what's on my calendar today", "order a pizza",
    "navigate to the nearest petrol station", "read the news headlines",
    "translate hello into Spanish", "set the heating to 21 degrees",
    "add a meeting to my calendar for Monday", "message Tom that I'm running late",
    # chit-chat and statements, some about timers and notes
    "hi there, how's it going", "tell me something funny", "thanks, that's perfect",
    "I'm so tired today", "my brother is coming over on Saturday",
    "I really like rainy afternoons", "suggest a name for my new puppy", "good night",
    "you're very helpful", "I set a timer yesterday and forgot about it", "my notes are a mess",
    "I keep forgetting things lately", "the meeting ran twenty minutes over", "what can you do",
    "let's talk about films", "my alarm clock is broken", "I wrote a long note to my teacher",
    "the train was ten minutes late again",
    # text read aloud
    "that band was amazing live", "this song always cheers me up",
    "I don't need reminding, I'll remember", "I wrote everything down in my diary",
    "the timer on the oven is broken",
    "seven of hearts, jack of diamonds", "the clocks struck midnight as the carriage arrived",
    "he waited ten minutes by the door before he knocked",
    "add the flour to the butter and stir for two minutes",
    "what time does the post office usually close", "how loud is a jet engine",
    "who wrote the song called Yesterday", "why do timers beep", "I set my alarm yesterday",
    "my notes from school were a mess", "what's your favourite kind of music",
    "who invented the clock", "is a litre bigger than a quart",
    "what does the word reminder mean", "the music at the party was too loud",
    "how do calculators work", "why do we have time zones",
    "I forgot my keys again this morning", "do supermarkets open on Sundays",
    "how many bones are in the human body", "what is a decibel", "thanks, that was helpful",
    "when did the Beatles break up", "I wrote a shopping list on paper",
    "what's the best way to learn maths", "who was the first person on the moon",
    "what is pi used for", "my timer went off during dinner last night",
    "what's a good recipe for pancakes", "why do people keep diaries",
    "is it healthy to drink coffee every day", "what instrument is best for beginners",
    "I'm bored, what should I do",
)
"""Requests and sentences that need no tool, for the meaning match (``core.tools.semantic``):
a request nearer to these than to any tool's examples is offered none. Mostly near misses:
questions in a tool's words, tools that do not exist, statements about timers and notes."""
