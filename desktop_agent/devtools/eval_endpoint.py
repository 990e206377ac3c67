"""Hands-free endpointing on real recordings, with and without the end-of-turn model.

Every clip goes through the real capture pipeline (Silero VAD, the segmenter, the
transcript rule and, when on, Smart Turn; no echo canceller) in 10 ms blocks, with 0.5 s
of silence before and 3 s after. Clips are Debian's ``asterisk-core-sounds-en-wav``
prompts (Allison Smith, 8 kHz, resampled to 16 kHz): each prompt alone, and pairs of
prompts joined by a 0.6-0.9 s pause (one turn with an internal pause).

Figures per variant:

- endpoint wait: from the real end of speech (the last sample within 35 dB of the clip's
  peak) to the moment the segmenter ended the turn, p50 / p95, over the turns that were
  not closed early;
- false endpoints: turns the segmenter ended while speech continues later in the clip.

The transcript rule needs partial transcripts. They are simulated as the recorder makes
them: one is launched when the silence reaches 0.12 s and arrives ``asr_s`` later; its
text is the reference text of the prompts finished by then (a perfect ASR that, like
Whisper, ends a sentence with a period when the reference has no final punctuation), or
nothing (the rule's medium wait) for a pause inside a prompt, whose words so far are
unknown. Until it arrives, the previous partial's answer stands.

Waits are also given by what the transcript rule made of the final text: "short" (a
complete sentence), "medium" (no hint), "long" (a trailing "and", "to", "...").

Entry point: ``python -m desktop_agent.devtools.eval_endpoint [--pairs N] [--asr-s S]
[--prompts N]`` (``main(argv)``; about 10 minutes on two busy cores).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import time
import wave
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.mic_history import MicHistory
from desktop_agent.audio.resample import resample
from desktop_agent.core.errors import AgentError
from desktop_agent.core.listening.endpointing import Endpointer, TurnModelRule, TurnModelSettings
from desktop_agent.core.listening.segmenter import SegmentEvent

SOUNDS_DIR = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
TEXTS_FILE = Path("/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz")
FS = 16_000
BLOCK = 160
LEAD_S, TAIL_S = 0.5, 3.0
PARTIAL_AFTER_S = 0.12
"""Silence after which the recorder launches a partial transcript (runtime/recorder.py)."""
VARIANTS: dict[str, TurnModelSettings | None] = {
    "transcript_rule_only": None,
    "smart_turn_strict_veto": TurnModelSettings(),
    "smart_turn_lenient_veto": TurnModelSettings(veto_above_s=0.9),
}
"""Strict (the default): only a complete sentence or a bare "yes" lets the model end the
turn. Lenient: anything but a trailing "and"/"to"/"um"/"," (including no transcript yet)."""


@dataclass
class Clip:
    """One turn: audio at 16 kHz and where each prompt's speech lies in it."""

    name: str
    kind: str
    """'single', 'pair_after_complete' or 'pair_after_unfinished' (by the first text)."""
    audio: npt.NDArray[np.float32]
    parts: list[tuple[int, int, str]] = field(default_factory=list)
    """(first, last + 1) speech sample of each prompt, and its reference text."""


def load_prompts(sounds: Path = SOUNDS_DIR, texts: Path = TEXTS_FILE) -> dict[str, tuple[
        npt.NDArray[np.float32], str]]:
    """Every top-level prompt with a spoken text: its speech (trimmed, 16 kHz) and text."""
    if not sounds.is_dir() or not texts.is_file():
        raise AgentError("eval_data_missing", f"{sounds} or {texts} is missing.",
                         "apt-get install asterisk-core-sounds-en-wav asterisk-core-sounds-en")
    text_of: dict[str, str] = {}
    with gzip.open(texts, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            name, sep, text = line.partition(":")
            if sep and not line.startswith(";") and text.strip():
                text_of[name.strip()] = text.strip()
    prompts = {}
    for path in sorted(sounds.glob("*.wav")):
        text = text_of.get(path.stem, "")
        if not text or text.startswith("["):  # tones and beeps: no words
            continue
        with wave.open(str(path)) as w:
            rate = w.getframerate()
            x = np.frombuffer(w.readframes(w.getnframes()), np.int16).astype(np.float32)
        x = resample(x / 32768.0, rate, FS)
        loud = np.flatnonzero(np.abs(x) > np.max(np.abs(x)) * 10 ** (-35 / 20))
        if len(loud):
            prompts[path.stem] = (x[loud[0]:loud[-1] + 1], text)
    return prompts


def make_clips(prompts: dict[str, tuple[npt.NDArray[np.float32], str]], pairs: int,
               seed: int = 7) -> list[Clip]:
    """Each prompt alone, then ``pairs`` random pairs joined by a 0.6-0.9 s pause.

    Half of the pairs start with a prompt the transcript rule finds unfinished (a
    trailing "and", "to", "..."), half with one it finds complete.

    Args:
        prompts: from ``load_prompts`` (a subset for a quick run).
        pairs: how many two-prompt clips.
        seed: the pairs and their pauses.
    """
    lead, tail = np.zeros(int(LEAD_S * FS), np.float32), np.zeros(int(TAIL_S * FS), np.float32)
    clips = []
    for name, (x, text) in prompts.items():
        clips.append(Clip(name, "single", np.concatenate([lead, x, tail]),
                          [(len(lead), len(lead) + len(x), text)]))
    rng = np.random.default_rng(seed)
    names = sorted(prompts)
    endpointer = Endpointer()
    short = endpointer.settings.short_s
    unfinished_names = [n for n in names
                        if endpointer.silence_needed_s(whisper_text(prompts[n][1])) > short]
    complete_names = [n for n in names if n not in set(unfinished_names)]
    for i in range(pairs):
        a = str(rng.choice(unfinished_names if i % 2 else complete_names))
        b = str(rng.choice([n for n in names if n != a]))
        (xa, ta), (xb, tb) = prompts[a], prompts[b]
        gap = np.zeros(int(rng.uniform(0.6, 0.9) * FS), np.float32)
        name = f"{a}+{b}@{len(gap) * 1000 // FS}ms"
        a0 = len(lead)
        b0 = a0 + len(xa) + len(gap)
        unfinished = endpointer.silence_needed_s(whisper_text(ta)) > short
        clips.append(Clip(name, "pair_after_unfinished" if unfinished
                          else "pair_after_complete", np.concatenate([lead, xa, gap, xb, tail]),
                          [(a0, a0 + len(xa), ta), (b0, b0 + len(xb), tb)]))
    return clips


class _ReplayVad:
    """Silero, run once per clip; later variants replay its exact per-frame answers."""

    def __init__(self, vad: Any) -> None:
        self.vad = vad
        self.frame_samples = vad.frame_samples
        self.key = ""
        self._i = 0
        self._memo: dict[str, list[float]] = {}

    def start(self, key: str) -> None:
        self.key, self._i = key, 0
        self.vad.reset()

    def speech_probability(self, frame: Any) -> float:
        probs = self._memo.setdefault(self.key, [])
        if self._i == len(probs):
            probs.append(self.vad.speech_probability(frame))
        self._i += 1
        return probs[self._i - 1]

    def reset(self) -> None:
        pass  # the pipeline's resets are the clip's start (``start``)


class _TimedDetector:
    """The end-of-turn model with a memo (same audio, same answer) and a stopwatch."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self._memo: dict[str, float] = {}
        self.call_ms: list[float] = []

    def probability(self, audio: Any) -> float:
        key = hashlib.sha1(np.ascontiguousarray(audio).tobytes()).hexdigest()
        if key not in self._memo:
            start = time.perf_counter()
            self._memo[key] = float(self.detector.probability(audio))
            self.call_ms.append((time.perf_counter() - start) * 1000)
        return self._memo[key]


def run_clip(clip: Clip, vad: _ReplayVad, detector: _TimedDetector | None,
             settings: TurnModelSettings | None, asr_s: float) -> tuple[bool, float | None]:
    """(closed inside the speech, wait in seconds after the speech ended or None)."""
    vad.start(clip.name)
    use_model = detector is not None and settings is not None
    pipe = CapturePipeline(vad, history=MicHistory(seconds=40.0),
                           turn_detector=detector if use_model else None,
                           turn_rule=TurnModelRule(settings) if settings else None)
    endpointer = Endpointer()
    speech_end = clip.parts[-1][1]
    launched_for = -1  # last_speech_sample of the pause a partial was launched for
    arrival: tuple[int, float | None] | None = None
    for i in range(0, len(clip.audio), BLOCK):
        now = i + BLOCK
        if arrival is not None and now >= arrival[0]:
            pipe.silence_s, arrival = arrival[1], None
        events = pipe.process(clip.audio[i:now])
        trailing = (pipe.history.end - pipe.last_speech_sample) / FS
        if (pipe.segmenter.in_speech and trailing >= PARTIAL_AFTER_S
                and launched_for != pipe.last_speech_sample and arrival is None):
            launched_for = pipe.last_speech_sample
            arrival = (now + int(asr_s * FS), _partial_silence(clip, now, endpointer))
        for event in events:
            if event.kind is SegmentEvent.SPEECH_ENDED:
                if event.detected_sample < speech_end:
                    return True, None
                return False, (event.detected_sample - speech_end) / FS
    return False, None


def _partial_silence(clip: Clip, now: int, endpointer: Endpointer) -> float | None:
    """What the transcript rule says about a partial covering audio up to ``now``."""
    inside = any(first <= now < last for first, last, _ in clip.parts)
    if inside:
        return None  # a pause inside a prompt: its words so far are unknown
    text = " ".join(t for _, last, t in clip.parts if last <= now)
    return endpointer.silence_needed_s(whisper_text(text)) if text else None


def whisper_text(reference: str) -> str:
    """The reference text as Whisper would end it: a period when it has no final mark."""
    text = reference.strip()
    return text if not text or text[-1] in ".?!,;:\u2026-" else text + "."


def text_class(clip: Clip, endpointer: Endpointer) -> str:
    """'short', 'medium' or 'long': the transcript rule's answer to the whole clip."""
    needed = endpointer.silence_needed_s(whisper_text(" ".join(t for *_, t in clip.parts)))
    settings = endpointer.settings
    return "short" if needed <= settings.short_s else (
        "medium" if needed <= settings.medium_s else "long")


def _pct(values: Sequence[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)) * 1000, 1) if len(values) else None


def evaluate(pairs: int = 300, asr_s: float = 0.25, prompts: int | None = None,
             detector: Any = None, vad: Any = None) -> dict[str, Any]:
    """Run every variant over the clips and return the figures (JSON-ready).

    Args:
        pairs: clips of two prompts with a pause between them.
        asr_s: seconds a partial transcript takes to arrive after its launch.
        prompts: use only the first N prompts (alphabetically; None: all).
        detector: the end-of-turn model (the installed Smart Turn by default; variants
            that need it are left out when it is not installed).
        vad: the VAD (Silero by default).
    """
    if vad is None:
        from desktop_agent.adapters.listening.vad_silero import SileroVad
        vad = SileroVad()
    if detector is None:
        from desktop_agent.adapters.listening.turn_smart import load_turn_detector
        detector = load_turn_detector()
    loaded = load_prompts()
    clips = make_clips(dict(list(loaded.items())[:prompts]), pairs)
    replay = _ReplayVad(vad)
    endpointer = Endpointer()
    timed = _TimedDetector(detector) if detector is not None else None
    out: dict[str, Any] = {
        "clips": {k: sum(c.kind == k for c in clips)
                  for k in ("single", "pair_after_complete", "pair_after_unfinished")},
        "asr_s": asr_s, "variants": {},
    }
    for name, settings in VARIANTS.items():
        if settings is not None and timed is None:
            continue
        waits: dict[str, list[float]] = {}
        early: dict[str, list[bool]] = {}
        for clip in clips:
            closed_early, wait = run_clip(clip, replay, timed, settings, asr_s)
            early.setdefault(clip.kind, []).append(closed_early)
            if wait is not None:
                waits.setdefault(text_class(clip, endpointer), []).append(wait)
        flat = [e for v in early.values() for e in v]
        every = [w for v in waits.values() for w in v]
        out["variants"][name] = {
            "endpoint_wait_ms_p50": _pct(every, 50), "endpoint_wait_ms_p95": _pct(every, 95),
            "endpoint_wait_ms_mean": round(float(np.mean(every)) * 1000, 1) if every else None,
            "turns_ended_after_speech": len(every),
            "endpoint_wait_ms_by_text": {k: {"p50": _pct(v, 50), "p95": _pct(v, 95),
                                             "n": len(v)} for k, v in sorted(waits.items())},
            "false_endpoint_rate": round(float(np.mean(flat)), 3),
            "false_endpoint_rate_by_kind": {k: round(float(np.mean(v)), 3)
                                            for k, v in early.items()},
        }
    if timed is not None:
        calls = [ms / 1000 for ms in timed.call_ms]
        out["model_call_ms_p50"], out["model_call_ms_p95"] = _pct(calls, 50), _pct(calls, 95)
        out["model_calls"] = len(calls)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures as JSON; exit 1 with the fix when the recordings are missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=300, help="clips of two prompts")
    parser.add_argument("--asr-s", type=float, default=0.25,
                        help="seconds a partial transcript takes (tiny.en on two cores)")
    parser.add_argument("--prompts", type=int, default=None, help="only the first N prompts")
    args = parser.parse_args(argv)
    try:
        figures = evaluate(args.pairs, args.asr_s, args.prompts)
    except AgentError as exc:
        print(f"[{exc.code}] {exc.message} Fix: {exc.fix}")
        return 1
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
