"""Far-end alignment: the speaker's samples handed to the echo canceller in step with the mic.

Pure DSP on numpy arrays and stream times; the device adapter feeds it timestamps.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from desktop_agent.core.ports import ASR_SAMPLE_RATE

FAR_MARGIN_S = 0.01
"""The far-end handed to the AEC with a mic block recorded at ADC time T is what the DAC
played from T + this margin: the echo of a sample played at T + m arrives at T + m + d
(d: the acoustic and device delay), so it always comes at least the margin after its
reference, as a causal adaptive filter needs, even when the device timestamps are a few
milliseconds early. (Reading from *before* T instead, as an early version did, put the
echo ahead of its reference: uncancellable until the delay tracker moved it.)"""


class FarTimeline:
    """Far-end samples (16 kHz) handed to the AEC in step with the mic.

    Both streams run on one sample clock, so the far-end is read with a pointer that
    advances exactly as many samples as each mic block holds: the echo path the adaptive
    filter learns stays put. The device timestamps (the DAC time of the tap's samples,
    the ADC time of the mic's) only place that pointer at start and correct slow drift:
    they jitter by tens of milliseconds through some sound servers, so they are averaged
    and the pointer moves only when the average error passes 20 ms.
    """

    def __init__(self, rate: int = ASR_SAMPLE_RATE, seconds: float = 4.0) -> None:
        self.rate = rate
        self._buf = np.zeros(int(seconds * rate), dtype=np.float32)
        self.written = 0
        self.t0: float | None = None
        """Stream time of far index 0 (averaged over reads)."""
        self.pointer: int | None = None
        """Far index that goes with the next mic sample."""
        self._err = 0.0
        self._n_t0 = 0
        self.jumps = 0
        self.shifted = 0
        """Samples the delay tracker moved the pointer by (kept across timestamp updates)."""

    def push(self, samples: npt.NDArray[np.float32], dac_s: float | None) -> None:
        """Append what the tap returned, with the DAC time of its first sample."""
        if dac_s is not None and len(samples):
            t0 = dac_s - self.written / self.rate
            self._n_t0 += 1  # a running mean first, then a slow average
            alpha = max(0.02, 1.0 / self._n_t0)
            self.t0 = t0 if self.t0 is None else (1 - alpha) * self.t0 + alpha * t0
        cap = len(self._buf)
        for i in range(0, len(samples), cap):
            piece = samples[i:i + cap]
            self._buf[(self.written + np.arange(len(piece))) % cap] = piece
            self.written += len(piece)

    def reanchor(self) -> None:
        """The output stream underran or slept: the device timestamps moved and the averaged
        ones would take seconds to follow. Start the average afresh from the next timed push
        and place the pointer anew then (the delay tracker's correction stays: it belongs
        to the echo path)."""
        self._n_t0 = 0
        self._err = 0.0
        self.t0 = None
        self.pointer = None

    def take(self, start_s: float, n: int) -> npt.NDArray[np.float32] | None:
        """``n`` far samples for a mic block recorded from stream time ``start_s``."""
        if self.t0 is None:
            return None
        ideal = int(round((start_s - self.t0) * self.rate)) - self.shifted
        if self.pointer is None:
            self.pointer = ideal
        else:
            self._err = 0.95 * self._err + 0.05 * (ideal - self.pointer)
            if abs(self._err) > 0.02 * self.rate:
                self.pointer += int(round(self._err))
                self._err = 0.0
                self.jumps += 1
        start, self.pointer = self.pointer, self.pointer + n
        out = np.zeros(n, dtype=np.float32)
        lo = max(start, self.written - len(self._buf), 0)
        hi = min(start + n, self.written)
        if hi > lo:
            out[lo - start:hi - start] = self._buf[np.arange(lo, hi) % len(self._buf)]
        return out


@dataclass(frozen=True, slots=True)
class Correction:
    """What the delay tracker says to do with the far-end pointer after a block."""

    shift: int = 0
    """Samples to move the pointer back by (the caller subtracts it): positive when the echo
    comes later after its reference than wanted. 0: leave it."""
    relearn: bool = False
    """The echo now sits where the canceller never learnt it: reset the canceller and the
    echo gate. False for a restore: the pointer goes back to where the echo was, and what
    the canceller learnt still holds."""


RESTORE_WINDOW_S = 0.25
"""Far-end activity per measurement while a placement is being restored, seconds."""
RESTORE_TRIES = 4
"""Measurements a restore may take (1 s of far-end activity) before the canceller is told
to learn the path anew instead."""
RESTORE_AGREE = 2
"""Samples within which two successive measurements must agree to be trusted. One alone
is not: a 0.25 s window of speech once put the echo 127 ms off, the reference then read
nothing the speaker played, and the app heard its own reply as the user."""

RECHECK_AFTER_S = 1.5
"""Seconds of a silent far end after which the next sound is measured at once (as a
restore, see ``EchoDelayTracker``): the echo path may have drifted meanwhile with no
event to say so. A speaker and a mic on separate clocks drift 0.1-0.2 ms a second; the
test's PulseAudio loopback moved its echo 2.1 ms between two replies. The canceller's
filter fits the lag it learnt to the sample: 2 ms off, it removed 1-2 dB instead of 40
for the first second and 8-15 dB for the next two, and the reply's own voice paused it
twice (the e2e backchannel test beside two hogs)."""
SILENT_FAR_POWER = 1e-8
"""Far-end mean square (-80 dBFS) under which a block counts as the speaker being silent."""


class EchoDelayTracker:
    """Measures where the echo really sits relative to the far-end handed to the AEC.

    Device timestamps can be off by tens of milliseconds (some sound servers report their
    latency wrongly), and an echo that arrives *before* its reference cannot be cancelled.
    So, while the speaker plays, the tracker cross-correlates the mic with that far-end
    (FFT, lags within +-300 ms, once per second of far-end activity) and, when two
    estimates agree and the echo is not 5-120 ms after the reference, says how far to move
    the far-end pointer so that it sits ``target_s`` after it (the canceller relearns).

    After an output underrun or a wake the reference is placed anew from fresh timestamps,
    a few milliseconds (sometimes a hundred) off where the canceller learnt the echo: its
    filter no longer fits, and resetting it left the app deaf to a user as loud as the
    echo for the ~0.7 s it takes to learn the room again (an underrun a second on a busy
    machine: deaf most of a reply). ``expect_restore`` measures at once on short windows
    instead (two that agree) and moves the pointer back to the lag the canceller knows, to
    the sample: the canceller keeps its filter. Only when no measurement can be trusted within
    ``RESTORE_TRIES`` windows does it ask for a reset (``Correction.relearn``).

    The echo path also drifts with no event at all (separate clocks, a sound server that
    adapts its latency), most of it while the speaker is silent between replies. So the
    first sound after ``RECHECK_AFTER_S`` of silence is measured the same way (a check):
    the pointer goes back to the learnt lag if the echo moved; if no measurement can be
    trusted, nothing is reset (no event said the path changed). A check does not bypass
    the canceller (``restoring`` stays False) until a measurement finds the echo off its
    learnt lag: on a busy machine a reply comes in bursts seconds apart, each burst was
    checked, and bypassed, most of a reply whose echo had not moved went uncancelled. Once
    a 0.25 s window of a check finds the echo elsewhere (a clear peak more than
    ``RESTORE_AGREE`` samples off), ``restoring`` is True until the pointer is put back
    (one more window) or the check gives up: the canceller is bypassed and keeps its filter
    instead of adapting to the misplaced reference (a trace once showed it removing 12 dB
    instead of 40 after half a second of a check, and the reply's own voice paused it).
    """

    def __init__(self, rate: int = ASR_SAMPLE_RATE, window_s: float = 1.0,
                 target_s: float = 0.03) -> None:
        self.rate = rate
        self.window = int(window_s * rate)
        self.target = int(target_s * rate)
        self._near: list[npt.NDArray[np.float32]] = []
        self._far: list[npt.NDArray[np.float32]] = []
        self._held = 0
        self._last: int | None = None
        self.lag: int | None = None
        """Where the echo sits after the reference handed to the AEC, samples: the latest
        agreed measurement, or ``target`` once the pointer was moved there (None: not
        measured)."""
        self._restore_to: int | None = None
        self._restoring = False
        self._checking = False
        """The restore under way is a check after silence (failing it resets nothing)."""
        self._moved = False
        """A check's measurement found the echo off its learnt lag (the filter misfits)."""
        self._tries = 0
        self._silent = 0
        """Far-end samples in a row that were silent."""
        self.restores = 0
        """Placements restored without a reset (for the log and the benchmark)."""
        self.checks = 0
        """Checks after a silent far end begun (for the log and the tests)."""

    @property
    def restoring(self) -> bool:
        """Whether a placement is being restored (the echo may sit off its learnt lag): the
        canceller is bypassed meanwhile (the echo gate judges as if nothing were removed).
        During a check after silence (``checking``) only once a measurement found the echo
        moved: until then it is most likely where it was, and the canceller keeps
        cancelling it."""
        return self._restoring and (not self._checking or self._moved)

    @property
    def checking(self) -> bool:
        """Whether the first sound after a silent speaker is being measured."""
        return self._restoring and self._checking

    def expect_restore(self, check: bool = False) -> bool:
        """The reference was placed anew: measure at once and restore the learnt lag.

        ``check``: nothing said the reference moved (a silent speaker's first sound): the
        canceller is not bypassed, and a failed measurement resets nothing.

        Returns False when there is no learnt lag to restore (nothing measured yet): the
        caller resets the canceller as before.
        """
        self._near, self._far, self._held, self._last = [], [], 0, None
        self._checking, self._moved = check, False
        if self.lag is None:
            return False
        self._restore_to, self._restoring, self._tries = self.lag, True, 0
        return True

    def observe(self, near: npt.NDArray[np.float32], far: npt.NDArray[np.float32]
                ) -> Correction:
        """Add a block pair; return what to do with the far-end pointer."""
        if float(np.mean(np.square(far, dtype=np.float64))) < SILENT_FAR_POWER:
            self._silent += len(far)
            if self._restoring and self._silent >= int(RECHECK_AFTER_S * self.rate):
                self._last = None  # a measurement from before a long silence vouches for nothing
        else:
            if (self._silent >= int(RECHECK_AFTER_S * self.rate) and not self._restoring
                    and self.expect_restore(check=True)):
                self.checks += 1
            self._silent = 0
        self._near.append(near)
        self._far.append(far)
        self._held += len(near)
        window = int(RESTORE_WINDOW_S * self.rate) if self._restoring else self.window
        if self._held < window:
            return Correction()
        a = np.concatenate(self._near)[-window:]
        b = np.concatenate(self._far)[-window:]
        self._near, self._far, self._held = [], [], 0
        if float(np.mean(b * b)) < 1e-5 or float(np.mean(a * a)) < 1e-7:
            return Correction()  # the speaker is (nearly) silent: nothing to measure
        lag, peak = self._measure(a, b)
        if self._restoring:
            return self._restore(lag, peak)
        agreed = peak > 0.3 and self._last is not None and abs(lag - self._last) <= 32
        self._last = lag if peak > 0.3 else None
        if not agreed:
            return Correction()
        if int(0.005 * self.rate) <= lag <= int(0.12 * self.rate):
            self.lag = lag
            return Correction()
        # The pointer moves so that the echo sits ``target`` after it: that is the lag the
        # canceller learns from now on, and the one a later wake or underrun restores (the
        # measured one would put the echo back where it could not be cancelled).
        self._last, self.lag = None, self.target
        return Correction(lag - self.target, relearn=True)

    def _restore(self, lag: int, peak: float) -> Correction:
        """One measurement of a restore: trusted when it agrees with the one before."""
        assert self._restore_to is not None
        trusted = peak > 0.3 and self._last is not None and abs(lag - self._last) <= RESTORE_AGREE
        self._last = lag if peak > 0.3 else None
        self._tries += 1
        if peak > 0.3:  # each clear window says again whether the filter misfits: one
            self._moved = abs(lag - self._restore_to) > RESTORE_AGREE  # wrong peak is undone
        if trusted:
            self._end_restore()
            self.lag = self._restore_to
            self.restores += 1
            return Correction(lag - self._restore_to)
        if self._tries >= RESTORE_TRIES:
            if self._end_restore():  # a check: nothing said the path moved, keep what was learnt
                return Correction()
            self.lag = None
            return Correction(relearn=True)
        return Correction()

    def _end_restore(self) -> bool:
        """The restore (or check) is over, trusted or given up; whether it was a check."""
        checking = self._checking
        self._restoring, self._checking, self._moved, self._last = False, False, False, None
        return checking

    def _measure(self, a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]
                 ) -> tuple[int, float]:
        """(lag of ``a`` after ``b`` in samples within +-300 ms, normalised peak)."""
        max_lag = int(0.3 * self.rate)
        size = 1 << int(np.ceil(np.log2(len(a) + len(b))))
        xc = np.fft.irfft(np.fft.rfft(a, size) * np.conj(np.fft.rfft(b, size)), size)
        lags = np.concatenate([xc[:max_lag], xc[-max_lag:]])
        idx = int(np.argmax(np.abs(lags)))
        lag = idx if idx < max_lag else idx - 2 * max_lag
        peak = abs(float(lags[idx])) / (float(np.linalg.norm(a) * np.linalg.norm(b)) + 1e-12)
        return lag, peak
