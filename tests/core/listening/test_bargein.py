"""Tests for the pause-first, decide-second barge-in policy."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.listening import BargeInDecider, BargeInSettings, Decision
from desktop_agent.core.listening.bargein import settings_from_user

decider = BargeInDecider()


@pytest.mark.parametrize(
    ("speech_s", "transcript", "ended", "decision", "reason"),
    [
        # not enough evidence yet
        (0.1, "", False, "wait", "listening"),
        (0.5, "", False, "wait", "listening"),
        (0.3, "mm-hm", False, "wait", "listening"),
        (0.1, "the", False, "wait", "listening"),  # too short to trust the word yet
        # enough speech, even before the ASR has words
        (0.6, "", False, "interrupt", "long_speech"),
        (1.2, "", True, "interrupt", "long_speech"),
        # words that are not backchannels
        (0.3, "no that's wrong", False, "interrupt", "words"),
        (0.25, "Actually, can you", False, "interrupt", "words"),
        (0.4, "what about tomorrow", True, "interrupt", "words"),
        (0.3, "yeah but", False, "interrupt", "words"),
        # one content word alone, shorter than a spoken word: residual echo Whisper
        # guessed at (CI's red run: 0.26 s -> "Perhaps.") resumes; longer, it interrupts
        (0.26, "Perhaps.", True, "resume", "lone_word"),
        (0.3, "Perhaps", False, "wait", "listening"),
        (0.4, "Perhaps.", True, "interrupt", "words"),
        (0.45, "Paris", False, "interrupt", "words"),
        (0.3, "the weather", True, "resume", "lone_word"),  # function words don't count
        # ... except the short words people cut in with
        (0.25, "No.", True, "interrupt", "words"),
        (0.25, "Nope", False, "interrupt", "words"),
        (0.3, "Sorry?", True, "interrupt", "words"),
        (0.3, "What?", True, "interrupt", "words"),
        # function words alone are what Whisper makes of residual echo: no words yet
        (0.3, "for the", False, "wait", "listening"),
        (0.4, "It is.", True, "resume", "too_short"),
        (0.3, "okay, the", True, "resume", "backchannel"),
        (0.3, "the stop", False, "interrupt", "stop_word"),
        # stop words interrupt at once, wherever they are
        (0.05, "stop", False, "interrupt", "stop_word"),
        (0.1, "Wait!", False, "interrupt", "stop_word"),
        (0.1, "okay wait", False, "interrupt", "stop_word"),
        (0.1, "Hold on.", False, "interrupt", "stop_word"),
        (0.0, "STOP STOP", True, "interrupt", "stop_word"),
        # backchannels resume when the speech ends
        (0.3, "Mm-hm.", True, "resume", "backchannel"),
        (0.4, "mm hm", True, "resume", "backchannel"),
        (0.3, "okay!", True, "resume", "backchannel"),
        (0.5, "Yeah, yeah.", True, "resume", "backchannel"),
        (0.9, "I see.", True, "resume", "backchannel"),  # long-ish, still a backchannel
        (0.5, "Got it", True, "resume", "backchannel"),
        (0.4, "Uh-huh", True, "resume", "backchannel"),
        (0.4, "Mmmm", True, "resume", "backchannel"),  # elongated
        (0.4, "yeahhh", True, "resume", "backchannel"),
        (0.4, "Cool, nice.", True, "resume", "backchannel"),
        (0.2, "OK", True, "resume", "backchannel"),
        # coughs, laughs, clicks: short speech without words
        (0.3, "", True, "resume", "too_short"),
        (0.3, "(coughs)", True, "resume", "too_short"),
        (0.4, "[laughter]", True, "resume", "too_short"),
        (0.1, "you", True, "resume", "too_short"),  # a click the ASR guessed at
        # a backchannel that goes on too long is the user talking
        (1.5, "yeah yeah yeah", False, "interrupt", "long_speech"),
    ],
)
def test_decisions(
    speech_s: float, transcript: str, ended: bool, decision: str, reason: str
) -> None:
    verdict = decider.evaluate(speech_s, transcript, speech_ended=ended)
    assert (verdict.decision, verdict.reason) == (decision, reason)
    assert decider.decide(speech_s, transcript, speech_ended=ended) == decision


def test_onset_inside_the_warmup_is_echo() -> None:
    assert decider.evaluate(0.8, "stop", onset_after_playback_s=0.1).reason == "echo"
    assert decider.decide(0.8, "", onset_after_playback_s=0.29) is Decision.RESUME
    assert decider.decide(0.8, "", onset_after_playback_s=0.3) is Decision.INTERRUPT
    assert decider.decide(0.8, "", onset_after_playback_s=None) is Decision.INTERRUPT


def test_is_backchannel() -> None:
    assert decider.is_backchannel("Mm-hm.")
    assert decider.is_backchannel("  OKAY!! ")
    assert decider.is_backchannel("oh, i see")
    assert decider.is_backchannel("Hmm… right.")
    assert not decider.is_backchannel("")
    assert not decider.is_backchannel("okay so")
    assert not decider.is_backchannel("I")  # "I" alone is not "I see"
    assert not decider.is_backchannel("seen")


def test_custom_settings() -> None:
    custom = BargeInDecider(
        BargeInSettings(
            min_interrupt_speech_s=1.0,
            backchannel_words=("ja", "genau"),
            stop_phrases=("halt",),
            warmup_s=0.0,
        )
    )
    assert custom.decide(0.8, "") is Decision.WAIT
    assert custom.decide(1.0, "") is Decision.INTERRUPT
    assert custom.decide(0.4, "Ja, genau.", speech_ended=True) is Decision.RESUME
    assert custom.decide(0.4, "yeah", speech_ended=True) is Decision.INTERRUPT
    assert custom.decide(0.05, "Halt!") is Decision.INTERRUPT
    assert custom.decide(0.05, "stop") is Decision.WAIT
    assert custom.evaluate(0.3, "", onset_after_playback_s=0.0).reason != "echo"


def test_defaults() -> None:
    settings = BargeInSettings()
    assert settings.min_interrupt_speech_s == 0.6
    assert settings.warmup_s == 0.3
    assert settings.min_word_speech_s < settings.min_lone_word_s < settings.min_interrupt_speech_s
    assert "no" in settings.short_interrupts
    assert settings.duck_gain == 0.0 and settings.duck_gain_db <= -60  # a pause
    assert BargeInSettings(duck_gain=0.1).duck_gain_db == pytest.approx(-20.0)
    assert "mm-hm" in settings.backchannel_words and "got it" in settings.backchannel_words


@pytest.mark.parametrize(
    "kwargs", [{"duck_gain": 1.5}, {"warmup_s": -1.0}, {"min_lone_word_s": -0.1}]
)
def test_invalid_settings_raise(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SettingsError) as info:
        BargeInSettings(**kwargs)
    assert info.value.code == "bargein_settings"


def test_settings_from_user() -> None:
    patient = BargeInDecider(settings_from_user(2.0, resume_after_backchannel=True))
    assert patient.decide(1.0, "") is Decision.WAIT
    assert patient.decide(2.0, "") is Decision.INTERRUPT
    assert patient.decide(1.6, "mm-hm") is Decision.WAIT  # not cut sooner than plain speech
    assert patient.decide(0.4, "mm-hm", speech_ended=True) is Decision.RESUME
    strict = BargeInDecider(settings_from_user(0.6, resume_after_backchannel=False))
    assert strict.decide(0.4, "mm-hm") is Decision.INTERRUPT
    assert strict.decide(0.26, "Perhaps.", speech_ended=True) is Decision.INTERRUPT
    assert strict.decide(0.1, "", speech_ended=True) is Decision.RESUME



def test_echoes_reply_spots_the_assistants_own_words() -> None:
    from desktop_agent.core.listening.bargein import echoes_reply

    reply = "The moon is covered in craters. It is about a quarter of the size of Earth."
    assert echoes_reply("This is covered.", reply)
    assert echoes_reply("the size of Earth", reply)
    assert echoes_reply("approximate.", "It is approximately a quarter of the size of Earth.")
    assert not echoes_reply("Tell me something else.", reply)
    assert not echoes_reply("Wait, what about Mars?", reply)
    assert not echoes_reply("It is.", reply)  # filler alone proves nothing
    assert not echoes_reply("", reply)
    # Numbers either way round: Whisper writes the "forty" it heard as "40."
    assert echoes_reply("40.", "two hundred forty kilometres away")
    assert echoes_reply("about forty two", "It is about 42 km.")
    assert not echoes_reply("41", "two hundred forty kilometres away")
