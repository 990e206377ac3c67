"""Speech engines on another computer, for real: wyoming-faster-whisper and wyoming-piper
started here on loopback with this project's own model files, then killed; a server that
never answers and one that hangs up mid-sentence (ours).

A whole round trip (the server's voice says a sentence, the server's recogniser hears it),
the fallback (a killed server fails that turn with a notice, the next one is answered by the
local engine, the server is used again once it is back) and the failure modes (down, silent,
dropped) each end in a typed error, never a hang.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_agent.adapters.speech_server import fallback
from desktop_agent.adapters.speech_server.asr_wyoming import WyomingAsr, asr_error
from desktop_agent.adapters.speech_server.tts_wyoming import WyomingTts, tts_error
from desktop_agent.audio.frames import int16_to_float32
from desktop_agent.audio.resample import resample
from desktop_agent.core.errors import AgentError, AsrError, TtsError
from tests.adapters.llm.llm_server_rig import free_port
from tests.adapters.speech_server.wyoming_rig import (
    MisbehavingServer,
    WyomingServer,
    asr_command,
    tts_command,
)

pytestmark = [pytest.mark.models, pytest.mark.slow, pytest.mark.timeout(600)]


def _words(text: str) -> list[str]:
    return "".join(c if c.isalnum() else " " for c in text.lower()).split()


@pytest.fixture(scope="module")
def asr_server(models: Any, tmp_path_factory: Any) -> Iterator[WyomingServer]:
    root = tmp_path_factory.mktemp("wyoming-asr")
    server = WyomingServer(lambda port: asr_command(models["asr"].path, root, port),
                           root / "server.log")
    yield server.start()
    server.kill()


@pytest.fixture(scope="module")
def tts_server(models: Any, tmp_path_factory: Any) -> Iterator[WyomingServer]:
    root = tmp_path_factory.mktemp("wyoming-tts")
    server = WyomingServer(lambda port: tts_command(models["tts"].path, port),
                           root / "server.log")
    yield server.start()
    server.kill()


def test_the_servers_voice_is_heard_by_the_servers_recogniser(
        asr_server: WyomingServer, tts_server: WyomingServer) -> None:
    voice = WyomingTts(tts_server.uri, voice="en_US-joe-medium")
    chunks = list(voice.synthesize("The capital of Italy is Rome. It has many old churches."))
    assert [c.text for c in chunks] == ["The capital of Italy is Rome.",
                                        "It has many old churches."]
    first = chunks[0]
    assert voice.sample_rate == first.sample_rate == 22050
    assert first.audio.dtype == np.int16 and first.n_samples > 0.8 * 22050
    assert not first.aligned and [w.word for w in first.words] == first.text.split()
    assert first.words[-1].end_sample <= first.n_samples
    audio = resample(int16_to_float32(first.audio), first.sample_rate, 16_000)
    heard = WyomingAsr(asr_server.uri).transcribe(audio)
    assert {"capital", "italy", "rome"} <= set(_words(heard.text)), heard
    assert heard.segments and heard.no_speech_prob == 0.0  # kept, not dropped as silence
    assert heard.audio_s == pytest.approx(len(audio) / 16_000)


def test_a_server_that_is_down_is_a_typed_error_at_once() -> None:
    with pytest.raises(AsrError) as caught:
        WyomingAsr(f"tcp://127.0.0.1:{free_port()}").transcribe(np.zeros(1600, np.float32))
    assert caught.value.code == "speech_server_down"
    assert "cannot be reached" in caught.value.message and caught.value.fix


def test_a_silent_server_times_out_and_one_that_hangs_up_is_reported() -> None:
    silent = MisbehavingServer("silent")
    try:
        with pytest.raises(AsrError) as caught:
            WyomingAsr(silent.uri, timeout_s=1.0).transcribe(np.zeros(1600, np.float32))
        assert caught.value.code == "speech_server_down"
        assert "did not answer within 1 s" in caught.value.message
    finally:
        silent.close()
    dropping = MisbehavingServer("hang_up")
    try:
        with pytest.raises(TtsError) as dropped:
            list(WyomingTts(dropping.uri, warm=False, timeout_s=5).synthesize("Hello there."))
        assert dropped.value.code == "speech_server_down"
        assert "closed the connection" in dropped.value.message
    finally:
        dropping.close()


def test_a_bad_address_says_how_to_write_one() -> None:
    with pytest.raises(AsrError) as caught:
        WyomingAsr("http://example.org:10300")
    assert caught.value.code == "speech_server_bad_uri" and "tcp://host:port" in caught.value.fix


def test_a_killed_recogniser_fails_its_turn_then_the_local_one_answers_until_it_is_back(
        models: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
    from tests.audio.speech import synth_16k

    probed_on: list[str] = []
    real_describe = fallback.describe

    def describe(*args: Any) -> Any:
        probed_on.append(threading.current_thread().name)
        return real_describe(*args)

    monkeypatch.setattr(fallback, "describe", describe)
    server = WyomingServer(lambda port: asr_command(models["asr"].path, tmp_path, port),
                           tmp_path / "server.log").start()
    notices: list[AgentError] = []
    try:
        engine = fallback.remote_first("speech recognition", WyomingAsr(server.uri),
                                       WhisperAsr(models["asr"].path, cpu_threads=2),
                                       notices.append, asr_error, retry_s=0.2)
        speech = synth_16k("What is the capital of Italy?")
        assert "italy" in _words(engine.transcribe(speech).text)
        assert notices == [] and engine.switch.down_since is None
        server.kill()  # between two turns, as a crash would
        with pytest.raises(AsrError):  # this turn fails: the machine apologises
            engine.transcribe(speech)
        assert [n.code for n in notices] == ["speech_server_down"]
        assert "this computer's own engine answers" in notices[0].fix
        local = engine.transcribe(speech)  # the next turn: answered here, no new notice
        assert "italy" in _words(local.text) and len(notices) == 1
        deadline = time.monotonic() + 60
        while engine.switch.probes < 2 and time.monotonic() < deadline:
            time.sleep(0.05)  # the prober has tried the dead server, not the turns
        assert engine.switch.probes >= 2 and engine.switch.engine()[1] is False
        assert engine.switch.probing
        server.start()
        while engine.switch.down_since is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert engine.switch.engine()[1] is True, "the server back was never found"
        assert "italy" in _words(engine.transcribe(speech).text) and len(notices) == 1
        assert probed_on and threading.current_thread().name not in probed_on
        assert all(name.startswith("probe tcp://") for name in probed_on)
    finally:
        engine.switch.close()
        server.kill()


def test_a_voice_that_hangs_up_mid_reply_leaves_the_apology_to_the_local_voice(
        models: Any) -> None:
    from desktop_agent.adapters.tts.tts_piper import PiperTts

    dropping = MisbehavingServer("hang_up")
    notices: list[AgentError] = []
    engine = None
    try:
        engine = fallback.remote_first(
            "voice", WyomingTts(dropping.uri, warm=False, timeout_s=5),
            PiperTts(models["tts"].path, threads=1, warm=False), notices.append, tts_error)
        with pytest.raises(TtsError):
            list(engine.synthesize("This reply is cut off."))
        apology = list(engine.synthesize("Sorry, something went wrong."))
        assert [c.text for c in apology] == ["Sorry, something went wrong."]
        assert apology[0].aligned and apology[0].n_samples > 22050 // 2  # Piper's own
        assert [n.code for n in notices] == ["speech_server_down"]
        assert dropping.requests == 1  # the apology never went to the server
    finally:
        if engine is not None:
            engine.switch.close()  # its prober waits for the server to come back
        dropping.close()


def test_a_whole_spoken_turn_goes_through_both_servers(
        asr_server: WyomingServer, tts_server: WyomingServer, tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys
    import wave

    from tests.audio.speech import synth

    audio, rate = synth("What is the capital of Italy?")
    question = tmp_path / "question.wav"
    with wave.open(str(question), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(audio.tobytes())
    (tmp_path / "settings.toml").write_text(
        f'[asr]\nbackend = "wyoming"\nuri = "{asr_server.uri}"\n\n'
        f'[tts]\nbackend = "wyoming"\nuri = "{tts_server.uri}"\n')
    env = {**os.environ, "DESKTOP_AGENT_CONFIG_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "desktop_agent", "ask", "--wav", str(question),
                           "--data-dir", str(tmp_path / "data"), "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert "italy" in _words(answer["transcript"]) and "rome" in _words(answer["reply"])
    assert "speech_server" not in done.stderr  # no fallback: both servers answered
    assert answer["transcript"].strip() in asr_server.log.read_text()
    assert "synthesize: raw_text=" in tts_server.log.read_text()
    assert answer["reply"].split(".")[0] in tts_server.log.read_text()


def test_doctor_checks_each_configured_server(asr_server: WyomingServer,
                                              tts_server: WyomingServer) -> None:
    from desktop_agent.core.settings import Settings
    from desktop_agent.devtools.doctor import Check
    from desktop_agent.devtools.doctor_servers import speech_server_checks

    assert speech_server_checks(Settings(), Check) == []  # local: nothing to check
    settings = (Settings().replace_field("asr.backend", "wyoming")
                .replace_field("asr.uri", asr_server.uri)
                .replace_field("tts.backend", "wyoming").replace_field("tts.uri", tts_server.uri))
    asr_row, tts_row = speech_server_checks(settings, Check)
    assert (asr_row.name, asr_row.status) == ("asr server", "ok"), asr_row
    assert "Describe" in asr_row.detail and "models " in asr_row.detail
    assert tts_row.status == "ok" and "en_US-joe-medium (22050 Hz)" in tts_row.detail, tts_row
    missing = settings.replace_field("tts.voice", "de_DE-nobody-low").replace_field(
        "asr.uri", f"tcp://127.0.0.1:{free_port()}")
    down, no_voice = speech_server_checks(missing, Check)
    assert down.status == "warn" and "speech_server_down" in down.detail and down.fix
    assert no_voice.status == "warn" and "speech_server_no_voice" in no_voice.detail
    assert "Install that voice" in no_voice.fix


def test_the_settings_test_button_asks_the_real_server(qtbot: Any,
                                                       tts_server: WyomingServer) -> None:
    from desktop_agent.adapters.speech_server.probe import probe_server
    from desktop_agent.core.settings import Settings
    from desktop_agent.gui.settings_dialog import SettingsDialog
    from desktop_agent.runtime.view_api import SettingsChoices

    dialog = SettingsDialog(Settings(), SettingsChoices(test_server=probe_server))
    qtbot.addWidget(dialog)
    dialog.set_value("tts.uri", tts_server.uri)
    row = dialog.server_tests["tts"]
    row.button.click()
    qtbot.waitUntil(lambda: row.button.isEnabled(), timeout=60_000)
    assert row.result.text().startswith(f"OK: {tts_server.uri}: voice en_US-joe-medium "
                                        "(22050 Hz)"), row.result.text()
    dialog.set_value("tts.uri", f"tcp://127.0.0.1:{free_port()}")
    row.button.click()
    qtbot.waitUntil(lambda: row.button.isEnabled(), timeout=60_000)
    assert row.result.text().startswith("[speech_server_down]"), row.result.text()


def test_the_voice_is_checked_at_start_as_doctor_checks_it(models: Any,
                                                           tts_server: WyomingServer) -> None:
    from desktop_agent.compose.speech_engines import make_tts
    from desktop_agent.core.settings import Settings

    settings = (Settings().replace_field("tts.backend", "wyoming")
                .replace_field("tts.uri", tts_server.uri))
    notices: list[AgentError] = []
    engine = make_tts(settings, models["tts"].path, 1, notices.append, warm=False)
    assert notices == [] and engine.switch.down_since is None
    assert engine.sample_rate == 22050  # learnt from the server's own word at start
    missing = settings.replace_field("tts.voice", "de_DE-nobody-low")
    engine = make_tts(missing, models["tts"].path, 1, notices.append, warm=False)
    try:  # a server without the voice: the local voice answers, and the user is told why
        assert [n.code for n in notices] == ["speech_server_no_voice"]
        assert "Install that voice" in notices[0].fix
        assert engine.switch.engine()[1] is False
        assert not engine.switch.probing  # the server answers: only a new voice mends it
    finally:
        engine.switch.close()
