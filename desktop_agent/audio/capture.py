"""The microphone side of the pipeline: echo cancellation, VAD, segmenting, history.

``CapturePipeline.process`` takes one block of 16 kHz mic audio and the far-end block the
speaker played over the same span, cancels the echo (10 ms frames), runs the VAD on the
cleaned signal (32 ms frames), feeds the segmenter and keeps the cleaned audio with its
per-frame speech probability in a ``MicHistory`` addressed by absolute sample index, so a
recording can be cut from any past instant (push-to-talk pre-roll, hands-free onset).

With a ``TurnDetector`` (an audio end-of-turn model), a pause that reaches
``TurnModelSettings.probe_s`` of silence is judged once: the last ``TURN_WINDOW_S`` of the
utterance go to the model, and ``TurnModelRule`` combines its verdict with the transcript
rule's silence (``silence_s``, set by the recorder) to end the turn at once, keep the
transcript's wait, or wait longer. Not while the assistant speaks (barge-in speech is
judged by the barge-in tracker). The model call runs here, on the capture worker thread
(p50 55-65 ms on the 2-core development machine, 70-100 ms with both cores busy; once per
pause): the blocks that arrive meanwhile wait in the capture ring (5 s).

Runs on: the capture worker thread (never in an audio callback).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.canceller_health import CancellerHealth
from desktop_agent.audio.capture_trace import CaptureTrace
from desktop_agent.audio.echo_gate import EchoCoherence, EchoGate, power_db
from desktop_agent.audio.mic_history import VAD_FRAME, MicHistory
from desktop_agent.core.listening.endpointing import TurnDetector, TurnModelRule
from desktop_agent.core.listening.segmenter import SegmentEvent, SpeechSegmenter
from desktop_agent.core.ports import ASR_SAMPLE_RATE, EchoCanceller, VadEngine

_LOGGER = logging.getLogger(__name__)

PLAYBACK_ONSET_S = 3 * 512 / 16_000 - 0.005
"""Speech, seconds, that confirms an onset while the assistant speaks (3 VAD frames, 91 ms,
about a third of the usual): the reply pauses at once and the barge-in tracker decides, so
a short "wait" is caught; a cough that gets this far only pauses the reply for a moment.
``bench audio``: voice onset -> pause p95 227 ms at 3 frames vs 514 at 4 (recall 1.0, no
false barge-in, no self-interruption either way; 6 vs 3 echo onsets paused and resumed in
4.6 minutes of the assistant's own voice)."""
PLAYBACK_THRESHOLD = 0.4
"""While the assistant speaks, the VAD probability a frame needs to count towards an onset
(0.5 otherwise): the echo rules already took out what the speaker left, and a soft first
syllable ("Ac-tually") often scores just under 0.5, which cost a quarter second."""
ERLE_AFTER_BYPASS_S = 0.25
"""Audio after the canceller was bypassed (a reference settling, an idle speaker) that is
still judged as settling (as if nothing were removed) and whose removal is not measured:
the filter's 200 ms tail holds no reference for what was played meanwhile, and that echo
leaks through whatever it learnt (a 150 ms burst at the echo's level after each wake).
Measured, it made a converged canceller look lost for the next two seconds of the reply,
and the coherence rule vetoed an "okay" said then (the e2e backchannel test, 1 run in 4
under two hogs)."""
TURN_WINDOW_S = 8.0
"""Seconds of the utterance's end that the end-of-turn model hears (Smart Turn: 8 s)."""
TURN_PREROLL_S = 0.2
"""Audio kept before the utterance's first speech frame for the end-of-turn model."""
AEC_IDLE_S = 0.3
"""Seconds of a silent far end after which the echo canceller is bypassed: longer than its
filter (200 ms), so there is no echo left for it to remove, and it costs nothing while the
assistant is quiet (most of the time). It resumes with the first far-end sample."""
AEC_BLOCK = ASR_SAMPLE_RATE // 100
"""The echo canceller's frame (10 ms): the smallest mic read worth making."""
VAD_FLOOR_POWER = 10 ** (-70 / 10)
"""Mean square below which a VAD frame is silence without asking the model (-70 dBFS RMS:
far under any speech; a digitally silent or very quiet microphone, as when idle)."""


def playback_onset_s(sensitivity: float) -> float:
    """The user's barge-in sensitivity (0 hard to interrupt .. 1 easy) as onset seconds:
    5 VAD frames at 0, 3 (``PLAYBACK_ONSET_S``) at the default 0.5, 2 at 0.75 and 1."""
    frames = max(2, round(5 - 4 * min(max(sensitivity, 0.0), 1.0)))
    return frames * VAD_FRAME / ASR_SAMPLE_RATE - 0.005


@dataclass(frozen=True, slots=True)
class CaptureEvent:
    """The segmenter confirmed speech or its end."""

    kind: SegmentEvent
    detected_sample: int
    """Absolute mic sample index at which it was detected."""
    speech_sample: int
    """Absolute index where the speech started (or ended)."""



def level_db(x: npt.NDArray[np.float32]) -> float:
    """RMS level in dBFS (-100 for silence)."""
    if len(x) == 0:
        return -100.0
    rms = float(np.sqrt(np.mean(np.square(x, dtype=np.float64))))
    return 20 * math.log10(rms) if rms > 1e-5 else -100.0


class CapturePipeline:
    """AEC -> VAD -> segmenter -> history, one block at a time."""

    def __init__(
        self,
        vad: VadEngine,
        aec: EchoCanceller | None = None,
        segmenter: SpeechSegmenter | None = None,
        history: MicHistory | None = None,
        turn_detector: TurnDetector | None = None,
        turn_rule: TurnModelRule | None = None,
    ) -> None:
        self.vad = vad
        self.aec = aec
        self.segmenter = segmenter or SpeechSegmenter()
        self._idle_settings = self.segmenter.settings
        self.playback_onset_s = PLAYBACK_ONSET_S
        """Speech that confirms an onset while the assistant speaks (``set_playback``)."""
        self.history = history or MicHistory()
        self.silence_s: float | None = None
        """Silence that ends an utterance (set by the endpointer); None = segmenter default."""
        self.last_prob = 0.0
        self.last_speech_sample = 0
        """Absolute index of the end of the newest frame judged speech."""
        self.mic_db = -100.0
        self.far_db = -100.0
        self.erle_db: float | None = None
        self._near_pending = np.zeros(0, dtype=np.float32)
        self._far_pending = np.zeros(0, dtype=np.float32)
        self._vad_pending = np.zeros(0, dtype=np.float32)
        self._raw_pending = np.zeros(0, dtype=np.float32)
        self.health = CancellerHealth()
        """Whether the linear filter follows the echo path (for the coherence rule)."""
        self._since_bypass_s = 0.0
        self._gate_pending = np.zeros(0, dtype=np.float32)
        """The echo gate's view of ``_vad_pending``: the linear filter's output when the
        canceller gives it (``gate_on_linear``), else the same samples."""
        self.gate_on_linear = True
        """Weigh the user against the echo before the residual echo suppressor, which
        also attenuates a quiet user under a loud echo (see ``SpeexEchoCanceller``)."""
        self._erle_in = 0.0
        self._erle_out = 0.0
        self.echo_gate = EchoGate()
        """Tells the user from residual echo while the speaker plays."""
        self.coherence = EchoCoherence(ASR_SAMPLE_RATE)
        """Tells a raw mic that is only a copy of the speaker (a canceller behind the path)."""
        self._passed = False  # the previous VAD frame counted as speech
        self._far_silent_s = 0.0  # how long the far end has been silent (AEC_IDLE_S)
        self.trace: CaptureTrace | None = None
        """When set, every block and VAD frame is recorded (see capture_trace)."""
        self.turn_detector = turn_detector
        """Audio end-of-turn model; None = the transcript rule alone (``silence_s``)."""
        self.turn_rule = turn_rule or TurnModelRule()
        self.turn_model_on = True
        """Ask the model only while this is True. Push-to-talk should turn it off: the
        release ends the turn, and a model call then only delays the capture thread."""
        self._playing = False
        self.echo_settling = False
        """The backend is measuring the echo reference back into place (after an output
        underrun or a wake): the echo gate judges conservatively meanwhile. Set by the
        capture loop before each block."""

    def process(self, near: npt.NDArray[np.float32],
                far: npt.NDArray[np.float32] | None = None) -> list[CaptureEvent]:
        """Consume one mic block (and the far-end block played meanwhile)."""
        near = np.asarray(near, dtype=np.float32).reshape(-1)
        self.mic_db = level_db(near)
        cleaned, linear, raw = self._cancel_echo(near, far)
        self.history.append(cleaned)
        if self.trace is not None:
            self.trace.block(near, far, cleaned)
        return self._detect(cleaned, linear, raw)

    def samples_wanted(self) -> int:
        """Mic samples worth reading next: what completes the next VAD frame, or the next
        two while nobody speaks.

        While the echo canceller runs (something played in the last ``AEC_IDLE_S``) it works
        in 10 ms frames, and the far end must keep pace: one 10 ms block. Otherwise nothing
        is decided before the next VAD frame is full, so reading less only wakes the capture
        thread for nothing (three times as often, the main idle cost). In silence (no
        utterance, no onset being confirmed, the assistant not speaking) two frames go per
        read: an onset is confirmed at most one frame (32 ms) later, the end of an utterance
        and a barge-in are not delayed at all, and the idle capture thread wakes half as
        often.
        """
        if self.aec is not None and self._far_silent_s < AEC_IDLE_S:
            return AEC_BLOCK
        rest = max(AEC_BLOCK, VAD_FRAME - len(self._vad_pending) - len(self._near_pending))
        quiet = not (self.segmenter.in_speech or self.segmenter.onset_pending or self._playing)
        return rest + VAD_FRAME if quiet else rest

    def _cancel_echo(self, near: npt.NDArray[np.float32], far: npt.NDArray[np.float32] | None
                     ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32],
                                npt.NDArray[np.float32]]:
        """(the cleaned signal, the linear filter's output: what the echo gate weighs, the
        raw mic samples they came from)."""
        if self.aec is None:
            return near, near, near
        if far is None:
            far = np.zeros(len(near), dtype=np.float32)
        far = np.asarray(far, dtype=np.float32).reshape(-1)
        if len(far) < len(near):
            far = np.concatenate([far, np.zeros(len(near) - len(far), np.float32)])
        self.far_db = level_db(far)
        self.echo_gate.far_block(len(near) / ASR_SAMPLE_RATE,
                                 float(np.mean(np.square(far[:len(near)], dtype=np.float64))))
        self.coherence.push(near, far[:len(near)])
        self._far_silent_s = (self._far_silent_s + len(near) / ASR_SAMPLE_RATE
                              if self.far_db <= -100.0 else 0.0)
        if self._far_silent_s >= AEC_IDLE_S or self.echo_settling:
            # Nothing played for longer than the filter reaches: the canceller would return
            # the microphone unchanged. Pass it through (with what was pending) instead.
            # Likewise while the reference is measured back into place after an underrun:
            # fed a misplaced reference, the canceller would spend that time learning the
            # wrong path (the restore put the reference back 44 ms, and the filter it had
            # half-bent then left a burst of echo that Whisper heard as "It's a problem."),
            # so it sees nothing and keeps what it learnt; the gate judges the raw mic
            # as if nothing were removed meanwhile.
            out = np.concatenate([self._near_pending, near])
            self.health.push(out, np.concatenate([self._far_pending, far[:len(near)]]))
            self._near_pending = np.zeros(0, dtype=np.float32)
            self._far_pending = np.zeros(0, dtype=np.float32)
            self._since_bypass_s = 0.0
            return out, out, out
        self._since_bypass_s += len(near) / ASR_SAMPLE_RATE
        self._near_pending = np.concatenate([self._near_pending, near])
        self._far_pending = np.concatenate([self._far_pending, far[:len(near)]])
        n = self.aec.frame_samples
        usable = (len(self._near_pending) // n) * n
        out = np.empty(usable, dtype=np.float32)
        both = getattr(self.aec, "process_both", None) if self.gate_on_linear else None
        linear = np.empty(usable, dtype=np.float32) if both is not None else out
        for i in range(0, usable, n):
            nf = (np.clip(self._near_pending[i:i + n], -1, 1) * 32767).astype(np.int16)
            ff = (np.clip(self._far_pending[i:i + n], -1, 1) * 32767).astype(np.int16)
            if both is not None:
                lin, fin = both(nf, ff)
                linear[i:i + n] = np.asarray(lin, dtype=np.float32) / 32768.0
                out[i:i + n] = np.asarray(fin, dtype=np.float32) / 32768.0
            else:
                out[i:i + n] = np.asarray(self.aec.process(nf, ff), dtype=np.float32) / 32768.0
        raw = self._near_pending[:usable]
        self.health.push(linear, self._far_pending[:usable])
        self._near_pending = self._near_pending[usable:]
        self._far_pending = self._far_pending[usable:]
        if self.far_db > -50 and usable:  # ERLE only means something while the speaker plays
            a = 0.9
            self._erle_in = a * self._erle_in + (1 - a) * float(np.mean(raw ** 2) + 1e-12)
            self._erle_out = a * self._erle_out + (1 - a) * float(np.mean(out ** 2) + 1e-12)
            self.erle_db = 10 * math.log10(self._erle_in / self._erle_out)
        # Keep the history aligned with the mic: the AEC's pending remainder is
        # delivered with the next block (at most one 10 ms frame late).
        return out, linear, raw

    def _detect(self, cleaned: npt.NDArray[np.float32], linear: npt.NDArray[np.float32],
                raw_block: npt.NDArray[np.float32]) -> list[CaptureEvent]:
        events: list[CaptureEvent] = []
        self._vad_pending = np.concatenate([self._vad_pending, cleaned])
        self._gate_pending = np.concatenate([self._gate_pending, linear])
        self._raw_pending = np.concatenate([self._raw_pending, raw_block])
        frame_s = VAD_FRAME / ASR_SAMPLE_RATE
        consumed_before = self.history.end - len(self._vad_pending)
        offset = 0
        while len(self._vad_pending) - offset >= VAD_FRAME:
            frame = self._vad_pending[offset:offset + VAD_FRAME]
            gate_frame = self._gate_pending[offset:offset + VAD_FRAME]
            raw_frame = self._raw_pending[offset:offset + VAD_FRAME]
            offset += VAD_FRAME
            frame_end = consumed_before + offset
            power = float(np.mean(np.square(frame, dtype=np.float64)))
            # A near-silent frame is silence: skip the model (most of the idle capture cost).
            prob = raw = (0.0 if power < VAD_FLOOR_POWER
                          else float(self.vad.speech_probability(frame)))
            power = float(np.mean(np.square(gate_frame, dtype=np.float64)))  # the gate's
            far_active = self.echo_gate.far_active()
            # Settling, or the filter's tail still empty after a bypass: judged as if
            # nothing were removed, and the removal is not measured.
            settling = self.echo_settling or self._since_bypass_s < ERLE_AFTER_BYPASS_S
            if far_active and not settling:
                self.health.measure(frame_end, raw_frame, power, self.echo_gate.above_residual(
                    power, holding=self._passed))
            if self.aec is not None and prob >= self.segmenter.settings.neg_threshold and (
                    self.echo_gate.is_echo(power, holding=self._passed,
                                           settling=settling)
                    or (far_active and not self.canceller_converged
                        and self.coherence.is_echo(frame_end))):
                prob = 0.0  # what the canceller left of the speaker, not the user
            self._passed = prob >= self.segmenter.settings.neg_threshold
            if self.trace is not None:
                self.trace.frame(frame_end, raw, prob != raw, power_db(power),
                                 self.echo_gate.far_db(), self.echo_gate.ratio_db)
            self.last_prob = prob
            self.history.set_prob(frame_end, prob)
            if prob >= self.segmenter.settings.threshold:
                self.last_speech_sample = frame_end
            kind = self.segmenter.process(frame_s, prob, self._silence_needed())
            if kind is None:
                kind = self._ask_turn_model(frame_end)
            if kind is not None:
                self.turn_rule.reset()
                at = (self.segmenter.speech_start_s if kind is SegmentEvent.SPEECH_STARTED
                      else self.segmenter.speech_end_s) or 0.0
                events.append(CaptureEvent(kind, frame_end, self._segment_to_abs(at)))
                if self.trace is not None:
                    self.trace.mark(frame_end, f"{kind.name} playing={self._playing}")
        self._vad_pending = self._vad_pending[offset:]
        self._gate_pending = self._gate_pending[offset:]
        self._raw_pending = self._raw_pending[offset:]
        return events

    @property
    def canceller_converged(self) -> bool:
        """Whether the linear filter follows the echo path (:class:`CancellerHealth`)."""
        return self.health.converged

    def _silence_needed(self) -> float | None:
        """Silence that ends the utterance now: the transcript rule's, or the model's say."""
        if self.turn_rule.complete is None:
            return self.silence_s
        transcript_s = self.segmenter.settings.silence_s if self.silence_s is None \
            else self.silence_s
        return self.turn_rule.silence_needed_s(transcript_s)

    def _ask_turn_model(self, frame_end: int) -> SegmentEvent | None:
        """Run the end-of-turn model once per pause; end the utterance if it may end now."""
        if (self.turn_detector is None or not self.turn_model_on or self._playing
                or not self.segmenter.in_speech):
            return None
        trailing = self.segmenter.trailing_silence_s
        if trailing == 0.0:
            self.turn_rule.reset()  # the speech went on: the next pause is asked anew
            return None
        if not self.turn_rule.wants_probe(trailing):
            return None
        start = self._segment_to_abs(self.segmenter.speech_start_s or 0.0)
        start = max(start - int(TURN_PREROLL_S * ASR_SAMPLE_RATE),
                    frame_end - int(TURN_WINDOW_S * ASR_SAMPLE_RATE))
        try:
            probability = float(self.turn_detector.probability(
                self.history.slice(start, frame_end)))
        except Exception as exc:  # a broken model must not stop the microphone
            _LOGGER.warning("end-of-turn model failed (%s): the transcript rule decides alone",
                            exc)
            self.turn_detector = None
            return None
        self.turn_rule.record(probability)
        needed = self._silence_needed()
        return None if needed is None else self.segmenter.end_if_silent(needed)

    def _segment_to_abs(self, stream_s: float) -> int:
        """Segmenter stream time (seconds since its reset) to an absolute mic index."""
        return self._seg_base + int(round(stream_s * ASR_SAMPLE_RATE))

    _seg_base = 0

    def echo_path_changed(self, reason: str = "") -> None:
        """The far-end reference moved (or the devices were reopened): the canceller and
        the echo gate must learn the new path from scratch, assuming nothing is removed."""
        if self.trace is not None:
            self.trace.mark(self.history.end, f"echo_path_changed {reason}".strip())
        if self.aec is not None and hasattr(self.aec, "reset"):
            self.aec.reset()
        self.echo_gate.reset()  # (the coherence rule needs no relearning: it keeps judging)
        self.health.reset()
        self._near_pending = np.zeros(0, dtype=np.float32)
        self._far_pending = np.zeros(0, dtype=np.float32)

    def set_playback(self, playing: bool) -> None:
        """The assistant started (True) or stopped speaking. While it speaks, onsets are
        confirmed after ``playback_onset_s``: pausing is cheap and undone if the speech
        turns out to be a cough or a backchannel. Runs on: any thread (one attribute swap)."""
        base = self._idle_settings
        self._playing = playing
        self.segmenter.settings = replace(
            base, min_speech_s=min(base.min_speech_s, self.playback_onset_s),
            threshold=min(base.threshold, max(base.neg_threshold, PLAYBACK_THRESHOLD)),
        ) if playing else base

    def reset_segmenter(self) -> None:
        """Start a fresh utterance search from now (after a turn ends, or playback starts)."""
        self.segmenter.reset()
        self.turn_rule.reset()
        self._seg_base = self.history.end - len(self._vad_pending)
        self.vad.reset()
