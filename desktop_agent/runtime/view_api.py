"""The contract between the GUI and the runtime.

``AgentViewModel`` is the only thing the GUI knows about the runtime: it listens to the
``sig_*`` signals and calls the methods below. The real controller subclasses it; tests
and the screenshot script subclass it with a fake that emits scripted payloads. Every
default method is a no-op, so a fake only overrides what it records.

Payloads are frozen dataclasses (defined here or in core). ``TurnSpan`` is a mutable
core type: the emitter sends a copy it will not touch again, and the GUI never mutates it.

PySide6.QtCore only; no widgets, no adapters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import QObject, Signal, Slot

from desktop_agent.core.errors import AgentError
from desktop_agent.core.settings import Settings

LOAD_STAGES: Final = ("asr", "llm", "tts", "vad", "aec")
LOAD_STATUSES: Final = ("loading", "ready", "failed")


@dataclass(frozen=True, slots=True)
class ActionRow:
    """One executed write, for the actions list."""

    key: str
    """Idempotency key (what ``undo_action`` takes)."""
    tool: str
    args_text: str
    """The arguments, short and readable ("text: buy milk")."""
    result: str
    """What the assistant said it did."""
    executed_at: float
    """UTC epoch seconds."""
    undone: bool = False
    can_undo: bool = False
    """True for an 'add note' or 'delete notes' not undone yet."""


@dataclass(frozen=True, slots=True)
class AlarmRow:
    """A running timer or a coming reminder."""

    id: int
    kind: str
    """'timer' or 'reminder'."""
    label: str
    """The timer's label or the reminder's text ('' for an unlabelled timer)."""
    due_at: float
    """UTC epoch seconds."""


@dataclass(frozen=True, slots=True)
class LevelReading:
    """Audio levels for the meters (emitted at any rate; the GUI throttles drawing)."""

    mic_db: float
    """Microphone level after echo cancellation, dBFS (<= 0; -inf allowed for silence)."""
    speaker_db: float
    """Level of what the speaker is playing, dBFS."""
    erle_db: float | None = None
    """Echo return loss enhancement of the canceller, dB; None while unknown or AEC is off."""


@dataclass(frozen=True, slots=True)
class ErrorNotice:
    """An error to show the user: stable code, what happened, what to do."""

    code: str
    message: str
    fix: str = ""

    @classmethod
    def from_error(cls, error: AgentError) -> ErrorNotice:
        """The notice for a typed ``AgentError``."""
        return cls(error.code, error.message, error.fix)


@dataclass(frozen=True, slots=True)
class LoadProgress:
    """Progress of loading one engine at start-up (or after a settings change)."""

    stage: str
    """One of LOAD_STAGES: 'asr', 'llm', 'tts', 'vad', 'aec'."""
    status: str
    """One of LOAD_STATUSES: 'loading', 'ready', 'failed'."""
    detail: str = ""
    """E.g. the model id, or why it failed."""

    def __post_init__(self) -> None:
        """Reject a stage or status the GUI does not know."""
        if self.stage not in LOAD_STAGES:
            raise ValueError(f"unknown load stage {self.stage!r}")
        if self.status not in LOAD_STATUSES:
            raise ValueError(f"unknown load status {self.status!r}")


@dataclass(frozen=True, slots=True)
class McpToolRow:
    """One tool of one of your own servers, for Settings."""

    name: str
    """Its name on the server (what ``allow`` is keyed by)."""
    full_name: str
    """The app's name for it: ``server__tool``."""
    label: str
    """Its title, else its name in words."""
    runs_as: str
    """How it runs now: 'read' (at once), 'write' (read back, asks), 'always' (unasked) or
    'never' (hidden)."""
    allow: str
    """As configured: 'ask', 'always' or 'never'."""
    may_always: bool
    """False for a destructive or unannotated tool: "always" is never offered for it."""
    annotations: str
    """Its annotations in words ("read-only, idempotent")."""


@dataclass(frozen=True, slots=True)
class McpServerRow:
    """One server of ``mcp.json`` with our choices and where it stands, for Settings."""

    name: str
    where: str
    """The command line or the URL."""
    enabled: bool
    trusted: bool
    status: str
    """'starting', 'running', 'restarting', 'failed', 'off' (not enabled) or 'not_started'
    (enabled since the app started)."""
    status_text: str
    """One line for the user: "Running, 12 tools.", "Failed: ... Trying again in 5 s."
    (a command that would download offline says what to install instead)."""
    tools: tuple[McpToolRow, ...] = ()
    """As the server last listed them (none before it first ran)."""


McpChoice = tuple[bool, bool, dict[str, str]]
"""(enabled, trusted, allow per tool: 'ask' | 'always' | 'never') for one server."""


@dataclass(frozen=True, slots=True)
class SettingsChoices:
    """What the settings dialog offers in its drop-downs (free text is allowed too)."""

    input_devices: tuple[str, ...] = ()
    output_devices: tuple[str, ...] = ()
    asr_models: tuple[str, ...] = ()
    llm_models: tuple[str, ...] = ()
    tts_models: tuple[str, ...] = ()
    command: str = "desktop-agent"
    """The absolute path of the running ``desktop-agent`` (the bindings Settings > Shortcuts
    shows need it: a desktop runs a shortcut's command without the user's PATH)."""
    test_server: Callable[[str, dict[str, Any]], str] | None = None
    """Checks the speech server of a section ('asr', 'tts') with the values the editors
    hold (uri, timeout_s, voice): one line of what it said, or AgentError. None: no
    "Test" buttons."""
    mcp_servers: Callable[[], tuple[McpServerRow, ...]] | None = None
    """Your own tools' servers as they stand now (asked again every second while Settings
    is open: a quick read). None: no "Your own tools" section."""
    save_mcp: Callable[[dict[str, McpChoice]], str] | None = None
    """Write the servers' choices (settings.toml's ``[mcp.servers]``); the sentence to show.
    Raises AgentError."""
    import_mcp: Callable[[str], str] | None = None
    """Add the servers of a Claude Desktop, Cursor or LM Studio file (its path) to
    ``mcp.json``; the sentence to show. Raises AgentError."""

    def models_for(self, role: str) -> tuple[str, ...]:
        """Model ids offered for ``role`` ('asr', 'llm', 'tts' or 'speaker_llm')."""
        return {"asr": self.asr_models, "llm": self.llm_models, "tts": self.tts_models,
                "speaker_llm": ("auto", "off", *self.llm_models)}.get(role, ())


class AgentViewModel(QObject):
    """What the GUI sees of the agent: signals out, requests in.

    Signals are emitted on the GUI thread (the controller lives there; workers reach it by
    queued connections). Request methods are called by the GUI on the GUI thread and must
    return quickly: real work goes to workers.

    Runs on: GUI thread.
    """

    sig_transition = Signal(object)
    """Transition: the turn machine took an edge (every edge, in order)."""
    sig_partial_transcript = Signal(int, str)
    """(turn_id, text): the live, still-changing transcript of the user's speech."""
    sig_user_final = Signal(int, str)
    """(turn_id, text): the final transcript of the user's turn."""
    sig_assistant_text = Signal(int, str)
    """(turn_id, text_so_far): the assistant reply as far as it has been spoken/planned."""
    sig_heard = Signal(object)
    """HeardReport: what the user actually heard of a reply (after a barge-in or the end)."""
    sig_span = Signal(object)
    """TurnSpan: latency milestones of a turn (re-sent as marks arrive, a fresh copy each time)."""
    sig_levels = Signal(object)
    """LevelReading: mic/speaker levels and the echo canceller's ERLE."""
    sig_error = Signal(object)
    """ErrorNotice: something went wrong that the user should know about."""
    sig_error_cleared = Signal()
    """The condition behind the last ErrorNotice is gone."""
    sig_loading = Signal(object)
    """LoadProgress: an engine started loading, became ready, or failed."""
    sig_caption = Signal(str)
    """Caption of what the assistant is saying now ('' clears it)."""
    sig_dictation = Signal(object)
    """DictationStatus (runtime/dictation.py): a step of dictation ('listening', 'typing',
    'typed', 'not_typed'), for the status bar; never takes the focus."""
    sig_action_changed = Signal(object)
    """PublishAction: a write waits for confirmation ('pending': show the card), ran
    ('executed': log it) or was dropped ('cleared': hide the card)."""
    sig_ledger_changed = Signal()
    """The actions list or the timers and reminders changed: ask ``actions_log`` and
    ``alarms`` again."""
    sig_alarm_fired = Signal(object)
    """AlarmRow: a timer ended or a reminder came due (it is being announced aloud)."""
    sig_tool_used = Signal(int, str)
    """(turn_id, tool name): a tool ran at once, without a read-back (a read, or a write
    allowed to run unasked): the conversation shows "used NAME" under the turn (your own
    tools as ``server__tool``)."""
    sig_reflection_changed = Signal(object)
    """PublishReflection: verdict-gated speech moved: a reflection started on the opening
    ('reflecting'), a verdict came back with its guidance ('verdict'), or a continuation or
    repair is said next ('continuation', ``confessed`` when it says the heard words were
    wrong). The conversation shows them; the state view shows 'reflecting'."""
    sig_unit_changed = Signal(object)
    """PublishUnit: a grounded answer's spoken unit was queued ('ready'), dropped ('stale',
    'expired', 'canceled') or settled ('heard', 'partly_heard', 'unheard'): show it with its
    sources (never read aloud)."""

    @Slot(bool)
    def answer_action(self, confirm: bool) -> None:
        """The card's Confirm (True) or Cancel (False) was pressed. Runs on: GUI thread."""

    def actions_log(self) -> list[ActionRow]:
        """Executed writes, newest first. Runs on: GUI thread (a quick local read)."""
        return []

    def alarms(self) -> list[AlarmRow]:
        """Running timers and coming reminders, soonest first. Runs on: GUI thread."""
        return []

    def undo_action(self, key: str) -> str:
        """Undo an executed 'add note' / 'delete notes'; the sentence of what happened."""
        return ""

    @Slot()
    def ptt_press(self) -> None:
        """The push-to-talk control went down (button or key). Runs on: GUI thread."""

    @Slot()
    def ptt_release(self) -> None:
        """The push-to-talk control came up. Runs on: GUI thread."""

    @Slot(str)
    def play_cue(self, kind: str) -> None:
        """Sound the cue that listening started ('start') or stopped ('stop').

        For a key or command used without looking at the window; the settings may turn
        cues off.

        Runs on: GUI thread.
        """

    def dictate(self, action: str) -> str:
        """Dictation into the window that has the focus: 'start', 'stop' or 'toggle'.

        Returns what happened, in words (for ``desktop-agent dictate``). Runs on: GUI thread.
        """
        return "Dictation is not available here."

    @Slot()
    def cancel_turn(self) -> None:
        """Drop the turn in progress (recording, thinking or speaking) and listen again.

        Runs on: GUI thread.
        """

    @Slot(str)
    def set_mode(self, mode: str) -> None:
        """Switch interaction mode: 'push_to_talk' or 'hands_free'. Runs on: GUI thread."""

    @Slot()
    def repeat_last_answer(self) -> None:
        """Speak the last answer again. Runs on: GUI thread."""

    @Slot()
    def rephrase_last_answer(self) -> None:
        """Ask for the last answer in other words. Runs on: GUI thread."""

    passage_lookup: Callable[[str], str | None] | None = None
    """Evidence id -> passage text (set by the composition root; None: quotes only)."""

    def passage_text(self, passage_id: str) -> str | None:
        """The whole passage of an evidence id (None: unknown or left the index).

        Runs on: GUI thread. The composition root sets ``passage_lookup``.
        """
        lookup = self.passage_lookup
        return None if lookup is None else lookup(passage_id)

    @Slot(object)
    def apply_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on (already validated and saved). Runs on: GUI thread."""

    def clear_history(self) -> str:
        """Forget the conversation, on disk and in memory; the sentence to show.

        Runs on: GUI thread. The default (no assistant running) has nothing to clear.
        """
        return "Nothing was cleared: the assistant is not running."

    @Slot()
    def run_first_run_check(self) -> None:
        """Check devices and models and report through the signals. Runs on: GUI thread."""

    def settings_choices(self) -> SettingsChoices:
        """Devices and models the settings dialog offers (asked each time it opens).

        Runs on: GUI thread. The default offers nothing (free text only).
        """
        return SettingsChoices()
