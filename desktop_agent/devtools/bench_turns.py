"""``desktop-agent bench turns``: latency from the end of the user's speech to first audio.

Replays spoken questions through the full streaming pipeline (the same runtime the GUI
uses, on a virtual sound card with a real-time clock: push-to-talk press, the question
played into the microphone, release ``HOLD_S`` after its last word), then through a serial
cascade on the same models (whole transcript, whole reply, whole synthesis, then play).
Prints p50/p95 per stage, the time each stage adds, and the ratio of first-audio
latencies, measured from the endpoint (the key's release) and from the real end of
speech (found in each clip by its energy). Figures, not asserts: the machine is shared.

``hands_free``: no key; the question is played into the microphone and the app's own
endpointing (VAD, transcript rule, end-of-turn model) ends the turn. The endpoint is then
the end of turn, and ``from_speech_end`` is measured as before. A recording that the
endpointer closes before its speech has ended (a pause between two sentences) is left out
of the figures and counted in ``split_turns``. ``asr``: the ASR model to use (settings'
default otherwise), for both cascades.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

QUESTIONS = (
    "What is the capital of France?",
    "Why is the sky blue?",
    "How many legs does a spider have?",
    "What is the boiling point of water?",
    "Who wrote Romeo and Juliet?",
    "Give me a tip for sleeping better.",
    "What is the largest planet in the solar system?",
    "How do plants make their food?",
    "What time is it?",
    "Name three primary colours.",
)
STAGES = ("asr_final", "llm_first_token", "first_chunk", "first_audio")
HOLD_S = 0.15
"""The key is released this long after the last word (a quick push-to-talk user)."""
RATE = 16_000


def speech_end_index(audio: Any, rate: int = RATE, floor_db: float = -35.0) -> int:
    """Index just after the last 10 ms frame within ``floor_db`` of the clip's loudest one."""
    import numpy as np

    frame = rate // 100
    n = len(audio) // frame
    if n == 0:
        return len(audio)
    rms = np.sqrt(np.mean(np.square(audio[: n * frame].reshape(n, frame)), axis=1) + 1e-12)
    loud = np.nonzero(rms >= rms.max() * 10 ** (floor_db / 20))[0]
    return int((loud[-1] + 1) * frame) if len(loud) else len(audio)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _questions(wav_dir: Path | None, quick: bool) -> list[tuple[str, Any]]:
    """(name, 16 kHz float32 audio) of each question."""
    from desktop_agent.adapters.audio.audio_files import read_audio
    from desktop_agent.devtools.screenshot_turn import speech as _speech

    if wav_dir is not None:
        files = sorted(p for p in wav_dir.iterdir() if p.suffix.lower() in (".wav", ".flac",
                                                                              ".mp3", ".ogg"))
        if not files:
            raise SystemExit(f"no audio files in {wav_dir}")
        return [(f.name, read_audio(f)) for f in files]
    chosen = QUESTIONS[:4] if quick else QUESTIONS
    return [(q, _speech(q)) for q in chosen]


def _streaming(questions: list[tuple[str, Any]], settings: Any,
               hands_free: bool = False) -> tuple[list[dict[str, float]], int]:
    """Per-turn rows of the streaming cascade, and how many turns were split (hands-free)."""
    from PySide6.QtCore import QCoreApplication

    from desktop_agent.audio.virtual import VirtualAudio
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.turns.states import State

    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    runtime = build_runtime(settings, VirtualAudio(), echo_cancellation=False)
    c, backend = runtime.controller, runtime.backend

    def wait(cond: Any, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            if cond():
                return True
            time.sleep(0.002)
        return False

    results: list[dict[str, float]] = []
    split = 0
    try:
        c.start()
        if not wait(c.loaded, 180):
            raise SystemExit("the engines did not load (run `desktop-agent doctor`)")
        if hands_free:
            c.set_mode("hands_free")
        for i, (_name, audio) in enumerate([questions[0], *questions]):
            wait(lambda: c.machine.state is State.LISTENING, 30)
            done = c.machine.spans_completed
            if not hands_free:
                c.ptt_press()
            start = backend.inject(audio)
            speech_end = start + speech_end_index(audio)
            until = max(start + len(audio), speech_end + int(HOLD_S * RATE))
            wait(lambda u=until: backend.samples >= u, 30)
            if hands_free:  # the endpointer ends the turn (it may have, mid-recording)
                wait(lambda: c.machine.state is not State.USER_SPEAKING, 30)
            else:
                c.ptt_release()
            wait(lambda: c.machine.state in (State.ASSISTANT_SPEAKING, State.LISTENING,
                                             State.ERROR), 60)
            wait(lambda: c.machine.state is State.LISTENING, 60)
            new = c.machine.spans_since(done)
            span = new[0] if new else None
            if i == 0 or span is None:  # the first question only warms caches up
                continue
            if hands_free and (len(new) > 1 or span.marks.get("endpoint", 0.0)
                               < backend.time_of(speech_end)):
                split += 1  # closed inside the speech: not a turn from its end
                continue
            row = {s: v for s in STAGES if (v := span.since_endpoint_ms(s)) is not None}
            if "first_audio" in span.marks:
                row["from_speech_end"] = (span.marks["first_audio"]
                                          - backend.time_of(speech_end)) * 1000.0
            results.append(row)
    finally:
        runtime.shutdown()
    return results, split


def _serial(questions: list[tuple[str, Any]], settings: Any) -> list[dict[str, float]]:
    """Whole transcript, whole reply, whole synthesis, then the first sample plays."""
    import numpy as np

    from desktop_agent.compose.engines import load_engines
    from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
    from desktop_agent.core.ports import ChatMessage
    from desktop_agent.core.text.normalize import normalize_for_speech

    engines = load_engines(settings)
    assert engines.asr and engines.llm and engines.tts
    out: list[dict[str, float]] = []
    for i, (_name, audio) in enumerate([questions[0], *questions]):
        t0 = time.perf_counter()
        text = engines.asr.transcribe(audio).text
        t_asr = time.perf_counter()
        first = None
        reply = ""
        for delta in engines.llm.stream_chat([ChatMessage("system", SYSTEM_PROMPT),
                                              ChatMessage("user", text)],
                                             tools=engines.tools.specs, max_tokens=200):
            first = first or time.perf_counter()
            if delta.tool_call is not None:
                reply = engines.tools.run(delta.tool_call)
                break
            reply += delta.text
        t_llm = time.perf_counter()
        chunks = list(engines.tts.synthesize(normalize_for_speech(reply)))
        t_tts = time.perf_counter()
        block_s = 0.01  # the first sample plays at the next device block
        if i == 0 or not chunks or not np.any([c.n_samples for c in chunks]):
            continue
        ms = 1000.0
        # The serial cascade starts when the whole clip is in, held as long as the
        # streaming run holds the key after the last word.
        tail_s = max(len(audio) - speech_end_index(audio), int(HOLD_S * RATE)) / RATE
        out.append({"from_speech_end": (t_tts - t0 + block_s + tail_s) * ms,
                    "asr_final": (t_asr - t0) * ms,
                    "llm_first_token": ((first or t_llm) - t0) * ms,
                    "llm_total": (t_llm - t0) * ms,
                    "first_chunk": (t_tts - t0) * ms,
                    "first_audio": (t_tts - t0 + block_s) * ms})
    return out


def run_bench(as_json: bool = False, wav_dir: Path | None = None, quick: bool = False,
              llm_server: str | None = None, hands_free: bool = False,
              asr: str | None = None, asr_server: str | None = None,
              tts_server: str | None = None) -> int:
    """Run both cascades and print the figures (the LLM on ``llm_server`` when given, speech
    recognition and the voice on Wyoming servers when given)."""
    from desktop_agent.core.settings import Settings

    settings = Settings()
    if llm_server:  # an OpenAI-compatible server (llama-server, vLLM) answers instead
        settings = settings.replace_field("llm.backend", "server").replace_field(
            "llm.server_url", llm_server)
    if asr:
        settings = settings.replace_field("models.asr", asr)
    for role, uri in (("asr", asr_server), ("tts", tts_server)):
        if uri:
            settings = settings.replace_field(f"{role}.backend", "wyoming").replace_field(
                f"{role}.uri", uri)
    questions = _questions(wav_dir, quick)
    streaming, split = _streaming(questions, settings, hands_free)
    serial = _serial(questions, settings)
    report = summarize(streaming, serial)
    # Each streaming turn's figures: pooled over runs, they say more than one run's p50.
    report["streaming_turns"] = [{k: round(v, 1) for k, v in row.items()} for row in streaming]
    report["mode"] = "hands_free" if hands_free else "push_to_talk"
    report["asr"] = settings.models.asr or "default"
    report["speech_servers"] = {"asr": asr_server or "local", "tts": tts_server or "local"}
    if hands_free:
        report["split_turns"] = split
    if as_json:
        print(json.dumps(report))
        return 0
    _print(report)
    return 0


def summarize(streaming: list[dict[str, float]],
              serial: list[dict[str, float]]) -> dict[str, Any]:
    """The report: p50/p95 per stage for both cascades, what each stage adds, the ratios."""
    report: dict[str, Any] = {"n_turns": len(streaming), "n_serial_turns": len(serial),
                              "hold_ms": HOLD_S * 1000}
    for name, rows in (("", streaming), ("serial_", serial)):
        for stage in (*STAGES, "from_speech_end"):
            values = [r[stage] for r in rows if stage in r]
            report[f"{name}p50_{stage}_ms"] = round(_pct(values, 0.5), 1)
            report[f"{name}p95_{stage}_ms"] = round(_pct(values, 0.95), 1)
        # What each stage adds to the one before it, per turn (p50 of the differences).
        previous = None
        for stage in STAGES:
            values = [r[stage] - (r[previous] if previous else 0.0) for r in rows
                      if stage in r and (previous is None or previous in r)]
            report[f"{name}p50_added_by_{stage}_ms"] = round(_pct(values, 0.5), 1)
            previous = stage
    report["ratio_p50"] = round(report["p50_first_audio_ms"] /
                                report["serial_p50_first_audio_ms"], 3)
    report["ratio_p95"] = round(report["p95_first_audio_ms"] /
                                report["serial_p95_first_audio_ms"], 3)
    return report


def _print(report: dict[str, Any]) -> None:
    if report.get("mode") == "hands_free":
        print(f"{report['n_turns']} turns ({report['split_turns']} closed inside the speech, "
              "left out), hands-free; milliseconds after the endpoint (the end of turn)")
    else:
        print(f"{report['n_turns']} turns; milliseconds after the endpoint (the key's "
              f"release, {HOLD_S * 1000:.0f} ms after the last word)")
    print(f"{'stage':18} {'stream p50':>10} {'p95':>8} {'adds p50':>9} {'serial p50':>11} "
          f"{'p95':>8}")
    for stage in STAGES:
        print(f"{stage:18} {report[f'p50_{stage}_ms']:10.0f} {report[f'p95_{stage}_ms']:8.0f} "
              f"{report[f'p50_added_by_{stage}_ms']:9.0f} "
              f"{report[f'serial_p50_{stage}_ms']:11.0f} {report[f'serial_p95_{stage}_ms']:8.0f}")
    print(f"{'from speech end':18} {report['p50_from_speech_end_ms']:10.0f} "
          f"{report['p95_from_speech_end_ms']:8.0f} {'':9} "
          f"{report['serial_p50_from_speech_end_ms']:11.0f} "
          f"{report['serial_p95_from_speech_end_ms']:8.0f}")
    print(f"first audio, streaming / serial: p50 ratio {report['ratio_p50']:.2f}, "
          f"p95 ratio {report['ratio_p95']:.2f}")
    print("targets: p50 <= 700 ms, p95 <= 1000 ms, ratio <= 0.5")
