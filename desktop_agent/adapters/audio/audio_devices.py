"""The sound devices PortAudio sees: the device list, and one found by its name.

sounddevice is imported lazily (a missing PortAudio is a DeviceError with the fix). A device
is chosen by a case-insensitive substring of its name (an exact name first), or the
system default; the streams on it are in ``audio_io``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from desktop_agent.core.errors import DeviceError

_PORTAUDIO_FIX: Final = "apt-get install libportaudio2 (and pip install sounddevice==0.5.6)"


def load_sounddevice() -> Any:
    """Import sounddevice lazily; a missing PortAudio becomes a DeviceError with the fix."""
    try:
        import sounddevice
    except (ImportError, OSError) as exc:
        raise DeviceError(
            "portaudio_missing", f"The audio library could not be loaded ({exc}).", _PORTAUDIO_FIX
        ) from exc
    return sounddevice


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """One PortAudio device as settings and the doctor show it."""

    index: int
    name: str
    hostapi: str
    input_channels: int
    output_channels: int
    default_samplerate: float
    is_default_input: bool = False
    is_default_output: bool = False


def list_devices() -> list[DeviceInfo]:
    """All devices, inputs and outputs (a device may be both). Runs on: any thread."""
    sd = load_sounddevice()
    hostapis = sd.query_hostapis()
    default_in, default_out = _default_indexes(sd)
    return [
        DeviceInfo(
            index=int(d["index"]),
            name=str(d["name"]),
            hostapi=str(hostapis[d["hostapi"]]["name"]),
            input_channels=int(d["max_input_channels"]),
            output_channels=int(d["max_output_channels"]),
            default_samplerate=float(d["default_samplerate"]),
            is_default_input=int(d["index"]) == default_in,
            is_default_output=int(d["index"]) == default_out,
        )
        for d in sd.query_devices()
    ]


def _default_indexes(sd: Any) -> tuple[int, int]:
    dev = sd.default.device
    return int(dev[0]), int(dev[1])


def find_device(name: str | None, kind: str) -> int | None:
    """Resolve a device by name substring for ``kind`` 'input' or 'output'.

    Args:
        name: case-insensitive substring; None or '' means the default device.
        kind: 'input' or 'output'.

    Returns:
        The PortAudio index, or None for the default device.

    Raises:
        DeviceError: ``audio_device_missing`` when nothing matches.
    """
    if not name:
        return None
    key = "input_channels" if kind == "input" else "output_channels"
    devices = [d for d in list_devices() if getattr(d, key) > 0]
    exact = [d for d in devices if d.name.lower() == name.lower()]
    matches = exact or [d for d in devices if name.lower() in d.name.lower()]
    if not matches:
        names = ", ".join(repr(d.name) for d in devices) or "none"
        raise DeviceError(
            "audio_device_missing",
            f"No {kind} device matches {name!r}. Available: {names}.",
            "Pick another device in Settings, or plug the device back in.",
        )
    return matches[0].index
