"""CapturePipeline: quick onsets while the assistant speaks, echo rules, the opt-in trace."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from desktop_agent.audio.capture import CapturePipeline, playback_onset_s
from desktop_agent.audio.capture_trace import ENV_VAR, CaptureTrace
from desktop_agent.audio.mic_history import VAD_FRAME
from desktop_agent.core.listening.segmenter import SegmentEvent
from tests.fakes.vad import HesitantVad, LoudnessVad


class PassThroughAec:
    """A canceller that removes ``1 - gain`` of the mic (gain 1: nothing, the worst case)."""

    frame_samples = 160
    gain = 1.0

    def process(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        return (near * self.gain).astype(np.int16)

    def reset(self) -> None:
        pass


def _frames_to_onset(pipe: CapturePipeline, near: np.ndarray,
                     far: np.ndarray | None = None) -> int | None:
    """VAD frames of ``near`` processed before SPEECH_STARTED (None: never)."""
    for i in range(0, len(near), VAD_FRAME):
        block_far = None if far is None else far[i:i + VAD_FRAME]
        for event in pipe.process(near[i:i + VAD_FRAME], block_far):
            if event.kind is SegmentEvent.SPEECH_STARTED:
                return i // VAD_FRAME + 1
    return None


def _tone(frames: int, level: float = 0.3, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(frames * VAD_FRAME) * level / 3).clip(-1, 1).astype(np.float32)


def test_onsets_are_confirmed_sooner_while_the_assistant_speaks() -> None:
    idle = CapturePipeline(LoudnessVad())
    assert _frames_to_onset(idle, _tone(12)) == 8  # 0.25 s: the usual confirmation
    playing = CapturePipeline(LoudnessVad())
    playing.set_playback(True)
    assert _frames_to_onset(playing, _tone(12)) == 3  # 0.09 s: pause first, decide second
    playing.set_playback(False)
    playing.reset_segmenter()
    assert _frames_to_onset(playing, _tone(12, seed=1)) == 8


def test_a_soft_syllable_counts_only_while_the_assistant_speaks() -> None:
    assert _frames_to_onset(CapturePipeline(HesitantVad()), _tone(12)) is None
    playing = CapturePipeline(HesitantVad())
    playing.set_playback(True)
    assert _frames_to_onset(playing, _tone(12)) == 3


def test_sensitivity_sets_how_much_speech_pauses_the_reply() -> None:
    frames = {s: _frames_to_onset(_playing(s), _tone(12)) for s in (0.0, 0.5, 1.0)}
    assert frames == {0.0: 5, 0.5: 3, 1.0: 2}


def _playing(sensitivity: float) -> CapturePipeline:
    pipe = CapturePipeline(LoudnessVad())
    pipe.playback_onset_s = playback_onset_s(sensitivity)
    pipe.set_playback(True)
    return pipe


def test_a_mic_that_only_repeats_the_speaker_never_starts_speech() -> None:
    aec = PassThroughAec()
    pipe = CapturePipeline(LoudnessVad(), aec)
    pipe.set_playback(True)
    far = _tone(100, seed=3)
    echo = np.concatenate([np.zeros(480, np.float32), far[:-480]])  # 30 ms later, 0 dB
    aec.gain = 0.05  # the canceller works (-26 dB): the power gate learns that residual
    assert _frames_to_onset(pipe, echo[:40 * VAD_FRAME], far[:40 * VAD_FRAME]) is None
    assert pipe.echo_gate.ratio_db < -15 and pipe.coherence.coherent_frames == 0
    aec.gain = 1.0  # the echo path moved: the residual is as loud as the speaker
    assert _frames_to_onset(pipe, echo[40 * VAD_FRAME:], far[40 * VAD_FRAME:]) is None
    assert pipe.coherence.coherent_frames > 20
    user = _tone(20, seed=4)  # then the user talks over it, as loud as the echo
    more_far = _tone(20, seed=5)
    more_echo = np.concatenate([far[-480:], more_far[:-480]])
    assert _frames_to_onset(pipe, more_echo + user, more_far) is not None


def test_trace_records_blocks_and_frames(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert CaptureTrace.from_env() is None  # nothing is recorded unless asked
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "sub" / "trace.npz"))
    trace = CaptureTrace.from_env()
    assert trace is not None
    pipe = CapturePipeline(LoudnessVad(), PassThroughAec())
    pipe.trace = trace
    far = _tone(10, seed=6)
    _frames_to_onset(pipe, _tone(10, seed=7), far)
    pipe.echo_path_changed()
    saved = np.load(trace.save())
    assert len(saved["near"]) == len(saved["far"]) == len(saved["cleaned"]) == 10 * VAD_FRAME
    assert saved["frames"].shape == (10, 6)
    assert list(saved["mark_label"]) == ["echo_path_changed"]


def test_reads_are_two_vad_frames_in_silence_one_in_speech_and_aec_frames_while_playing() -> None:
    """The capture loop asks for what completes the next two VAD frames while nobody speaks
    and nothing plays (one wake-up per two decisions), one frame once speech is heard (no
    delay to an utterance's end), and 10 ms blocks while the canceller runs."""
    from desktop_agent.audio.capture import AEC_BLOCK, AEC_IDLE_S

    pipe = CapturePipeline(LoudnessVad(), PassThroughAec())
    silence = np.zeros(AEC_BLOCK, np.float32)
    assert pipe.samples_wanted() == AEC_BLOCK  # just started: the far end may still play
    for _ in range(int(AEC_IDLE_S * 100) + 1):
        pipe.process(silence, silence)
    want = pipe.samples_wanted()
    assert VAD_FRAME + AEC_BLOCK <= want <= 2 * VAD_FRAME
    pipe.process(np.zeros(want, np.float32), np.zeros(want, np.float32))
    assert pipe.samples_wanted() == 2 * VAD_FRAME  # frame-aligned: exactly two frames next
    loud = _tone(1, seed=3)
    pipe.process(loud, np.zeros(len(loud), np.float32))  # a first frame of speech
    assert pipe.segmenter.onset_pending
    assert pipe.samples_wanted() == VAD_FRAME  # someone may be starting: frame by frame
    events = []
    while not pipe.segmenter.in_speech:
        events += pipe.process(loud, np.zeros(len(loud), np.float32))
        assert pipe.samples_wanted() == VAD_FRAME
    assert events  # the onset was confirmed
    far = np.full(AEC_BLOCK, 0.1, np.float32)
    pipe.process(silence, far)  # something plays: back to the canceller's pace
    assert pipe.samples_wanted() == AEC_BLOCK
    # Without a canceller nothing needs the 10 ms pace, but a reply that plays may be cut in.
    plain = CapturePipeline(LoudnessVad())
    assert plain.samples_wanted() == 2 * VAD_FRAME
    plain.set_playback(True)
    assert plain.samples_wanted() == VAD_FRAME


class SuppressingAec(PassThroughAec):
    """The echo is ``far`` itself (0 dB); the linear filter leaves 5 % of it (-26 dB), and
    the residual echo suppressor that follows also takes 26 dB off the user talking over it
    (speexdsp's took 10-20 dB off a quiet "Actually, ..." under a loud reply)."""

    def process_both(self, near: np.ndarray, far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n, f = near.astype(np.float64), far.astype(np.float64)
        linear = n - 0.95 * f
        final = 0.05 * f + (n - f) * 0.05
        return linear.astype(np.int16), final.astype(np.int16)

    def process(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        return self.process_both(near, far)[1]


def test_the_echo_gate_weighs_the_user_before_the_residual_suppressor() -> None:
    def pipe(on_linear: bool) -> CapturePipeline:
        p = CapturePipeline(LoudnessVad(), SuppressingAec())
        p.gate_on_linear = on_linear
        p.set_playback(True)
        return p

    far = _tone(80, seed=7)
    warm, rest = far[:60 * VAD_FRAME], far[60 * VAD_FRAME:]
    user = _tone(20, seed=8)  # a user as loud as the echo
    for on_linear, expected in ((True, True), (False, False)):
        p = pipe(on_linear)
        assert _frames_to_onset(p, warm, warm) is None  # the echo alone: learnt, never speech
        heard = _frames_to_onset(p, rest + user, rest) is not None
        assert heard is expected  # after the suppressor: 23 dB under the speaker, unheard


def test_while_the_reference_settles_the_canceller_learns_nothing() -> None:
    class CountingAec(PassThroughAec):
        frames = 0

        def process(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
            self.frames += 1
            return super().process(near, far)

    aec = CountingAec()
    pipe = CapturePipeline(LoudnessVad(), aec)
    pipe.set_playback(True)
    far = _tone(4, seed=9)
    pipe.process(far[:VAD_FRAME], far[:VAD_FRAME])
    assert aec.frames == 3  # 512 samples: three 10 ms frames (a partial one waits)
    pipe.echo_settling = True  # a misplaced reference: the filter must not bend to it
    cleaned_before = pipe.history.end
    pipe.process(far[VAD_FRAME:2 * VAD_FRAME], far[VAD_FRAME:2 * VAD_FRAME])
    assert aec.frames == 3 and pipe.history.end - cleaned_before > VAD_FRAME  # passed through
    pipe.echo_settling = False
    pipe.process(far[2 * VAD_FRAME:3 * VAD_FRAME], far[2 * VAD_FRAME:3 * VAD_FRAME])
    assert aec.frames == 6


class LinearAec(PassThroughAec):
    """The echo is ``far`` itself (0 dB); the linear filter leaves ``residual`` of it."""

    residual = 0.03  # -30 dB: a canceller that follows the path

    def process_both(self, near: np.ndarray, far: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        linear = near.astype(np.float64) - (1 - self.residual) * far.astype(np.float64)
        return linear.astype(np.int16), linear.astype(np.int16)

    def process(self, near: np.ndarray, far: np.ndarray) -> np.ndarray:
        return self.process_both(near, far)[1]


def test_a_user_under_the_echo_is_heard_once_the_canceller_follows_the_path() -> None:
    def onset(residual: float) -> int | None:
        aec = LinearAec()
        aec.residual = residual
        pipe = CapturePipeline(LoudnessVad(), aec)
        pipe.set_playback(True)
        far = _tone(100, seed=10)
        warm, rest = far[:80 * VAD_FRAME], far[80 * VAD_FRAME:]
        assert _frames_to_onset(pipe, warm, warm) is None  # the echo alone: never speech
        user = _tone(20, level=0.15, seed=11)  # 6 dB under the echo: the raw mic stays coherent
        return _frames_to_onset(pipe, rest + user, rest)

    assert onset(0.03) is not None  # 30 dB removed: the power gate knows the user
    assert onset(0.5) is None  # 6 dB removed: a canceller behind; the coherence rule decides


def test_the_users_own_voice_does_not_make_the_canceller_look_lost() -> None:
    # "O-kay" under the echo: a syllable, the stop's silence, the rest. Counted as echo, the
    # first syllable dragged the canceller's measured removal under 15 dB and the coherence
    # rule vetoed the rest of the word: no onset at all.
    pipe = CapturePipeline(LoudnessVad(), LinearAec())
    pipe.set_playback(True)
    far = _tone(100, seed=12)
    warm, rest = far[:80 * VAD_FRAME], far[80 * VAD_FRAME:]
    assert _frames_to_onset(pipe, warm, warm) is None
    assert pipe.canceller_converged
    user = _tone(20, level=0.15, seed=13)  # 6 dB under the echo: the raw mic stays coherent
    user[:VAD_FRAME] = _tone(1, level=0.3, seed=14)  # "O-": as loud as the echo
    user[VAD_FRAME:3 * VAD_FRAME] = 0.0  # the "k": nothing from the user for two frames
    assert _frames_to_onset(pipe, rest + user, rest) is not None
    assert pipe.canceller_converged


def test_the_echo_leaked_after_a_bypass_does_not_make_the_canceller_look_lost() -> None:
    class TailAec(LinearAec):
        """After a bypass its filter tail holds nothing of what played meanwhile."""

        leak = 0

        def process_both(self, near: np.ndarray, far: np.ndarray
                         ) -> tuple[np.ndarray, np.ndarray]:
            if self.leak > 0:
                self.leak -= 1
                return near, near
            return super().process_both(near, far)

    aec = TailAec()
    pipe = CapturePipeline(LoudnessVad(), aec)
    pipe.set_playback(True)
    far = _tone(120, seed=15)
    assert _frames_to_onset(pipe, far[:60 * VAD_FRAME], far[:60 * VAD_FRAME]) is None
    pipe.echo_settling = True  # a wake: the reference is measured back into place
    assert _frames_to_onset(pipe, far[60 * VAD_FRAME:70 * VAD_FRAME],
                            far[60 * VAD_FRAME:70 * VAD_FRAME]) is None
    pipe.echo_settling = False
    aec.leak = 15  # 150 ms of 10 ms frames: the echo of the bypass leaks through
    assert _frames_to_onset(pipe, far[70 * VAD_FRAME:100 * VAD_FRAME],
                            far[70 * VAD_FRAME:100 * VAD_FRAME]) is None
    assert pipe.canceller_converged
    user = _tone(20, level=0.15, seed=16)  # 6 dB under the echo, a second later
    rest = far[100 * VAD_FRAME:]
    assert _frames_to_onset(pipe, rest + user, rest) is not None
