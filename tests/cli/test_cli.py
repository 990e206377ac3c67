"""The command line: ask end to end, doctor's exit codes, errors without tracebacks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop_agent.adapters.audio.audio_files import read_audio, write_wav
from desktop_agent.core.errors import AudioFileError
from tests.fakes.llm import says_the_hour

CLI = [sys.executable, "-m", "desktop_agent.cli"]


def _run(args: list[str], env: dict[str, str] | None = None,
         timeout: int = 300) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(CLI + args, capture_output=True, text=True, timeout=timeout,
                          env=full_env, cwd=Path(__file__).resolve().parents[2])


def _stereo_44k(path: Path, mono_16k: Any) -> None:
    """Write a question as 44.1 kHz stereo, so ask must convert rate and channels."""
    from desktop_agent.audio.resample import resample

    x = resample(mono_16k, 16_000, 44_100)
    pcm = (np.clip(np.stack([x, 0.8 * x], axis=1), -1, 1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(44_100)
        out.writeframes(pcm.tobytes())


@pytest.mark.models
@pytest.mark.slow
def test_ask_answers_a_spoken_question(tmp_path: Path, speak: Any) -> None:
    question = tmp_path / "question.wav"
    _stereo_44k(question, speak("What is the capital of Italy?"))
    reply = tmp_path / "reply.wav"
    proc = _run(["ask", "--wav", str(question), "--out", str(reply), "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert "italy" in result["transcript"].lower()
    assert "rome" in result["reply"].lower()
    assert result["reply_wav"] == str(reply)
    for stage in ("load", "asr", "llm_first_token", "llm_total", "tts_first_chunk", "tts_total"):
        assert result["timings_ms"][stage] >= 0
    with wave.open(str(reply)) as w:
        assert w.getframerate() == 22050 and w.getnchannels() == 1
        assert w.getnframes() / 22050 > 0.8


@pytest.mark.models
@pytest.mark.slow
def test_ask_uses_the_time_tool(tmp_path: Path, speak: Any) -> None:
    question = tmp_path / "q.wav"
    write_wav(question, speak("What time is it?"), 16_000)
    proc = _run(["ask", "--wav", str(question), "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["tool_calls"] == ["get_current_time"]
    assert says_the_hour(result["reply"]), result["reply"]  # what was said: words, no digits
    assert "PROCESSING->WAITING_FOR_TOOL (tool_call)" in result["transitions"]


@pytest.mark.models
@pytest.mark.slow
def test_ask_checks_its_answer_as_the_window_does() -> None:
    # Reflection "checkable" (the settings' default): a span the speaker gets wrong
    # ("thirty-six minutes" before ask reflected) is repaired before the turn ends.
    from desktop_agent.core.reflection.clock_spans import find_clock_span
    from desktop_agent.core.reflection.verdict import Verdict

    question = ("I fell asleep at eleven thirty last night and woke up at seven fifteen this "
                "morning. How many minutes did I sleep?")
    proc = _run(["ask", "--text", question, "--json"])
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)["reply"]
    check = find_clock_span(question)
    assert check is not None and check.judge(reply).verdict is Verdict.GOOD, reply


@pytest.mark.models
@pytest.mark.slow
def test_ask_answers_a_typed_question(tmp_path: Path) -> None:
    reply = tmp_path / "reply.wav"
    proc = _run(["ask", "--text", "What is the capital of France?", "--out", str(reply),
                 "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["transcript"] == "What is the capital of France?"
    assert "paris" in result["reply"].lower()
    assert "asr" not in result["models"] and {"llm", "tts"} <= set(result["models"])
    assert result["transitions"][0] == "LISTENING->USER_SPEAKING (ptt_pressed)"
    assert result["transitions"][-1] == "ASSISTANT_SPEAKING->LISTENING (reply_done)"
    for stage in ("load", "llm_first_token", "llm_total", "tts_first_chunk", "tts_total"):
        assert result["timings_ms"][stage] >= 0
    with wave.open(str(reply)) as w:
        assert w.getnframes() / w.getframerate() == pytest.approx(result["reply_audio_s"],
                                                                  abs=0.01)


@pytest.mark.models
@pytest.mark.slow
def test_ask_hears_no_speech_in_silence(tmp_path: Path) -> None:
    silence = tmp_path / "silence.wav"
    write_wav(silence, np.zeros(32_000, dtype=np.float32), 16_000)
    proc = _run(["ask", "--wav", str(silence), "--json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["transcript"], result["reply"], result["tool_calls"]) == ("", "", [])
    assert result["transitions"][-1] == "PROCESSING->LISTENING (no_speech)"


def test_ask_takes_exactly_one_question() -> None:
    both = _run(["ask", "--text", "hi", "--wav", "q.wav"], timeout=60)
    assert both.returncode == 2 and "not allowed with" in both.stderr
    neither = _run(["ask", "--json"], timeout=60)
    assert neither.returncode == 2 and "one of the arguments --wav --text" in neither.stderr
    empty = _run(["ask", "--text", "  "], timeout=60)
    assert empty.returncode == 2 and "empty" in empty.stderr
    assert "Traceback" not in both.stderr + neither.stderr + empty.stderr


def test_ask_reports_a_failed_turn_with_its_code_and_fix(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """An LLM that fails mid-turn: the machine's ERROR path, '[code] ... Fix:', exit 1."""
    from desktop_agent.compose import engines
    from desktop_agent.core.errors import LlmError
    from desktop_agent.core.tools.registry import ToolRegistry
    from tests.fakes.llm import FakeLlm
    from tests.fakes.tts import FakeTts

    def broken(messages: object) -> list[object]:
        raise LlmError("llm_crashed", "The model crashed.", "Reinstall it.")

    def fake_load(settings: object, roles: tuple[str, ...],
                  tools: object = None) -> engines.Engines:
        assert roles == ("llm", "tts")  # a typed question loads no ASR
        return engines.Engines(llm=FakeLlm(broken), tts=FakeTts(),  # type: ignore[arg-type]
                               tools=ToolRegistry())

    monkeypatch.setattr(engines, "load_engines", fake_load)
    monkeypatch.setenv("DESKTOP_AGENT_CONFIG_DIR", str(tmp_path))
    from desktop_agent.cli import main

    assert main(["ask", "--text", "hello", "--json", "--out", str(tmp_path / "r.wav"),
                 "--data-dir", str(tmp_path / "data")]) == 1
    out, err = capsys.readouterr()
    assert err.strip() == "[llm_crashed] The model crashed. Fix: Reinstall it."
    result = json.loads(out)
    assert result["error"] == {"code": "llm_crashed", "message": "The model crashed.",
                               "fix": "Reinstall it."}
    assert result["transitions"][-2:] == ["PROCESSING->ERROR (llm_failed)",
                                          "ERROR->LISTENING (apology_done)"]
    assert result["reply"] == "" and result["reply_wav"] is None
    assert not (tmp_path / "r.wav").exists()


def test_ask_rejects_a_file_that_is_not_audio(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.wav"
    bogus.write_text("this is not audio at all\n" * 20)
    proc = _run(["ask", "--wav", str(bogus)], timeout=60)
    assert proc.returncode == 1
    assert "[not_audio]" in proc.stderr and "Traceback" not in proc.stderr
    missing = _run(["ask", "--wav", str(tmp_path / "nope.wav")], timeout=60)
    assert missing.returncode == 1 and "[audio_file_missing]" in missing.stderr


def test_read_audio_converts_rate_and_channels(tmp_path: Path) -> None:
    t = np.arange(44_100) / 44_100
    tone = 0.5 * np.sin(2 * np.pi * 440 * t)
    path = tmp_path / "tone.wav"
    _stereo_44k_raw(path, tone)
    audio = read_audio(path)
    assert audio.dtype == np.float32 and abs(len(audio) - 16_000) < 200
    assert 0.3 < np.max(np.abs(audio)) < 0.5  # the mean of 0.5 and 0.4 channels
    truncated = tmp_path / "cut.wav"
    truncated.write_bytes(path.read_bytes()[:30])
    with pytest.raises(AudioFileError):
        read_audio(truncated)


def _stereo_44k_raw(path: Path, x: Any) -> None:
    pcm = (np.stack([x, 0.8 * x], axis=1) * 32767).astype(np.int16)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(44_100)
        out.writeframes(pcm.tobytes())


def test_doctor_fails_with_a_fix_when_a_model_is_missing(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.toml").write_text('[models]\nllm = "/nowhere/model.gguf"\n')
    proc = _run(["doctor", "--quick", "--json"], env={"DESKTOP_AGENT_CONFIG_DIR": str(config)},
                timeout=120)
    assert proc.returncode == 1, proc.stdout
    report = json.loads(proc.stdout)
    llm = next(c for c in report["checks"] if c["name"] == "model llm")
    assert llm["status"] == "error" and "model_not_found" in llm["detail"] and llm["fix"]


@pytest.mark.models
@pytest.mark.slow
def test_doctor_is_green_with_the_default_models(tmp_path: Path) -> None:
    proc = _run(["doctor", "--json"], env={"DESKTOP_AGENT_CONFIG_DIR": str(tmp_path)})
    report = json.loads(proc.stdout)
    bad = [c for c in report["checks"] if c["status"] == "error"]
    assert proc.returncode == 0 and not bad, bad
    names = {c["name"] for c in report["checks"]}
    assert {"engine asr", "engine llm", "engine tts", "engine vad", "engine turn",
            "engine embed", "engine aec"} <= names
    turn = next(c for c in report["checks"] if c["name"] == "engine turn")
    assert turn["status"] == "ok" and "p=" in turn["detail"]
    embed = next(c for c in report["checks"] if c["name"] == "engine embed")
    assert embed["status"] == "ok" and "384-dim vectors" in embed["detail"]
    asr = next(c for c in report["checks"] if c["name"] == "engine asr")
    assert "testing" in asr["detail"].lower()


def test_no_display_gives_a_clear_message() -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run(CLI, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 3
    assert "no display" in proc.stderr and "desktop-agent ask --wav" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_doctor_warns_with_a_fix_when_the_desktop_tools_lack_their_pieces(
        tmp_path: Path) -> None:
    env = {"DESKTOP_AGENT_CONFIG_DIR": str(tmp_path), "PULSE_SERVER": f"unix:{tmp_path}/none",
           "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus", "DISPLAY": "",
           "WAYLAND_DISPLAY": ""}
    proc = _run(["doctor", "--quick", "--json"], env=env, timeout=120)
    checks = {c["name"]: c for c in json.loads(proc.stdout)["checks"]}
    for name, code in (("desktop volume", "no_sound_server"),
                       ("desktop media", "no_session_bus"), ("desktop open", "no_display"),
                       ("desktop selection", "no_display")):
        assert checks[name]["status"] == "warn" and code in checks[name]["detail"], checks[name]
        assert checks[name]["fix"]


def test_doctor_reads_the_sound_server_s_volume(tmp_path: Path, pulse_server: str) -> None:
    subprocess.run(["pactl", "set-sink-volume", "@DEFAULT_SINK@", "42%"], check=True, timeout=10)
    proc = _run(["doctor", "--quick", "--json"],
                env={"DESKTOP_AGENT_CONFIG_DIR": str(tmp_path), "PULSE_SERVER": pulse_server},
                timeout=120)
    volume = next(c for c in json.loads(proc.stdout)["checks"] if c["name"] == "desktop volume")
    assert volume["status"] == "ok" and volume["detail"].startswith("default output at 42 %")
