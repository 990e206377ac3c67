"""Barge-in benchmark: onset latency, self-interruptions, false barge-ins, recall.

Everything is measured from audio on a simulated clock (10 ms blocks, not real time):
the assistant's Piper answer plays through a synthetic echo path (delay + room response
+ gain, :func:`~desktop_agent.devtools.simulate.room_echo`) into the real CapturePipeline
(speexdsp AEC, Silero VAD, echo gate, segmenter); a "user" (Piper at another pace and
pitch, or a cough, clap, knock or breath) is mixed in from a known sample. Onsets are
handled as the runtime does: onsets within the warm-up after playback start are echo;
any other onset pauses playback (the far end stops) and is judged by the very
:class:`~desktop_agent.core.listening.bargein_judge.BargeInJudge` the runtime's
``BargeInTracker`` steps: on every fact and every 100 ms, with partial transcripts from
Whisper over the barge audio. A transcript arrives after the CPU time Whisper really
took; transcripts Whisper's hallucination filter drops never arrive.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.resample import resample
from desktop_agent.core.listening.bargein import BargeInDecider, Decision, Verdict
from desktop_agent.core.listening.bargein_judge import BargeInJudge, TranscribeRequest
from desktop_agent.core.listening.endpointing import is_hallucination
from desktop_agent.core.listening.segmenter import SegmentEvent
from desktop_agent.devtools.simulate import EchoPath, true_start
from desktop_agent.runtime.bargein_tracker import TICK_MS

FS = 16_000
BLOCK = 160
TICK = FS * TICK_MS // 1000

ANSWERS = (
    "The moon is Earth's only natural satellite. It formed about four and a half billion "
    "years ago, probably from the debris of a giant impact, and it keeps the same face "
    "turned towards us because its rotation is locked to its orbit.",
    "A car engine burns a mix of fuel and air inside its cylinders. Each small explosion "
    "pushes a piston down, the pistons turn the crankshaft, and the gearbox passes that "
    "rotation on to the wheels.",
    "To make a good cup of tea, bring fresh water to the boil, warm the pot first, and let "
    "the leaves steep for three to five minutes before you pour. Milk is optional.",
    "Photosynthesis lets plants turn sunlight, water and carbon dioxide into sugar and "
    "oxygen. It happens in the chloroplasts, which hold the green pigment chlorophyll.",
    "The Roman Empire lasted for centuries in the west and far longer in the east, where "
    "Constantinople remained its capital until fourteen fifty three.",
    "Sleep matters more than most people think. Adults need seven to nine hours, and a "
    "regular bedtime helps the body keep its internal clock in step with the day.",
)
INTERRUPTIONS = ("Wait, stop.", "No, that's wrong.", "Hold on a second.",
                 "Tell me something else.", "Actually, what about Mars?", "Stop talking please.")
BACKCHANNELS = ("Okay.", "Right.", "Yeah.", "Sure.")
USER_STYLES = ((1.15, 1.06), (0.9, 0.93), (1.0, 1.12))
"""(speaking rate, pitch factor) of the simulated user's voice."""


@dataclass
class Voices:
    """The real engines the bench needs: Piper, Whisper, and Silero's model path."""

    tts: Any
    asr: Any
    vad_path: Any
    _cache: dict[tuple[str, float, float], np.ndarray] = field(default_factory=dict)

    @classmethod
    def load(cls) -> Voices:
        """Resolve and load the default models. Raises ModelError with a fix when absent."""
        from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
        from desktop_agent.adapters.tts.tts_piper import PiperTts
        from desktop_agent.compose.engines import THREADS_ASR, resolve_models
        from desktop_agent.core.settings import Settings

        models = resolve_models(Settings(), ("asr", "tts", "vad"))
        return cls(PiperTts(models["tts"].path, threads=1, deterministic=True),
                   WhisperAsr(models["asr"].path, cpu_threads=THREADS_ASR), models["vad"].path)

    def say(self, text: str, rate: float = 1.0, pitch: float = 1.0) -> np.ndarray:
        """``text`` in Piper's voice at 16 kHz, peak-normalised to 1, paced and pitched."""
        key = (text, rate, pitch)
        if key not in self._cache:
            self.tts.set_speaking_rate(rate)
            try:
                audio = np.concatenate([c.audio for c in self.tts.synthesize(text)])
            finally:
                self.tts.set_speaking_rate(1.0)
            # Reading the samples as if recorded faster raises the pitch.
            x = resample(audio.astype(np.float32) / 32768, int(self.tts.sample_rate * pitch), FS)
            self._cache[key] = (x / max(1e-6, float(np.max(np.abs(x))))).astype(np.float32)
        return self._cache[key]

    def pipeline(self) -> CapturePipeline:
        """A fresh capture pipeline exactly as ``build_runtime`` makes it (AEC on)."""
        from desktop_agent.adapters.listening.speex import SpeexEchoCanceller
        from desktop_agent.adapters.listening.vad_silero import SileroVad

        return CapturePipeline(SileroVad(self.vad_path), SpeexEchoCanceller())


@dataclass
class Barge:
    """One onset judged during playback, in absolute mic samples."""

    judge: BargeInJudge
    detected: int
    """Where the onset was confirmed: playback pauses in the same step."""
    decided: int | None = None
    verdict: Verdict | None = None
    job_ready: int | None = None
    """Mic sample at which the running transcription answers (None: the ASR is idle)."""
    job_text: str | None = None
    asr_s: list[float] = field(default_factory=list)

    @property
    def onset(self) -> int:
        return self.judge.onset

    @property
    def transcript(self) -> str:
        return self.judge.transcript


class Session:
    """One playback of answers through an echo path, judged like the runtime does."""

    def __init__(self, voices: Voices, echo: EchoPath, noise_db: float = -65.0,
                 flush_on_interrupt: bool = True, seed: int = 0) -> None:
        self.voices = voices
        self.pipe = voices.pipeline()
        self.decider = BargeInDecider()
        self.echo = echo
        self.flush_on_interrupt = flush_on_interrupt
        self._noise = 10 ** (noise_db / 20)
        self._rng = np.random.default_rng(seed)
        self.barges: list[Barge] = []
        self.now = 0
        self._answers: list[tuple[int, np.ndarray, str]] = []  # (start sample, audio, text)
        self._near: list[tuple[int, np.ndarray]] = []
        self._playing: tuple[int, np.ndarray, int] | None = None  # (first mic sample, audio, pos)
        self._reply = ""
        self._paused = False
        self._barge: Barge | None = None
        self.far_s = 0.0
        """Seconds of answer audio played (the speaker was not paused)."""

    def add_answer(self, audio: np.ndarray, at: int, text: str = "") -> None:
        """Start playing ``audio`` (16 kHz, full scale 1) at mic sample ``at``."""
        self._answers.append((at, audio, text))

    def add_near(self, audio: np.ndarray, at: int) -> None:
        """Mix ``audio`` into the microphone from mic sample ``at``."""
        self._near.append((at, np.asarray(audio, np.float32)))

    def run_until(self, stop: int) -> None:
        """Process the microphone up to sample ``stop``, block by block."""
        while self.now < stop:
            self._block()

    def _far_block(self) -> np.ndarray:
        if self._playing is None and self._answers and self._answers[0][0] <= self.now:
            at, audio, self._reply = self._answers.pop(0)
            self._playing = (self.now, audio, 0)
            self._paused = False
            self.pipe.set_playback(True)
        if self._playing is None or self._paused:
            return np.zeros(BLOCK, np.float32)
        first, audio, pos = self._playing
        far = np.zeros(BLOCK, np.float32)
        chunk = audio[pos:pos + BLOCK]
        far[:len(chunk)] = chunk
        self.far_s += len(chunk) / FS
        self._playing = (first, audio, pos + BLOCK) if pos + BLOCK < len(audio) else None
        if self._playing is None:
            self._end_playback()
        return far

    def _end_playback(self) -> None:
        self._playing = None
        self._barge = None  # the reply ended: the runtime stops judging
        self.pipe.set_playback(False)

    def _block(self) -> None:
        start, self.now = self.now, self.now + BLOCK
        far = self._far_block()
        mic = self.echo.process(far) + self._rng.normal(0, self._noise, BLOCK)
        for at, audio in self._near:
            lo, hi = max(at, start), min(at + len(audio), self.now)
            if hi > lo:
                mic[lo - start:hi - start] += audio[lo - at:hi - at]
        for event in self.pipe.process(mic.astype(np.float32), far):
            self._on_event(event.kind, event.speech_sample, event.detected_sample)
        b = self._barge
        if b is not None and b.job_ready is not None and self.now >= b.job_ready:
            if b.job_text is not None:
                b.judge.answer(b.job_text)
            b.job_ready, b.job_text = None, None
            self._step(b)
        if b is not None and self._barge is b and (self.now - b.detected) % TICK < BLOCK:
            self._step(b)

    def _on_event(self, kind: SegmentEvent, speech: int, detected: int) -> None:
        if kind is SegmentEvent.SPEECH_ENDED:
            if self._barge is not None:
                self._barge.judge.speech_ended(speech, self.now / FS)
                self._step(self._barge)
            return
        if self._playing is None or self._barge is not None:
            return
        if self.decider.is_echo((detected - self._playing[0]) / FS):
            return
        reply = self._reply
        judge = BargeInJudge(self.decider, self.pipe.history, FS, speech, lambda: reply)
        self._barge = Barge(judge, detected=detected)
        self.barges.append(self._barge)
        self._paused = True  # duck_gain 0: the machine pauses the reply at once
        self._step(self._barge)

    def _step(self, b: Barge) -> None:
        # A transcription "runs" until job_ready; its result is delivered then (or, when
        # Whisper's filter dropped it, never: the judge counts it lost once the ASR idles).
        result = b.judge.step(self.now / FS, asr_idle=b.job_ready is None)
        if result.request is not None:
            self._transcribe(b, result.request)
        if result.verdict is None:
            return
        b.verdict, b.decided, self._barge = result.verdict, self.now, None
        if result.verdict.decision is Decision.INTERRUPT and self.flush_on_interrupt:
            self._end_playback()
        self._paused = False

    def _transcribe(self, b: Barge, request: TranscribeRequest) -> None:
        hist = self.pipe.history
        t0 = time.perf_counter()
        result = self.voices.asr.transcribe(hist.slice(request.start, request.stop))
        took = time.perf_counter() - t0
        b.asr_s.append(took)
        text = result.text.strip()
        dropped = not text or is_hallucination(text, result.no_speech_prob,
                                               hist.speech_ratio(request.start, request.stop))
        b.job_text = None if dropped else text
        b.job_ready = self.now + max(BLOCK, int(took * FS))


ASSISTANT_PEAK = 0.6
"""Peak level the answers play at (full scale 1)."""
SELF_CONDITIONS = ((0.5, 0.03, None), (0.8, 0.06, None), (0.3, 0.12, None), (0.6, 0.02, 1.5))
"""(echo gain, delay s, loudspeaker soft-clip drive or None) of the long self-echo runs."""


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def self_interruptions(voices: Voices, minutes: float, conditions: int = 4) -> dict[str, Any]:
    """Play ``minutes`` of answers through the echo path; count onsets that would interrupt.

    The minutes are split over the first ``conditions`` echo paths of ``SELF_CONDITIONS``;
    answers follow each other with 1 s gaps, each with its own playback warm-up.
    """
    answers = [voices.say(t) * ASSISTANT_PEAK for t in ANSWERS]
    counts, judged, played = [], 0, 0.0
    for i, (gain, delay, clip) in enumerate(SELF_CONDITIONS[:conditions]):
        session = Session(voices, EchoPath(gain, delay, seed=i + 1, soft_clip=clip),
                          flush_on_interrupt=False, seed=i)
        at, k = FS // 2, i
        while (at - k * FS) / FS < minutes * 60 / conditions:
            audio = answers[k % len(answers)]
            session.add_answer(audio, at, ANSWERS[k % len(ANSWERS)])
            at += len(audio) + FS
            k += 1
        session.run_until(at)
        counts.append(sum(b.verdict is not None and b.verdict.decision is Decision.INTERRUPT
                          for b in session.barges))
        judged += len(session.barges)
        played += session.far_s
    return {"self_interruptions": int(sum(counts)),
            "self_interruptions_by_condition": counts,
            "self_echo_onsets_judged": judged,
            "self_echo_minutes": round(played / 60, 2)}


@dataclass(frozen=True)
class Trial:
    """One near-end sound while an answer plays."""

    kind: str
    """'interrupt', 'backchannel' or 'nonspeech'."""
    label: str
    audio: np.ndarray
    echo_gain: float
    delay_s: float = 0.04


def trial_set(voices: Voices, quick: bool) -> list[Trial]:
    """The interruptions, backchannels and non-speech sounds, at a few levels and echo gains."""
    from desktop_agent.devtools.simulate import NONSPEECH_KINDS, nonspeech

    gains = (0.5,) if quick else (0.3, 0.7)
    levels = (0.4,) if quick else (0.5, 0.2)
    phrases = INTERRUPTIONS[:4] if quick else INTERRUPTIONS
    trials: list[Trial] = []
    n = 0
    for gain in gains:
        for level in levels:
            for text in phrases:
                rate, pitch = USER_STYLES[n % len(USER_STYLES)]
                n += 1
                trials.append(Trial("interrupt", f"{text} @{level}/{gain}",
                                    voices.say(text, rate, pitch) * level, gain))
            for j, kind in enumerate(NONSPEECH_KINDS):
                peak = level * (0.5 if kind == "breath" else 1.0)
                trials.append(Trial("nonspeech", f"{kind} @{level}/{gain}",
                                    nonspeech(kind, FS, seed=n + j, level=peak), gain))
        for rate, pitch in USER_STYLES[: 1 if quick else 2]:
            for text in BACKCHANNELS:
                trials.append(Trial("backchannel", f"{text} {rate}x @0.4/{gain}",
                                    voices.say(text, rate, pitch) * 0.4, gain))
    return trials


def split_barges(barges: list[Barge], start: int) -> tuple[list[Barge], list[Barge]]:
    """The barges decided before the user's sound began (the echo's own), and the rest.

    An onset of echo just before the user spoke, still undecided when the user began, is
    judged on the user's words: it is the user's barge-in (the reply already paused when
    they began), not a self-interruption. Until 2026-12-02 it counted as both a
    self-interruption and a missed interruption.
    """
    before = [b for b in barges if b.decided is not None and b.decided < start]
    return before, [b for b in barges if b not in before]


def run_trial(voices: Voices, trial: Trial, answer: np.ndarray, seed: int = 0,
              answer_text: str = "") -> dict[str, Any]:
    """Play ``answer``, add the trial's sound 3 s in, and report how it was judged."""
    session = Session(voices, EchoPath(trial.echo_gain, trial.delay_s, seed=seed + 1), seed=seed)
    session.add_answer(answer, 0, answer_text)
    at = 3 * FS
    session.add_near(trial.audio, at)
    session.run_until(at + len(trial.audio) + int(2.5 * FS))
    start = at + true_start(trial.audio)
    before, mine = split_barges(session.barges, start)
    first = mine[0] if mine else None
    decided = first is not None and first.decided is not None
    return {
        "kind": trial.kind, "label": trial.label,
        "self_interrupts": sum(b.verdict is not None and b.verdict.decision is Decision.INTERRUPT
                               for b in before),
        "interrupted": any(b.verdict is not None and b.verdict.decision is Decision.INTERRUPT
                           for b in mine),
        "onset_to_duck_ms": (None if first is None
                             else max(0, first.detected - start) / FS * 1000),
        "onset_to_decision_ms": (first.decided - start) / FS * 1000 if decided else None,  # type: ignore[operator]
        "verdict": None if first is None or first.verdict is None else
        f"{first.verdict.decision.value}:{first.verdict.reason}",
        "transcript": "" if first is None else first.transcript,
    }


def measure(voices: Voices | None = None, quick: bool = False,
            minutes: float | None = None) -> dict[str, Any]:
    """All barge-in figures: onset latencies, self-interruptions, false barge-ins, recall."""
    voices = voices or Voices.load()
    minutes = (1.5 if quick else 10.0) if minutes is None else minutes
    result: dict[str, Any] = {}
    answers = [voices.say(t) * ASSISTANT_PEAK for t in ANSWERS]
    rows = [run_trial(voices, t, answers[i % len(answers)], seed=i,
                      answer_text=ANSWERS[i % len(ANSWERS)])
            for i, t in enumerate(trial_set(voices, quick))]
    speech = [r for r in rows if r["kind"] != "nonspeech"]
    duck = [r["onset_to_duck_ms"] for r in speech if r["onset_to_duck_ms"] is not None]
    decision = [r["onset_to_decision_ms"] for r in speech if r["onset_to_decision_ms"] is not None]
    for name, values in (("onset_to_duck", duck), ("onset_to_decision", decision)):
        result[f"{name}_p50_ms"] = _pct(values, 50)
        result[f"{name}_p95_ms"] = _pct(values, 95)

    def rate(kind: str) -> float | None:
        picked = [r["interrupted"] for r in rows if r["kind"] == kind]
        return round(float(np.mean(picked)), 3) if picked else None

    result["interruption_recall"] = rate("interrupt")
    result["false_barge_in_rate_backchannel"] = rate("backchannel")
    result["false_barge_in_rate_nonspeech"] = rate("nonspeech")
    false = [r["interrupted"] for r in rows if r["kind"] != "interrupt"]
    result["false_barge_in_rate"] = round(float(np.mean(false)), 3) if false else None
    result["bargein_trials"] = len(rows)
    result["bargein_trial_self_interruptions"] = sum(r["self_interrupts"] for r in rows)
    result.update(self_interruptions(voices, minutes, conditions=2 if quick else 4))
    result["bargein_trial_rows"] = rows
    return result
