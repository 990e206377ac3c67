"""Confirmation bound to the action: one pending write, its expiry, and the user's answer.

A write never runs on the model's say-so. ``prepare`` validates the call against its catalog
entry and builds the action and its read-back with the entry's ``read_back``; the turn
machine stores that action (``PreparedAction``) with an idempotency key and an expiry, reads
it back, and classifies the next thing the user says (or the card button they press):

* yes, and the action has not expired -> the stored action executes, exactly as read back;
* no -> it is dropped;
* unclear (a few words that are neither) -> asked once more in another form, then dropped;
* anything else -> not an answer: it has no authority over the action (it may still be a
  new request, which replaces the pending action, or a change such as "make it 6 pm").

Pure: no clock (times are the events' ``at_s`` and ``prepare``'s ``now``), no I/O.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.registry import validate_args
from desktop_agent.core.tools.tool_def import Catalog
from desktop_agent.core.tools.write_actions import AlarmView, PreparedAction, WriteContext


def prepare(call: ToolCall, now: dt.datetime,
            count_notes: Callable[[str], int] | None = None,
            match_alarms: Callable[[str], Sequence[AlarmView]] | None = None,
            catalog: Catalog = BUILTIN) -> PreparedAction:
    """Validate and normalise a write call, and write its read-back question.

    Args:
        call: The model's tool call (a write tool of ``catalog``).
        now: The current local time, timezone-aware (reminder times are read against it).
        count_notes: How many notes ``delete_notes`` would delete for a query (the store's
            ``count_notes``); None: the read-back gives no count.
        match_alarms: The pending alarms ``cancel_timer`` would cancel for its ``which`` (the
            store's ``matching_alarms``); None: the read-back names ``which`` as said.
        catalog: Where the tool's entry (schema, hint, read-back) is looked up.

    Returns:
        The action to read back and, once confirmed, to execute as it is.

    Raises:
        AgentError: ``bad_arguments`` (or ``not_a_write``, ``nothing_to_change``) with a short
            message meant to go back to the model.
    """
    entry = catalog.get(call.name)
    if entry is None or entry.read_back is None:
        raise AgentError("not_a_write", f"{call.name} is not a tool that changes things.")
    try:
        args = validate_args(entry.spec, call.arguments)
    except AgentError as err:
        if "needs" in err.message or "empty" in err.message:
            raise AgentError("bad_arguments", entry.hint) from err
        raise
    return entry.read_back(args, WriteContext(now, count_notes, match_alarms))


class Answer(Enum):
    """What an utterance says about the pending action."""

    YES = "yes"
    NO = "no"
    UNCLEAR = "unclear"
    OTHER = "other"
    """Not an answer (a new request, a change, a question)."""


_YES: Final = frozenset({
    "yes", "yeah", "yep", "yup", "yes please", "sure", "ok", "okay", "okey", "alright",
    "all right", "confirm", "confirmed", "correct", "right", "do it", "go ahead", "please do",
    "please", "yes do it", "yes go ahead", "that's right", "that is right", "sounds good",
    "absolutely", "of course", "affirmative", "go for it", "yes that's right", "ok do it",
    "okay do it", "yes confirm", "sure thing", "definitely", "ja", "si", "oui",
})
_NO: Final = frozenset({
    "no", "nope", "nah", "no thanks", "no thank you", "cancel", "cancel it", "cancel that",
    "don't", "do not", "don't do it", "stop", "never mind", "nevermind", "forget it",
    "not now", "no don't", "no cancel", "negative", "no no", "leave it", "skip it",
    "no stop", "abort", "no way", "not really",
})
_FILLERS: Final = re.compile(r"\b(um+|uh+|er+|hmm+|well|so|oh)\b")
_UNCLEAR: Final = frozenset({
    "what", "huh", "pardon", "sorry", "what was that", "say again", "come again", "maybe",
    "perhaps", "i don't know", "i'm not sure", "not sure", "don't know", "hm", "thanks",
    "thank you", "wait", "hold on", "one moment", "let me think", "i guess", "possibly",
    "what did you say", "sorry what", "excuse me",
})
"""Words that answer without answering: met with the plainer second question."""
_CHANGE: Final = re.compile(
    r"^(?:no,?\s+|actually,?\s+|wait,?\s+)*(?:make it|make that|change it to|change that to|"
    r"instead|rather|at|for|in)\b", re.IGNORECASE)


def _norm(text: str) -> str:
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"[^\w' ]+", " ", text)
    text = _FILLERS.sub(" ", text)
    return " ".join(text.split())


def classify(text: str) -> Answer:
    """Classify an utterance heard while an action waits for confirmation.

    Args:
        text: The user's words (a transcript; punctuation and case do not matter).

    Returns:
        ``YES``/``NO`` only for a plain answer (a "yes" followed by a change, such as "yes,
        but make it 6 pm", is ``OTHER``: the change must be read back first), ``UNCLEAR`` for
        words that answer without answering ("what?", "maybe", "yes no"), else ``OTHER``.
    """
    norm = _norm(text)
    if not norm:
        return Answer.UNCLEAR
    if norm in _YES:
        return Answer.YES
    if norm in _NO:
        return Answer.NO
    if norm in _UNCLEAR:
        return Answer.UNCLEAR
    words = norm.split()
    if len(words) <= 4 and not is_change(text):
        # "yes yes", "okay sure", "no thanks": every word agrees
        polite = {"thanks", "thank", "you", "please"}
        for answer, vocabulary in ((Answer.YES, _YES), (Answer.NO, _NO)):
            if any(w in vocabulary for w in words) and all(
                    w in vocabulary or w in polite for w in words):
                return answer
        if any(w in _YES for w in words) and any(w in _NO for w in words):
            return Answer.UNCLEAR  # "yes no", "okay cancel"
    return Answer.OTHER


def is_change(text: str) -> bool:
    """True when ``text`` reads as a change to the pending action ("make it 6 pm")."""
    return bool(_CHANGE.match(text.strip()))


@dataclass(frozen=True, slots=True)
class Pending:
    """The one action waiting for a confirmation."""

    action: PreparedAction
    key: str
    """Idempotency key: the store executes an action with this key at most once."""
    proposed_at_s: float
    expires_at_s: float
    asked_again: bool = False
    """True once an unclear answer was met with the second, plainer question."""

    def expires_in_s(self, at_s: float) -> float:
        """Seconds left at ``at_s`` (0 when expired)."""
        return max(0.0, self.expires_at_s - at_s)


@dataclass(frozen=True, slots=True)
class Resolved:
    """How the last pending action ended (so a late "yes" can be told what happened)."""

    pending: Pending
    outcome: str
    """'executed', 'cancelled', 'expired', 'replaced' or 'dropped' (unclear twice)."""
    at_s: float
    answered: bool = False
    """An expired action's late "yes" or "no" was already told what happened."""


class ConfirmGate:
    """Holds at most one pending action; every decision about it goes through here.

    Runs on: the turn machine's thread (pure, no locks).
    """

    def __init__(self, session: str, expiry_s: float) -> None:
        """Start with nothing pending.

        Args:
            session: Prefix of idempotency keys (unique per app start).
            expiry_s: Seconds a read-back stays answerable.
        """
        self.session = session
        self.expiry_s = expiry_s
        self.pending: Pending | None = None
        self.last: Resolved | None = None
        self._expired: Pending | None = None

    def current(self, at_s: float) -> Pending | None:
        """The pending action at ``at_s``; an expired one is resolved as 'expired' first."""
        pending = self.pending
        if pending is not None and at_s >= pending.expires_at_s:
            self._resolve("expired", pending.expires_at_s)
            return None
        return pending

    def propose(self, action: PreparedAction, key: str, at_s: float) -> Pending | None:
        """Store ``action`` as the pending one; returns the one it replaced (if any)."""
        old = self.current(at_s)
        if old is not None:
            self._resolve("replaced", at_s)
        self.pending = Pending(action, f"{self.session}:{key}", at_s, at_s + self.expiry_s)
        return old

    def take(self, at_s: float) -> Pending | None:
        """A confirmed "yes": the unexpired pending action, now resolved as 'executed'."""
        pending = self.current(at_s)
        if pending is not None:
            self._resolve("executed", at_s)
        return pending

    def cancel(self, at_s: float, outcome: str = "cancelled") -> Pending | None:
        """Drop the pending action (a "no", or unclear twice)."""
        pending = self.current(at_s)
        if pending is not None:
            self._resolve(outcome, at_s)
        return pending

    def ask_again(self) -> None:
        """Remember that the plainer second question was asked."""
        if self.pending is not None:
            self.pending = replace(self.pending, asked_again=True)

    def pop_expired(self) -> Pending | None:
        """The action that expired since the last call (once), to clear its card."""
        expired, self._expired = self._expired, None
        return expired

    def late(self, at_s: float) -> Resolved | None:
        """The action that expired shortly before ``at_s`` and whose late answer is due."""
        last = self.last
        if last is None or last.outcome != "expired" or last.answered:
            return None
        return last if at_s <= last.at_s + self.expiry_s else None

    def mark_late_answered(self) -> None:
        """The late answer was given: a later "yes" is an ordinary word again."""
        if self.last is not None:
            self.last = replace(self.last, answered=True)

    def _resolve(self, outcome: str, at_s: float) -> None:
        assert self.pending is not None
        self.last = Resolved(self.pending, outcome, at_s)
        if outcome == "expired":
            self._expired = self.pending
        self.pending = None


# --- what the assistant says ---------------------------------------------------------------


def second_question(action: PreparedAction, catalog: Catalog = BUILTIN) -> str:
    """The plainer form of the question, after an unclear answer (the entry's verb)."""
    entry = catalog.get(action.tool)
    return f"Say yes to {'do it' if entry is None else entry.confirm_verb}, or no."


CANCELLED: Final = "Okay, I won't."
DROPPED: Final = "I'll leave it, then."
REPLACED: Final = "That replaces the earlier request. "


def late_answer(answer: Answer) -> str:
    """What to say to a yes or no that came after the action expired."""
    if answer is Answer.YES:
        return "That request expired, so I did nothing. Ask me again if you still want it."
    return "Okay. That request had already expired, so nothing was done."
