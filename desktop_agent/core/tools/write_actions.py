"""Write actions: a tool call that changes things, validated and normalised, with its read-back.

The model proposes; the application validates (``core.tools.confirm.prepare``, which calls the
tool's catalog entry), reads the action back from its structured form (never the model's
wording), and executes exactly that stored action once the user confirms (see
``core.tools.confirm`` and the turn machine's write path). Each built-in write's read-back is
one function here, named in its catalog entry (``core.tools.catalog``).

Normalised arguments, per tool (all JSON-able; the user's own words are kept where the
read-back or the log needs them):

* ``add_note``: ``text``.
* ``delete_notes``: ``query`` (``"all"`` for every note) and ``count`` (how many matched when
  read back; None when unknown).
* ``set_timer``: ``duration`` (the user's words), ``duration_s`` (int seconds), ``label``
  ('' when none). The timer starts when it executes, not when it was read back.
* ``set_reminder``: ``text``, ``when`` (the user's words), ``due_at`` (ISO 8601 with offset).
* ``cancel_timer``: ``which`` (label words, or ``"all"``).

Pure: the time is an argument, the store is reached only through the optional look-ups.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.when import (
    parse_duration,
    parse_when,
    say_clock,
    say_duration,
    say_time,
)


@dataclass(frozen=True, slots=True)
class PreparedAction:
    """A validated write, ready to be read back and, once confirmed, executed as it is."""

    tool: str
    args: Mapping[str, Any]
    """Normalised, JSON-able arguments: exactly what executes."""
    read_back: str
    """The confirmation question, generated from ``tool`` and ``args``."""


class AlarmView(Protocol):
    """What the read-back needs of a pending timer or reminder (the store's ``Alarm`` fits)."""

    @property
    def kind(self) -> str:
        """'timer' or 'reminder'."""
        ...

    @property
    def label(self) -> str:
        """The timer's label or the reminder's words ('' for an unlabelled timer)."""
        ...


MAX_TIMER_S: Final = 24 * 3600
"""The longest timer; anything later is a reminder."""

ADD_NOTE_HINT: Final = 'add_note needs the words of the note in "text".'
DELETE_NOTES_HINT: Final = 'delete_notes needs "query": words from the notes to delete, or "all".'
SET_TIMER_HINT: Final = 'set_timer needs a duration like "5 minutes".'
SET_REMINDER_HINT: Final = ('set_reminder needs "text" (what to remind) and "when" like '
                            '"tomorrow at 9 am".')
CANCEL_TIMER_HINT: Final = ('cancel_timer needs "which": the timer\'s label, the reminder\'s '
                            'words, or "all".')
"""What the model is told when a write's arguments are missing or empty (each entry's hint)."""
_ALL: Final = frozenset({"all", "all notes", "all my notes", "everything", "every note",
                         "all of them"})
_ALL_ALARMS: Final = frozenset({"all", "everything", "all of them", "all timers",
                                "all reminders", "all timers and reminders"})


@dataclass(frozen=True, slots=True)
class WriteContext:
    """What a read-back may consult besides the arguments: the time, and the store's look-ups."""

    now: dt.datetime
    """The current local time, timezone-aware (reminder times are read against it)."""
    count_notes: Callable[[str], int] | None = None
    """How many notes ``delete_notes`` would delete for a query (the store's ``count_notes``);
    None: the read-back gives no count."""
    match_alarms: Callable[[str], Sequence[AlarmView]] | None = None
    """The pending alarms ``cancel_timer`` would cancel for its ``which`` (the store's
    ``matching_alarms``); None: the read-back names ``which`` as said."""


ReadBack = Callable[[Mapping[str, Any], WriteContext], PreparedAction]
"""A write's read-back: its validated arguments in, the action to confirm out (raises
``AgentError`` with a message for the model when the arguments cannot be used)."""


def add_note_action(args: Mapping[str, Any], _ctx: WriteContext) -> PreparedAction:
    """add_note: "Add a note: buy milk. Shall I?"."""
    text = _sentence(args["text"])
    if not text:
        raise AgentError("bad_arguments", ADD_NOTE_HINT)
    return PreparedAction("add_note", {"text": text}, f"Add a note: {text}. Shall I?")


def delete_notes_action(args: Mapping[str, Any], ctx: WriteContext) -> PreparedAction:
    """delete_notes: "Delete 2 notes that mention dentist?" (the count when the store tells)."""
    query, every = _selection(args["query"], _ALL, DELETE_NOTES_HINT)
    count = None if ctx.count_notes is None else ctx.count_notes(query)
    if count == 0:
        raise AgentError("nothing_to_change", "There are no notes to delete." if every
                         else f"No note mentions {query}.")
    if every:
        read_back = ("Delete all your notes?" if count is None
                     else "Delete your only note?" if count == 1
                     else f"Delete all {count} notes?")
    elif count is None:
        read_back = f"Delete the notes that mention {query}?"
    elif count == 1:
        read_back = f"Delete the note that mentions {query}?"
    else:
        read_back = f"Delete {count} notes that mention {query}?"
    return PreparedAction("delete_notes", {"query": query, "count": count}, read_back)


def _article(word: str) -> str:
    """The article before ``word``: "an eggs timer", "a pasta timer", "a uniform timer"."""
    return "an" if re.match(r"(?i)[aeio]|u(?!ni|s[eu])", word) else "a"


def set_timer_action(args: Mapping[str, Any], ctx: WriteContext) -> PreparedAction:
    """set_timer: "Set a timer for 5 minutes, ending at 6:05 PM?"."""
    now = ctx.now
    duration = args["duration"]
    if not duration:
        raise AgentError("bad_arguments", SET_TIMER_HINT)
    try:
        seconds = int(round(parse_duration(duration)))
    except AgentError as err:
        raise AgentError("bad_arguments", f'set_timer could not read the duration '
                         f'"{duration}"; give one like "5 minutes".') from err
    if seconds < 1:
        raise AgentError("bad_arguments", 'set_timer needs a duration of at least a second.')
    if seconds > MAX_TIMER_S:
        raise AgentError("bad_arguments", "A timer runs for at most 24 hours; use set_reminder "
                                          "for anything later.")
    label = _label(args.get("label", ""))
    ends = say_clock(now + dt.timedelta(seconds=seconds))
    what = f"{_article(label)} {label} timer" if label else "a timer"
    return PreparedAction(
        "set_timer", {"duration": duration, "duration_s": seconds, "label": label},
        f"Set {what} for {say_duration(seconds)}, ending at {ends}?")


def set_reminder_action(args: Mapping[str, Any], ctx: WriteContext) -> PreparedAction:
    """set_reminder: "Remind you to call mum at 9 AM tomorrow?"."""
    now = ctx.now
    text = _reminder_text(args["text"])
    when = args["when"]
    if not text or not when:
        raise AgentError("bad_arguments", SET_REMINDER_HINT)
    try:
        due = parse_when(when, now)
    except AgentError as err:
        try:  # "ten minutes" for "in ten minutes" (a model may drop the "in")
            due = now + dt.timedelta(seconds=parse_duration(when))
        except AgentError:
            raise AgentError("bad_arguments", f'set_reminder could not read the time '
                             f'"{when}"; give "when" like "at 6 pm" or "tomorrow at 9 am".'
                             ) from err
    if due <= now:
        raise AgentError("bad_arguments", f'"{when}" has already passed; give a later time.')
    return PreparedAction(
        "set_reminder", {"text": text, "when": when, "due_at": due.isoformat()},
        f"Remind you to {text} {say_time(due, now)}?")


def cancel_timer_action(args: Mapping[str, Any], ctx: WriteContext) -> PreparedAction:
    """cancel_timer: "Cancel the pasta timer?" (what matches, when the store tells)."""
    which, every = _selection(args["which"], _ALL_ALARMS, CANCEL_TIMER_HINT)
    found = None if ctx.match_alarms is None else list(ctx.match_alarms(which))
    if found is not None and not found:
        raise AgentError("nothing_to_change", "There are no timers or reminders to cancel."
                         if every else f"There is no timer or reminder called {which}.")
    if found is None:
        read_back = ("Cancel all your timers and reminders?" if every
                     else f"Cancel the {_plain(which)}?" if re.search(r"timer|reminder", which)
                     else f"Cancel the {which} timer or reminder?")
    elif len(found) == 1:
        read_back = f"Cancel {describe_alarm(found[0])}?"
    else:
        read_back = f"Cancel {'all ' if every else ''}{count_alarms(found)}?"
    return PreparedAction("cancel_timer", {"which": which}, read_back)


def _selection(words: str, every_words: frozenset[str], hint: str) -> tuple[str, bool]:
    """What a delete or cancel names: its words spaced once, or ('all', True) for 'all'."""
    text = " ".join(words.split())
    if not re.search(r"\w", text):
        raise AgentError("bad_arguments", hint)
    every = _plain(text) in every_words
    return ("all" if every else text), every


def describe_alarm(alarm: AlarmView) -> str:
    """'the pasta timer', 'the timer', 'the reminder to call mum'."""
    if alarm.kind == "timer":
        return f"the {alarm.label} timer" if alarm.label else "the timer"
    return f"the reminder to {alarm.label}" if alarm.label else "the reminder"


def count_alarms(alarms: Sequence[AlarmView]) -> str:
    """'2 timers and 1 reminder', '3 timers'."""
    timers = sum(1 for a in alarms if a.kind == "timer")
    reminders = len(alarms) - timers
    parts = [f"{n} {word}{'' if n == 1 else 's'}"
             for n, word in ((timers, "timer"), (reminders, "reminder")) if n]
    return " and ".join(parts)


def _sentence(text: str) -> str:
    """Words without the closing punctuation a read-back adds itself."""
    return " ".join(text.split()).rstrip(".!?;, ")


def _label(text: str) -> str:
    label = _sentence(text)
    label = re.sub(r"^(?:the|a|an|my)\s+", "", label, flags=re.IGNORECASE)
    return re.sub(r"\s+timer$", "", label, flags=re.IGNORECASE)


def _reminder_text(text: str) -> str:
    text = _sentence(text)
    return re.sub(r"^(?:remind me\s+)?(?:to|that i should|that i need to)\s+", "", text,
                  flags=re.IGNORECASE)


def _plain(text: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", text.lower()))
