"""A recording fake view model and a scripted conversation, for tests and screenshots.

Nothing here runs a model: ``RecordingViewModel`` records what the GUI asks for and lets a
script emit the payloads the real controller would.
"""

from __future__ import annotations

from collections.abc import Callable

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.heard import HeardReport
from desktop_agent.core.settings import Settings
from desktop_agent.core.telemetry import TurnSpan
from desktop_agent.core.turns.model import State, Transition
from desktop_agent.runtime.view_api import (
    AgentViewModel,
    ErrorNotice,
    LevelReading,
    LoadProgress,
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


FULL_REPLY = (
    "The Eiffel Tower is about 330 metres tall. It was completed in 1889 for the World's "
    "Fair, and for forty years it was the tallest structure in the world."
)
HEARD = "The Eiffel Tower is about 330 metres tall. It was completed in 1889"
UNHEARD = "for the World's Fair, and for forty years it was the tallest structure in the world."


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
    vm.transition(1, S.PROCESSING, S.ASSISTANT_SPEAKING, "first_audio", 3.9)
    vm.sig_assistant_text.emit(1, "I can't see a clock, but Paris is one hour ahead of London.")
    vm.sig_heard.emit(HeardReport(TurnId(1), "I can't see a clock, but Paris is one hour ahead "
                                  "of London.", "I can't see a clock, but Paris is one hour ahead "
                                  "of London.", "", 3.4, False))
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
