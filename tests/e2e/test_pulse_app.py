"""The whole app on PulseAudio virtual devices: real streams, real echo, device loss.

``pulse_server`` gives a ``speaker`` sink (what the app plays), a ``micsink`` whose monitor
is the app's microphone, and a loopback ``speaker.monitor -> micsink``: the app hears its
own voice, delayed by real buffers, and the speexdsp canceller is on. The "user" is a WAV
played into ``micsink`` with ``paplay`` (Piper, at another pace and pitch).
"""

from __future__ import annotations

import re
import subprocess
import time
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_agent.core.turns.policy import TurnPolicy
from desktop_agent.core.turns.states import State
from tests.audio.pulse import LOOPBACK_ARGS, pactl
from tests.e2e.stuck import reply_state

pytestmark = [pytest.mark.models, pytest.mark.slow, pytest.mark.pulse, pytest.mark.timeout(900)]


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


@pytest.fixture(scope="module")
def pulse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PulseAudio daemon of this module's own, not the session's: these tests pass run
    alone, and in two of the last three full runs (the CI of a7a739f, a fresh clone of
    c56df10) the hands-free ones failed beside the session's daemon after ~18 minutes of
    other tests (sinks unloaded and loaded, volumes set, streams opened and closed), the
    echo left uncancelled ("echo_words" and "words" verdicts on the app's own voice).
    Which leftover did it is not found (docs/known-limits.md); the app never shares a
    sound server with such a history."""
    from tests.audio.pulse import start_pulse

    yield from start_pulse(tmp_path_factory)


@pytest.fixture(scope="module")
def app(qapp: Any, pulse_server: str, models: Any) -> Any:
    from desktop_agent.adapters.audio.device_audio import DeviceAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings

    settings = Settings().replace_field("interaction.mode", "hands_free")
    rt = build_runtime(settings, DeviceAudio("pulse", "pulse"), echo_cancellation=True)
    rt.errors, rt.synthesized = [], {}
    rt.controller.sig_error.connect(rt.errors.append)
    rt.controller.link.sig_tts_job_queued.connect(
        lambda job: rt.synthesized.setdefault(int(job.turn_id), []).append(job.text))
    rt.controller.start()
    deadline = time.monotonic() + 180
    while not rt.controller.loaded() and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.05)
    assert rt.controller.loaded(), "the engines did not load"
    _RUNNING.append(rt)
    yield rt
    _RUNNING.clear()
    rt.shutdown()


@pytest.fixture(scope="module")
def user_wav(tts: Any, tmp_path_factory: Any) -> Any:
    """user_wav(text) -> a WAV of Piper at 1.15x pace, pitched up ~6 %, for paplay."""
    folder = tmp_path_factory.mktemp("user")

    def _make(text: str) -> Path:
        path = folder / (re.sub(r"\W+", "_", text) + ".wav")
        if not path.exists():
            tts.set_speaking_rate(1.15)
            try:
                audio = np.concatenate([c.audio for c in tts.synthesize(text)])
            finally:
                tts.set_speaking_rate(1.0)
            with wave.open(str(path), "wb") as w:  # the rate tag does the pitch shift
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(int(tts.sample_rate * 1.06))
                w.writeframes((audio.astype(np.float32) * 0.8).astype(np.int16).tobytes())
        return path

    return _make


def _say(path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["paplay", "--device=micsink", str(path)])


def _say_all(qtbot: Any, path: Path, timeout_s: float = 30) -> None:
    """Play ``path`` into the microphone and wait until it has played, with the app's event
    loop running meanwhile (a blocking wait would hold back every signal the app's workers
    send while the user speaks: the pause, the barge-in tracker, the player's feed)."""
    proc = _say(path)
    try:
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=int(timeout_s * 1000))
    finally:
        if proc.poll() is None:
            proc.kill()


_RUNNING: list[Any] = []  # the module's app, for timeout diagnostics


def _wait(qtbot: Any, what: Any, timeout_s: float) -> None:
    try:
        qtbot.waitUntil(what, timeout=int(timeout_s * 1000))
    except Exception as exc:  # say where the app stood, not just that it timed out
        if not _RUNNING:
            raise
        c = _RUNNING[-1].controller
        recent = [(int(t.turn_id), t.source.name, t.target.name, t.cause, round(t.at_s, 2))
                  for t in list(c.transitions)[-10:]]
        raise AssertionError(
            f"timed out after {timeout_s} s in {c.machine.state.name} at "
            f"{time.monotonic():.2f}; tracker active={c.barge_tracker.active}, "
            f"player paused={c.backend.player.paused}, last transitions={recent}, "
            f"verdicts={list(c.barge_tracker.verdicts)[-4:]}, reply={reply_state(c)}") from exc


def _causes(c: Any, since: int = 0) -> list[tuple[State, str]]:
    return [(t.target, t.cause) for t in list(c.transitions)[since:]]


def _why(c: Any, since: int, judged: int) -> str:
    """What a failed assertion prints in full: transitions, verdicts, what was said."""
    lines = [f"  {int(t.turn_id)} {t.source.name} -> {t.target.name} ({t.cause}) {t.at_s:.2f}"
             for t in list(c.transitions)[since:]]
    tracker = c.barge_tracker
    lines += [f"  verdict {v.decision.value} ({v.reason}) after {s:.2f} s of speech: {t!r}"
              for v, (t, s) in list(zip(tracker.verdicts, tracker.heard, strict=True))[judged:]]
    lines += [f"  {m.role}{' (interrupted)' if m.interrupted else ''}: {m.content[:100]}"
              for m in c.machine.history.messages[-4:]]
    return "\n".join(lines)


def _ask_hands_free(qtbot: Any, app: Any, path: Path) -> None:
    c = app.controller
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 60)
    _say_all(qtbot, path)
    _wait(qtbot, lambda: c.machine.state is State.ASSISTANT_SPEAKING, 120)


def test_hands_free_own_voice_never_interrupts(qtbot: Any, app: Any, user_wav: Any) -> None:
    c = app.controller
    c.set_mode("hands_free")
    start = len(c.transitions)
    _ask_hands_free(qtbot, app, user_wav("Tell me about the moon in a few sentences."))
    spoke_at = time.monotonic()
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 90)
    assert time.monotonic() - spoke_at > 3.0, "the answer was too short to test echo"
    causes = _causes(c, start)
    assert (State.INTERRUPTED, "barge_in_voice") not in causes, causes
    assert causes[-1] == (State.LISTENING, "reply_done"), causes
    assert not c.machine.history.messages[-1].interrupted


def test_hands_free_real_interruption_cuts_the_reply(qtbot: Any, app: Any,
                                                     user_wav: Any) -> None:
    c = app.controller
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 120)  # the test before may still reply
    c.set_mode("hands_free")
    heard: list[Any] = []
    c.sig_heard.connect(heard.append)
    start = len(c.transitions)
    cut_in = user_wav("Wait, stop, tell me something else.")  # made now, not during the reply
    _ask_hands_free(qtbot, app, user_wav("Explain how a car engine works."))
    turn = int(c.machine.turn_id)
    # About 2.5 s of the answer itself (a filler may have played first).
    _wait(qtbot, lambda: c.machine.reply_played_s >= 2.5
          or c.machine.state is not State.ASSISTANT_SPEAKING, 60)
    assert c.machine.state is State.ASSISTANT_SPEAKING, (
        f"the answer ended too soon to cut:\n{_why(c, start, 0)}")
    assert (State.INTERRUPTED, "barge_in_voice") not in _causes(c, start)  # not by itself
    said_at = time.monotonic()
    _say(cut_in)
    _wait(qtbot, lambda: any(r.interrupted for r in heard), 20)
    cut = [t for t in list(c.transitions)[start:] if t.cause == "barge_in_voice"]
    assert cut and cut[0].at_s >= said_at, "the reply was cut before the user spoke"
    report = next(r for r in heard if r.interrupted)
    filler = TurnPolicy().filler_text  # "One moment." may open a slow reply; never "heard"
    said = _words(" ".join(t for t in app.synthesized[turn] if t != filler))
    got = _words(report.heard_text)
    assert got and said[: len(got)] == got, (report.heard_text, said)
    _wait(qtbot, lambda: c.machine.state in (State.LISTENING, State.ASSISTANT_SPEAKING), 120)


def test_hands_free_backchannel_does_not_stop_the_reply(qtbot: Any, app: Any,
                                                       user_wav: Any) -> None:
    c = app.controller
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 120)  # the test before may still reply
    c.set_mode("hands_free")
    start, judged = len(c.transitions), len(c.barge_tracker.verdicts)
    okay = user_wav("Okay.")  # made now, not while the reply plays
    _ask_hands_free(qtbot, app, user_wav("Tell me about the moon in a few sentences."))
    _wait(qtbot, lambda: c.machine.reply_played_s >= 2.0
          or c.machine.state is not State.ASSISTANT_SPEAKING, 60)
    assert c.machine.state is State.ASSISTANT_SPEAKING, (
        f"the answer ended too soon:\n{_why(c, start, judged)}")
    _say_all(qtbot, okay, 10)
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 90)
    causes = _causes(c, start)
    verdicts = [(v.decision.value, v.reason) for v in list(c.barge_tracker.verdicts)[judged:]]
    why = _why(c, start, judged)
    assert (State.INTERRUPTED, "barge_in_voice") not in causes, f"cut:\n{why}"
    assert causes[-1] == (State.LISTENING, "reply_done"), f"not done:\n{why}"
    # Heard, paused, resumed: as a backchannel, or as too short to be words when Whisper's
    # filter drops a lone "okay" (a stock hallucination) from so little audio.
    assert any(d == "resume" and r in ("backchannel", "too_short", "no_words")
               for d, r in verdicts), f"the okay was not judged:\n{why}"


def _unload_devices() -> None:
    for name in ("sink_name=micsink", "sink_name=speaker"):
        for line in pactl("list", "short", "modules").splitlines():
            if name in line:
                pactl("unload-module", line.split()[0])


def _restore_devices() -> None:
    pactl("load-module", "module-null-sink", "sink_name=speaker", "rate=48000", "channels=2")
    pactl("load-module", "module-null-sink", "sink_name=micsink", "rate=48000", "channels=1")
    pactl("load-module", "module-loopback", "source=speaker.monitor", "sink=micsink",
          *LOOPBACK_ARGS)
    pactl("set-default-sink", "speaker")
    pactl("set-default-source", "micsink.monitor")


def test_push_to_talk_survives_losing_the_devices_mid_turn(qtbot: Any, app: Any,
                                                          user_wav: Any) -> None:
    c = app.controller
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 120)
    c.set_mode("push_to_talk")

    def ptt_turn(text: str) -> None:
        _wait(qtbot, lambda: c.machine.state is State.LISTENING, 120)
        c.ptt_press()
        _say_all(qtbot, user_wav(text))
        qtbot.wait(400)  # the loopback and input buffers still hold the end of it
        c.ptt_release()
        _wait(qtbot, lambda: c.machine.state is State.ASSISTANT_SPEAKING, 120)

    ptt_turn("Explain how a car engine works.")
    before = list(c.machine.history.messages)
    errors = len(app.errors)
    start = len(c.transitions)
    qtbot.wait(1500)
    _unload_devices()
    try:
        _wait(qtbot, lambda: len(app.errors) > errors, 15)
        assert any(e.code.startswith("audio_device") for e in app.errors[errors:]), app.errors
        qtbot.wait(2000)  # the capture worker keeps retrying; the app keeps running
    finally:
        _restore_devices()
    _wait(qtbot, lambda: c.machine.state in (State.LISTENING, State.ERROR), 120)
    if c.machine.state is State.ERROR:
        _wait(qtbot, lambda: c.machine.state is State.LISTENING, 60)
    causes = _causes(c, start)
    # The apology was heard: the reopened speaker played it (a speaker put to sleep with
    # it queued, as an early version of the idle sleep did, timed it out in the soak).
    # An outage of 6 s times it out on any version: the apology's timer is 10 s.
    assert (State.LISTENING, "apology_timeout") not in causes, causes
    history = c.machine.history.messages  # nothing said before the loss was lost
    assert [m.content for m in history[: len(before)]] == [m.content for m in before]

    samples = app.backend.samples
    _wait(qtbot, lambda: app.backend.samples > samples + 16_000, 20)  # the mic is back
    count = len(c.machine.history.messages)
    ptt_turn("What is the capital of Italy?")
    _wait(qtbot, lambda: c.machine.state is State.LISTENING, 180)
    users = [m for m in c.machine.history.messages[count:] if m.role == "user"]
    assert users and "italy" in _words(users[-1].content), c.machine.history.messages[count:]
