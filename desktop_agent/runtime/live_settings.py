"""What the user's settings mean for the runtime, and what they cannot change live.

Runs on: any thread (pure functions).
"""

from __future__ import annotations

from desktop_agent.core.listening.bargein import BargeInSettings, settings_from_user
from desktop_agent.core.listening.endpointing import EndpointingSettings
from desktop_agent.core.settings import Settings
from desktop_agent.runtime.view_api import ErrorNotice


def endpoint_settings(settings: Settings) -> EndpointingSettings:
    """Endpointing limits from the user's settings (the defaults clamped into their range)."""
    lo, hi = settings.endpointing.min_silence_s, settings.endpointing.max_silence_s
    base = EndpointingSettings()

    def clamp(v: float) -> float:
        return min(max(v, lo), hi)

    return EndpointingSettings(short_s=clamp(base.short_s), medium_s=clamp(base.medium_s),
                               long_s=clamp(base.long_s), min_s=lo, max_s=hi)


def barge_settings(settings: Settings) -> BargeInSettings:
    """Barge-in settings from the user's settings."""
    return settings_from_user(settings.barge_in.min_interrupt_speech_s,
                              settings.barge_in.resume_after_backchannel)


def restart_notice(old: Settings, new: Settings) -> ErrorNotice | None:
    """The notice for changes that apply only after a restart (None when there are none).

    Devices, models, the LLM server and echo cancellation are opened or loaded once, at
    start-up.
    """
    later = [name for name, a, b in (
        ("the audio devices", old.audio.input_device + old.audio.output_device,
         new.audio.input_device + new.audio.output_device),
        ("echo cancellation", old.audio.echo_cancellation, new.audio.echo_cancellation),
        ("the models", old.models, new.models),
        ("the language model server", old.llm, new.llm)) if a != b]
    if not later:
        return None
    return ErrorNotice("restart_needed", f"Saved. Changes to {' and '.join(later)} apply after "
                       "a restart.", "Quit and start desktop_agent again.")


def error_notice(cause: str) -> ErrorNotice:
    """What to tell the user about a transition to ERROR caused by ``cause``."""
    stage, _, kind = cause.partition("_")
    what = {"asr": "Speech recognition", "llm": "The language model", "tts": "The voice",
            "tool": "A tool", "playback": "Playback", "recording": "The microphone"}.get(
        stage, "Something")
    return ErrorNotice(cause, f"{what} {'took too long' if kind == 'timeout' else 'failed'} "
                       f"({cause}).", "Say it again, or press and hold Space.")
