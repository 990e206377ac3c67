"""``eval asr --through capture``: each recording replayed through the app's capture path.

The path is the one ``compose/runtime.py`` builds for hands-free mode: speexdsp's echo
canceller, Silero VAD, the segmenter, the transcript rule of the endpointer and the
end-of-turn model (Smart Turn, when installed), fed in 10 ms blocks of 16 kHz audio with
0.5 s of silence before the recording and 3 s after it, under a -60 dBFS noise floor (a real
microphone is never digitally silent; the capture path skips Silero on frames under -70
dBFS, so digital silence would leave the VAD cold at the onset of a short word).

Partial transcripts are made as the recorder makes them when the speech pauses (0.12 s
of silence): by the real ASR on the utterance so far; the endpointer's silence follows
their text from the moment they would arrive (their measured time, as audio samples,
after their launch). When the segmenter ends a turn, the utterance (from 0.15 s before
its onset to the end) is cut from the cleaned mic history and transcribed: that is the
turn's final transcript. Several turns (a turn closed inside the speech) are joined.

``with_reply``: the app's voice (Piper, the default voice) reads a reply from 2 s before
the recording starts; the microphone hears its echo through a simulated room (30 ms,
-6 dB, ``tools/simulate.room_echo``) on top of the speaker; the reply stops 0.1 s after
the capture path confirms the user's onset, as a barge-in pauses it.

Figures per file: ``turns``, ``false_endpoint`` (a turn closed while the recording's
speech goes on later), ``endpoint_wait_ms`` (from the speech's real end, its last sample
within 35 dB of its peak, to the end of the turn), ``early_onset`` (a turn opened before
the speech started: echo taken for the user), and the time of the final transcripts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.mic_history import MicHistory
from desktop_agent.core.listening.endpointing import Endpointer
from desktop_agent.core.listening.segmenter import SegmentEvent

FS = 16_000
BLOCK = 160
LEAD_S, REPLY_LEAD_S, TAIL_S = 0.5, 2.0, 3.0
PARTIAL_AFTER_S = 0.12
"""Silence after which the recorder launches a partial transcript (runtime/recorder.py)."""
PREROLL_S = 0.15
"""Audio kept before the onset (runtime/recorder.PREROLL_S)."""
FLUSH_S = 0.1
"""From the confirmed onset to the reply falling silent (a barge-in pause)."""
NOISE_FLOOR_DBFS = -60.0
"""White noise under the whole clip: a quiet room through a real microphone."""
REPLY_TEXT = ("Here is what I found. The library opens at nine in the morning and closes "
              "at six in the evening, except on Sundays, when it opens at noon. You can "
              "borrow up to twelve books at a time, and renew them twice online.")

Transcribe = Callable[[Any], str]


def speech_bounds(audio: npt.NDArray[np.float32]) -> tuple[int, int]:
    """First and one-past-last sample within 35 dB of the peak ((0, 0) for silence)."""
    peak = float(np.max(np.abs(audio))) if len(audio) else 0.0
    loud = np.flatnonzero(np.abs(audio) > peak * 10 ** (-35 / 20)) if peak > 0 else []
    return (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, 0)


def reply_voice() -> npt.NDArray[np.float32]:
    """The default Piper voice reading ``REPLY_TEXT``, 16 kHz float32."""
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.adapters.tts.tts_piper import PiperTts
    from desktop_agent.audio.resample import resample

    model = ModelResolver(load_manifest()).resolve("", "tts")
    tts = PiperTts(model.path, threads=1)
    audio = np.concatenate([c.audio for c in tts.synthesize(REPLY_TEXT)])
    return resample(audio.astype(np.float32) / 32768.0, tts.sample_rate, FS)


class CaptureReplay:
    """Replays recordings through a fresh capture pipeline each (see the module doc).

    Args:
        with_reply: a reply plays while the user speaks (see the module doc).
        vad: the VAD (Silero by default); ``reset`` is called per recording.
        detector: the end-of-turn model; "default" loads Smart Turn (None without it).
        reply: the reply audio (16 kHz float32); the default voice's by default.
    """

    def __init__(self, with_reply: bool = False, vad: Any = None,
                 detector: Any = "default", reply: npt.NDArray[np.float32] | None = None
                 ) -> None:
        if vad is None:
            from desktop_agent.adapters.listening.vad_silero import SileroVad
            vad = SileroVad()
        if isinstance(detector, str):
            from desktop_agent.adapters.listening.turn_smart import load_turn_detector
            detector = load_turn_detector()
        self.vad = vad
        self.detector = detector
        self.with_reply = with_reply
        self.reply = (reply if reply is not None else reply_voice()) if with_reply else None

    def run(self, audio: npt.NDArray[np.float32], transcribe: Transcribe
            ) -> tuple[str, dict[str, Any]]:
        """(the turns' transcripts joined, the figures) for one recording."""
        from desktop_agent.adapters.listening.speex import SpeexEchoCanceller
        from desktop_agent.devtools.simulate import room_echo

        audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        lead = int((REPLY_LEAD_S if self.reply is not None else LEAD_S) * FS)
        clip = np.concatenate([np.zeros(lead, np.float32), audio,
                               np.zeros(int(TAIL_S * FS), np.float32)])
        first, last = speech_bounds(audio)
        speech_start, speech_end = lead + first, lead + last
        rng = np.random.default_rng(len(audio))  # the same floor for the same file
        clip += (rng.standard_normal(len(clip)) * 10 ** (NOISE_FLOOR_DBFS / 20)).astype(
            np.float32)
        far = np.zeros(len(clip), np.float32)
        if self.reply is not None:
            reps = int(np.ceil(len(clip) / len(self.reply)))
            far = np.tile(self.reply, reps)[:len(clip)].astype(np.float32)
        echo = room_echo(far, FS).astype(np.float32) if self.reply is not None else None
        aec = SpeexEchoCanceller()
        self.vad.reset()
        pipe = CapturePipeline(self.vad, aec, history=MicHistory(seconds=len(clip) / FS + 1),
                               turn_detector=self.detector)
        pipe.set_playback(self.reply is not None)
        endpointer = Endpointer()
        texts: list[str] = []
        final_ms = 0.0
        utt_start: int | None = None
        ends: list[int] = []
        early_onset = False
        reply_stop: int | None = None
        launched_for = -1
        arrival: tuple[int, float] | None = None

        def final(until: int) -> None:
            nonlocal final_ms
            assert utt_start is not None
            start = time.perf_counter()
            text = transcribe(pipe.history.slice(utt_start, until)).strip()
            final_ms += (time.perf_counter() - start) * 1000
            if text:
                texts.append(text)

        try:
            for i in range(0, len(clip), BLOCK):
                now = min(i + BLOCK, len(clip))
                if reply_stop is not None and i >= reply_stop and far[i:].any():
                    far[i:] = 0.0  # the reply paused: only the room's tail still rings
                    echo = room_echo(far, FS).astype(np.float32)
                    pipe.set_playback(False)
                mic = clip[i:now] + (echo[i:now] if echo is not None else 0.0)
                if arrival is not None and now >= arrival[0]:
                    pipe.silence_s, arrival = arrival[1], None
                events = pipe.process(mic.astype(np.float32), far[i:now])
                trailing = (pipe.history.end - pipe.last_speech_sample) / FS
                if (utt_start is not None and pipe.segmenter.in_speech
                        and trailing >= PARTIAL_AFTER_S and arrival is None
                        and launched_for != pipe.last_speech_sample):
                    launched_for = pipe.last_speech_sample
                    t0 = time.perf_counter()
                    partial = transcribe(pipe.history.slice(utt_start, now))
                    took = int((time.perf_counter() - t0) * FS)
                    arrival = (now + took, endpointer.silence_needed_s(partial))
                for event in events:
                    if event.kind is SegmentEvent.SPEECH_STARTED:
                        utt_start = max(0, event.speech_sample - int(PREROLL_S * FS))
                        early_onset |= event.speech_sample < speech_start - int(0.1 * FS)
                        if self.reply is not None and reply_stop is None:
                            reply_stop = event.detected_sample + int(FLUSH_S * FS)
                    elif event.kind is SegmentEvent.SPEECH_ENDED and utt_start is not None:
                        final(event.detected_sample)
                        ends.append(event.detected_sample)
                        utt_start, arrival, launched_for = None, None, -1
                        pipe.silence_s = None
                        pipe.reset_segmenter()
            if utt_start is not None:  # still open when the recording ran out
                final(len(clip))
        finally:
            aec.close()
        after = [e for e in ends if e >= speech_end]
        return " ".join(texts), {
            "turns": len(ends) + (utt_start is not None),
            "false_endpoint": any(e < speech_end for e in ends),
            "endpoint_wait_ms": round((after[0] - speech_end) / FS * 1000, 1) if after
            else None,
            "early_onset": early_onset,
            "final_asr_ms": round(final_ms, 1),
        }
