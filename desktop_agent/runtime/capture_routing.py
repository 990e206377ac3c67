"""Routing of capture events: hands-free turns, and barge-in while the assistant speaks.

A mixin of AgentController (split out to keep the controller readable): it uses the
controller's machine, backend, pipeline, monitor, barge-in tracker and ``_feed``.

Runs on: GUI thread.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QTimer

from desktop_agent.audio.capture import CaptureEvent
from desktop_agent.core.policy.bargein import settings_from_user
from desktop_agent.core.policy.segmenter import SegmentEvent
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.model import State


class CaptureRouting:
    """Speech onsets and ends from the capture worker, routed by state and mode."""

    machine: Any
    backend: Any
    pipeline: Any
    monitor: Any
    barge: Any
    barge_tracker: Any
    mode: str

    def _feed(self, event: Any) -> None:  # provided by the controller
        raise NotImplementedError

    # --- capture: hands-free turns and barge-in ---------------------------------------------------

    def _on_capture_sig_capture(self, event: CaptureEvent) -> None:
        at = self.backend.time_of(event.detected_sample)
        speech_at = self.backend.time_of(event.speech_sample)
        state = self.machine.state
        if state is State.ASSISTANT_SPEAKING and self.mode == "hands_free":
            self._barge_event(event, at)
            return
        if self.mode != "hands_free":
            return
        if event.kind is SegmentEvent.SPEECH_STARTED:
            self._feed(ev.SpeechStarted(turn_id=self.machine.turn_id, at_s=at,
                                        speech_start_s=speech_at))
        else:
            self._feed(ev.SpeechEnded(turn_id=self.machine.turn_id, at_s=at,
                                      speech_end_s=speech_at))

    def _barge_event(self, event: CaptureEvent, at: float) -> None:
        """An onset or end while the assistant speaks: pause at once, then let the tracker judge."""
        if event.kind is not SegmentEvent.SPEECH_STARTED:
            self.barge_tracker.speech_ended(event.speech_sample)
            return
        first = self.monitor.first_audio_s()
        if self.barge.is_echo(None if first is None else at - first):
            return
        self._feed(ev.VoiceOnsetDuringPlayback(turn_id=self.machine.turn_id, at_s=at,
                                               speech_start_s=self.backend.time_of(
                                                   event.speech_sample)))
        if self.machine.state is State.ASSISTANT_SPEAKING:
            self.barge_tracker.start(self.machine.turn_id, event.speech_sample)

    def _leave_speaking(self, target: State) -> None:
        """The reply ended or was cut: stop judging; a user still talking gets the floor."""
        onset = self.barge_tracker.onset if not self.barge_tracker.ended else None
        self.barge_tracker.cancel()
        self.pipeline.set_playback(False)
        if target is not State.LISTENING:
            return
        self.backend.player.restore()  # a reply that ended paused or ducked leaves neither
        if onset is not None and self.mode == "hands_free":
            # The segmenter is inside this speech and will not report its start again.
            QTimer.singleShot(0, lambda: self._floor_after_reply(onset))

    def _floor_after_reply(self, onset: int) -> None:
        if self.machine.state is State.LISTENING and self.pipeline.segmenter.in_speech:
            self._feed(ev.SpeechStarted(turn_id=self.machine.turn_id, at_s=time.monotonic(),
                                        speech_start_s=self.backend.time_of(onset)))


def endpoint_settings(settings: Settings) -> Any:
    from desktop_agent.core.policy.endpointing import EndpointingSettings

    lo, hi = settings.endpointing.min_silence_s, settings.endpointing.max_silence_s
    base = EndpointingSettings()
    clamp = lambda v: min(max(v, lo), hi)  # noqa: E731
    return EndpointingSettings(short_s=clamp(base.short_s), medium_s=clamp(base.medium_s),
                               long_s=clamp(base.long_s), min_s=lo, max_s=hi)


def barge_settings(settings: Settings) -> Any:
    return settings_from_user(settings.barge_in.min_interrupt_speech_s,
                              settings.barge_in.resume_after_backchannel)


def error_text(cause: str) -> str:
    stage, _, kind = cause.partition("_")
    what = {"asr": "Speech recognition", "llm": "The language model", "tts": "The voice",
            "tool": "A tool", "playback": "Playback", "recording": "The microphone"}.get(
        stage, "Something")
    return f"{what} {'took too long' if kind == 'timeout' else 'failed'} ({cause})."
