"""Acoustic echo cancellation with Debian's libspeexdsp, through our own ctypes binding.

Only ``libspeexdsp.so.1`` (Debian/Ubuntu package ``libspeexdsp1``) is needed at run
time; the constants below were checked against ``/usr/include/speex/speex_echo.h``
and ``speex_preprocess.h`` of speexdsp 1.2.1.

Signals are 16 kHz mono int16 in 10 ms frames (160 samples). The canceller needs the
far-end frame that was *played* at the same time the near-end frame was *captured*
(the echo path delay must fit inside ``filter_ms``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import math
import threading
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from desktop_agent.core.errors import DeviceError
from desktop_agent.core.ports import ASR_SAMPLE_RATE

_LOGGER = logging.getLogger(__name__)

SPEEX_ECHO_GET_FRAME_SIZE: Final = 3
SPEEX_ECHO_SET_SAMPLING_RATE: Final = 24
SPEEX_ECHO_GET_SAMPLING_RATE: Final = 25
SPEEX_PREPROCESS_SET_DENOISE: Final = 0
SPEEX_PREPROCESS_SET_AGC: Final = 2
SPEEX_PREPROCESS_SET_VAD: Final = 4
SPEEX_PREPROCESS_SET_DEREVERB: Final = 8
SPEEX_PREPROCESS_SET_NOISE_SUPPRESS: Final = 18
SPEEX_PREPROCESS_SET_ECHO_SUPPRESS: Final = 20
SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE: Final = 22
SPEEX_PREPROCESS_SET_ECHO_STATE: Final = 24

_LIB_NAME: Final = "libspeexdsp.so.1"
_INSTALL_FIX: Final = "apt-get install libspeexdsp1"

_lib: ctypes.CDLL | None = None
_lib_lock = threading.Lock()


def load_speexdsp(name: str = _LIB_NAME) -> ctypes.CDLL:
    """Load libspeexdsp once and declare the prototypes we use.

    Args:
        name: the shared library to load (tests pass a bogus name).

    Raises:
        DeviceError: code ``speexdsp_missing`` when the library cannot be loaded.
    """
    global _lib
    with _lib_lock:
        if _lib is not None and name == _LIB_NAME:
            return _lib
        candidates = [name]
        if name == _LIB_NAME:
            found = ctypes.util.find_library("speexdsp")
            if found:
                candidates.append(found)
        lib = None
        for cand in candidates:
            try:
                lib = ctypes.CDLL(cand)
                break
            except OSError:
                continue
        if lib is None:
            raise DeviceError(
                "speexdsp_missing",
                f"The echo canceller library {name} could not be loaded.",
                _INSTALL_FIX,
            )
        vp, i16p, i = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16), ctypes.c_int
        lib.speex_echo_state_init.restype = vp
        lib.speex_echo_state_init.argtypes = [i, i]
        lib.speex_echo_state_destroy.restype = None
        lib.speex_echo_state_destroy.argtypes = [vp]
        lib.speex_echo_cancellation.restype = None
        lib.speex_echo_cancellation.argtypes = [vp, i16p, i16p, i16p]
        lib.speex_echo_state_reset.restype = None
        lib.speex_echo_state_reset.argtypes = [vp]
        lib.speex_echo_ctl.restype = i
        lib.speex_echo_ctl.argtypes = [vp, i, vp]
        lib.speex_preprocess_state_init.restype = vp
        lib.speex_preprocess_state_init.argtypes = [i, i]
        lib.speex_preprocess_state_destroy.restype = None
        lib.speex_preprocess_state_destroy.argtypes = [vp]
        lib.speex_preprocess_run.restype = i
        lib.speex_preprocess_run.argtypes = [vp, i16p]
        lib.speex_preprocess_ctl.restype = i
        lib.speex_preprocess_ctl.argtypes = [vp, i, vp]
        if name == _LIB_NAME:
            _lib = lib
        return lib


def _i16_ptr(arr: npt.NDArray[np.int16]) -> Any:
    return arr.ctypes.data_as(ctypes.POINTER(ctypes.c_int16))


def _as_frame(x: Any, n: int, what: str) -> npt.NDArray[np.int16]:
    arr = np.ascontiguousarray(np.asarray(x).reshape(-1))
    if arr.dtype != np.int16:
        raise TypeError(f"{what} must be int16, got {arr.dtype}")
    if len(arr) != n:
        raise ValueError(f"{what} must have {n} samples, got {len(arr)}")
    return arr


class SpeexPreprocessor:
    """speexdsp's preprocessor: noise suppression and residual echo suppression.

    AGC is always off (level changes would confuse barge-in thresholds). When linked
    to a :class:`SpeexEchoCanceller` it also suppresses the echo the linear filter left.

    Runs on: the AEC worker thread (not thread-safe; one instance per stream).
    """

    def __init__(
        self,
        frame_samples: int = 160,
        sample_rate: int = ASR_SAMPLE_RATE,
        denoise: bool = True,
        noise_suppress_db: int = -15,
        echo_state: SpeexEchoCanceller | None = None,
        echo_suppress_db: int = -40,
        echo_suppress_active_db: int = -15,
    ) -> None:
        """Create a preprocessor.

        Args:
            frame_samples: samples per frame; must equal the echo canceller's.
            sample_rate: Hz.
            denoise: enable stationary noise suppression.
            noise_suppress_db: maximum noise attenuation (negative dB).
            echo_state: canceller to link for residual echo suppression, or None.
            echo_suppress_db: maximum residual echo attenuation (negative dB).
            echo_suppress_active_db: the same while near-end speech is active.
        """
        self._lib = load_speexdsp()
        self.frame_samples = frame_samples
        self._st = self._lib.speex_preprocess_state_init(frame_samples, sample_rate)
        if not self._st:
            raise DeviceError("speexdsp_init_failed", "speex_preprocess_state_init failed.")
        self._echo = echo_state
        self._ctl(SPEEX_PREPROCESS_SET_AGC, 0)
        self._ctl(SPEEX_PREPROCESS_SET_DENOISE, 1 if denoise else 0)
        self._ctl(SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, noise_suppress_db)
        if echo_state is not None:
            self._lib.speex_preprocess_ctl(
                self._st, SPEEX_PREPROCESS_SET_ECHO_STATE, echo_state.state_pointer
            )
            self._ctl(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, echo_suppress_db)
            self._ctl(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, echo_suppress_active_db)

    def _ctl(self, request: int, value: int) -> None:
        v = ctypes.c_int(int(value))
        if self._lib.speex_preprocess_ctl(self._st, request, ctypes.byref(v)) != 0:
            raise DeviceError("speexdsp_ctl_failed", f"speex_preprocess_ctl({request}) failed.")

    def process(self, frame: Any) -> npt.NDArray[np.int16]:
        """Return the processed copy of an int16 frame."""
        if not self._st:
            raise DeviceError("speexdsp_closed", "The preprocessor was closed.")
        buf = _as_frame(frame, self.frame_samples, "frame").copy()
        self._lib.speex_preprocess_run(self._st, _i16_ptr(buf))
        return buf

    def close(self) -> None:
        """Free the native state (idempotent)."""
        if getattr(self, "_st", None):
            self._lib.speex_preprocess_state_destroy(self._st)
            self._st = None
        self._echo = None

    def __del__(self) -> None:
        self.close()


class SpeexEchoCanceller:
    """speexdsp's MDF echo canceller, implementing ``core.ports.EchoCanceller``.

    Runs on: the AEC worker thread. ``process``, ``reset`` and ``close`` are
    serialised by a lock so a shutdown from another thread cannot free the state
    under a running frame.
    """

    def __init__(
        self,
        frame_samples: int = 160,
        filter_ms: int = 200,
        sample_rate: int = ASR_SAMPLE_RATE,
        residual_suppression: bool = True,
        denoise: bool = False,
        noise_suppress_db: int = -15,
    ) -> None:
        """Create a canceller.

        Args:
            frame_samples: samples per frame (160 = 10 ms at 16 kHz).
            filter_ms: echo tail the adaptive filter covers (delay + reverberation).
            sample_rate: Hz.
            residual_suppression: link a :class:`SpeexPreprocessor` that removes the
                residual (nonlinear) echo the linear filter leaves.
            denoise: also let that preprocessor suppress stationary noise by up to
                ``noise_suppress_db``. speexdsp only applies its spectral gains (echo
                suppression included) with its denoiser on, so residual suppression
                alone runs the denoiser with a 0 dB noise floor (no noise removal).
            noise_suppress_db: maximum noise attenuation when ``denoise`` is set.
        """
        self._lib = load_speexdsp()
        self.frame_samples = frame_samples
        self.sample_rate = sample_rate
        self.filter_length = int(round(filter_ms * sample_rate / 1000))
        self._lock = threading.Lock()
        self._st = self._lib.speex_echo_state_init(frame_samples, self.filter_length)
        if not self._st:
            raise DeviceError("speexdsp_init_failed", "speex_echo_state_init failed.")
        rate = ctypes.c_int(sample_rate)
        self._lib.speex_echo_ctl(self._st, SPEEX_ECHO_SET_SAMPLING_RATE, ctypes.byref(rate))
        self._pre: SpeexPreprocessor | None = None
        if residual_suppression or denoise:
            self._pre = SpeexPreprocessor(
                frame_samples,
                sample_rate,
                denoise=True,
                noise_suppress_db=noise_suppress_db if denoise else 0,
                echo_state=self if residual_suppression else None,
            )
        self._out = np.zeros(frame_samples, dtype=np.int16)

    @property
    def state_pointer(self) -> int:
        """The native ``SpeexEchoState*`` (for linking a preprocessor)."""
        return int(self._st or 0)

    def process(self, near: Any, far: Any) -> npt.NDArray[np.int16]:
        """Return the echo-cancelled ``near`` frame (int16), given the ``far`` frame played.

        Args:
            near: microphone frame, int16, ``frame_samples`` long.
            far: loudspeaker reference frame for the same instant, int16, same length.
        """
        return self.process_both(near, far)[1]

    def process_both(self, near: Any, far: Any
                     ) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
        """Like :meth:`process`, returning (the linear filter's output, the final output).

        The residual echo suppressor that follows the linear filter also attenuates a user
        who talks over a loud echo (10-20 dB for a quiet "Actually, ..."), so the power
        with which the user stands out is better read before it; the final output, with
        less echo left, is what the VAD and the ASR get.
        """
        n = _as_frame(near, self.frame_samples, "near")
        f = _as_frame(far, self.frame_samples, "far")
        with self._lock:
            if not self._st:
                raise DeviceError("speexdsp_closed", "The echo canceller was closed.")
            linear = np.empty(self.frame_samples, dtype=np.int16)
            self._lib.speex_echo_cancellation(self._st, _i16_ptr(n), _i16_ptr(f),
                                              _i16_ptr(linear))
            out = linear.copy()
            if self._pre is not None:
                self._lib.speex_preprocess_run(self._pre._st, _i16_ptr(out))
        return linear, out

    def process_signal(self, near: Any, far: Any) -> npt.NDArray[np.int16]:
        """Cancel a whole signal frame by frame (a convenience for tests and benches).

        A trailing partial frame is dropped.
        """
        n, f = np.asarray(near, np.int16), np.asarray(far, np.int16)
        k = self.frame_samples
        frames = min(len(n), len(f)) // k
        out = np.empty(frames * k, dtype=np.int16)
        for i in range(frames):
            out[i * k : (i + 1) * k] = self.process(n[i * k : (i + 1) * k], f[i * k : (i + 1) * k])
        return out

    def reset(self) -> None:
        """Forget the adapted echo path (e.g. after switching devices)."""
        with self._lock:
            if self._st:
                self._lib.speex_echo_state_reset(self._st)

    def close(self) -> None:
        """Free the native states (idempotent). The linked preprocessor goes first."""
        lock = getattr(self, "_lock", None)
        if lock is None:
            return
        with lock:
            if self._pre is not None:
                self._pre.close()
                self._pre = None
            if self._st:
                self._lib.speex_echo_state_destroy(self._st)
                self._st = None

    def __del__(self) -> None:
        self.close()


class EchoPath:
    """A live estimate of the echo return loss enhancement (ERLE) of the canceller.

    ERLE = 10*log10(mic power / output power), with both powers smoothed by an
    exponential moving average that only advances while the far end is active
    (its level is above ``far_active_dbfs``). Near-end speech during far-end
    activity lowers the estimate; it is a health figure, not a lab measurement.

    Runs on: the AEC worker thread.
    """

    def __init__(self, time_constant_s: float = 1.0, frame_s: float = 0.01,
                 far_active_dbfs: float = -50.0) -> None:
        """Create an estimator.

        Args:
            time_constant_s: smoothing time constant of the powers.
            frame_s: duration of one update frame.
            far_active_dbfs: far-end RMS level above which the far end counts as active.
        """
        self._alpha = 1.0 - math.exp(-frame_s / time_constant_s)
        self._far_thr = 10.0 ** (far_active_dbfs / 10.0)
        self._p_mic = 0.0
        self._p_out = 0.0
        self.active_frames = 0
        """Frames that contributed (far end active)."""

    def update(self, near: Any, out: Any, far: Any) -> float | None:
        """Account one frame; return the current ERLE in dB (None before any far-end activity).

        Args:
            near: the microphone frame fed to the canceller (int16 or float).
            out: the canceller's output frame.
            far: the far-end reference frame.
        """
        p_far = _power(far)
        if p_far > self._far_thr:
            a = self._alpha if self.active_frames else 1.0
            self._p_mic += a * (_power(near) - self._p_mic)
            self._p_out += a * (_power(out) - self._p_out)
            self.active_frames += 1
        return self.erle_db

    @property
    def erle_db(self) -> float | None:
        """The smoothed ERLE in dB, or None before the far end was ever active."""
        if not self.active_frames:
            return None
        return 10.0 * math.log10((self._p_mic + 1e-12) / (self._p_out + 1e-12))

    def reset(self) -> None:
        """Start over (e.g. after the canceller was reset)."""
        self._p_mic = self._p_out = 0.0
        self.active_frames = 0


def _power(x: Any) -> float:
    arr = np.asarray(x)
    scale = 32768.0 if arr.dtype == np.int16 else 1.0
    return float(np.mean(np.square(arr.astype(np.float64) / scale))) if arr.size else 0.0
