"""The soak itself (``bench soak`` runs it in a child process, on its private PulseAudio).

The real runtime (compose/runtime.build_runtime) on the PulseAudio ``pulse`` devices, with
the echo canceller on: spoken questions are Piper WAVs played into the virtual microphone
with push-to-talk, typed ones go through ``ask_text``. Each turn gets one fault from the
seed: an engine fault (devtools/soak_faults.py), a barge-in (the push-to-talk key, or the
user's voice in hands-free mode, through the real capture path), or losing the sound
card mid-reply (the PulseAudio modules unloaded, then loaded again). One JSON line per
turn goes to ``out``, then one summary line. Each turn's plan and record (when it is stuck,
when a reply overruns) are in ``soak_turns``.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import random
import re
import sys
import tempfile
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from desktop_agent.devtools.soak_faults import FaultSwitch
from desktop_agent.devtools.soak_turns import BARGE, SHORT, TOOL, plan, turn_record

BETWEEN_TURNS_S: Final = 0.6
"""Pause after a turn is back in LISTENING, before the next: no one speaks again within a
few hundred milliseconds, and the app trims its heap once a turn has settled
(runtime/heap_keeper.py). Each turn's RSS is read after it; the start and the end figures
once the heap keeper has trimmed after the latest turn."""
HARD_CAP_S: Final = 150.0
"""A turn not back in LISTENING after this long is reset, so the soak goes on."""


def _rss_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def _memory() -> dict[str, Any]:
    """Where the resident memory is: anonymous (heaps, arenas: a leak grows this) or mapped
    files (model weights), and how many Python objects are alive (a Python-level leak grows
    this too; native buffers do not)."""
    return {"rss_anon_mb": _rss_mb("RssAnon"), "rss_file_mb": _rss_mb("RssFile"),
            "py_objects": len(gc.get_objects()), "py_arenas": _py_arenas(),
            "anon_maps": _anon_maps(),
            **({"numpy_held": _numpy_held()} if os.environ.get(NUMPY_ENV) else {})}


NUMPY_ENV: Final = "DESKTOP_AGENT_SOAK_NUMPY"
"""Set (to anything) to list, after each turn, which objects' attributes hold the most numpy
memory (``_numpy_held``): a slow walk over every live object, for finding a holder."""


def _numpy_held(top: int = 6) -> dict[str, float]:
    """MiB of numpy data held by each ``Class.attribute`` (an array, or a list, tuple or
    deque of arrays), the ``top`` largest; each array's memory is counted once."""
    import collections

    import numpy as np

    seen: set[int] = set()
    held: dict[str, int] = {}

    def owned(value: object) -> int:
        if not isinstance(value, np.ndarray):
            return 0
        base = value
        while isinstance(base.base, np.ndarray):
            base = base.base
        if id(base) in seen:
            return 0
        seen.add(id(base))
        return base.nbytes

    for obj in gc.get_objects():
        try:  # any object: a proxy may raise on attribute access, a deque may be mid-append
            attrs = getattr(obj, "__dict__", None)
            if not isinstance(attrs, dict):
                continue
            for name, value in list(attrs.items()):
                size = owned(value)
                if isinstance(value, (list, tuple, collections.deque)):
                    size += sum(owned(v) for v in list(value)[:100_000])
                if size:
                    key = f"{type(obj).__name__}.{name}"
                    held[key] = held.get(key, 0) + size
        except Exception:  # noqa: BLE001 - a diagnostic skips what it cannot read
            continue
    biggest = sorted(held.items(), key=lambda kv: -kv[1])[:top]
    return {key: round(size / 2**20, 1) for key, size in biggest}


def _py_arenas() -> int | None:
    """Python's object arenas now (1 MiB each, mapped directly, not through malloc, and
    returned only when every object in them is gone); None when it cannot be read.

    ``sys._debugmallocstats`` writes to the C stderr: it is caught in a file for the call
    (between turns, when the app is idle).
    """
    stats = getattr(sys, "_debugmallocstats", None)
    if stats is None:
        return None
    with tempfile.TemporaryFile() as out:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            stats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        found = re.search(rb"# arenas allocated current\s*=\s*([\d,]+)", out.read())
    return int(found.group(1).replace(b",", b"")) if found else None


TRACE_ENV: Final = "DESKTOP_AGENT_SOAK_TRACEMALLOC"
"""Set (to a number of frames, e.g. 8) to trace Python's allocations (numpy's included) from
the start of the counted turns: the summary then lists where what they left came from."""


def _trace_start() -> Any:
    """A tracemalloc snapshot now, with tracing on, when ``TRACE_ENV`` asks (else None)."""
    frames = os.environ.get(TRACE_ENV, "")
    if not frames.isdigit():
        return None
    import tracemalloc

    tracemalloc.start(max(1, int(frames)))
    return tracemalloc.take_snapshot()


def _trace_growth(before: Any, top: int = 25) -> list[str]:
    """Where the memory allocated since ``before`` and still held was allocated."""
    import tracemalloc

    gc.collect()
    after = tracemalloc.take_snapshot()
    stats = after.compare_to(before, "traceback")
    return [f"{s.size_diff / 1024:+.0f} KiB in {s.count_diff:+d} blocks at "
            + " <- ".join(f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno}" for f in s.traceback)
            for s in stats[:top]]


def _anon_maps(min_mb: float = 4.0) -> dict[str, float]:
    """Resident MiB of each anonymous mapping holding at least ``min_mb`` (the heap as
    '[heap]', the others by start address): which one grows tells whose memory it is (the
    C heap, an engine's own buffer)."""
    found: dict[str, float] = {}
    name, anonymous = "", False
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            path = head[5] if len(head) > 5 else ""
            anonymous = path in ("", "[heap]")
            name = path or head[0].split("-")[0]
        elif anonymous and line.startswith("Anonymous:"):
            mb = int(line.split()[1]) / 1024
            if mb >= min_mb:
                found[name] = round(found.get(name, 0.0) + mb, 1)
    return found


class _Watch:
    """What the app did, recorded as it happens (transitions, audio, escaped exceptions)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.transitions: list[tuple[float, Any]] = []
        self.audio_s = 0.0
        """Seconds of speech synthesised (reply chunks and asides), all turns."""
        self.exceptions: list[str] = []

    def on_transition(self, t: Any) -> None:
        self.transitions.append((time.monotonic(), t))

    def on_chunk(self, chunk: Any) -> None:  # runs on the TTS thread: a direct connection
        ready = chunk.ready
        with self.lock:
            self.audio_s += ready.n_samples / max(1, ready.sample_rate)

    def on_aside(self, aside: Any) -> None:  # runs on the TTS thread
        if aside.chunk is not None:
            with self.lock:
                self.audio_s += aside.chunk.n_samples / max(1, aside.chunk.sample_rate)

    def escaped(self, where: str, exc: BaseException | None) -> None:
        with self.lock:
            self.exceptions.append(f"{where}: {exc.__class__.__name__}: {exc}")


class _ExceptionLog(logging.Handler):
    """Counts log records that carry a traceback: an exception caught only by a last resort."""

    def __init__(self, watch: _Watch) -> None:
        super().__init__(logging.ERROR)
        self.watch = watch

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and record.exc_info[1] is not None:
            self.watch.escaped(f"logged by {record.name}", record.exc_info[1])


def _user_wavs(texts: set[str], folder: Path, tts_path: Path) -> dict[str, Path]:
    """Piper at 1.15x pace, pitched up ~6 % (another voice than the app's), as WAVs."""
    import numpy as np

    from desktop_agent.adapters.tts.tts_piper import PiperTts

    tts = PiperTts(tts_path, threads=1, speaking_rate=1.15)
    out = {}
    for text in sorted(texts):
        audio = np.concatenate([c.audio for c in tts.synthesize(text)])
        path = folder / (re.sub(r"\W+", "_", text) + ".wav")
        with wave.open(str(path), "wb") as w:  # the rate tag does the pitch shift
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(int(tts.sample_rate * 1.06))
            w.writeframes((audio.astype(np.float32) * 0.8).astype(np.int16).tobytes())
        out[text] = path
    return out


def soak(turns: int, seed: int, out: Path, llm: str | None = None, max_tokens: int = 40,
         policy: Any = None, llm_stall_s: float | None = None,
         until: float | None = None) -> None:
    """Run ``turns`` turns; write one JSON line per turn to ``out``, then the summary line.

    ``until`` (``time.time()`` seconds): start no turn after it (a time-boxed soak).
    """
    from PySide6.QtCore import QCoreApplication

    import desktop_agent.devtools.soak_faults as soak_faults
    from desktop_agent.adapters.audio.device_audio import DeviceAudio
    from desktop_agent.compose.engines import resolve_models
    from desktop_agent.compose.runtime import build_runtime
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.turns import events as ev
    from desktop_agent.core.turns.policy import TurnPolicy
    from desktop_agent.core.turns.states import State
    from desktop_agent.devtools.pulse_daemon import PulseDaemon
    from desktop_agent.runtime.heap_keeper import MIN_GAP_S

    policy = policy or TurnPolicy()
    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])
    settings = Settings().replace_field("interaction.mode", "push_to_talk")
    if llm:
        settings = settings.replace_field("models.llm", llm)
    watch = _Watch()
    sys.excepthook = lambda t, e, tb: watch.escaped("sys.excepthook", e)
    threading.excepthook = lambda a: watch.escaped(f"thread {a.thread.name if a.thread else '?'}",
                                                   a.exc_value)
    logging.getLogger().addHandler(_ExceptionLog(watch))
    pulse = PulseDaemon.attach()
    scripted = plan(turns, seed)
    folder = Path(tempfile.mkdtemp(prefix="da-soak-"))
    tts_model = resolve_models(settings, ("tts",))["tts"].path
    wavs = _user_wavs({q for _k, s, q in scripted if s} | {BARGE, SHORT[1]}, folder, tts_model)
    rt = build_runtime(settings, DeviceAudio("pulse", "pulse"), echo_cancellation=True,
                       policy=policy, store_path=folder / "store.sqlite3")
    c = rt.controller
    c.sig_transition.connect(watch.on_transition)
    engines = c.link.engines
    engines.tts.sig_chunk_synthesized.connect(watch.on_chunk)
    engines.tts.sig_aside_synthesized.connect(watch.on_aside)
    threads = [*engines.threads, c.router._thread]

    def wait(cond: Callable[[], bool], seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            if cond():
                return True
            time.sleep(0.01)
        return False

    def pump(seconds: float) -> None:
        wait(lambda: False, seconds)

    def state() -> Any:
        return c.machine.state

    switch = FaultSwitch()
    switch.hang_s = {"llm": policy.llm_first_token_timeout_s + 8,
                     "tts": policy.tts_timeout_s + 5, "tool": policy.tool_timeout_s + 5}
    out.parent.mkdir(parents=True, exist_ok=True)
    sink = out.open("w", encoding="utf-8")
    c.start()
    if not wait(c.loaded, 300):
        raise SystemExit("the engines did not load in 300 s (run `desktop-agent doctor`)")
    soak_faults.install(engines, switch)
    if llm_stall_s is not None:  # short timeouts (tests): a proportionate reply budget too
        c.link.llm_stall_s = llm_stall_s
        c.link.llm_reply_budget_s = 3 * llm_stall_s
    engines.llm.max_tokens = max_tokens
    wait(lambda: state() is State.LISTENING, 30)
    pump(2.0)  # the prompt prefill and the echo canceller settle
    rss_loaded = _rss_mb()

    def at_rest() -> float:
        """RSS once the heap keeper has trimmed after the latest turn (the per-turn reading
        0.6 s after a turn can come before it: the keeper waits 5 s between trims)."""
        keeper = c.heap_keeper
        trims = keeper.trims if keeper is not None else 0
        pump(BETWEEN_TURNS_S)
        if keeper is not None:
            wait(lambda: keeper.trims > trims, MIN_GAP_S + 2.0)
            keeper.join()
        return _rss_mb()
    # A push-to-talk, a typed and a hands-free turn, not counted: the engines' first-use
    # buffers (Whisper's, the KV cache, the voice's, the end-of-turn model's) are not
    # growth; RSS at the start is taken after them.
    c.ptt_press()
    warm = pulse.play(wavs[BARGE])
    wait(lambda: warm.poll() is not None, 30)
    pump(0.4)
    c.ptt_release()
    wait(lambda: state() is State.LISTENING, HARD_CAP_S)
    c.ask_text(TOOL[0])
    wait(lambda: state() is State.LISTENING, HARD_CAP_S)
    c.set_mode("hands_free")
    warm = pulse.play(wavs[SHORT[1]])
    wait(lambda: warm.poll() is not None, 30)
    wait(lambda: state() is not State.LISTENING, 10)
    wait(lambda: state() is State.LISTENING, HARD_CAP_S)
    c.set_mode("push_to_talk")
    rss_start = at_rest()
    traced = _trace_start()
    rng = random.Random(seed + 1)
    stopped_early = False
    stuck_between = 0  # the app left LISTENING on its own (echo?) and did not come back
    try:
        for i, (kind, spoken, question) in enumerate(scripted):
            if until is not None and time.time() >= until:
                stopped_early = True
                break
            if not wait(lambda: state() is State.LISTENING, HARD_CAP_S):
                stuck_between += 1
                c._feed(ev.Reset(turn_id=c.machine.turn_id, at_s=time.monotonic()))
                wait(lambda: state() is State.LISTENING, 10)
            if kind in soak_faults.ENGINE_FAULTS:
                switch.arm(kind)
            c.set_mode("hands_free" if kind == "barge_in_voice" else "push_to_talk")
            first_t = len(watch.transitions)
            spans_seen = c.machine.spans_completed
            with watch.lock:
                audio0 = watch.audio_s
            started = time.monotonic()
            if spoken:
                c.ptt_press()
                player = pulse.play(wavs[question])
                wait(lambda p=player: p.poll() is not None, 30)  # type: ignore[misc]
                pump(0.4)  # the loopback and input buffers still hold the end of it
                c.ptt_release()
            else:
                c.ask_text(question)
            input_end = time.monotonic()
            outage = 0.0
            if kind in ("barge_in_ptt", "barge_in_voice", "device_loss"):
                into = rng.uniform(0.5, 2.5)
                wait(lambda d=into: (state() is State.ASSISTANT_SPEAKING  # type: ignore[misc]
                                     and c.machine.reply_played_s >= d)
                     or state() in (State.LISTENING, State.ERROR), 60)
                if state() is State.ASSISTANT_SPEAKING:
                    if kind == "barge_in_ptt":
                        c.ptt_press()
                        pump(rng.uniform(0.1, 0.6))
                        c.ptt_release()
                    elif kind == "barge_in_voice":
                        voice = pulse.play(wavs[BARGE])
                        wait(lambda p=voice: p.poll() is not None, 30)  # type: ignore[misc]
                    else:
                        t_loss = time.monotonic()
                        pulse.lose_devices()
                        pump(rng.uniform(1.0, 4.0))
                        pulse.restore_devices()
                        outage = time.monotonic() - t_loss
            back = wait(lambda: state() is State.LISTENING, HARD_CAP_S)
            ended = time.monotonic()
            with watch.lock:
                audio_s = watch.audio_s - audio0
            spans = c.machine.spans_since(spans_seen)
            fillers = sum("filler" in s.marks for s in spans)  # a voice barge-in: two replies
            record = turn_record(i, kind, spoken, question, watch.transitions[first_t:],
                                 (started, input_end, ended), audio_s, outage, back, policy,
                                 fillers, c.link.llm_stall_s)
            firsts = [v for s in spans if (v := s.since_endpoint_ms("first_audio")) is not None]
            record["first_audio_ms"] = round(firsts[0], 1) if firsts else None
            record["threads_alive"] = all(t.isRunning() for t in threads)
            pump(BETWEEN_TURNS_S)  # the user draws breath (and the app tidies its heap)
            record["rss_mb"] = _rss_mb()
            record.update(_memory())
            with watch.lock:
                record["exceptions"] = list(watch.exceptions)
                watch.exceptions.clear()
            if not back:
                record["stuck_in"] = state().name
                c._feed(ev.Reset(turn_id=c.machine.turn_id, at_s=time.monotonic()))
            switch.disarm()
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            if kind == "device_loss":  # the mic must be back before the next spoken turn
                samples = rt.backend.samples
                wait(lambda s=samples: rt.backend.samples > s + 8_000, 20)  # type: ignore[misc]
    finally:
        summary = {"summary": True, "rss_loaded_mb": rss_loaded, "rss_start_mb": rss_start,
                   "rss_end_mb": at_rest() if state() is State.LISTENING else _rss_mb(),
                   "injected": dict(switch.injected), "llm": llm or "default",
                   "max_tokens": max_tokens, "turns_planned": turns,
                   "stuck_between_turns": stuck_between,
                   "stopped_early": stopped_early}
        if traced is not None:
            summary["python_growth"] = _trace_growth(traced)
        sink.write(json.dumps(summary) + "\n")
        sink.close()
        rt.shutdown()


def main(argv: list[str]) -> None:
    """``python -m desktop_agent.devtools.soak_run OUT TURNS SEED MAX_TOKENS [LLM]``."""
    out, turns, seed, max_tokens = Path(argv[0]), int(argv[1]), int(argv[2]), int(argv[3])
    logging.basicConfig(level=logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    policy, stall_s = None, None
    if os.environ.get("DESKTOP_AGENT_SOAK_QUICK"):  # tests: a hang costs seconds
        from desktop_agent.core.turns.policy import TurnPolicy

        policy = TurnPolicy(asr_timeout_s=8.0, llm_first_token_timeout_s=8.0,
                            tool_timeout_s=4.0, tts_timeout_s=4.0, apology_timeout_s=8.0)
        stall_s = 5.0
    until = float(os.environ["DESKTOP_AGENT_SOAK_UNTIL"]) if os.environ.get(
        "DESKTOP_AGENT_SOAK_UNTIL") else None
    soak(turns, seed, out, argv[4] if len(argv) > 4 and argv[4] else None, max_tokens, policy,
         stall_s, until)


if __name__ == "__main__":
    main(sys.argv[1:])
