"""End to end through a private PulseAudio: Player -> speaker sink -> loopback -> mic.

Alignment is measured, not assumed: the echo delay comes from cross-correlating the
recording with the speech that was played.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from desktop_agent.adapters.audio.audio_devices import find_device, list_devices
from desktop_agent.adapters.audio.audio_io import MicInput, SpeakerOutput
from desktop_agent.audio.frames import int16_to_float32
from desktop_agent.audio.player import Player
from desktop_agent.audio.resample import resample
from desktop_agent.core.cancel import TurnId
from desktop_agent.core.errors import DeviceError
from tests.audio.speech import synth

pytestmark = [pytest.mark.pulse, pytest.mark.timeout(120)]
FS = 16_000
BLOCK_S = 0.01


def _echo_delay(recorded: np.ndarray, played: np.ndarray) -> tuple[int, float]:
    """(lag in samples of ``played`` inside ``recorded``, normalised correlation peak)."""
    n = len(recorded) + len(played)
    size = 1 << (n - 1).bit_length()
    corr = np.fft.irfft(np.fft.rfft(recorded, size) * np.conj(np.fft.rfft(played, size)), size)
    lag = int(np.argmax(corr[: len(recorded)]))
    seg = recorded[lag : lag + len(played)]
    denom = np.sqrt(np.sum(seg**2) * np.sum(played[: len(seg)] ** 2)) + 1e-12
    return lag, float(corr[lag] / denom)


def _windowed_peak(recorded: np.ndarray, played: np.ndarray, lag: int,
                   window_s: float = 0.5, search_s: float = 0.05) -> float:
    """Median over half-second windows of ``played`` (those with sound) of the best
    normalised correlation with ``recorded`` within ``search_s`` of ``lag``: a path that
    carries the echo scores ~1 even when the loopback's buffer jumped once in the middle
    (one underrun moves the rest of the echo by its size, and the whole-signal peak halves)."""
    win, search = int(window_s * FS), int(search_s * FS)
    peaks = []
    for start in range(0, len(played) - win + 1, win):
        ref = played[start:start + win]
        if np.sqrt(np.mean(ref ** 2)) < 1e-3:
            continue
        lo = max(0, lag + start - search)
        seg = recorded[lo:lag + start + win + search]
        if len(seg) < win:
            continue
        corr = np.correlate(seg, ref, mode="valid")
        energy = np.convolve(seg ** 2, np.ones(win), mode="valid")
        peaks.append(float(np.max(corr / (np.sqrt(energy * np.sum(ref ** 2)) + 1e-12))))
    return float(np.median(peaks)) if peaks else 0.0


def _envelope_db(x: np.ndarray, win: int = 160) -> np.ndarray:
    frames = x[: len(x) // win * win].reshape(-1, win)
    return 10 * np.log10(np.mean(frames.astype(np.float64) ** 2, axis=1) + 1e-12)


@pytest.fixture
def io(pulse_server: str):
    player = Player(48_000, max_ahead_s=1.0)
    mic = MicInput("pulse", block_s=BLOCK_S, capacity_s=30.0)
    speaker = SpeakerOutput(player, "pulse", block_s=BLOCK_S)
    mic.start()
    speaker.start()
    time.sleep(0.3)  # let both streams settle
    mic.read(0, 0.0)  # drop what came before the test
    yield player, mic, speaker
    speaker.close()
    mic.close()


def _play_and_record(player: Player, mic: MicInput, audio: np.ndarray, rate: int,
                     flush_after_s: float | None = None) -> tuple[np.ndarray, dict]:
    turn = TurnId(int(time.monotonic() * 1000))
    chunks, info = [], {}
    step = rate // 10
    # The recording starts as playback does: whatever the mic took in before (while the
    # test synthesised its speech, seconds on a loaded machine) is no part of the echo delay.
    mic.read(0, 0.0)
    t0 = time.monotonic()
    for i in range(0, len(audio), step):  # like a TTS worker: paced by backpressure
        assert player.enqueue(turn, audio[i : i + step], rate, timeout_s=5.0)
        chunks.append(mic.read(0, 0.0)[0])
        if flush_after_s is not None and time.monotonic() - t0 > flush_after_s:
            break
    if flush_after_s is None:
        player.end_turn(turn)
        player.wait_finished(turn, 15.0)
    else:
        while time.monotonic() - t0 < flush_after_s:
            time.sleep(0.005)
        info["before"] = player.status(turn)
        player.flush(turn)
        player.wait_finished(turn, 2.0)
    info["after"] = player.status(turn)
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        chunks.append(mic.read(FS // 10, 0.2)[0])
    return np.concatenate(chunks), info


def test_devices_are_listed_and_chosen_by_name(pulse_server: str) -> None:
    names = [d.name for d in list_devices()]
    assert "pulse" in names
    assert find_device("PULS", "output") is not None
    with pytest.raises(DeviceError) as err:
        find_device("no such microphone", "input")
    assert err.value.code == "audio_device_missing"
    assert "no such microphone" in err.value.message


def test_played_speech_comes_back_as_echo_and_counter_matches(io) -> None:
    player, mic, _ = io
    audio, rate = synth()
    played16 = resample(int16_to_float32(audio), rate, FS)
    # An underrun of the loopback (PulseAudio's, not ours: the player's counter still
    # matches) moves the rest of the recorded echo by the buffer's size now and then, even
    # on a quiet machine, and the whole-signal correlation falls to 0.4-0.7 (about 1 run of
    # this file in 10). The echo is judged window by window (``_windowed_peak``), and up to
    # three plays: a path that does not carry the echo fails all three.
    for _attempt in range(3):
        recorded, info = _play_and_record(player, mic, audio, rate)
        lag, whole = _echo_delay(recorded, played16)
        peak = _windowed_peak(recorded, played16, lag)
        if peak > 0.8:
            break
    st = info["after"]
    print(f"echo delay {lag / FS * 1000:.1f} ms from the start of playback, correlation "
          f"{whole:.3f} (median of half-second windows {peak:.3f})")
    assert peak > 0.8, f"echo correlation {peak:.2f} (whole {whole:.2f})"
    # Recording starts when playback is queued: the lag is the output buffer + the 30 ms
    # loopback + the input buffer. Half a second leaves room for a loaded machine.
    assert 0 < lag < int(0.5 * FS), f"echo delay {lag / FS * 1000:.0f} ms"
    assert st.state == "finished" and st.played_samples == len(audio)
    assert st.first_sample_stream_s is not None and st.first_sample_monotonic_s is not None


def test_flush_silences_within_one_block_and_counter_matches_recording(io) -> None:
    player, mic, _ = io
    audio, rate = synth()
    loud = np.asarray(audio)
    recorded, info = _play_and_record(player, mic, loud, rate, flush_after_s=2.0)
    before, after = info["before"], info["after"]
    assert after.state == "flushed"
    # The device stopped consuming within one block (+ the 5 ms fade, + a block in flight).
    extra_s = (after.played_samples - before.played_samples) / rate
    assert extra_s <= 2 * BLOCK_S + 0.005 + 1e-3, f"{extra_s * 1000:.1f} ms after flush"

    played16 = resample(int16_to_float32(loud[: after.played_samples]), rate, FS)
    lag, whole = _echo_delay(recorded, played16)
    # Judged window by window, as in the echo test: beside two busy processes a loopback
    # underrun once halved the whole-signal peak (0.67) of a path that carried the echo.
    peak = _windowed_peak(recorded, played16, lag)
    assert peak > 0.8, f"echo correlation {peak:.2f} (whole {whole:.2f})"
    # Where the recording should fall silent: after the echo of the last half second, found
    # near the whole-signal lag (a loopback underrun moves the rest of the echo by its
    # buffer's size: once in 12 runs here the echo ended 10-20 ms after the global lag said).
    win, search = FS // 2, int(0.06 * FS)
    lo = lag + len(played16) - win - search
    seg = recorded[lo:lag + len(played16) + search]
    found = int(np.argmax(np.correlate(seg, played16[-win:], mode="valid")))
    end_lag = lo + found - (len(played16) - win)
    stop = end_lag + len(played16)
    env = _envelope_db(recorded)
    tail = env[stop // 160 + 2 :]  # from 10-20 ms after the last played sample
    print(f"flush: {extra_s * 1000:.1f} ms consumed after flush; delay {lag / FS * 1000:.1f} ms"
          f" ({end_lag / FS * 1000:.1f} at the end);"
          f" peak {peak:.3f} (whole {whole:.3f}); tail max {np.max(tail):.1f} dB")
    assert len(tail) > 20 and np.max(tail) < -70, f"sound after flush: {np.max(tail):.1f} dB"
    # What was recorded matches the counter: the speech before `stop` is really there.
    heard = recorded[lag:stop]
    np.testing.assert_allclose(np.sqrt(np.mean(heard**2)), np.sqrt(np.mean(played16**2)),
                               rtol=0.15)


def test_stream_that_stops_is_a_device_error_and_reopen_falls_back(pulse_server: str) -> None:
    mic = MicInput("pulse", block_s=BLOCK_S)
    mic.start()
    try:
        mic.read(160, 1.0)
        mic._stream.abort()  # the device vanishing looks like this to us
        with pytest.raises(DeviceError) as err:
            mic.read(160, 0.1)
        assert err.value.code == "audio_device_lost" and "pulse" in err.value.message
        mic.device_name = "a headset that was unplugged"
        assert mic.reopen(retries=1, backoff_s=0.01) == "default input device"
        audio, adc = mic.read(1600, 2.0)
        assert len(audio) >= 1600 and adc is not None
    finally:
        mic.close()


def _play_through(dev, turn: TurnId, audio: np.ndarray, rate: int
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Queue ``audio`` from another thread (as the TTS worker does) and read the mic with
    its far-end reference until it has played: (near, far) at 16 kHz."""
    import threading

    feeder = threading.Thread(target=lambda: (dev.player.enqueue(turn, audio, rate),
                                              dev.player.end_turn(turn)))
    feeder.start()
    near, far = [], []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        block = dev.read(0.1)
        if block is not None:
            near.append(block[0])
            far.append(block[1])
        st = dev.player.status(turn)
        if st is not None and st.state == "finished" and sum(map(len, far)) > 2 * FS:
            break
    feeder.join(5)
    st = dev.player.status(turn)
    assert st is not None and st.state == "finished" and st.played_samples == len(audio), st
    return np.concatenate(near), np.concatenate(far)


def _read_for(dev, seconds: float) -> None:
    """Read the mic (and so run the device's checks) for ``seconds``, keeping nothing."""
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        dev.read(0.1)


def _reference_lag(near: np.ndarray, far: np.ndarray) -> tuple[int, float]:
    """(samples the echo in ``near`` comes after its reference ``far``, the median
    half-second correlation there): windowed, so one loopback underrun (PulseAudio's, see
    the echo test) does not hide a reference that is in place."""
    assert np.sqrt(np.mean(far**2)) > 0.01, "the reference holds no speech"
    size = 1 << (len(near) + len(far)).bit_length()
    xc = np.fft.irfft(np.fft.rfft(near, size) * np.conj(np.fft.rfft(far, size)), size)
    max_lag = int(0.3 * FS)
    lags = np.concatenate([xc[-max_lag:], xc[:max_lag]])
    lag = int(np.argmax(np.abs(lags))) - max_lag
    shifted = far[:len(far) - lag] if lag >= 0 else far[-lag:]
    start = max(lag, 0)
    return lag, _windowed_peak(near[start:], shifted, 0)


def test_an_idle_speaker_sleeps_and_wakes_in_step_with_its_echo(pulse_server: str) -> None:
    """Idle, the output stream stops (no callbacks, no device error); queued speech starts it
    again, plays whole, and the far-end reference comes just before its echo, where it
    came while the stream ran (measured first, in the same run: PulseAudio's loopback,
    the "room", grows its buffer after an underrun on a busy machine, up to its 150 ms
    cap, and the echo comes later for both)."""
    from desktop_agent.adapters.audio.device_audio import DeviceAudio

    dev = DeviceAudio("pulse", "pulse", sleep_after_s=None)
    dev.start()
    try:
        audio, rate = synth()
        _read_for(dev, 1.0)  # the stream settles, as between replies
        # Where the reference sits while the stream runs, once the delay tracker has placed
        # it: a play in which the tracker moved it (the echo came over 120 ms late: the
        # loopback had grown) measures a placement that no longer holds. A wake must
        # restore the one that holds.
        for attempt in range(3):
            shifted = dev.far.shifted
            running, running_peak = _reference_lag(
                *_play_through(dev, TurnId(1 + attempt), audio, rate))
            print(f"running: echo {running / FS * 1000:.1f} ms after its reference, "
                  f"peak {running_peak:.2f}; notes {list(dev.echo_notes)}")
            if dev.far.shifted == shifted:
                break
        assert dev.far.shifted == shifted, "the tracker kept moving the reference"
        # Only where the echo is, not how well it matches: on the first play after the
        # streams opened the median half-second match was 0.15-1.0 (11 runs; the delay
        # tracker still placing the reference, docs/known-limits.md); after a wake 0.97-1.0.
        assert 0 < running, "the echo came before its reference while the stream ran"

        dev.speaker.sleep_after_s = 0.3
        woken = []
        for attempt in range(3):  # a loopback underrun can spoil one play; not three
            deadline = time.monotonic() + 10
            while not dev.speaker.asleep and time.monotonic() < deadline:
                dev.read(0.1)
            assert dev.speaker.asleep, "the idle speaker kept running"
            if attempt == 0:
                written = dev.tap._ring.total_written
                _read_for(dev, 1.5)  # long enough for read() to check the stream
                assert dev.tap._ring.total_written == written, "a sleeping stream called back"
                assert not dev.speaker._stream.active and dev.speaker.wakes == 0
            lag, peak = _reference_lag(*_play_through(dev, TurnId(10 + attempt), audio, rate))
            assert dev.speaker.wakes == attempt + 1
            woken.append((lag, peak))
            print(f"after waking: echo {lag / FS * 1000:.1f} ms after its reference, "
                  f"peak {peak:.2f}; notes {list(dev.echo_notes)}")
            if peak > 0.5 and 0 < lag and abs(lag - running) <= int(0.02 * FS):
                break
        lag, peak = woken[-1]
        assert peak > 0.5, f"the reference does not match the echo: {woken}"
        assert 0 < lag and abs(lag - running) <= int(0.02 * FS), (
            f"echo {lag / FS * 1000:.0f} ms after its reference after waking, "
            f"{running / FS * 1000:.0f} ms while running: {woken}")
    finally:
        dev.stop()


def _loopback(*args: str) -> None:
    """Swap the room: the loopback ``speaker.monitor -> micsink`` anew with ``args``."""
    from tests.audio.pulse import pactl

    for line in pactl("list", "short", "modules").splitlines():
        if "module-loopback" in line:
            pactl("unload-module", line.split()[0])
    pactl("load-module", "module-loopback", "source=speaker.monitor", "sink=micsink", *args)


def test_a_wake_after_the_echo_moved_restores_the_reference_where_it_was_moved_to(
        pulse_server: str) -> None:
    """The echo comes 200 ms after its reference (as when the loopback grew its buffer on a
    busy machine, which failed the wake test above in CI): the delay tracker moves the
    reference to where the echo can be cancelled (5-120 ms before it). The stream sleeps
    before the tracker measured again; after the wake the echo is where it was moved to,
    not back at the 200 ms the tracker had measured before moving it."""
    from desktop_agent.adapters.audio.device_audio import DeviceAudio
    from tests.audio.pulse import LOOPBACK_ARGS

    _loopback("latency_msec=200", "max_latency_msec=300", "adjust_time=0")
    dev = DeviceAudio("pulse", "pulse", sleep_after_s=None)
    dev.start()
    try:
        audio, rate = synth()
        # Played until the tracker moves the reference, and cut there: it has not measured
        # again where it moved it (as when a reply ends just after the move).
        import threading

        # Two sentences (13 s): the tracker moved within the first in 16 of 16 plays on a
        # fresh stream, and in 7 of 9 test runs (a 1 s window's match was under 0.3 twice).
        feeder = threading.Thread(target=lambda: [dev.player.enqueue(TurnId(1), audio, rate)
                                                  for _ in range(2)])
        feeder.start()  # (as the TTS worker does: enqueue waits while the queue is full)
        deadline = time.monotonic() + 30
        near, far = [], []
        while (not any("canceller relearns" in note for note in dev.echo_notes)
               and time.monotonic() < deadline):
            block = dev.read(0.1)
            if block is not None:
                near.append(block[0])
                far.append(block[1])
        dev.player.flush(TurnId(1))
        feeder.join(5)
        print(f"running: notes {list(dev.echo_notes)}; tracker lag {dev.delay.lag}; "
              f"measured {_reference_lag(np.concatenate(near), np.concatenate(far))}")
        assert any("canceller relearns" in note for note in dev.echo_notes), "not moved"

        dev.speaker.sleep_after_s = 0.3
        deadline = time.monotonic() + 10
        while not dev.speaker.asleep and time.monotonic() < deadline:
            dev.read(0.1)
        assert dev.speaker.asleep
        lag, peak = _reference_lag(*_play_through(dev, TurnId(2), audio, rate))
        print(f"after waking: echo {lag / FS * 1000:.1f} ms after its reference, peak {peak:.2f};"
              f" notes {list(dev.echo_notes)}")
        assert dev.speaker.wakes == 1 and peak > 0.5
        assert 0 < lag <= int(0.12 * FS), f"echo {lag / FS * 1000:.0f} ms after its reference"
        # And from the wake on: restored, not moved away and then back (the canceller reset).
        after = list(dev.echo_notes)[list(dev.echo_notes).index("wake: reference placed anew"):]
        assert not any("canceller relearns" in note for note in after), after
    finally:
        dev.stop()
        _loopback(*LOOPBACK_ARGS)


def test_an_echo_that_moved_while_the_speaker_was_silent_goes_back_to_its_learnt_lag(
        pulse_server: str) -> None:
    """Between two replies the echo moves with no underrun or wake to say so (here: the
    room's loopback swapped for one 10 ms longer; in a real room, a speaker and a mic on
    separate clocks). The first sound after the silence is measured, and the reference is
    moved so that the echo sits at the lag the canceller learnt, to within a millisecond:
    its filter fits again at once instead of relearning for seconds."""
    from desktop_agent.adapters.audio.device_audio import DeviceAudio
    from tests.audio.pulse import LOOPBACK_ARGS

    dev = DeviceAudio("pulse", "pulse", sleep_after_s=None)
    dev.start()
    try:
        audio, rate = synth()
        for turn in range(1, 4):  # until the tracker agreed on a lag (one play, most runs)
            _play_through(dev, TurnId(turn), audio, rate)
            if dev.delay.lag is not None and not dev.delay.restoring:
                break
        learnt = dev.delay.lag
        assert learnt is not None and not dev.delay.restoring, list(dev.echo_notes)
        _loopback("latency_msec=40", "max_latency_msec=150", "adjust_time=0")
        _read_for(dev, 2.0)  # silence: longer than RECHECK_AFTER_S
        seen = len(dev.echo_notes)
        near, far = _play_through(dev, TurnId(9), audio, rate)
        half = len(near) // 2  # the check is over within the first second
        lag, peak = _reference_lag(near[half:], far[half:])
        notes = list(dev.echo_notes)[seen:]
        print(f"learnt {learnt / FS * 1000:.1f} ms; after the silence the echo came "
              f"{lag / FS * 1000:.1f} ms after its reference, peak {peak:.2f}; checks "
              f"{dev.delay.checks}; notes {notes}")
        assert peak > 0.5
        assert abs(lag - learnt) <= int(0.001 * FS), (
            f"echo {lag / FS * 1000:.1f} ms after its reference, learnt at "
            f"{learnt / FS * 1000:.1f} ms: {notes}")
        assert not any("relearns" in note for note in notes), notes
    finally:
        dev.stop()
        _loopback(*LOOPBACK_ARGS)
