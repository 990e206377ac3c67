"""The built-in tools' executor: each catalog entry with ``executor="builtin"``, implemented.

``core.tools.catalog`` says what each tool is; this module is how the ones it marks
``builtin`` run, by tool name. A catalog entry with a pure ``answer`` (a read that needs only
its arguments and the time) needs nothing here: ``default_tools`` runs it on the clock.

Reads return one natural spoken sentence (never JSON, never the tool's name): small models
answer from prose far more reliably, and the sentence is itself a correct spoken answer if
the model fumbles. Writes run only as a confirmed ``PreparedAction`` through
``execute_prepared``: their implementations take the NORMALISED arguments (what was read
back is what executes), inside ``Store.execute_once`` (exactly once per idempotency key),
and return the sentence of what actually happened.

The tools read the clock through the ``now`` callable they are given (tests pass a fixed one).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from desktop_agent.adapters.store.store_records import Alarm, Executed, Note
from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall, ToolSpec
from desktop_agent.core.tools import calc, units
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.confirm import prepare
from desktop_agent.core.tools.registry import Tool, ToolRegistry
from desktop_agent.core.tools.tool_def import Catalog, ToolDef
from desktop_agent.core.tools.when import say_clock, say_duration, say_time
from desktop_agent.core.tools.write_actions import (
    PreparedAction,
    count_alarms,
    describe_alarm,
)

Now = Callable[[], dt.datetime]
WriteFn = Callable[[Store, Mapping[str, Any], dt.datetime], str]
"""A write implementation: the store, the normalised arguments, the time it runs."""

MAX_READ: Final = 10
"""Notes or alarms read aloud at most (the rest are counted, not read)."""

EXECUTOR: Final = "builtin"
"""The catalog's ``executor`` key of the tools implemented here."""

_COUNT_WORDS: Final = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight",
                       "nine", "ten")


def _local_now() -> dt.datetime:
    return dt.datetime.now().astimezone()


def _spec(name: str) -> ToolSpec:
    return BUILTIN[name].spec


def current_time_tool(now: Now | None = None) -> Tool:
    """get_current_time: the local date, time, weekday and time zone."""

    def run(_args: Mapping[str, Any]) -> str:
        moment = (now or _local_now)()
        zone = moment.tzname() or "local"
        return (f"It is {moment.strftime('%H:%M')} on {moment.strftime('%A')}, "
                f"{moment.day} {moment.strftime('%B %Y')} (time zone {zone}).")

    return Tool(spec=_spec("get_current_time"), run=run)


# --- reads that need no store -------------------------------------------------------------------


def calculate_tool() -> Tool:
    """calculate: '17 times 23 is 391.'"""

    def run(args: Mapping[str, Any]) -> str:
        expression = str(args["expression"])
        value = calc.evaluate(expression)
        text = f"{calc.say_expression(expression)} is {calc.format_number(value)}."
        return text[:1].upper() + text[1:]

    return Tool(spec=_spec("calculate"), run=run)


def _singular(name: str) -> str:
    words = name.split()
    at = 0 if words[0] == "degrees" else words.index("per") - 1 if "per" in words else -1
    word = words[at]
    words[at] = {"feet": "foot", "inches": "inch"}.get(word, word[:-1] if word.endswith("s")
                                                      else word)
    return " ".join(words)


def _amount(value: float) -> str:
    """A spoken amount: two decimals above 1, three significant digits below."""
    if value != 0 and abs(value) < 1:
        value = float(f"{value:.3g}")
    else:
        value = round(value, 2)
    return calc.format_number(value)


def _with_unit(value: float, symbol: str) -> str:
    text = _amount(value)
    name = units.unit_name(symbol)
    return f"{text} {_singular(name) if text == '1' else name}"


def convert_units_tool() -> Tool:
    """convert_units: '5 miles is 8.05 kilometers.'"""

    def run(args: Mapping[str, Any]) -> str:
        source, target = units.parse_unit(args["from_unit"]), units.parse_unit(args["to_unit"])
        value = float(args["value"])
        result = units.convert(value, source, target)
        return f"{_with_unit(value, source)} is {_with_unit(result, target)}."

    return Tool(spec=_spec("convert_units"), run=run)


# --- reads from the store -----------------------------------------------------------------------


def _count(n: int, noun: str) -> str:
    word = _COUNT_WORDS[n] if n < len(_COUNT_WORDS) else str(n)
    return f"{word} {noun}{'' if n == 1 else 's'}"


def _join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b, and c' (a pause before the last one helps the listener)."""
    if len(items) <= 1:
        return "".join(items)
    if len(items) == 2:
        return f"{items[0]}, and {items[1]}"
    return f"{', '.join(items[:-1])}, and {items[-1]}"


def _note_list(notes: Sequence[Note]) -> str:
    shown = [n.text.rstrip(".!?") for n in notes[:MAX_READ]]
    more = len(notes) - len(shown)
    return _join(shown) + (f", and {more} more" if more else "")


def list_notes_tool(store: Store) -> Tool:
    """list_notes: 'You have two notes: buy milk, and call the plumber.'"""

    def run(_args: Mapping[str, Any]) -> str:
        notes = store.list_notes()
        if not notes:
            return "You have no notes yet."
        return f"You have {_count(len(notes), 'note')}: {_note_list(notes)}."

    return Tool(spec=_spec("list_notes"), run=run)


def search_notes_tool(store: Store) -> Tool:
    """search_notes: 'I found one note about milk: buy milk.'"""

    def run(args: Mapping[str, Any]) -> str:
        query = str(args["query"])
        notes = store.search_notes(query, limit=MAX_READ)
        if not notes:
            return f"No note mentions {query}."
        return f"I found {_count(len(notes), 'note')} about {query}: {_note_list(notes)}."

    return Tool(spec=_spec("search_notes"), run=run)


def _left(seconds: float) -> str:
    # Whole minutes from two minutes up: "4 minutes left" reads better than the seconds.
    return say_duration(round(seconds / 60) * 60 if seconds >= 120 else max(seconds, 1))


def say_alarm(alarm: Alarm, now: dt.datetime) -> str:
    """'a pasta timer with 4 minutes left', 'a reminder to call mum at 9 AM tomorrow'."""
    if alarm.kind == "timer":
        what = f"a {alarm.label} timer" if alarm.label else "a timer"
        return f"{what} with {_left(alarm.due_at - now.timestamp())} left"
    due = dt.datetime.fromtimestamp(alarm.due_at, tz=now.tzinfo)
    return f"a reminder to {alarm.label} {say_time(due, now)}"


def list_timers_tool(store: Store, now: Now) -> Tool:
    """list_timers: 'You have a pasta timer with 4 minutes left, and a reminder to ...'."""

    def run(_args: Mapping[str, Any]) -> str:
        moment = now()
        alarms = [a for a in store.pending_alarms() if a.due_at > moment.timestamp()]
        if not alarms:
            return "You have no timers or reminders."
        said = [say_alarm(a, moment) for a in alarms[:MAX_READ]]
        more = len(alarms) - len(said)
        return f"You have {_join(said)}" + (f", and {more} more." if more else ".")

    return Tool(spec=_spec("list_timers"), run=run)


# --- writes: normalised arguments in, what happened out -----------------------------------------


def _add_note(store: Store, args: Mapping[str, Any], now: dt.datetime) -> str:
    note = store.add_note(str(args["text"]), now.timestamp())
    return f"Added the note: {note.text.rstrip('.!?')}."


def _delete_notes(store: Store, args: Mapping[str, Any], now: dt.datetime) -> str:
    query = str(args["query"])
    notes = store.delete_notes(query, now.timestamp())
    if not notes:
        return ("There were no notes to delete." if query == "all"
                else f"There was no note mentioning {query}.")
    if len(notes) == 1:
        return f"Deleted the note: {notes[0].text.rstrip('.!?')}."
    return f"Deleted {len(notes)} notes."


def _set_timer(store: Store, args: Mapping[str, Any], now: dt.datetime) -> str:
    seconds = int(args["duration_s"])
    label = str(args.get("label", ""))
    # The timer starts now, when it runs, not when it was read back.
    store.add_alarm("timer", label, now.timestamp() + seconds, now.timestamp())
    ends = say_clock(now + dt.timedelta(seconds=seconds))
    what = f"{label.capitalize()} timer" if label else "Timer"
    return f"{what} set for {say_duration(seconds)}; it ends at {ends}."


def _set_reminder(store: Store, args: Mapping[str, Any], now: dt.datetime) -> str:
    due = dt.datetime.fromisoformat(str(args["due_at"]))
    if due <= now:
        raise AgentError("reminder_passed", f"{say_time(due, now).removeprefix('at ')} has "
                         "already passed, so I did not set the reminder.")
    text = str(args["text"])
    store.add_alarm("reminder", text, due.timestamp(), now.timestamp())
    return f"I'll remind you to {text} {say_time(due, now)}."


def _cancel_timer(store: Store, args: Mapping[str, Any], now: dt.datetime) -> str:
    which = str(args["which"])
    cancelled = store.cancel_alarms(which)
    if not cancelled:
        if which == "all":
            return "There were no timers or reminders to cancel."
        kind = "reminder" if "reminder" in which.lower() else "timer"
        name = re.sub(r"\b(?:the|my|timers?|reminders?)\b", "", which, flags=re.IGNORECASE)
        return f"There was no {kind} called {' '.join(name.split()) or which}."
    if len(cancelled) == 1:
        return f"Cancelled {describe_alarm(cancelled[0])}."
    return f"Cancelled {count_alarms(cancelled)}."


WRITES: Final[Mapping[str, WriteFn]] = {
    "add_note": _add_note, "delete_notes": _delete_notes, "set_timer": _set_timer,
    "set_reminder": _set_reminder, "cancel_timer": _cancel_timer,
}
"""Each write tool's implementation, by name; it takes the NORMALISED arguments."""
PLAIN_READS: Final[Mapping[str, Callable[[Now], Tool]]] = {
    "get_current_time": current_time_tool, "calculate": lambda _now: calculate_tool(),
    "convert_units": lambda _now: convert_units_tool(),
}
"""The reads that need no store, by name."""
STORE_READS: Final[Mapping[str, Callable[[Store, Now], Tool]]] = {
    "list_notes": lambda store, _now: list_notes_tool(store),
    "search_notes": lambda store, _now: search_notes_tool(store),
    "list_timers": list_timers_tool,
}
"""The reads of the notes and alarms, by name."""


def prepare_call(store: Store, call: ToolCall, now: dt.datetime) -> PreparedAction:
    """``core.tools.confirm.prepare`` with the store's look-ups (counts and matches for the
    read-back)."""
    return prepare(call, now, count_notes=store.count_notes, match_alarms=store.matching_alarms)


def execute_prepared(store: Store, action: PreparedAction, key: str,
                     now: dt.datetime) -> Executed:
    """Run a confirmed action exactly once per ``key`` and log it.

    Args:
        store: The store it writes to (in the one transaction of ``execute_once``).
        action: The prepared action, as it was read back.
        key: Its idempotency key (the same key again replays the logged result).
        now: When it runs, timezone-aware.

    Returns:
        The logged action; ``result`` is the sentence to speak.

    Raises:
        AgentError: the action failed (nothing was written), or a ``StoreError``.
    """
    write = WRITES[action.tool]
    return store.execute_once(key, action.tool, action.args,
                              lambda s: write(s, action.args, now), now=now.timestamp())


def _write_tool(store: Store, now: Now, spec: ToolSpec, write: WriteFn) -> Tool:
    # Registered so the specs reach the prompt; ToolRegistry.run refuses writes, and the
    # confirmed path goes through execute_prepared (exactly once, logged).
    return Tool(spec=spec, run=lambda args: write(store, args, now()))


def _answer_tool(entry: ToolDef, now: Now) -> Tool:
    answer = entry.answer
    assert answer is not None
    return Tool(spec=entry.spec, run=lambda args: answer(args, now()))


def builtin_tools(store: Store, now: Now | None = None, catalog: Catalog = BUILTIN
                  ) -> ToolRegistry:
    """Every tool of ``catalog`` that runs here or on the clock (writes run only confirmed)."""
    clock = now or _local_now
    registry = default_tools(clock, catalog)
    for entry in catalog:
        if entry.executor != EXECUTOR or entry.name in PLAIN_READS:
            continue
        if entry.writes:
            registry.add(_write_tool(store, clock, entry.spec, WRITES[entry.name]))
        else:
            registry.add(STORE_READS[entry.name](store, clock))
    return registry


def default_tools(now: Now | None = None, catalog: Catalog = BUILTIN) -> ToolRegistry:
    """The tools that need no store: the time, the calculator, unit conversion, and every
    pure ``answer`` of ``catalog``."""
    clock = now or _local_now
    registry = ToolRegistry()
    for entry in catalog:
        if entry.answer is not None:
            registry.add(_answer_tool(entry, clock))
        elif entry.executor == EXECUTOR and entry.name in PLAIN_READS:
            registry.add(PLAIN_READS[entry.name](clock))
    return registry
