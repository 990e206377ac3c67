"""Reports: the commands that publish what the GUI shows and the log keeps.

They start no work (no job, nothing to cancel): the runtime hands each to the view (the app)
or to the turn report (headless ``ask``). They belong to the ``Command`` union of
``commands.py`` like every other command, and each has its ``CommandPorts`` method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.states import Stage

if TYPE_CHECKING:
    from desktop_agent.core.knowledge.records import SpokenUnit


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishUserText:
    """The user's turn is final: show ``text`` (merged over false endpoints)."""

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishHeard:
    """A reply ended (played out, cut off or failed): show what was heard and what was not."""

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    report: HeardReport


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishAction:
    """The write path moved: show (or clear) the confirmation card, log an execution."""

    stage: ClassVar[Stage] = Stage.TOOL
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    kind: str
    """'pending' (a read-back waits for an answer), 'executed', 'failed' (it was confirmed
    and ran, but the tool reported a failure: nothing changed) or 'cleared' (cancelled,
    expired, replaced or dropped: see ``outcome``)."""
    action: PreparedAction
    key: str
    """The action's idempotency key."""
    expires_in_s: float = 0.0
    """'pending': seconds the user has to answer."""
    result: str = ""
    """'executed': what the tool reported (what the assistant says)."""
    outcome: str = ""
    """'cleared': 'cancelled', 'expired', 'replaced' or 'dropped'."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishUnit:
    """A grounded answer's spoken unit changed disposition: show it with its evidence.

    'ready' (admitted and queued to play), 'stale' (from an older question: dropped),
    'canceled' (the reply was cut before it played), 'expired' (ready too late: dropped),
    'heard' (played to the end), 'unheard' (queued, cut off before any of it played) or
    'partly_heard' (cut off while it played).
    """

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    unit: SpokenUnit
    disposition: str
    at_s: float


@dataclass(frozen=True, slots=True, kw_only=True)
class PublishReflection:
    """Verdict-gated speech moved: show the opening, a verdict with its guidance, a repair.

    ``kind``: 'reflecting' (a reflection started on ``text``), 'verdict' (``verdict`` and
    ``guidance`` came back), 'continuation' (``text`` is what is said next; ``confessed``
    when a repair says the heard words were wrong).
    """

    stage: ClassVar[Stage] = Stage.PLAYBACK
    """The stage a failure to run this command is reported as."""

    turn_id: TurnId
    kind: str
    round: int
    text: str = ""
    verdict: str = ""
    guidance: str = ""
    checker: str = ""
    confessed: bool = False
    at_s: float = 0.0
