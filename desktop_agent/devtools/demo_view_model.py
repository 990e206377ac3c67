"""A recording fake view model and a scripted conversation, for tests and screenshots.

Nothing here runs a model: ``RecordingViewModel`` records what the GUI asks for and lets a
script emit the payloads the real controller would.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.reports import PublishAction
from desktop_agent.core.turns.states import State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.runtime.view_api import (
    ActionRow,
    AgentViewModel,
    AlarmRow,
    ErrorNotice,
    LevelReading,
    LoadProgress,
    McpServerRow,
    McpToolRow,
    SettingsChoices,
)

S = State


class RecordingViewModel(AgentViewModel):
    """Records every request (``calls``) and emits scripted payloads.

    Runs on: GUI thread.
    """

    def __init__(self, choices: SettingsChoices | None = None) -> None:
        super().__init__()
        self.calls: list[tuple[str, object]] = []
        self.applied: list[Settings] = []
        self.action_rows: list[ActionRow] = []
        """What ``actions_log`` returns (newest first)."""
        self.alarm_rows: list[AlarmRow] = []
        """What ``alarms`` returns (soonest first)."""
        self._choices = choices or SettingsChoices(
            input_devices=("Built-in Microphone", "USB Headset"),
            output_devices=("Built-in Speakers", "USB Headset"),
            asr_models=("whisper-tiny-en", "whisper-base-en"),
            llm_models=("qwen2.5-coder-0.5b-instruct-q4km",),
            tts_models=("piper-en-us-joe-medium",),
        )

    def names(self) -> list[str]:
        """The names of the recorded calls, in order."""
        return [n for n, _ in self.calls]

    def ptt_press(self) -> None:  # noqa: D102 - records
        self.calls.append(("ptt_press", None))

    def ptt_release(self) -> None:  # noqa: D102 - records
        self.calls.append(("ptt_release", None))

    def play_cue(self, kind: str) -> None:  # noqa: D102 - records
        self.calls.append(("play_cue", kind))

    def cancel_turn(self) -> None:  # noqa: D102 - records
        self.calls.append(("cancel_turn", None))

    def set_mode(self, mode: str) -> None:  # noqa: D102 - records
        self.calls.append(("set_mode", mode))

    def repeat_last_answer(self) -> None:  # noqa: D102 - records
        self.calls.append(("repeat_last_answer", None))

    def rephrase_last_answer(self) -> None:  # noqa: D102 - records
        self.calls.append(("rephrase_last_answer", None))

    def apply_settings(self, settings: Settings) -> None:  # noqa: D102 - records
        self.calls.append(("apply_settings", settings))
        self.applied.append(settings)

    def run_first_run_check(self) -> None:  # noqa: D102 - records
        self.calls.append(("run_first_run_check", None))

    def settings_choices(self) -> SettingsChoices:  # noqa: D102 - canned
        return self._choices

    def answer_action(self, confirm: bool) -> None:  # noqa: D102 - records
        self.calls.append(("answer_action", confirm))

    def actions_log(self) -> list[ActionRow]:  # noqa: D102 - canned
        return list(self.action_rows)

    def alarms(self) -> list[AlarmRow]:  # noqa: D102 - canned
        return list(self.alarm_rows)

    def undo_action(self, key: str) -> str:
        """Record the undo, mark the row undone, and say so (as the runtime would)."""
        self.calls.append(("undo_action", key))
        for i, row in enumerate(self.action_rows):
            if row.key == key and row.can_undo and not row.undone:
                self.action_rows[i] = ActionRow(row.key, row.tool, row.args_text, row.result,
                                                row.executed_at, undone=True, can_undo=False)
                self.sig_ledger_changed.emit()
                return f"Undone: {row.result}"
        return "There is nothing to undo there."

    # -- emit helpers ---------------------------------------------------------------------
    def transition(self, turn: int, source: State, target: State, cause: str, at_s: float,
                   cancels: tuple[str, ...] = ()) -> Transition:
        """Emit and return one Transition."""
        t = Transition(TurnId(turn), source, target, cause, at_s, cancels)
        self.sig_transition.emit(t)
        return t

    def span(self, turn: int, **marks: float) -> TurnSpan:
        """Emit a TurnSpan with ``marks`` (a fresh object, as the controller sends)."""
        span = TurnSpan(TurnId(turn))
        for mark, at_s in marks.items():
            span.mark(mark, at_s)
        self.sig_span.emit(span)
        return span

    def publish(self, kind: str, key: str, read_back: str = "", tool: str = "add_note",
                **fields: object) -> PublishAction:
        """Emit and return a PublishAction (``fields``: expires_in_s, result, outcome)."""
        turn = int(key.split(".")[0]) if key.split(".")[0].isdigit() else 1
        action = PublishAction(turn_id=TurnId(turn), kind=kind, key=key,
                               action=PreparedAction(tool, {}, read_back),
                               **fields)  # type: ignore[arg-type]
        self.sig_action_changed.emit(action)
        return action


FULL_REPLY = (
    "The Eiffel Tower is about 330 metres tall. It was completed in 1889 for the World's "
    "Fair, and for forty years it was the tallest structure in the world."
)
HEARD = "The Eiffel Tower is about 330 metres tall. It was completed in 1889"
UNHEARD = "for the World's Fair, and for forty years it was the tallest structure in the world."
PARIS = "timezone: Europe/Paris; datetime: 2026-12-02T15:10:00+01:00; is dst: False."


def demo_mcp_servers() -> tuple[McpServerRow, ...]:
    """Settings' "Your own tools" as a user with three servers sees it (screenshots)."""
    def tool(server: str, name: str, runs_as: str, may_always: bool, notes: str,
             allow: str = "ask") -> McpToolRow:
        return McpToolRow(name, f"{server}__{name}", name.replace("_", " "), runs_as, allow,
                          may_always, notes)
    return (
        McpServerRow("time", "mcp-server-time --local-timezone Europe/Paris", True, True,
                     "running", "Running, 2 tools.", (
                         tool("time", "get_current_time", "read", True, "read-only, local"),
                         tool("time", "convert_time", "read", True, "read-only, local"))),
        McpServerRow("git", "mcp-server-git", True, False, "running", "Running, 12 tools.", (
            tool("git", "git_status", "write", True, "read-only, local"),
            tool("git", "git_commit", "write", True, "changes things, not destructive"),
            tool("git", "git_reset", "write", False, "changes things, destructive",
                 "never"))),
        McpServerRow("fetch", "uvx mcp-server-fetch", True, False, "failed",
                     "Failed: [mcp_command_missing] 'uvx' is not installed. 'uvx "
                     "mcp-server-fetch' downloads the server when it starts, which needs the "
                     "network. Install it once (uv tool install mcp-server-fetch) and set "
                     "\"command\" to the installed program. Trying again in 30 s."),
    )


def play_script(vm: RecordingViewModel, step: Callable[[str], None]) -> None:
    """Drive a whole session through ``vm``; call ``step(name)`` at each moment worth seeing.

    Loading -> a short finished turn -> listening -> user speaking with partials ->
    processing -> assistant speaking -> barge-in -> interrupted (heard panel filled) ->
    the user's next turn -> listening -> an error banner.
    """
    for stage in ("vad", "aec", "asr", "llm", "tts"):
        vm.sig_loading.emit(LoadProgress(stage, "loading"))
    vm.sig_loading.emit(LoadProgress("vad", "ready"))
    vm.sig_loading.emit(LoadProgress("aec", "ready"))
    step("01_loading")
    for stage in ("asr", "llm", "tts"):
        vm.sig_loading.emit(LoadProgress(stage, "ready"))

    # Turn 1: a short exchange that plays to the end.
    vm.transition(1, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 2.0)
    vm.sig_user_final.emit(1, "What's the time in Paris?")
    vm.transition(1, S.USER_SPEAKING, S.PROCESSING, "ptt_released", 3.1)
    vm.sig_tool_used.emit(1, "time__get_current_time")  # your own time server's read
    vm.transition(1, S.PROCESSING, S.ASSISTANT_SPEAKING, "first_audio", 3.9)
    vm.sig_assistant_text.emit(1, PARIS)
    vm.sig_heard.emit(HeardReport(TurnId(1), PARIS, PARIS, "", 3.4, False))
    vm.transition(1, S.ASSISTANT_SPEAKING, S.LISTENING, "playback_done", 7.3)
    vm.span(1, endpoint=3.1, asr_final=3.35, llm_first_token=3.62, first_chunk=3.8,
            first_audio=3.9)
    step("02_listening")

    # Turn 2: the user asks, the assistant answers, the user cuts in.
    vm.transition(2, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 10.0)
    vm.sig_levels.emit(LevelReading(-18.0, -60.0, None))
    for partial in ("how", "how tall is", "how tall is the eiffel"):
        vm.sig_partial_transcript.emit(2, partial)
    step("03_user_speaking")
    vm.sig_user_final.emit(2, "How tall is the Eiffel Tower?")
    vm.transition(2, S.USER_SPEAKING, S.PROCESSING, "ptt_released", 12.4)
    vm.span(2, endpoint=12.4, asr_final=12.62)
    step("04_processing")
    vm.transition(2, S.PROCESSING, S.ASSISTANT_SPEAKING, "first_audio", 13.1)
    vm.span(2, endpoint=12.4, asr_final=12.62, llm_first_token=12.85, first_chunk=13.0,
            first_audio=13.1)
    vm.sig_assistant_text.emit(2, FULL_REPLY)
    vm.sig_caption.emit("It was completed in 1889 for the World's Fair,")
    vm.sig_levels.emit(LevelReading(-47.0, -14.0, 21.5))
    step("05_assistant_speaking")
    vm.transition(2, S.ASSISTANT_SPEAKING, S.INTERRUPTED, "barge_in", 16.0,
                  ("llm", "tts", "playback"))
    vm.sig_caption.emit("")
    vm.sig_heard.emit(HeardReport(TurnId(2), FULL_REPLY, HEARD, UNHEARD, 2.9, True))
    vm.span(2, endpoint=12.4, asr_final=12.62, llm_first_token=12.85, first_chunk=13.0,
            first_audio=13.1, barge_in=16.0, playback_stopped=16.08)
    vm.sig_levels.emit(LevelReading(-16.0, -60.0, 19.8))
    step("06_interrupted")

    # Turn 3: the interruption becomes the user's next turn.
    vm.transition(3, S.INTERRUPTED, S.USER_SPEAKING, "user_continued", 16.6)
    vm.sig_partial_transcript.emit(3, "and how heavy")
    vm.sig_user_final.emit(3, "And how heavy is it?")
    vm.transition(3, S.USER_SPEAKING, S.PROCESSING, "ptt_released", 17.9)
    vm.transition(3, S.PROCESSING, S.ASSISTANT_SPEAKING, "first_audio", 18.6)
    vm.sig_assistant_text.emit(3, "About 10,100 tonnes.")
    vm.sig_heard.emit(HeardReport(TurnId(3), "About 10,100 tonnes.", "About 10,100 tonnes.", "",
                                  1.6, False))
    vm.transition(3, S.ASSISTANT_SPEAKING, S.LISTENING, "playback_done", 20.3)
    vm.span(3, endpoint=17.9, asr_final=18.1, llm_first_token=18.38, first_chunk=18.5,
            first_audio=18.6)
    vm.sig_levels.emit(LevelReading(-55.0, -60.0, 20.1))
    step("07_back_to_listening")

    vm.sig_error.emit(ErrorNotice(
        "device_error", "The microphone 'USB Headset' disappeared.",
        "Plug it back in, or choose another microphone in Agent \u2192 Settings.",
    ))
    step("08_error_banner")


def play_actions_script(vm: RecordingViewModel, step: Callable[[str], None],
                        now: float | None = None) -> None:
    """The write path on screen: a pending confirmation card, then the actions list with
    timers and reminders, then a timer going off. ``now``: UTC epoch seconds."""
    t = time.time() if now is None else now
    vm.sig_error_cleared.emit()
    vm.action_rows = [
        ActionRow("2.1", "set_timer", "5 minutes, label: pasta",
                  "Timer for 5 minutes set: pasta.", t - 60),
        ActionRow("1.1", "delete_notes", "query: shopping", "Deleted 2 notes.", t - 600,
                  can_undo=True),
        ActionRow("0.1", "add_note", "text: call the plumber", "Noted: call the plumber.",
                  t - 3600, undone=True),
    ]
    vm.alarm_rows = [AlarmRow(1, "timer", "pasta", t + 240),
                     AlarmRow(2, "reminder", "call mum", t + 2 * 3600 + 5 * 60)]
    vm.sig_ledger_changed.emit()
    vm.publish("pending", "4.1", "Add a note: \u201cbuy milk and eggs\u201d?",
               expires_in_s=30.0)
    step("11_confirm_card")
    vm.action_rows.insert(0, ActionRow("4.1", "add_note", "text: buy milk and eggs",
                                       "Noted: buy milk and eggs.", t, can_undo=True))
    vm.publish("executed", "4.1", "Add a note: \u201cbuy milk and eggs\u201d?",
               result="Noted: buy milk and eggs.")
    step("12_actions_and_timers")
    fired = vm.alarm_rows.pop(0)
    vm.sig_alarm_fired.emit(fired)
    step("13_alarm_fired")
